"""Where the in-process worker sources live (`workers/<language>/` in the repository)."""
from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def workers_root() -> Path:
    env = os.environ.get("PERFLAB_WORKERS")
    if env:
        return Path(env)
    # installed package: the wheel carries the workers in perflab/_workers
    packaged = Path(__file__).resolve().parent / "_workers"
    if packaged.is_dir():
        # In a checkout _workers is a symlink to workers/: hand out the real path, since runtimes
        # such as Node resolve symlinks and then no longer recognise their entry module.
        return packaged.resolve()
    return REPO_ROOT / "workers"


def worker_dir(language: str) -> Path:
    return workers_root() / language
