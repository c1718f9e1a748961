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
from .stats.contention import run_contention

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
        "launch_cost_s": res.launch_cost_s, "iteration_cost_s": res.iteration_cost_s,
        "output_bytes": res.output_bytes, "clock_resolution_ns": res.clock_resolution_ns,
        "worker_runtime": res.worker_runtime, "round_group": res.round_group,
        "judged_by": res.judged_by, "contention": res.contention,
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
        # the run's contention summary beside the machine it describes (stats/contention.py)
        "job": job.__dict__, "environment": {**environment, "contention": run_contention([r.result for r in rows])},
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


class DocumentError(Exception):
    """A results file that cannot be used; the message names the file and says why."""


def load_document(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DocumentError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise DocumentError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}); the file is "
                            "corrupt or truncated") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise DocumentError(f"{path}: not a perflab results document")
    version = doc.get("version")
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise DocumentError(f"{path}: written by a newer perflab (results version {version}); "
                            f"this perflab reads version {SCHEMA_VERSION}; upgrade perflab")
    if not isinstance(doc.get("cases"), list):
        raise DocumentError(f"{path}: has no 'cases' list; the file is truncated or damaged")
    return doc


def case_result_from_json(c: dict[str, Any]):
    """Rebuild a CaseResult (raw samples included) from its JSON form, e.g. to resume a run."""
    from .model import Benchmark, Case, CaseResult, Diagnostics, LaunchSamples, Runtime
    bench = Benchmark.from_json(c["benchmark"], c["benchmark"].get("language", ""))
    rt = c["runtime"]
    runtime = Runtime(name=rt["name"], language=rt["language"], version=rt["version"],
                      executable=rt["executable"], flags=tuple(rt.get("flags", ())),
                      env=tuple((rt.get("env") or {}).items()),
                      implementation=rt.get("implementation", ""))
    indices = {a.name: a.values.index(c["params"][a.name]) for a in bench.params}
    case = Case(bench, tuple(indices.items()), runtime)
    launches = []
    for ln in c.get("launches", []):
        ls = LaunchSamples(index=ln["index"], invocations=ln["invocations"], pid=ln.get("pid", 0),
                           cpu=ln.get("cpu"), cpu_share=ln.get("cpu_share"))
        ls.pilot = [tuple(p) for p in ln.get("pilot", [])]
        for k in ("warmup", "overhead", "workload", "workload_rounds", "overhead_rounds",
                  "workload_cpu", "overhead_cpu"):
            setattr(ls, k, list(ln.get(k, [])))
        launches.append(ls)
    d = c.get("diagnostics")
    diag = Diagnostics(**{k: d.get(k) for k in ("alloc_bytes_per_op", "allocs_per_op",
                                                "gc_per_1000_ops", "code_size", "code_address",
                                                "binary")},
                       notes=list(d.get("notes", []))) if d else None
    return CaseResult(case=case, launches=launches, diagnostics=diag, error=c.get("error"),
                      error_detail=c.get("error_detail", ""), output_bytes=c.get("output_bytes", 0),
                      wall_seconds=c.get("wall_seconds", 0.0), stop_reason=c.get("stop_reason", ""),
                      launch_cost_s=c.get("launch_cost_s", 0.0), iteration_cost_s=c.get("iteration_cost_s", 0.0),
                      clock_resolution_ns=c.get("clock_resolution_ns", 1.0),
                      worker_runtime=c.get("worker_runtime", {}),
                      round_group=int(c.get("round_group") or 0),
                      judged_by=str(c.get("judged_by") or ""),
                      contention=dict(c.get("contention") or {}))
