"""The default history store: one SQLite file (stdlib sqlite3)."""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from .base import Store, StoreError


class SQLiteStore(Store):
    def __init__(self, path: str):
        self.path = Path(path).expanduser()
        self.url = f"sqlite://{self.path}"
        super().__init__()

    def _connect(self):
        if not self.path.parent.exists():
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"{self.url}: cannot create its folder ({exc.strerror}); "
                                 "give --store sqlite:///writable/path.db") from None
        if self.path.exists() and not os.access(self.path, os.W_OK):
            raise StoreError(f"{self.url}: the history file is read-only; make it writable or "
                             "give another --store")
        # isolation_level=None: transactions are the ones this class begins (BEGIN IMMEDIATE below)
        conn = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None)
        conn.execute("PRAGMA foreign_keys = ON")
        try:
            conn.execute("PRAGMA journal_mode = WAL")  # readers never block the run that is writing
        except sqlite3.OperationalError as exc:
            # several processes creating the file at once: one of them switches it to WAL
            if "locked" not in str(exc):
                raise
        conn.isolation_level = ""  # back to the sqlite3 module's implicit transactions for writes
        return conn

    def _lock_for_schema(self, cur) -> None:
        cur.execute("BEGIN IMMEDIATE")  # the write lock, waiting up to the connect timeout for it

    def _insert_returning_id(self, cur, sql: str, values: tuple) -> int:
        cur.execute(sql, values)  # lastrowid works on every SQLite, RETURNING only from 3.35
        return int(cur.lastrowid)

    def _translate(self, exc: Exception) -> StoreError | None:
        if not isinstance(exc, sqlite3.Error):
            return None
        text = str(exc)
        if "locked" in text or "busy" in text:
            return StoreError(f"{self.url}: the history database is locked by another process; "
                              "wait for it or use another --store")
        if "readonly" in text or "read-only" in text:
            return StoreError(f"{self.url}: the history database is read-only; make it writable "
                              "or use another --store")
        if "not a database" in text or "malformed" in text:
            return StoreError(f"{self.url}: not a perflab history database ({text}); "
                              "move it away or use another --store")
        return StoreError(f"{self.url}: {text}")
