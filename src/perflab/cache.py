"""The per-user cache directory (runtime probes, provisioned runtimes, build outputs)."""
from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    base = os.environ.get("PERFLAB_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache"), "perflab")
    path = Path(base)
    path.mkdir(parents=True, exist_ok=True)
    return path
