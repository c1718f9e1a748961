"""The history of runs: every case with its raw samples, in SQLite (default) or PostgreSQL.

    open_store("sqlite:///abs/path/history.db")     # or sqlite://relative.db
    open_store("postgresql://user:pass@host/db")
    open_store(None)   → $PERFLAB_STORE, else the default SQLite file (see default_url)
    open_store("none") → None (no history)
"""
from __future__ import annotations

import os
from pathlib import Path

from .base import SCHEMA_VERSION, Store, StoreError

__all__ = ["open_store", "default_url", "Store", "StoreError", "SCHEMA_VERSION"]


def default_url() -> str:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return "sqlite://" + os.path.join(base, "perflab", "history.db")


def open_store(url: str | None) -> Store | None:
    url = url or os.environ.get("PERFLAB_STORE") or default_url()
    if url == "none":
        return None
    if url.startswith("sqlite://"):
        from .sqlite import SQLiteStore
        return SQLiteStore(url[len("sqlite://"):])
    if url.startswith(("postgresql://", "postgres://")):
        from .postgres import PostgresStore
        return PostgresStore(url)
    raise StoreError(f"--store {url}: unknown kind of store; use sqlite:///path/file.db, "
                     "postgresql://user:password@host/db or none")
