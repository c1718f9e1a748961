"""The history of runs: every case with its raw samples, in SQLite (default) or PostgreSQL.

    open_store("sqlite:///abs/path/history.db")     # or sqlite://relative.db
    open_store("postgresql://user:pass@host/db")
    open_store(None)   → $PERFLAB_STORE, else the project's SQLite file (see default_url)
    open_store("none") → None (no history)

The default history follows the project, so runs of unrelated projects never mix: it is
`.perflab/history.db` at the root of the git repository that holds the benchmarks (or the working
directory outside a repository).
"""
from __future__ import annotations

import os
from pathlib import Path

from .base import SCHEMA_VERSION, Store, StoreError

__all__ = ["open_store", "store_url", "default_url", "project_root", "legacy_path", "Store", "StoreError", "SCHEMA_VERSION"]


def project_root(start: Path | None = None) -> Path:
    """The root of the git repository holding `start` (a file or folder; default: the working
    directory), else the working directory itself."""
    here = Path(start or Path.cwd()).resolve()
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        if (folder / ".git").exists():  # a folder, or a file in worktrees and submodules
            return folder
    return Path.cwd().resolve()


def default_url(start: Path | None = None) -> str:
    return "sqlite://" + str(project_root(start) / ".perflab" / "history.db")


def legacy_path() -> Path:
    """Where perflab kept one history per user account before histories followed the project."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(base) / "perflab" / "history.db"


def store_url(url: str | None, project: Path | None = None) -> str:
    """The store a command uses: --store, else $PERFLAB_STORE, else the project's default."""
    return url or os.environ.get("PERFLAB_STORE") or default_url(project)


def open_store(url: str | None, project: Path | None = None, create: bool = True) -> Store | None:
    """`project`: a benchmark path whose repository holds the default history (default: cwd).
    `create=False` (commands that only read): a missing SQLite history is a StoreError, and nothing
    (file, folder, .gitignore) is made."""
    chosen = url or os.environ.get("PERFLAB_STORE")
    url = store_url(url, project)
    if not create and url.startswith("sqlite://"):
        path = Path(url[len("sqlite://"):]).expanduser()
        if not path.is_file():
            raise StoreError(f"no history at {path}: nothing has been stored there; run `perflab run` "
                             "first, or give --store sqlite:///path/to/history.db")
    folder = Path(url[len("sqlite://"):]).expanduser().parent if url.startswith("sqlite://") else None
    made_folder = folder is not None and not folder.exists()
    store = _open(url)
    # the default history's folder, or one perflab made for a chosen store (the project file's
    # `.perflab/history.db` in a fresh clone): it holds only the history, so it ignores itself in
    # git. A folder the user already had is left as it is.
    if folder is not None and (not chosen or made_folder) and folder.exists():
        _ignore_in_git(folder)
    return store


def _ignore_in_git(folder: Path) -> None:
    """The project's history is the user's data, not the project's source: a .gitignore in its folder
    keeps it out of `git status` (and out of the dirty flag of the next run's commit)."""
    ignore = folder / ".gitignore"
    if not ignore.exists():
        try:
            ignore.write_text("# perflab's history of this project (perflab history, perflab serve)\n*\n")
        except OSError:
            pass


def _open(url: str) -> Store | None:
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
