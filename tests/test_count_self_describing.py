"""The count's record names what it holds (`instructions_per_op`, `event_names`), carries the smallest
per-op figure a launch can tell from 0 (`resolution`), and an empty CPython benchmark counts 0 within
it: the overhead loop is put through the workload loop's runs before the measured pair, where it
used to be measured cold (−0.26 Ir/op on 3.12). The CPython check runs real valgrind."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from workerkit import private_cache  # noqa: F401 (autouse: builds go to a temporary perflab cache)

from perflab.engine.count import Counter
from perflab.engine.plan import Prepared
from perflab.measures import counts as arith
from perflab.measures.callgrind import NotCountable
from perflab.model import Benchmark, Case
from perflab.toolchains.python import PythonToolchain


def launch(workload_ir, overhead_ir, previous_ir, ops=100):
    workload, overhead = {"Ir": workload_ir, "I1mr": 1, "ILmr": 0}, {"Ir": overhead_ir, "I1mr": 1, "ILmr": 0}
    return {"invocations": ops, "iterations": 1, "workload": workload, "overhead": overhead,
            "per_op": arith.per_op(workload, overhead, ops),
            "resolution": arith.resolution({"Ir": previous_ir}, overhead, ops)}


def test_the_record_names_its_instructions_and_events():
    rec = arith.record(tool="callgrind", marker="m", pinned={}, tolerance=1e-4, wall_s=1.0,
                       launches=[launch(10_000, 5_000, 5_000)] * 2)
    assert rec["instructions_per_op"] == rec["per_op"]["Ir"] == 50.0
    assert rec["event_names"]["Ir"] == "instructions executed"
    assert set(rec["event_names"]) == {"Ir", "I1mr", "ILmr", "l1_misses", "ll_misses", "est_cycles"}
    assert rec["resolution"] == 0.0
    missing = arith.not_counted("stripped")
    assert missing["instructions_per_op"] is None and missing["event_names"] == {}


def test_the_resolution_is_what_two_overhead_runs_of_one_size_differ_by_per_op():
    rec = arith.record(tool="callgrind", marker="m", pinned={}, tolerance=1e-4, wall_s=1.0,
                       launches=[launch(10_030, 10_000, 10_300)] * 2)
    assert rec["resolution"] == pytest.approx(3.0)  # |10,300 − 10,000| / 100
    assert abs(rec["instructions_per_op"]) <= rec["resolution"]  # 0.3 Ir/op: 0 within it


def symbol_python():
    """A CPython 3.12+ that keeps its symbols (pyenv), or skip."""
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed (Debian package 'valgrind')")
    found = {r.name: r for r in PythonToolchain().discover_runtimes() if r.installed}
    for version in ("3.12", "3.13"):
        rt = found.get(f"python{version}")
        if rt is None:
            continue
        try:
            PythonToolchain().count_profile(rt)
        except NotCountable:
            continue
        return rt
    pytest.skip("no CPython 3.12+ with its symbols (a pyenv build)")


def test_an_empty_python_benchmark_counts_zero_within_its_resolution(tmp_path):
    rt = symbol_python()
    src = tmp_path / "bench_empty.py"
    src.write_text("def bench_empty():\n    pass\n")
    tc = PythonToolchain()
    prep = Prepared(rt, tc, spec=tc.prepare(rt, [src], tmp_path))
    bench = Benchmark(id="bench_empty.bench_empty", name="bench_empty", group="bench_empty",
                      language="python", file=str(src))
    rec = Counter({rt.label: prep}, 600, max_launches=2).count(Case(bench, (), rt))
    ir = rec["instructions_per_op"]
    assert rec["agreed"]
    assert abs(ir) <= max(rec["resolution"], rec["spread"] * abs(ir)), rec


def test_launches_near_zero_agree_within_their_resolution():
    # 0.019 and 0.025 Ir/op differ by a quarter, yet by less than what runs differ by (0.07)
    assert arith.agreeing_pair([0.019, 0.025], 1e-3) is None
    assert arith.agreeing_pair([0.019, 0.025], 1e-3, [0.07, 0.07]) == (0, 1)
