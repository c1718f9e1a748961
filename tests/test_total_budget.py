"""`perflab run --budget-total` (engine/total_budget.py): overheads charged, time-outs bounded by a
case's share, cases that timed out last time skipped — with a fake clock, fake groups, fake workers
and a real SQLite history."""
import dataclasses
import random
from types import SimpleNamespace

import pytest

from perflab.engine.runner import Engine
from perflab.engine.total_budget import (SKIPPED, Overheads, TotalBudget,
                                         budget_scale, reply_timeout, skip_timed_out)
from perflab.jobs import get_job
from perflab.store import open_store
from perflab.policy import DEFAULT

from fakes import FakeClock, FakeWorker, make_case
from test_store import case_doc, new_run


def _groups(*spec):
    return [[SimpleNamespace(runtime=SimpleNamespace(language=lang))] * n for lang, n in spec]


def test_the_overhead_of_each_case_is_charged_before_the_budgets_are_shared():
    groups = _groups(("python", 2), ("java", 2))      # nominal: 2×2 + 2×6 = 16 s
    assert budget_scale(8.0, groups, 2.0, {"java": 6.0}) == pytest.approx(0.5)
    # a second beyond its budget per case: 4 s of the 8 go to overheads, 4 s are shared
    assert budget_scale(8.0, groups, 2.0, {"java": 6.0}, {"python": 1.0, "java": 1.0}) == pytest.approx(0.25)
    assert budget_scale(3.0, groups, 2.0, {"java": 6.0}, {"python": 1.0, "java": 1.0}) == DEFAULT.budget.min_budget_scale


def test_overheads_are_a_median_per_language_and_a_first_guess_for_the_others():
    o = Overheads()
    assert o.per_case(["python"]) == {"python": 0.0}  # nothing seen: nothing to charge
    o.add("python", 2, 6.0, 2.0)      # 3 s a case: 1 s beyond its budget
    o.add("python", 1, 62.0, 2.0)     # a case that ran away: paid once, by the clock
    o.add("python", 2, 5.0, 2.0)      # 0.5 s beyond
    o.add("python", 1, 1.0, 2.0)      # under its budget: no negative overhead
    assert o.per_case(["python", "java"]) == {"python": pytest.approx(0.75), "java": pytest.approx(0.75)}


def _spend(total_s, overhead_s, groups, charge=True):
    """A run under --budget-total where each case takes its budget plus `overhead_s`: (its wall time,
    the budget each group got)."""
    clock = FakeClock()
    tb = TotalBudget(total_s, 0.0, {"java": 6.0}, clock=clock)
    job, budgets = get_job("short"), []
    for i, g in enumerate(groups):
        j = tb.job_for(job, groups[i:])
        budgets.append(j.budget_s)
        wall = len(g) * (j.budget_s + overhead_s)
        clock.t += wall
        if charge:
            tb.charge(g, j, wall)
    return clock.t, budgets


def test_the_total_is_held_and_shared_evenly_when_every_case_costs_more_than_its_budget():
    groups = _groups(*[("python", 2), ("python", 2), ("java", 2)] * 20)  # nominal 400 s
    wall, budgets = _spend(300.0, 1.5, groups)
    assert wall <= 1.05 * 300.0
    python = budgets[3::3]  # once a first group has shown what a case costs beyond its budget,
    assert min(python) >= 0.9 * max(python)  # the last cases get the share the first ones got
    # the rule this replaces (budgets alone, the clock correcting them) gave the first cases their
    # whole budget and squeezed the last ones to what was left, over the total all the same
    wall, budgets = _spend(300.0, 1.5, groups, charge=False)
    assert wall > 1.05 * 300.0 and min(budgets[3::3]) < 0.5 * max(budgets[3::3])


def test_a_case_waits_for_a_reply_at_most_a_few_shares():
    assert reply_timeout(0.2) == DEFAULT.budget.timeout_floor_s and reply_timeout(20.0) == pytest.approx(60.0)
    clock = FakeClock()
    tb = TotalBudget(10.0, 0.0, {}, clock=clock)
    j = tb.job_for(get_job("short"), _groups(("python", 10)))  # 1 s a case: the floor
    assert j.budget_s == pytest.approx(1.0) and j.timeout_s == j.timeout_cap_s == DEFAULT.budget.timeout_floor_s
    mine = TotalBudget(10.0, 0.0, {}, fixed_timeout=True, clock=clock)  # --timeout given: the user's
    assert mine.job_for(get_job("short", timeout_s=300.0), _groups(("python", 10))).timeout_s == 300.0


def test_the_engine_never_waits_past_the_cap_however_slow_the_calls():
    def waits(job):
        clock, seen = FakeClock(), []

        class Recording(FakeWorker):
            def run(self, stage, invocations, iterations, timeout):
                seen.append(timeout)
                return super().run(stage, invocations, iterations, timeout)

        Engine(job, lambda c, i: Recording(clock, per_call_ns=17e9, seed=i), clock=clock,
               rng=random.Random(1)).run_group([make_case()])
        return seen

    job = get_job("short", budget_s=2.0)
    assert max(waits(job)) > 60.0  # a 17 s call: ten times what it is expected to take
    capped = dataclasses.replace(job, timeout_s=10.0, timeout_cap_s=10.0)
    assert max(waits(capped)) == 10.0


def test_a_case_whose_latest_attempt_timed_out_is_skipped_with_the_run_named(tmp_path):
    store = open_store(f"sqlite://{tmp_path / 'h.db'}")
    slow, fine, flaky = (make_case(n, runtime="rt1") for n in ("slow", "fine", "flaky"))
    r1 = new_run(store)
    store.add_cases(r1, [{**case_doc(slow.key, status="failed"), "error": "timed out after 60.0s"},
                         {**case_doc(flaky.key, status="failed"), "error": "timed out after 60.0s"},
                         case_doc(fine.key)])
    r2 = new_run(store)  # flaky was measured since; slow was skipped since (not an attempt)
    store.add_cases(r2, [case_doc(flaky.key),
                         {**case_doc(slow.key, status="failed"), "error": f"{SKIPPED} timed out in run #{r1}"}])
    groups, skipped = skip_timed_out([[slow, fine], [flaky]], store)
    assert groups == [[fine], [flaky]]
    [(case, why)] = skipped
    assert case is slow and why.startswith(SKIPPED) and f"run #{r1}" in why and "timed out after 60.0s" in why
    assert "--filter 'g.slow'" in why and "--runtimes 'rt1'" in why


def test_a_timed_out_case_is_tried_again_after_a_few_runs_skipped_it(tmp_path):
    """A time-out may have been the machine's: the skip must not hide the case for ever."""
    store = open_store(f"sqlite://{tmp_path / 'h.db'}")
    slow = make_case("slow")
    r1 = new_run(store)
    store.add_cases(r1, [{**case_doc(slow.key, status="failed"), "error": "timed out after 10.0s"}])
    for n in range(DEFAULT.budget.retry_after_skips):
        assert skip_timed_out([[slow]], store)[0] == [], n  # still skipped
        store.add_cases(new_run(store), [{**case_doc(slow.key, status="failed"),
                                          "error": f"{SKIPPED} timed out in run #{r1}"}])
    assert skip_timed_out([[slow]], store) == ([[slow]], [])
    # tried again, it timed out again: skipped anew
    store.add_cases(new_run(store), [{**case_doc(slow.key, status="failed"), "error": "timed out after 10.0s"}])
    assert skip_timed_out([[slow]], store)[0] == []


def test_a_failure_that_is_not_a_timeout_is_measured_again(tmp_path):
    store = open_store(f"sqlite://{tmp_path / 'h.db'}")
    crash = make_case("crash")
    store.add_cases(new_run(store), [{**case_doc(crash.key, status="failed"), "error": "worker exited (code 1)"}])
    assert skip_timed_out([[crash]], store) == ([[crash]], [])


def test_the_cases_a_claim_stands_on_come_first_with_a_full_share():
    ref, deciding = (SimpleNamespace(runtime=SimpleNamespace(language="python"), claim=k) for k in (False, True))
    groups = [[ref, ref], [deciding, deciding], [ref]]
    clock = FakeClock()
    tb = TotalBudget(3.0, 0.0, {}, favoured=lambda c: c.claim, clock=clock)
    ordered = tb.order(groups)
    assert ordered == [groups[1], groups[0], groups[2]]  # otherwise in the plan's order
    # weighted nominal: 2×2 + 3×2×0.25 = 5.5 s for 3 s: a deciding case gets 4× a reference one
    first = tb.job_for(get_job("short"), ordered)
    clock.t += 2 * first.budget_s  # the deciding group took its share
    second = tb.job_for(get_job("short"), ordered[1:])
    assert first.budget_s == pytest.approx(2.0 * 3.0 / 5.5) and second.budget_s == pytest.approx(first.budget_s / 4)
    clock.t = 10.0  # overrun: a reference case gets the floor every case has, not a quarter of it
    assert tb.job_for(get_job("short"), ordered[1:]).budget_s == pytest.approx(2.0 * DEFAULT.budget.min_budget_scale)
    everyone = TotalBudget(1.5, 0.0, {}, clock=FakeClock())  # nothing favoured: one share for all
    assert everyone.order(groups) == groups and everyone.job_for(get_job("short"), groups).budget_s == pytest.approx(2.0 * 1.5 / 10)


def test_a_planned_case_carries_a_claim_from_its_meta_or_the_registry():
    from perflab.report.claims import carries_claim
    case = make_case("GetBytes")
    assert not carries_claim(case)
    case.benchmark.meta.update(seed="000", section="Cryptography")  # a registry entry
    assert carries_claim(case)
    go = make_case("BenchmarkGetBytes")
    go.benchmark.meta.update(seed="000", section="Cryptography")  # Go's name for the same method
    assert carries_claim(go)


def test_run_under_a_total_bounds_a_hang_by_its_share_then_skips_it_next_time(tmp_path):
    """End to end with the real Python worker: a benchmark that hangs waits the capped time-out, not
    the job's 60 s; the next run under --budget-total skips it, naming the run, and measures the rest."""
    from test_cli import FIX, only_json, perflab
    store = f"sqlite://{tmp_path / 'h.db'}"
    args = ["run", str(FIX / "faults"), "--job", "dry", "--filter", "*hangs*", "--filter", "*also_fine*",
            "--budget-total", "60", "--store", store]
    r = perflab(*args, "-o", str(tmp_path / "1"))
    cases = {c["benchmark"]["name"]: c for c in only_json(tmp_path / "1")["cases"]}
    assert cases["hangs"]["error"] == f"timed out after {DEFAULT.budget.timeout_floor_s:.1f}s", r.stderr
    r = perflab(*args, "-o", str(tmp_path / "2"))
    cases = {c["benchmark"]["name"]: c for c in only_json(tmp_path / "2")["cases"]}
    assert cases["hangs"]["error"].startswith(f"{SKIPPED} timed out in run #1 (timed out after 10.0s)")
    assert cases["also_fine"]["status"] == "ok" and "1 case(s) skipped" in r.stderr


def test_only_cases_that_can_decide_their_claim_in_this_run_are_favoured():
    """A version claim is decided by a family's two versions, not by a gcc → clang pair or by one
    runtime with two sets of flags (Mono and its interpreter); a claim of two methods by the newest."""
    from perflab.model import Runtime
    from perflab.report.claims import decides_in

    def rt(name, language, flags=(), impl=""):
        return Runtime(name=name, language=language, version="1", executable="/bin/true", flags=flags,
                       implementation=impl)

    def case(bench, runtime, **meta):
        c = make_case(bench)
        c.benchmark.meta.update(meta)
        return dataclasses.replace(c, runtime=runtime)

    node18, node20, node24 = rt("node18", "node"), rt("node20", "node"), rt("node24", "node")
    gcc, clang = rt("gcc12", "cpp", impl="GCC"), rt("clang14", "cpp", impl="Clang")
    mono, interp = rt("mono", "csharp"), rt("mono", "csharp", flags=("--interpreter",))
    favoured = decides_in([node18, node20, node24, gcc, clang, mono, interp])
    version_claim = dict(seed="000", section="Cryptography")  # GetBytes: a registry entry, versions
    assert favoured(case("GetBytes", node18, **version_claim)) and favoured(case("GetBytes", node24, **version_claim))
    assert not favoured(case("GetBytes", node20, **version_claim))  # not an end of the pair
    assert not favoured(case("GetBytes", clang, **version_claim))
    assert not favoured(case("GetBytes", interp, **version_claim))
    assert not favoured(case("Unclaimed", node24))
    methods = {"text": "Write → WriteGather", "expect": "faster",
               "comparison": {"methods": ["Write", "WriteGather"]}}
    assert favoured(case("WriteGather", clang, claim=methods))  # within the newest runtime
    assert not favoured(case("WriteGather", gcc, claim=methods))


def _timing_out_group(ends_group: bool):
    """Two runtimes of one comparison whose calls never return in time: what the engine does with
    the second once the first timed out, in a group that does (not) give up after a time-out."""
    from perflab.errors import TIMED_OUT, WorkerFailure
    clock, started = FakeClock(), []

    class Hangs(FakeWorker):
        def run(self, stage, invocations, iterations, timeout):
            clock.t += timeout
            raise WorkerFailure(f"{TIMED_OUT} {timeout:.1f}s")

    def launch(case, index):
        started.append(case.runtime.label)
        return Hangs(clock, per_call_ns=1e6, seed=index)

    job = dataclasses.replace(get_job("short"), timeout_s=10.0, timeout_cap_s=10.0, timeout_ends_group=ends_group)
    results = Engine(job, launch, clock=clock, rng=random.Random(3)).run_group([make_case(runtime="a"),
                                                                                 make_case(runtime="b")])
    return results, clock.t


def test_a_reference_group_gives_up_after_one_time_out():
    results, spent = _timing_out_group(ends_group=True)
    errors = sorted(r.error for r in results)
    assert errors[0].startswith(SKIPPED) and "timed out in this comparison" in errors[0], errors
    assert errors[1].startswith("timed out after 10.0s"), errors
    assert spent == pytest.approx(10.0)  # one time-out, not two
    # a deciding group (the default) waits for every case: a claim needs both sides
    results, spent = _timing_out_group(ends_group=False)
    assert all(r.error.startswith("timed out after") for r in results) and spent == pytest.approx(20.0)


def test_only_a_run_with_deciding_groups_makes_the_others_give_up_after_a_time_out():
    ref, deciding = (SimpleNamespace(runtime=SimpleNamespace(language="python"), claim=k) for k in (False, True))
    tb = TotalBudget(100.0, 0.0, {}, favoured=lambda c: c.claim, clock=FakeClock())
    ordered = tb.order([[ref, ref], [deciding, deciding]])
    assert not tb.job_for(get_job("short"), ordered).timeout_ends_group  # the deciding group
    assert tb.job_for(get_job("short"), ordered[1:]).timeout_ends_group  # the reference one
    # a user's suite without claims: every case is what was asked for, none gives up on its partners
    mine = TotalBudget(100.0, 0.0, {}, favoured=lambda c: False, clock=FakeClock())
    groups = mine.order([[ref, ref], [ref]])
    assert not any(mine.job_for(get_job("short"), groups[i:]).timeout_ends_group for i in range(2))
