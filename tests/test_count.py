"""--measure instructions, with deterministic fakes: reading callgrind's dumps, the per-op arithmetic,
the pilot's plan, the stop rule, the group flow (not countable, failures), the table's columns and
the command line's errors. The real valgrind runs are in test_count_native.py."""
from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from fakes import make_case
from perflab.analysis import Row
from perflab.engine.count import CountFailed, Counter, plan_size, valgrind_message
from perflab.engine.measure import MeasuringEngine, parse_measure
from perflab.errors import UsageError, WorkerFailure
from perflab.measures import counts as arith
from perflab.measures.callgrind import CountProfile, NotCountable, parse_dump
from perflab.model import CaseResult
from perflab.report.table import build_table, csv_rows
from perflab.toolchains.base import LaunchSpec
from perflab.policy import DEFAULT

# the head and the end of a real dump (callgrind 3.19, --cache-sim=yes), its cost lines left out
DUMP = """# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 2148
cmd:  /root/.cache/perflab/cpp/c60e55afc2290f885336/perflab-bench
part: 1


desc: I1 cache: 32768 B, 64 B, 8-way associative
desc: D1 cache: 32768 B, 64 B, 8-way associative
desc: LL cache: 268435456 B, 64 B, direct-mapped

desc: Timerange: Basic block 0 - 378503
desc: Trigger: --dump-after=perflab_measured_region

positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
summary: 27800 187 118 43 5 0 30 1


ob=/usr/lib/x86_64-linux-gnu/libc.so.6
fl=./string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S
fn=__memcpy_avx_unaligned_erms
264 4
339 4 4

totals: 27800 187 118 43 5 0 30 1
"""


def test_parse_dump_reads_the_summary_and_fills_trailing_zero_events():
    ev = parse_dump(DUMP)
    assert ev == {"Ir": 27800, "Dr": 187, "Dw": 118, "I1mr": 43, "D1mr": 5, "D1mw": 0, "ILmr": 30,
                  "DLmr": 1, "DLmw": 0}
    assert parse_dump("events: Ir\ntotals: 12\n") == {"Ir": 12}
    with pytest.raises(ValueError):
        parse_dump("not a dump\n")


def test_per_op_is_workload_minus_overhead_over_ops_for_every_event_and_the_derived_figures():
    work = {"Ir": 10_600, "Dr": 3_100, "Dw": 1_100, "I1mr": 110, "D1mr": 220, "D1mw": 30,
            "ILmr": 13, "DLmr": 24, "DLmw": 3}
    empty = {"Ir": 600, "Dr": 100, "Dw": 100, "I1mr": 10, "D1mr": 20, "D1mw": 10, "ILmr": 3,
             "DLmr": 4, "DLmw": 3}
    p = arith.per_op(work, empty, 100)
    assert p["Ir"] == 100 and p["Dr"] == 30 and p["Dw"] == 10 and p["D1mr"] == 2
    assert p["l1_misses"] == pytest.approx(1 + 2 + 0.2)
    assert p["ll_misses"] == pytest.approx(0.1 + 0.2 + 0)
    # L1 hits + 5 × LL hits + 35 × RAM: (140 − 3.2) + 5 × (3.2 − 0.3) + 35 × 0.3
    assert p["est_cycles"] == pytest.approx(136.8 + 14.5 + 10.5)
    assert arith.per_op({"Ir": 50}, {"Ir": 10}, 4) == {"Ir": 10}  # no cache events: no derived ones


def test_pilot_grows_to_the_target_and_stops_at_half_of_it():
    assert plan_size(1_500_000, 100, 2_000_000) is None          # 3/4 of the target: measure at 100
    assert plan_size(8000, 10, 2_000_000) == 2500                # 800 instructions a call
    assert plan_size(100, 1, 10**12) == 1000                     # at most ×1000 a step
    assert plan_size(0, 1, 2_000_000) == 1000                    # nothing counted: grow, bounded
    assert plan_size(999_000, 1000, 2_000_000) == 2003           # just under half: at least the rest


def test_agreement_and_spread():
    assert arith.agreeing_pair([100.0, 100.005], 1e-4) == (0, 1)
    assert arith.agreeing_pair([100.0, 101.0, 100.001], 1e-4) == (0, 2)
    assert arith.agreeing_pair([100.0, 101.0, 102.0], 1e-4) is None
    assert arith.spread([100.0, 101.0, 102.0]) == pytest.approx(2 / 101)
    assert arith.agree(0.0, 0.0, 1e-4) and not arith.agree(0.0, 1e-9, 1e-4)


# -- the executor with a fake session: Ir of a run = fixed + per_call × calls (+ per launch) ---------

class FakeSession:
    """Stands for CountSession: each `run` returns events from a model, nothing is launched."""
    launches: list = []
    started = itertools.count()
    per_launch_extra: list[float] = []
    fail: BaseException | None = None

    def __init__(self, spec, profile, out_dir, benchmark_id, params, timeout=600.0):
        if FakeSession.fail is not None:
            raise FakeSession.fail
        self.index = next(FakeSession.started)  # atomic: the first two launches start side by side
        self.runs: list[tuple] = []
        FakeSession.launches.append(self.runs)

    def run(self, stage, invocations, iterations):
        self.runs.append((stage, invocations, iterations))
        calls = invocations * iterations
        extra = FakeSession.per_launch_extra[self.index] if self.index < len(FakeSession.per_launch_extra) else 0
        per_call = 5 if stage == "overhead" else 105 + extra
        return {"Ir": int(700 + per_call * calls), "Dr": 2 * calls, "Dw": calls, "I1mr": 1, "D1mr": 0,
                "D1mw": 0, "ILmr": 1, "DLmr": 0, "DLmw": 0}

    def finish(self):
        pass

    def close(self):
        pass


class FakeToolchain:
    def __init__(self, profile=None, reason=""):
        self.profile, self.reason = profile, reason

    def count_profile(self, runtime):
        if self.profile is None:
            raise NotCountable(self.reason)
        return self.profile

    def count_spec(self, spec, runtime, profile):
        return spec


def _counter(profile=CountProfile(marker="m"), reason="", runtime="rt1", **kw):
    prep = SimpleNamespace(runtime=None, toolchain=FakeToolchain(profile, reason),
                           spec=LaunchSpec(argv=["w"], load_paths=["f"]))
    FakeSession.launches, FakeSession.per_launch_extra, FakeSession.fail = [], [], None
    FakeSession.started = itertools.count()
    return Counter({runtime: prep}, timeout=5, session=FakeSession, **kw)


def test_two_agreeing_launches_stop_the_count_and_later_launches_replay_the_first():
    case = make_case()
    rec = _counter().count(case)
    assert len(rec["launches"]) == 2 and rec["agreed"] and rec["spread"] == 0.0
    assert rec["per_op"]["Ir"] == pytest.approx(100.0)  # (705 + 105 n) − (700 + 5 n), over n
    first, second = FakeSession.launches
    assert first == second  # the same requests in the same order
    n = first[-1][1]
    pilot = [r for r in first if r[0] == "pilot"]
    # the overhead loop is put through the workload loop's runs (pilot, warmup) before the pair
    history = [("overhead", *r[1:]) for r in pilot] + [("overhead", n, 1)]
    assert first[len(pilot):] == [("warmup", n, 1), *history, ("overhead", n, 1), ("workload", n, 1),
                                  ("workload", n, 1), ("overhead", n, 1)]
    assert 105 * n + 700 >= 1_000_000  # the measured run holds at least half of run_ir
    assert rec["events"][0] == "Ir" and set(rec["per_op"]) >= {"Ir", "l1_misses", "ll_misses", "est_cycles"}
    for ln in rec["launches"]:
        assert set(ln) == {"invocations", "iterations", "workload", "overhead", "per_op", "resolution"}
        assert ln["resolution"] == 0.0  # the fake's overhead runs of one size count alike


class DriftingEmptySession(FakeSession):
    """An empty benchmark on a runtime whose run's fixed part moves run after run: it drifts by
    `DRIFT` Ir a run (CPython 3.11: 100-125 Ir cheaper each run) and alternates by ±`SWING` (3.12:
    ±300 Ir). The workload loop costs what the overhead loop costs."""
    DRIFT, SWING = -100, 0

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.k = 0

    def run(self, stage, invocations, iterations):
        self.runs.append((stage, invocations, iterations))
        self.k += 1
        fixed = 100_000 + self.DRIFT * self.k + self.SWING * (-1) ** self.k
        return {"Ir": fixed + 5 * invocations * iterations}


@pytest.mark.parametrize("drift, swing", [(-100, 0), (0, 300), (-100, 300)])
def test_a_fixed_part_that_moves_run_after_run_is_not_charged_to_an_empty_benchmark(drift, swing):
    """O W W O: a drift or an alternation of a run's fixed part cancels, and an empty benchmark
    counts 0 (with one overhead run and then one workload run it counted the drift, −100 Ir a run,
    or the swing, ±600)."""
    c = _counter()
    DriftingEmptySession.DRIFT, DriftingEmptySession.SWING = drift, swing
    c.session = DriftingEmptySession
    rec = c.count(make_case())
    assert rec["per_op"]["Ir"] == 0.0
    assert rec["resolution"] > 0  # what two overhead runs of one size differ by, as before


def test_agreement_on_the_third_launch_and_never():
    case = make_case()
    c = _counter()
    FakeSession.per_launch_extra = [0.0, 1.0, 0.0]
    rec = c.count(case)
    assert len(rec["launches"]) == 3 and rec["agreed"] and rec["per_op"]["Ir"] == pytest.approx(100.0)
    c = _counter()
    FakeSession.per_launch_extra = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    rec = c.count(case)
    assert len(rec["launches"]) == DEFAULT.counts.max_launches and not rec["agreed"]
    assert rec["per_op"]["Ir"] == pytest.approx(102.0)  # the median
    assert rec["spread"] == pytest.approx(4 / 102)
    assert "no two of 5 launches agreed" in rec["note"]


def test_a_per_iteration_setup_benchmark_grows_by_iterations_and_ops_divide():
    rec = _counter().count(make_case(iteration_setup=True, ops=4))
    run = FakeSession.launches[0][-1]
    assert run[1] == 1 and run[2] > 1
    assert rec["per_op"]["Ir"] == pytest.approx(25.0)


def test_a_failing_launch_is_a_count_failure_with_valgrinds_words():
    c = _counter()
    FakeSession.fail = WorkerFailure("worker crashed (SIGSEGV)",
                                     "--- stderr ---\n==77== Process terminating with default action of "
                                     "signal 11 (SIGSEGV)\n==77==  Access not within mapped region\n")
    with pytest.raises(CountFailed) as exc:
        c.count(make_case())
    assert "worker crashed (SIGSEGV)" in exc.value.reason and "Process terminating" in exc.value.reason


def test_a_marker_not_reached_once_per_run_fails_the_count_with_a_short_reason():
    from perflab.measures.callgrind import DumpMismatch
    c = _counter()

    def no_dump(self, stage, invocations, iterations):
        raise DumpMismatch("callgrind wrote 0 dump(s) for 1 run(s): the worker's marker 'm' was not "
                           "called exactly once per run", "--- stderr ---\nlong output")
    FakeSession.run, real = no_dump, FakeSession.run
    try:
        with pytest.raises(CountFailed) as exc:
            c.count(make_case())
    finally:
        FakeSession.run = real
    assert exc.value.reason == ("under valgrind: callgrind wrote 0 dump(s) for 1 run(s): the worker's "
                                "marker 'm' was not called exactly once per run")
    assert "long output" in exc.value.detail


def test_valgrind_message_prefers_why_the_process_ended():
    assert valgrind_message("x\n==1== a\n==1== b\n") == "b"
    assert valgrind_message("==1== Process terminating with signal 6\n==1==  at abort\n==1== bye") == \
        "Process terminating with signal 6; at abort"
    assert valgrind_message("plain stderr") == ""


# -- the group flow ---------------------------------------------------------------------------------

class FakeEngine:
    def __init__(self, fail: set[str] = frozenset()):
        self.job, self.on_case_done, self.timed, self.fail = None, "unset", [], fail
        self.settled = 0

    def settle(self):
        self.settled += 1

    def run_group(self, cases):
        self.timed.append([c.key for c in cases])
        return [CaseResult(case=c, error="boom" if c.key in self.fail else None) for c in cases]


def test_instructions_only_counts_and_times_only_what_cannot_be_counted():
    a, b = make_case("a", runtime="rt1"), make_case("b", runtime="rt2")
    counter = _counter()
    counter.prepared["rt2"] = SimpleNamespace(runtime=None, toolchain=FakeToolchain(None, "no marker yet"),
                                              spec=None)
    engine, done = FakeEngine(), []
    out = MeasuringEngine(engine, counter, ("instructions",), on_case_done=done.append).run_group([a, b])
    assert engine.on_case_done is None and engine.timed == [[b.key]]
    assert engine.settled == 1  # the timed processes gone before counting starts its own
    assert [r.case.key for r in done] == [a.key, b.key]
    assert out[0].counts["agreed"] and out[0].stop_reason == "counts agreed" and out[0].ok
    assert out[1].counts["per_op"] is None and out[1].counts["note"] == "not counted: no marker yet"


def test_a_count_failure_fails_the_case_alone_or_leaves_its_time():
    a, b = make_case("a"), make_case("b")
    counter = _counter()
    real = counter.count
    counter.count = lambda case: (_ for _ in ()).throw(CountFailed("under valgrind: crashed", "tail")) \
        if case.key == a.key else real(case)
    out = MeasuringEngine(FakeEngine(), counter, ("instructions",)).run_group([a, b])
    assert out[0].error == "under valgrind: crashed" and out[0].error_detail == "tail"
    assert out[1].ok and out[1].counts["agreed"]
    out = MeasuringEngine(FakeEngine(), counter, ("time", "instructions")).run_group([a, b])
    assert out[0].ok and out[0].counts["error"] == "under valgrind: crashed"
    out = MeasuringEngine(FakeEngine(fail={a.key}), counter, ("time", "instructions")).run_group([a, b])
    assert out[0].error == "boom" and out[0].counts is None  # a case that failed timing is not counted


def test_parse_measure():
    assert parse_measure(None) == ("time",)
    assert parse_measure("instructions,time") == ("time", "instructions")
    assert parse_measure(["instructions"]) == ("instructions",)
    with pytest.raises(UsageError, match="--measure: unknown measure 'cycles'"):
        parse_measure("time,cycles")


# -- the table --------------------------------------------------------------------------------------

def _counted(case, ir, agreed=True, spread=0.0, error=None, ok=True):
    res = CaseResult(case=case, error=None if ok else "x")
    res.counts = {"per_op": {"Ir": ir, "l1_misses": 0.5, "ll_misses": 0.01, "est_cycles": ir * 1.1},
                  "agreed": agreed, "spread": spread, "error": error, "note": ""}
    return Row(res)


def test_the_table_shows_counts_in_their_own_columns_with_a_ratio_to_the_baseline():
    base, other = make_case("base", baseline=True), make_case("other")
    rows = [_counted(base, 1000.0), _counted(other, 2500.0, agreed=False, spread=0.004)]
    rows[0].baseline_key = rows[1].baseline_key = rows[0].key
    t = build_table(rows)
    assert t.columns == ["Method", "Instructions", "Instr. Ratio", "Est. Cycles", "L1 Miss", "LL Miss"]
    assert t.rows[0][1:3] == ["1,000", "1.000"] and t.rows[1][1:3] == ["2,500 ±0.40%", "2.500"]
    t = build_table(rows, {"est. cycles", "l1 miss", "ll miss"})
    assert t.columns == ["Method", "Instructions", "Instr. Ratio"]
    columns, data = csv_rows(rows)
    from perflab.report.counts import header_line
    rows[0].result.counts["tolerance"] = rows[1].result.counts["tolerance"] = 1e-4
    rows[0].result.counts.update(tool="callgrind (valgrind-3.19.0)", pinned={"aslr": "off"})
    assert header_line(rows) == ("Counted=callgrind (valgrind-3.19.0)  CacheSim=on  ASLR=off  "
                                 "Launches=until two agree within 0.01% (at most 5)")
    assert data[1]["instructions"] == 2500.0 and data[1]["instr_ratio"] == 2.5
    assert data[1]["instructions_agreed"] is False


def test_time_columns_stay_time_and_a_failed_count_is_a_note():
    from perflab.stats import estimate
    from perflab.model import LaunchSamples
    case = make_case("a")
    res = CaseResult(case=case, launches=[LaunchSamples(index=0, invocations=10, workload=[1000] * 20,
                                                        overhead=[10] * 5)])
    res.counts = {**arith.not_counted("crashed"), "error": "under valgrind: crashed", "note": ""}
    row = Row(res, estimate=estimate(res.launches, 1, 0.999))
    t = build_table([row])
    assert t.columns[:5] == ["Method", "Mean", "Error", "StdDev", "Median"] and "Instructions" not in t.columns
    assert t.legend == ["[1] a() rt1: counting failed: under valgrind: crashed"]


def test_counts_survive_the_results_document():
    from perflab.results import case_result_from_json, row_to_json
    row = _counted(make_case("a"), 1234.5)
    back = case_result_from_json(row_to_json(row))
    assert back.counts == row.result.counts


# -- the command line -------------------------------------------------------------------------------

def _perflab(*args, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "perflab.cli", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)


def test_without_valgrind_the_run_stops_before_anything_runs_naming_the_debian_package(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    env = {**os.environ, "PATH": str(bin_dir),
           "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    r = _perflab("run", "--measure", "instructions", str(tmp_path), env=env)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert "valgrind" in r.stderr and "apt-get install valgrind" in r.stderr


def test_a_bad_measure_is_one_line_naming_the_flag_or_the_file(tmp_path):
    r = _perflab("run", "--measure", "cycles", str(tmp_path))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "--measure: unknown measure 'cycles'" in r.stderr
    (tmp_path / "perflab.toml").write_text('measure = "wall"\n')
    (tmp_path / ".git").mkdir()
    r = _perflab("run", cwd=tmp_path)
    assert r.returncode == 2 and "perflab.toml" in r.stderr and "'measure'" in r.stderr, r.stderr


def test_dumps_are_read_from_the_one_process_that_called_the_marker(tmp_path):
    """A launcher in front of the worker (Go's mux) writes only its final dump; the worker's numbered
    dumps are the runs. Numbered dumps from two processes in one launch folder are an error."""
    from perflab.measures.callgrind import DumpMismatch, dump_files
    (tmp_path / "callgrind.100").write_text("events: Ir\nsummary: 5\n")  # the launcher, at exit
    for n in (2, 1, 10):
        (tmp_path / f"callgrind.101.{n}").write_text(f"events: Ir\nsummary: {n}\n")
    assert [p.name for p in dump_files(tmp_path)] == ["callgrind.101.1", "callgrind.101.2", "callgrind.101.10"]
    assert dump_files(tmp_path, 100) == []
    (tmp_path / "callgrind.102.1").write_text("events: Ir\nsummary: 1\n")
    with pytest.raises(DumpMismatch, match="2 processes"):
        dump_files(tmp_path)
