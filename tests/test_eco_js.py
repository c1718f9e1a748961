"""bench/eco/js_bench.py: how the JS corpus study pairs a perflab case with the record the original
harness left (by group and name), and when it names a cause for a difference: only when the recorded
figures show it (run-queue wait for contention, tinybench's measured per-call cost for what is timed).
Pure functions over fixed records: no timing here."""
from __future__ import annotations

import sys
from pathlib import Path

from workerkit import REPO

sys.path.insert(0, str(REPO / "bench"))

from eco import js_bench  # noqa: E402

FILE = Path("/x/benchmarks/basic.js")


def test_a_name_two_groups_reuse_is_matched_by_group():
    records = [{"group": "Small - slow-redact", "name": "basic paths", "mean_ns": 100},
               {"group": "Small - fast-redact", "name": "basic paths", "mean_ns": 50}]
    got = js_bench.native_record(records, {"name": "basic paths", "group": "Small - fast-redact"}, FILE)
    assert got["mean_ns"] == 50
    # a group perflab does not know: no pairing rather than the wrong one
    assert js_bench.native_record(records, {"name": "basic paths", "group": "other"}, FILE) is None


def test_no_harness_group_matches_perflabs_file_stem_group_and_a_unique_name_matches_alone():
    records = [{"group": "", "name": "parse", "mean_ns": 10}]
    assert js_bench.native_record(records, {"name": "parse", "group": "basic"}, FILE)["mean_ns"] == 10
    assert js_bench.native_record(records, {"name": "parse", "group": "Suite"}, FILE)["mean_ns"] == 10
    assert js_bench.native_record(records, {"name": "missing", "group": "basic"}, FILE) is None


def case(mean, preempted=0, walls=(1_000_000,) * 3, cpus=(1_000_000,) * 3, invocations=1000):
    return {"benchmark": {"ops_per_invoke": 1}, "estimate": {"mean": mean, "preempted": preempted},
            "launches": [{"invocations": invocations, "workload": list(walls), "workload_cpu": list(cpus)}]}


def test_contention_is_named_only_when_the_run_queue_wait_explains_the_gap():
    est = case(100.0, preempted=3)
    # waited 60 % of the wall time: 250 ns wall-clock, 100 ns without the waiting
    assert "contention" in js_bench.contention_cause(est, {"mean_ns": 250.0, "wait_share": 0.6})
    # a full CPU share and no waiting: never contention, whatever the ratio
    assert js_bench.contention_cause(est, {"mean_ns": 250.0, "wait_share": 0.0, "cpu_share": 1.0}) == ""
    # no schedstat (not Linux): nothing to show it
    assert js_bench.contention_cause(est, {"mean_ns": 250.0, "cpu_share": 0.1}) == ""
    # waiting that closes less than half the gap does not explain it
    assert js_bench.contention_cause(est, {"mean_ns": 250.0, "wait_share": 0.1}) == ""
    # perflab the slower while it ran on a CPU all along: the harness's waiting widens the gap
    assert js_bench.contention_cause(case(300.0), {"mean_ns": 250.0, "wait_share": 0.6}) == ""


def test_perflabs_own_waiting_is_named_from_its_launches():
    # every iteration waited (CPU share 0.05 at most): perflab set none aside; by CPU 500 ns per op
    waited = case(3000.0, walls=(10_000_000, 12_000_000, 300_000_000), cpus=(500_000, 450_000, 550_000))
    why = js_bench.contention_cause(waited, {"mean_ns": 550.0})
    assert "perflab's iterations" in why and "500 ns" in why
    # both sides waited: compared without the waiting on both (500 against 2000 × 0.25)
    assert "run queue" in js_bench.contention_cause(waited, {"mean_ns": 2000.0, "wait_share": 0.75})
    # iterations that ran on a CPU (share 1.0): not waiting
    assert js_bench.contention_cause(case(3000.0), {"mean_ns": 550.0}) == ""


def test_tinybench_per_call_cost_is_named_when_it_accounts_for_the_gap():
    native = {"mean_ns": 400.0, "async": False, "overhead_ns": {"sync": 290.0, "async": 900.0}}
    assert "what is timed" in js_bench.timer_overhead_cause({"mean": 110.0}, native)
    assert js_bench.timer_overhead_cause({"mean": 300.0}, native) == ""   # 290 ns would overshoot
    assert js_bench.timer_overhead_cause({"mean": 110.0}, {"mean_ns": 400.0}) == ""  # not measured
    async_native = {**native, "async": True, "mean_ns": 1500.0}
    assert "await" in js_bench.timer_overhead_cause({"mean": 650.0}, async_native)


def _case(mean, warm, work, launches=3):
    return {"estimate": {"mean": mean},
            "launches": [{"warmup": list(warm), "workload": list(work)} for _ in range(launches)]}


def test_rounds_above_the_warmup_level_are_named_only_when_the_samples_show_it_and_it_closes_the_gap():
    from eco.common import round_level_cause
    # rounds 1.5x the back-to-back warmup; at the warmup's level 100 ns, the harness read 105
    got = round_level_cause(_case(150, [300, 200, 100, 100, 100, 100], [150, 150, 150]), 105)
    assert "1.50x" in got and "100 ns" in got
    # the same rounds, but the harness read 150: nothing to explain
    assert round_level_cause(_case(150, [100] * 6, [150] * 3), 150) == ""
    # rounds at the warmup's level: the gap has another cause
    assert round_level_cause(_case(150, [150] * 6, [150] * 3), 100) == ""
    # too few samples to tell
    assert round_level_cause(_case(150, [100] * 3, [150] * 3), 100) == ""
