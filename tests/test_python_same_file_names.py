"""Two Python benchmark files with the same file name in different folders (`a/bench_count.py`,
`b/bench_count.py`): each file's benchmarks keep their own id, group and results, in the worker that
loads every file, in a launch that loads one, and under counting. The second file's module was named
from how many modules were loaded (`bench_count_121`), which a launch loading that file alone did not
reproduce: "benchmark bench_count_121.bench_x not found when relaunched"."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from workerkit import REPO  # noqa: F401 - the source tree on sys.path when perflab is not installed

from perflab.measures.callgrind import ValgrindMissing, valgrind_path


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "benches"
    for folder, n in (("a", 10), ("b", 1000)):
        (root / folder).mkdir(parents=True)
        (root / folder / "bench_count.py").write_text(f"def bench_x():\n    return sum(range({n}))\n")
    (root / "bench_alone.py").write_text("def bench_y():\n    return 1\n")
    return root


def test_only_files_that_share_a_name_are_named_by_their_path(tmp_path):
    from perflab.toolchains.python import clashing_module_names
    root = _tree(tmp_path)
    files = sorted(root.rglob("*.py"))
    names = clashing_module_names(files, root)
    assert sorted(names.values()) == ["a.bench_count", "b.bench_count"]
    assert str(root / "bench_alone.py") not in names


def _run(root: Path, tmp_path: Path, *extra: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "perflab.cli", "run", str(root), "--job", "dry",
                           "--store", "none", "--out", str(tmp_path / "out"), "--json", "--quiet",
                           *extra], capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_same_named_files_are_measured_apart(tmp_path):
    doc = _run(_tree(tmp_path), tmp_path)
    cases = {c["benchmark"]["id"]: c for c in doc["cases"]}
    assert sorted(cases) == ["a.bench_count.bench_x", "b.bench_count.bench_x", "bench_alone.bench_y"]
    assert all(c["status"] == "ok" for c in cases.values()), [c.get("error") for c in cases.values()]
    assert cases["a.bench_count.bench_x"]["benchmark"]["file"].endswith("a/bench_count.py")
    assert cases["b.bench_count.bench_x"]["benchmark"]["file"].endswith("b/bench_count.py")
    # distinct results: the groups differ, so do the keys the history stores them under
    assert len({(c["benchmark"]["group"], c["benchmark"]["name"]) for c in cases.values()}) == 3


def test_same_named_files_are_counted_apart(tmp_path):
    try:
        valgrind_path()
    except ValgrindMissing:
        pytest.skip("valgrind is not installed")
    doc = _run(_tree(tmp_path), tmp_path, "--measure", "instructions", "--filter", "*bench_x")
    counted = {c["benchmark"]["group"]: c for c in doc["cases"]}
    assert sorted(counted) == ["a.bench_count", "b.bench_count"]
    a, b = (counted[g]["counts"]["instructions_per_op"] for g in ("a.bench_count", "b.bench_count"))
    assert a and b and b > 5 * a  # each counted its own file: sum(range(1000)) against sum(range(10))
