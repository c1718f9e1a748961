"""The results document: versioned JSON holding every raw sample, the judgement, and the environment.

Written atomically (a temporary file in the same folder, then rename), and rewritten as cases finish,
so an interrupted run keeps everything measured so far.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from . import __version__
from .analysis import Row
from .jobs import Job

SCHEMA = "perflab.results"
SCHEMA_VERSION = 1


def row_to_json(row: Row) -> dict[str, Any]:
    res = row.result
    c = res.case
    return {
        "key": c.key,
        "benchmark": c.benchmark.to_json(),
        "params": c.param_values,
        "runtime": c.runtime.to_json(),
        "status": "ok" if res.ok else "failed",
        "error": res.error, "error_detail": res.error_detail,
        "stop_reason": res.stop_reason, "wall_seconds": res.wall_seconds,
        "output_bytes": res.output_bytes, "clock_resolution_ns": res.clock_resolution_ns,
        "worker_runtime": res.worker_runtime,
        "launches": [ln.to_json() for ln in res.launches],
        "diagnostics": res.diagnostics.to_json() if res.diagnostics else None,
        "estimate": row.estimate.to_json() if row.estimate else None,
        "baseline": row.baseline_key, "is_baseline": row.is_baseline,
        "ratio": row.ratio.to_json() if row.ratio else None,
        "alloc_ratio": row.alloc_ratio,
        "warnings": row.warnings, "notes": row.notes,
    }


def document(rows: list[Row], job: Job, environment: dict, command: list[str],
             started: dt.datetime, complete: bool, errors: list[str] | None = None) -> dict[str, Any]:
    return {
        "schema": SCHEMA, "version": SCHEMA_VERSION, "perflab_version": __version__,
        "started": started.isoformat(timespec="seconds"),
        "written": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "complete": complete, "command": command,
        "job": job.__dict__, "environment": environment,
        "errors": errors or [],
        "cases": [row_to_json(r) for r in rows],
    }


def write_atomic(path: Path, doc: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1, allow_nan=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
