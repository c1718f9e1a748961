"""Helpers shared by the bench/ scripts: run perflab as a user would and read its JSON document."""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path


def write_bench(folder: Path, name: str, source: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return path


def perflab_run(path: Path, *args: str) -> tuple[dict, float]:
    """Run `perflab run`, return (results document, wall seconds of the whole command)."""
    out = Path(tempfile.mkdtemp(prefix="perflab-bench-"))
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "perflab.cli", "run", str(path), "--exporters",
                           "json", "-o", str(out), *args], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"perflab failed ({proc.returncode}):\n{proc.stderr}")
    [doc_path] = out.glob("perflab-*.json")
    return json.loads(doc_path.read_text()), wall


def called_different(value: float, ci_low: float, ci_high: float) -> bool:
    """A ratio's verdict as `perflab compare` gives one: its interval excludes 1.00 and it is more than
    compare's noise threshold (2 %) away from 1.00."""
    from perflab.compare import DEFAULT_THRESHOLD
    return not (ci_low <= 1.0 <= ci_high) and abs(value - 1.0) > DEFAULT_THRESHOLD


def host_python() -> str:
    return sys.executable
