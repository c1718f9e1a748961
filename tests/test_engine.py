"""The engine's logic, with a fake clock and fake workers: no process, no real time."""
import math
import random
import re
import threading

import pytest

from perflab.engine.runner import Engine, far_above, is_stable, later_warmup, pick_invocations, settled_after
from perflab.jobs import get_job

from perflab.engine.worker import BenchmarkError
from perflab.errors import WorkerFailure

from fakes import FakeClock, FakeWorker, InlineExecutor, make_case


def engine_for(job, factory, clock, seed=1):
    return Engine(job, factory, clock=clock, rng=random.Random(seed))


def test_pilot_picks_invocations_so_an_iteration_lasts_the_job_iteration_time():
    clock = FakeClock()
    job = get_job("default")
    workers = []

    def launch(case, i):
        workers.append(FakeWorker(clock, per_call_ns=37.0, noise=0.0, seed=i))
        return workers[-1]

    [res] = engine_for(job, launch, clock).run_group([make_case()])
    assert res.ok
    n = res.launches[0].invocations
    assert n * 37.0 >= 0.9 * job.iteration_time_s * 1e9
    assert n * 37.0 < 3 * job.iteration_time_s * 1e9
    assert all(ln.invocations == n for ln in res.launches)  # every launch uses the pilot's count
    assert [c for c in workers[1].calls if c[:2] == ("run", "pilot")] == []  # only the first launch pilots


def test_pick_invocations_grows_at_most_a_thousandfold_and_respects_unroll():
    assert pick_invocations(measured_ns=10, invocations=1, target_ns=1e9, unroll=1) == 1000
    assert pick_invocations(measured_ns=1_000_000, invocations=100, target_ns=20e6, unroll=16) % 16 == 0


def test_quiet_case_stops_at_the_precision_target_with_few_launches_and_iterations():
    clock = FakeClock()
    job = get_job("default")
    [res] = engine_for(job, lambda c, i: FakeWorker(clock, 1000.0, noise=0.01, seed=i),
                       clock).run_group([make_case()])
    assert res.stop_reason == "target reached"
    # t has L-1 degrees of freedom: three processes (31.6 at 99.9 %) would need ~80 iterations each
    # to reach ±2 %; doubling them once (6.9) reaches it with a few each
    assert len(res.launches) == 2 * job.launches_min
    assert all(len(ln.workload) >= job.iterations_min for ln in res.launches)
    assert all(len(ln.overhead) >= 5 for ln in res.launches)
    # it stopped soon after the minimum: a quiet case needs few iterations
    assert sum(len(ln.workload) for ln in res.launches) < 40
    # what a launch and a round iteration cost it (fake time) are kept, for bench/time_to_verdict's floor
    iteration_s = res.launches[0].invocations * 1000.0 / 1e9
    assert iteration_s <= res.iteration_cost_s < 3 * iteration_s  # workload (+ overhead when interleaved)
    assert res.launch_cost_s > iteration_s  # start, setup, warmup, overhead


def test_noisy_case_stops_at_its_budget_and_says_so():
    clock = FakeClock()
    job = get_job("short")
    [res] = engine_for(job, lambda c, i: FakeWorker(clock, 1000.0, noise=0.8, seed=i),
                       clock).run_group([make_case()])
    assert res.stop_reason in ("budget exhausted", "iteration limit")
    assert res.wall_seconds >= job.budget_s


def test_processes_that_disagree_get_more_launches():
    clock = FakeClock()
    job = get_job("default")
    offsets = [0.0, 300.0, -250.0, 150.0, -100.0, 280.0]

    def launch(case, i):
        return FakeWorker(clock, 1000.0, noise=0.002, seed=i, launch_offset_ns=offsets[i % len(offsets)])

    [res] = engine_for(job, launch, clock).run_group([make_case()])
    assert len(res.launches) > job.launches_min


def test_warmup_runs_until_times_stop_trending():
    clock = FakeClock()
    job = get_job("default")
    workers = []

    def launch(case, i):
        workers.append(FakeWorker(clock, 1000.0, noise=0.0, seed=i, slow_warmup=15, warmup_factor=3.0))
        return workers[-1]

    [res] = engine_for(job, launch, clock).run_group([make_case()])
    first = res.launches[0]
    # kept warming while the slow iterations lasted (readings at an earlier count stay in pilot)
    assert len(first.warmup) + len(first.pilot) > 15
    n = first.invocations
    assert max(first.workload) / n < 1.5 * 1000.0  # no slow iteration reached the workload


def test_later_launches_warm_up_briefly_only_when_the_first_launch_settled_at_once():
    clock = FakeClock()
    job = get_job("default")
    # flat code (an interpreter): the first launch checks its full window, later ones warm up one
    # iteration more than the first needed to settle
    [res] = engine_for(job, lambda c, i: FakeWorker(clock, 1000.0, noise=0.01, seed=i),
                       clock).run_group([make_case()])
    first, later = res.launches[0], res.launches[1:]
    assert len(first.warmup) >= 6 and later
    assert all(len(ln.warmup) == settled_after(first.warmup) + 1 == 1 for ln in later)
    # every process warms up like a JIT: the first launch's times trended, so every later launch
    # keeps checking until its own times stop trending, and none of it reaches the workload
    [res] = engine_for(job, lambda c, i: FakeWorker(clock, 1000.0, noise=0.0, seed=i, slow_warmup=9,
                                                    warmup_factor=3.0), clock).run_group([make_case()])
    later = res.launches[1:]
    assert later and all(len(ln.warmup) >= 4 for ln in later)
    assert all(max(ln.workload) / ln.invocations < 1.5 * 1000.0 for ln in res.launches)


def test_a_later_launch_still_off_the_settled_level_after_its_brief_warmup_gets_the_full_check():
    """The first launch settled at once, but a later process starts three times slower (its first
    calls compile what the first launch's pilot had compiled): no slow iteration reaches its workload."""
    clock = FakeClock()
    job = get_job("default")
    workers = []

    def launch(case, i):
        slow = {} if i == 0 else {"slow_warmup": 6, "warmup_factor": 3.0}
        workers.append(FakeWorker(clock, 1000.0, noise=0.005, seed=i, **slow))
        return workers[-1]

    [res] = engine_for(job, launch, clock).run_group([make_case()])
    later = res.launches[1:]
    assert later and all(len(ln.warmup) > 1 for ln in later)
    assert all(max(ln.workload) / ln.invocations < 1.1 * 1000.0 for ln in res.launches)


def test_settled_after_counts_the_leading_iterations_off_the_settled_level():
    assert settled_after([100, 101, 99, 100, 100, 101]) == 0
    assert settled_after([130, 101, 99, 100, 100, 101]) == 1
    assert settled_after([300, 200, 120, 100, 101, 99, 100, 100]) == 3
    assert settled_after([102, 100, 99, 100, 101, 100]) == 0  # within the 2 % tolerance
    assert settled_after([104, 100, 99, 100, 101, 100]) == 1


def test_later_warmup_is_brief_only_when_the_pilot_and_the_warmup_were_already_settled():
    flat = [10000, 10050, 9990, 10010, 10000, 9995, 10005]
    pilot = [(1, 900), (64, 150), (640, 1000), (6400, 10020)]  # 1.56 ns a call at 64: under 1000 ns
    assert later_warmup(pilot, flat, 6400, 1000) == 1
    assert later_warmup(pilot, [10400] + flat[1:], 6400, 1000) == 2
    assert later_warmup(pilot[:-1] + [(6400, 13000)], flat, 6400, 1000) == 0  # the pilot saw it slower
    # a JIT: calls sped up during the pilot (its readings are the process's first calls), however
    # flat the warmup after it looks
    assert later_warmup([(1, 90000), (8, 40000), (80, 150000), (6400, 10020)], flat, 6400, 1000) == 0
    assert later_warmup([(64, 150)], flat, 6400, 1000) == 0  # no full-length pilot reading to tell


def test_a_later_process_whose_jit_is_late_warms_up_until_it_reaches_the_first_ones_level():
    """A later JVM whose compiler threads are starved runs interpreted code at one flat, slow level
    for a dozen iterations, then compiles: flat is not warm when the first process settled ten times
    faster, so none of that plateau reaches its measurement."""
    clock = FakeClock()
    job = get_job("default")

    def launch(case, i):
        late = {} if i == 0 else {"slow_warmup": 12, "warmup_factor": 10.0, "warmup_plateau": True}
        return FakeWorker(clock, 1000.0, noise=0.005, seed=i, **late)

    [res] = engine_for(job, launch, clock).run_group([make_case()])
    later = res.launches[1:]
    assert later and all(len(ln.warmup) > 12 for ln in later)
    assert all(max(ln.workload) / ln.invocations < 1.1 * 1000.0 for ln in res.launches)


def test_far_above_the_first_process_level():
    assert far_above([2100, 2050], 1000.0) and not far_above([1900, 1950], 1000.0)
    assert not far_above([5000, 1000, 1000], 1000.0)  # the newest two: compiled by now
    assert not far_above([], 1000.0) and not far_above([5000], None)


def test_is_stable():
    # a JIT compiling and deoptimising on a busy machine: flat medians of the halves, wild times
    assert not is_stable([94264, 233814, 4997, 190869, 9067, 95206])
    assert not is_stable([94264, 233814, 4997, 190869, 9067, 95206], least=4)
    assert not is_stable([300, 250, 200, 150, 100, 90])
    assert is_stable([100, 101, 99, 100, 100, 101])
    assert not is_stable([100, 100, 100])  # too few to tell
    assert not is_stable([100, 101, 99, 100])  # the first launch looks at six...
    assert is_stable([100, 101, 99, 100], least=4)  # ...a later one at four
    assert not is_stable([300, 250, 110, 100], least=4)


def test_a_failing_case_fails_alone_and_keeps_its_reason():
    clock = FakeClock()
    job = get_job("short")
    good = make_case("fine", runtime="rt1")
    bad = make_case("fine", runtime="rt2")

    def launch(case, i):
        fail = "workload" if case.runtime.name == "rt2" else None
        return FakeWorker(clock, 500.0, noise=0.01, seed=i, fail_stage=fail)

    results = engine_for(job, launch, clock).run_group([good, bad])
    by_rt = {r.case.runtime.name: r for r in results}
    assert by_rt["rt1"].ok and by_rt["rt1"].stop_reason == "target reached"
    assert not by_rt["rt2"].ok
    assert "planted failure" in by_rt["rt2"].error


def test_a_crash_during_warmup_fails_the_case_and_closes_its_workers():
    clock = FakeClock()
    workers = []

    def launch(case, i):
        workers.append(FakeWorker(clock, 500.0, crash_stage="warmup"))
        return workers[-1]

    engine = engine_for(get_job("short"), launch, clock)
    [res] = engine.run_group([make_case()])
    engine.close()  # processes exit in the background: gone once the engine closes
    assert res.error == "worker crashed (SIGSEGV)"
    assert all(w.closed for w in workers)


def test_runtimes_of_a_group_are_measured_in_interleaved_randomised_rounds():
    clock = FakeClock()
    order = []

    class Recording(FakeWorker):
        def run(self, stage, invocations, iterations, timeout):
            if stage == "workload":
                order.append(self.name)
            return super().run(stage, invocations, iterations, timeout)

    def launch(case, i):
        w = Recording(clock, 1000.0, noise=0.05, seed=i)
        w.name = (case.runtime.name, i)
        return w

    cases = [make_case(runtime="A"), make_case(runtime="B")]
    results = engine_for(get_job("default"), launch, clock, seed=3).run_group(cases)
    assert all(r.ok for r in results)
    # every round measures every live launch once, so the two runtimes alternate in blocks
    first_round = order[:6]
    assert {n[0] for n in first_round} == {"A", "B"}
    assert first_round != sorted(first_round)  # shuffled, not a fixed order
    for r in results:
        rounds = [x for ln in r.launches for x in ln.workload_rounds]
        assert min(rounds) == 1 and len(set(rounds)) == max(rounds)


def test_dry_job_runs_each_case_once_without_pilot_warmup_or_overhead():
    clock = FakeClock()
    workers = []

    def launch(case, i):
        workers.append(FakeWorker(clock, 10.0))
        return workers[-1]

    [res] = engine_for(get_job("dry"), launch, clock).run_group([make_case()])
    assert res.stop_reason == "dry run"
    stages = [c[1] for c in workers[0].calls if c[0] == "run"]
    assert stages == ["workload"]
    assert res.launches[0].invocations == 1 and len(res.launches[0].workload) == 1


def test_a_groups_processes_exit_while_the_next_group_starts_and_before_it_measures():
    """run_group returns without waiting for its processes to exit; the next group's processes start
    meanwhile, and it waits for those exits before its first measured stage; close() waits for the last."""
    clock = FakeClock()
    events = []
    next_started = threading.Event()

    class SlowToExit(FakeWorker):
        def setup(self, benchmark_id, params, timeout):
            events.append(("setup", benchmark_id))
            super().setup(benchmark_id, params, timeout)

        def close(self):
            # this process goes only once the next group's has started (a safety bound, not a timing)
            next_started.wait(30)
            events.append(("exited", self.bench))
            super().close()

    def launch(case, i):
        events.append(("started", case.benchmark.id))
        if case.benchmark.id == "g.b":
            next_started.set()
        worker = SlowToExit(clock, 10.0)
        worker.bench = case.benchmark.id
        return worker

    engine = engine_for(get_job("dry"), launch, clock)
    engine.run_group([make_case("a")])
    assert ("exited", "g.a") not in events  # still exiting in the background
    engine.run_group([make_case("b")])
    engine.close()
    assert events == [("started", "g.a"), ("setup", "g.a"), ("started", "g.b"), ("exited", "g.a"),
                      ("setup", "g.b"), ("exited", "g.b")]


def test_the_background_pools_live_with_the_engine_and_a_lone_start_needs_no_thread():
    """Threads made per group were a dry run's largest host cost between cases: the pools are made
    once per engine, and a one-case group starts its process in the calling thread."""
    clock = FakeClock()
    made, starters = [], []

    def executor(n):
        made.append(n)
        return InlineExecutor(n)

    def launch(case, i):
        starters.append(threading.current_thread())
        return FakeWorker(clock, 10.0)

    engine = Engine(get_job("dry"), launch, clock=clock, rng=random.Random(1), executor=executor)
    for name in ("a", "b", "c"):
        engine.run_group([make_case(name)])
    engine.close()
    assert len(made) == 2  # a reaper and a starter, for the three groups
    assert starters == [threading.current_thread()] * 3


def test_iteration_setup_benchmarks_get_one_invocation_per_iteration():
    clock = FakeClock()
    [res] = engine_for(get_job("short"), lambda c, i: FakeWorker(clock, 50_000.0, noise=0.01, seed=i),
                       clock).run_group([make_case(iteration_setup=True)])
    assert res.launches[0].invocations == 1


def test_diagnostics_are_divided_per_operation():
    clock = FakeClock()
    [res] = engine_for(get_job("short"),
                       lambda c, i: FakeWorker(clock, 1000.0, noise=0.01, seed=i, alloc_per_call=64),
                       clock).run_group([make_case(ops=4)])
    assert res.diagnostics.alloc_bytes_per_op == pytest.approx(16.0)


def test_empty_benchmark_is_reported_as_indistinguishable_from_empty_with_an_interval():
    from perflab.analysis import analyse
    clock = FakeClock()
    job = get_job("default")
    results = engine_for(job, lambda c, i: FakeWorker(clock, 0.0, overhead_ns=30.0, noise=0.01, seed=i),
                         clock).run_group([make_case()])
    [row] = analyse(results, job.confidence, job.target_rel_error)
    assert results[0].stop_reason == "target reached"
    assert row.estimate.ci_low <= 0 <= row.estimate.ci_high
    assert row.estimate.mean != 0.0 or row.estimate.error > 0  # an interval, not a clamped zero
    assert any(w.startswith("indistinguishable from an empty benchmark") and "CI [" in w
               for w in row.warnings)


def test_a_failing_diagnostic_pass_keeps_the_measured_timings():
    clock = FakeClock()

    class BadDiagnose(FakeWorker):
        def diagnose(self, invocations, iterations, timeout):
            raise BenchmarkError("exception", "MemoryError: tracemalloc")

    [res] = engine_for(get_job("short"), lambda c, i: BadDiagnose(clock, 1000.0, noise=0.01, seed=i),
                       clock).run_group([make_case()])
    assert res.ok and res.stop_reason == "target reached"
    assert res.diagnostics.alloc_bytes_per_op is None
    assert "diagnostic pass failed" in res.diagnostics.notes[0]


def test_the_baseline_is_the_first_runtime_given_not_the_first_to_finish():
    from perflab.analysis import analyse
    clock = FakeClock()
    slow, fast = make_case(runtime="listed_first"), make_case(runtime="listed_second")
    results = engine_for(get_job("short"),
                         lambda c, i: FakeWorker(clock, 2000.0 if c.runtime.name == "listed_first"
                                                 else 1000.0, noise=0.01, seed=i),
                         clock).run_group([slow, fast])
    rows = analyse(list(reversed(results)), runtime_order=["listed_first", "listed_second"])
    by_rt = {r.result.case.runtime.name: r for r in rows}
    assert by_rt["listed_first"].is_runtime_baseline
    assert by_rt["listed_second"].runtime_ratio.value == pytest.approx(0.5, rel=0.05)


def test_contenders_stop_together_so_every_round_stays_paired():
    clock = FakeClock()
    quiet, noisy = make_case(runtime="quiet"), make_case(runtime="noisy")
    results = engine_for(get_job("default"),
                         lambda c, i: FakeWorker(clock, 1000.0, seed=i,
                                                 noise=0.005 if c.runtime.name == "quiet" else 0.06),
                         clock).run_group([quiet, noisy])
    rounds = {r.case.runtime.name: sorted({x for ln in r.launches for x in ln.workload_rounds})
              for r in results}
    assert rounds["quiet"] == rounds["noisy"]
    assert len(rounds["quiet"]) > get_job("default").iterations_min  # the quiet one kept going
    by_rt = {r.case.runtime.name: r for r in results}
    # a comparison is judged by its ratio, and the stop reason names the interval that was judged
    assert by_rt["quiet"].stop_reason == by_rt["noisy"].stop_reason == "ratio target reached"
    assert by_rt["quiet"].judged_by == "ratio"


def test_a_noisy_but_real_benchmark_is_not_called_empty():
    from perflab.analysis import analyse
    clock = FakeClock()
    offsets = [0.0, 2500.0, -900.0, 1800.0, -950.0, 2200.0]  # processes disagree wildly
    # six processes at most, so the interval stays wide enough to include zero
    results = engine_for(get_job("short", launches_max=6),
                         lambda c, i: FakeWorker(clock, 1000.0, overhead_ns=30.0, noise=0.01, seed=i,
                                                 launch_offset_ns=offsets[i % len(offsets)]),
                         clock).run_group([make_case()])
    [row] = analyse(results)
    assert row.estimate.ci_low <= 0  # the interval is huge...
    assert not any("empty" in w for w in row.warnings)  # ...but that is noise, not emptiness
    assert any("precision target" in w for w in row.warnings)


def test_invocations_are_chosen_again_when_warmup_made_calls_much_faster():
    clock = FakeClock()
    job = get_job("default")
    [res] = engine_for(job, lambda c, i: FakeWorker(clock, 1000.0, noise=0.0, seed=i, slow_warmup=12,
                                                    warmup_factor=50.0), clock).run_group([make_case()])
    n = res.launches[0].invocations
    # iterations of the measured (fast) code last about the job's iteration time again
    assert n * 1000.0 >= 0.9 * job.iteration_time_s * 1e9
    assert all(ln.invocations == n for ln in res.launches)


def test_first_launches_of_all_contenders_start_concurrently():
    """Starting a process is waiting, not measuring: the group's first launches start side by side.
    Here each start waits at a barrier for all of them — started one by one, the first would time out."""
    import threading
    clock = FakeClock()
    job = get_job("short")
    cases = [make_case(runtime="rt1"), make_case(runtime="rt2")]
    barrier = threading.Barrier(len(cases) * job.launches_min, timeout=10)

    def launch(case, i):
        if i < job.launches_min:
            barrier.wait()
        return FakeWorker(clock, 1000.0, noise=0.01, seed=i)

    results = engine_for(job, launch, clock).run_group(cases)
    assert all(r.ok for r in results), [r.error for r in results]
    assert all(len(r.launches) >= job.launches_min for r in results)


def test_added_launches_grow_geometrically_with_consecutive_indices():
    clock = FakeClock()
    job = get_job("default")
    calls = []

    def launch(case, i):
        calls.append(i)
        offset = 400.0 * (1 if i % 2 else -1) * (1 + i % 3)
        return FakeWorker(clock, 2000.0, noise=0.001, seed=i, launch_offset_ns=offset)

    [res] = engine_for(job, launch, clock).run_group([make_case()])
    assert sorted(calls) == list(range(len(calls)))
    assert [ln.index for ln in res.launches] == list(range(len(res.launches)))
    assert len(res.launches) == job.launches_max  # processes disagree: it keeps adding up to the cap


def test_a_launch_that_fails_to_start_fails_its_case_and_closes_the_others():
    clock = FakeClock()
    job = get_job("short")
    started = []

    def launch(case, i):
        if case.runtime.name == "rt2" and i == 1:
            raise WorkerFailure("worker exited before saying hello (exit status 3)")
        started.append(FakeWorker(clock, 1000.0, noise=0.01, seed=i))
        return started[-1]

    engine = engine_for(job, launch, clock)
    good, bad = engine.run_group([make_case(runtime="rt1"), make_case(runtime="rt2")])
    engine.close()
    assert good.ok
    assert bad.error == "worker exited before saying hello (exit status 3)"
    assert all(w.closed for w in started)


def test_a_slow_noisy_benchmark_gets_its_minimum_iterations_not_endless_warmup():
    """200 ms a call on a busy machine: warmup never looks stable. It is capped by a share of the
    budget, and every launch still gets the job's minimum measured iterations (one iteration per
    launch would give a meaningless interval)."""
    clock = FakeClock()
    job = get_job("short")
    [res] = engine_for(job, lambda c, i: FakeWorker(clock, 200e6, noise=0.3, seed=i),
                       clock).run_group([make_case()])
    assert res.ok
    assert all(len(ln.warmup) < job.warmup_max for ln in res.launches)
    assert all(len(ln.workload) >= job.iterations_min for ln in res.launches)
    assert res.stop_reason == "budget exhausted"



def _swinging_machine(clock, per_call_ns):
    """A machine whose speed swings by ±25 % every 90 ms (a few rounds), the same for everyone."""
    import math as m
    return lambda c, i: FakeWorker(clock, per_call_ns[c.runtime.name], noise=0.003,
                                   seed=i + 17 * len(c.runtime.name), drift=lambda t: 1 + 0.25 * m.sin(t * 70.0))


def test_a_comparison_stops_when_its_ratios_are_precise_though_the_means_are_not():
    """Neither mean alone reaches ±2 % soon on a swinging machine, but the swing hits both contenders
    of a round alike, so their paired ratio is precise long before."""
    from perflab.analysis import analyse
    clock = FakeClock()
    job = get_job("default")
    results = engine_for(job, _swinging_machine(clock, {"old": 1000.0, "new": 1100.0}), clock).run_group(
        [make_case(runtime="old"), make_case(runtime="new")])
    assert [r.stop_reason for r in results] == ["ratio target reached"] * 2
    rows = {r.result.case.runtime.name: r for r in analyse(results)}
    assert rows["old"].estimate.rel_error > job.target_rel_error  # the means alone are not precise
    ratio = rows["new"].runtime_ratio  # two runtimes: "Ratio vs old" (perflab.ratios)
    assert ratio.paired and ratio.ci_low > 1.0 and abs(ratio.value - 1.1) < 0.02
    assert max(ratio.ci_high / ratio.value - 1, 1 - ratio.ci_low / ratio.value) <= job.target_rel_error

    # the same case alone has no ratio: judged on its mean, whose interval takes the swing landing in
    # the launches' means (t on L-1 degrees of freedom), it needs more processes than the comparison
    clock = FakeClock()
    [alone] = engine_for(job, _swinging_machine(clock, {"old": 1000.0}), clock).run_group(
        [make_case(runtime="old")])
    assert alone.stop_reason != "ratio target reached"
    assert len(alone.launches) > len(results[0].launches)


def test_when_processes_disagree_launches_retire_and_fresh_ones_take_their_places():
    clock = FakeClock()
    job = get_job("default")
    workers = []

    def launch(case, i):
        workers.append(FakeWorker(clock, 2000.0, noise=0.01, seed=i, launch_offset_ns=200.0 * (i % 7 - 3)))
        return workers[-1]

    engine = engine_for(job, launch, clock)
    [res] = engine.run_group([make_case()])
    engine.close()
    assert job.launches_live < len(res.launches) <= job.launches_max
    per_round = {}
    for ln in res.launches:
        for r in ln.workload_rounds:
            per_round[r] = per_round.get(r, 0) + 1
    assert max(per_round.values()) <= job.launches_live  # never more processes alive than the live cap
    # a retired launch measured at least the minimum a process is worth; every sample was kept
    assert all(len(ln.workload) >= job.policy.stop.min_iterations_before_retiring for ln in res.launches[:job.launches_live])
    assert all(w.closed for w in workers)


def test_one_slow_judgement_does_not_postpone_the_next_for_long():
    """Judging is spaced by what it costs, but one judgement that stalled (30 s here) must not let
    the rounds run on unjudged — past the budget — for four times as long."""
    from perflab.engine.runner import Engine as RealEngine
    clock = FakeClock()
    job = get_job("short")

    class StallsOnce(RealEngine):
        stalled = False

        def _judge_group(self, active, group):
            out = super()._judge_group(active, group)
            if not self.stalled:
                self.stalled = True
                clock.t += 30.0
            return out

    [res] = StallsOnce(job, lambda c, i: FakeWorker(clock, 1000.0, noise=0.8, seed=i), clock=clock,
                       rng=random.Random(1)).run_group([make_case()])
    assert res.stop_reason in ("budget exhausted", "iteration limit")
    measured_s = sum(sum(ln.workload) + sum(ln.overhead) for ln in res.launches) / 1e9
    assert measured_s < job.budget_s + 4 * job.policy.stop.judge_wait_max_s


def test_a_comparison_limited_by_process_differences_gets_more_processes_not_more_rounds():
    """Each side's mean can be within the target while their ratio is not (the ratio's interval
    carries the between-process variance of both sides): then more processes are what helps, and
    rounds on the same processes pile up for nothing."""
    clock = FakeClock()
    job = get_job("default")
    rng = random.Random(7)
    offsets = {}

    def launch(case, i):
        key = (case.runtime.name, i)
        offsets.setdefault(key, rng.gauss(0, 30.0))  # processes differ by ~3 %
        return FakeWorker(clock, 1000.0, noise=0.005, seed=i + (1000 if case.runtime.name == "rt2" else 0),
                          launch_offset_ns=offsets[key])

    results = engine_for(job, launch, clock).run_group([make_case(runtime="rt1"), make_case(runtime="rt2")])
    assert all(r.stop_reason != "budget exhausted" for r in results), [r.stop_reason for r in results]
    per_launch = sum(len(ln.workload) for ln in results[0].launches) / len(results[0].launches)
    assert per_launch < 15  # (the engine that only grew on a case's own status measured 28 here)


@pytest.mark.parametrize("paired,both_orders", [(False, False), (True, True), (True, False)])
def test_overhead_in_the_rounds_costs_one_request_when_the_worker_offers_with_overhead(paired, both_orders):
    """When the empty call is a large share of an iteration, every round measures the overhead next to
    the workload: in the same request, in either order, when the worker declares `with_overhead` and
    `overhead_first` (one round trip per round instead of two), else in requests of their own (a
    worker offering only the overhead second would have it second of its request in half its rounds
    and the workload never: tests/test_overhead_order.py). Either way each overhead sample is kept
    with its round, and the estimate subtracts it."""
    clock = FakeClock()
    workers = []

    def launch(case, i):
        workers.append(FakeWorker(clock, 20.0, overhead_ns=30.0, noise=0.01, seed=i, with_overhead=paired,
                                  overhead_first=both_orders))
        return workers[-1]

    [res] = engine_for(get_job("short"), launch, clock).run_group([make_case()])
    assert res.ok
    paired_calls = [c for w in workers for c in w.calls if c[0] == "run_with_overhead"]
    lone_overheads = [c for w in workers for c in w.calls if c[:2] == ("run", "overhead")]
    workloads = [c for w in workers for c in w.calls if c[:2] == ("run", "workload")]
    if paired and both_orders:
        # every round takes one request, the overhead first in half of them
        # (tests/test_overhead_order.py): no workload or overhead iteration alone in a round
        assert paired_calls and not workloads and not [c for c in lone_overheads if c[3] == 1]
        assert all(c[2] == 1 for c in paired_calls)  # one pair per round
    else:
        assert not paired_calls and len(lone_overheads) > len(workloads) > 0
    for ln in res.launches:
        in_rounds = [r for r in ln.overhead_rounds if r > 0]
        assert in_rounds == ln.workload_rounds  # one overhead sample per workload sample, same round
    from perflab.stats import estimate
    est = estimate(res.launches, 1, 0.999)
    assert abs(est.mean - 20.0) < 1.0  # 50 ns gross, 30 ns overhead


def test_doubling_pays_while_few_processes_make_t_large_and_not_once_it_is_small():
    """Three agreeing processes: t on 2 degrees of freedom (31.6) needs ~80 iterations each, doubling
    to six (6.9) a few — doubling pays. Forty-eight: t is near its limit, iterating is cheaper."""
    from perflab.engine.allocation import doubling_pays
    from perflab.stats.estimate import Estimate
    job = get_job("default")

    def est(launches, n):
        return Estimate(mean=100.0, error=0, ci_low=0, ci_high=0, stddev=1.0, median=100.0, min=0, max=0,
                        n=n, launches=launches, confidence=0.999, se=0.1, df=launches - 1,
                        var_between=0.0, var_within=1.0)

    assert doubling_pays(est(3, 15), live=3, c_launch=0.03, c_iteration=0.002, job=job)
    assert not doubling_pays(est(48, 240), live=24, c_launch=0.03, c_iteration=0.002, job=job)
    # a launch far dearer than iterations (a JVM start): iterate even three processes
    assert not doubling_pays(est(3, 15), live=3, c_launch=30.0, c_iteration=0.002, job=job)


def test_cheapest_run_is_the_least_cost_that_reaches_the_target():
    """The floor a run's measuring is set against: checked against a brute-force search over launches
    and iterations, and None when processes differ too much for the job's launches to ever reach it."""
    from perflab.engine.allocation import cheapest_run
    from perflab.stats.distributions import t_quantile
    job = get_job("default")
    var_b, var_w, mean, c_l, c_i = 2.5 ** 2, 8.0 ** 2, 100.0, 0.03, 0.004
    launches, n, seconds = cheapest_run(var_b, var_w, mean, c_l, c_i, job)
    t = t_quantile(launches - 1, 0.9995)
    assert t * math.sqrt(var_b / launches + var_w / n) <= job.target_rel_error * mean * 1.0001
    assert seconds == pytest.approx(launches * c_l + n * c_i)
    brute = math.inf
    for L in range(job.launches_min, job.launches_max + 1):
        tl = t_quantile(L - 1, 0.9995)
        for N in range(L * job.iterations_min, 3000):
            if tl * math.sqrt(var_b / L + var_w / N) <= job.target_rel_error * mean:
                brute = min(brute, L * c_l + N * c_i)
                break
    assert seconds == pytest.approx(brute, abs=c_i)
    # dearer launches: fewer of them, more iterations each
    dear = cheapest_run(var_b, var_w, mean, 10 * c_l, c_i, job)
    assert dear[0] < launches and dear[1] > n
    # processes 15 % apart: even the job's last launch leaves t·sd_b/√L above 2 %
    assert cheapest_run(15.0 ** 2, var_w, mean, c_l, c_i, job) is None


def test_a_comparison_stops_at_its_budget_when_its_means_are_precise_but_its_ratio_is_not():
    """Without drift a ratio's interval is about √2 times as wide as each mean's, so both means can
    reach the target while the ratio does not. The group goes on for its ratio, but only until its
    budget is spent (it used to judge rounds past any budget: each case said 'met', none 'spent')."""
    from fakes import InlineExecutor
    job = get_job("short")
    for seed in range(80, 100):  # 92 went on for ever
        clock = FakeClock()
        rng = random.Random(seed)
        judged = [0]

        class Counting(Engine):
            def _judge_group(self, active, group):
                judged[0] += 1
                assert judged[0] < 3000, f"seed {seed}: the group never stopped"
                return super()._judge_group(active, group)

        def launch(case, i):
            clock.t += 0.03
            return FakeWorker(clock, 10e6, noise=0.02, seed=rng.randrange(1 << 30),
                              launch_offset_ns=rng.gauss(0.0, 0.02 * 10e6))

        results = Counting(job, launch, clock=clock, rng=random.Random(seed),
                           executor=InlineExecutor).run_group(
            [make_case(runtime="rt1"), make_case(runtime="rt2")])
        assert {r.stop_reason for r in results} <= {"ratio target reached", "target reached",
                                                     "budget exhausted"}
        assert clock.t < 1.5 * len(results) * job.budget_s


def test_contention_is_recorded_per_case_and_heavy_load_is_flagged():
    """The host's load is read when a group starts and as each case finishes; a load of 3 per CPU at
    the end makes the case 'heavy': its Notes say so and its verdicts are inconclusive."""
    from perflab.analysis import analyse
    from perflab.results import document
    clock = FakeClock()
    readings = iter([{"cpus": 2, "loadavg": 1.0, "ticks_total": 1000, "ticks_steal": 0},
                     {"cpus": 2, "loadavg": 6.0, "ticks_total": 3000, "ticks_steal": 20}])
    engine = Engine(get_job("short"), lambda c, i: FakeWorker(clock, 1000.0, noise=0.01, seed=i),
                    clock=clock, rng=random.Random(1), host=lambda: next(readings))
    [res] = engine.run_group([make_case()])
    c = res.contention
    assert (c["load_start"], c["load_end"], c["steal_share"]) == (0.5, 3.0, 0.01)
    assert c["preempted_share"] == 0.0  # the fake worker's CPU times match its wall times
    assert c["level"] == "heavy" and any("load 3.0 per CPU" in r for r in c["reasons"])
    rows = analyse([res])
    assert rows[0].contended and any("heavy contention" in w for w in rows[0].warnings)
    doc = document(rows, get_job("short"), {"cpu": {}}, [], __import__("datetime").datetime.now(), True)
    assert doc["cases"][0]["contention"]["level"] == "heavy"
    assert doc["environment"]["contention"]["level"] == "heavy"


def test_a_comparison_says_target_reached_only_for_the_ratio_it_judged():
    """A comparison is judged by its ratios: it never stops saying 'target reached' for a contender's
    mean while its ratio was short, and a 'budget exhausted' contender's warning quotes the ratio's
    interval, as judged (the finding: 'target ±2% not reached (reached ±1.9%)')."""
    from perflab.analysis import analyse
    from fakes import InlineExecutor
    job = get_job("short")
    seen = set()
    for seed in range(6):
        clock = FakeClock()
        rng = random.Random(seed)

        def launch(case, i):
            clock.t += 0.03
            # the first seeds noisy enough to spend the budget, the others quiet enough not to
            noisy = 0.3 if seed < 3 else 0.02
            return FakeWorker(clock, 10e6, noise=noisy, seed=rng.randrange(1 << 30),
                              launch_offset_ns=rng.gauss(0.0, noisy * 10e6))

        results = Engine(job, launch, clock=clock, rng=random.Random(seed),
                         executor=InlineExecutor).run_group([make_case(runtime="rt1"), make_case(runtime="rt2")])
        rows = analyse(results, job.confidence, job.target_rel_error, runtime_order=["rt1", "rt2"])
        for row in rows:
            res = row.result
            seen.add(res.stop_reason)
            assert res.judged_by == "ratio" and res.stop_reason != "target reached"
            ratio = next(r.runtime_ratio for r in rows if not r.is_runtime_baseline)
            if res.stop_reason == "ratio target reached":
                assert ratio.rel_error <= job.target_rel_error
            else:
                assert ratio.rel_error > job.target_rel_error
                if not row.is_runtime_baseline:
                    [w] = [w for w in row.warnings if "precision target" in w]
                    assert f"the ratio's 99.9% interval is ±{ratio.rel_error:.1%}" in w
    assert seen == {"budget exhausted", "ratio target reached"}


def test_identical_code_with_a_quarter_of_one_sides_iterations_hit_is_judged_the_same():
    """Issue #19 through the real engine: two runtimes that cost the same, one of them with 25 % of
    its measured iterations slowed 2-3x by interference. The engine's verdict, as the table prints
    it, holds 1.00 and is within 2 % of it (Tukey's fences kept the hits: 1.32 [1.16, 1.44])."""
    from perflab.analysis import analyse
    from fakes import InlineExecutor
    job = get_job("default")
    for seed in range(4):
        clock = FakeClock()
        rng = random.Random(seed)

        def launch(case, i):
            clock.t += 0.03
            return FakeWorker(clock, 100.0, noise=0.02, seed=rng.randrange(1 << 30),
                              launch_offset_ns=rng.gauss(0.0, 1.0),
                              hit_share=0.25 if case.runtime.name == "rt1" else 0.0)

        results = Engine(job, launch, clock=clock, rng=random.Random(seed),
                         executor=InlineExecutor).run_group([make_case(runtime="rt2"), make_case(runtime="rt1")])
        rows = analyse(results, job.confidence, job.target_rel_error, runtime_order=["rt2", "rt1"])
        [row] = [r for r in rows if r.result.case.runtime.name == "rt1"]
        assert row.runtime_ratio.paired and row.runtime_ratio.ci_low <= 1.0 <= row.runtime_ratio.ci_high
        assert abs(row.runtime_ratio.value - 1.0) < 0.02
        assert row.estimate.outliers_upper_removed > 0


def test_iterations_the_worker_reports_as_preempted_are_set_aside_through_the_engine():
    """Protocol v2 end to end: a fake worker whose chosen iterations lost the CPU for 1 ms (wall
    grows, CPU time does not) gets them set aside and counted, and its mean is the unhindered one."""
    from perflab.analysis import analyse
    clock = FakeClock()
    hit = tuple(range(1, 4000, 4))  # a quarter of every stage's timed iterations
    engine = Engine(get_job("short"), lambda c, i: FakeWorker(clock, 1000.0, noise=0.01, seed=i,
                                                              preempted=hit, preempted_ns=2e6),
                    clock=clock, rng=random.Random(3))
    [res] = engine.run_group([make_case()])
    [row] = analyse([res])
    assert row.estimate.preempted > 0
    assert any("preempted" in n for n in row.notes)
    assert abs(row.estimate.mean - 1000.0) / 1000.0 < 0.02
    assert res.contention["preempted_share"] > 0


def test_a_group_with_a_baseline_method_on_two_runtimes_stops_on_the_ratios_the_table_prints():
    """The stop rule holds to the target exactly the ratios the tables print (perflab.ratios.pair):
    X@B / Base@B (Ratio) and X@B / X@A (Ratio vs A) — never X@B / Base@A, which no table prints
    (issue #37: the engine judged that one, so a printed ratio could stop short of its target)."""
    from perflab.analysis import analyse
    from fakes import InlineExecutor
    job = get_job("short")
    stopped_on_ratio = 0
    for seed in range(8):
        clock = FakeClock()
        rng = random.Random(seed)
        noise = {("base", "rt1"): 0.01, ("x", "rt1"): 0.01, ("base", "rt2"): 0.06, ("x", "rt2"): 0.06}

        def launch(case, i):
            clock.t += 0.03
            n = noise[(case.benchmark.name, case.runtime.name)]
            return FakeWorker(clock, 1e6 * (2 if case.benchmark.name == "x" else 1), noise=n,
                              seed=rng.randrange(1 << 30), launch_offset_ns=rng.gauss(0.0, n * 1e6))

        cases = [make_case("base", "rt1", baseline=True), make_case("x", "rt1"),
                 make_case("base", "rt2", baseline=True), make_case("x", "rt2")]
        results = Engine(job, launch, clock=clock, rng=random.Random(seed),
                         executor=InlineExecutor).run_group(cases)
        rows = analyse(results, job.confidence, job.target_rel_error, runtime_order=["rt1", "rt2"])
        printed = [r for row in rows for r, base in ((row.ratio, row.is_baseline),
                                                     (row.runtime_ratio, row.is_runtime_baseline))
                   if r is not None and not base]
        assert len(printed) == 4  # x/base on each runtime, and each method's rt2/rt1
        if all(row.result.stop_reason == "ratio target reached" for row in rows):
            stopped_on_ratio += 1
            assert all(r.rel_error <= job.target_rel_error for r in printed)
    assert stopped_on_ratio >= 1


def test_a_ratio_whose_baseline_alone_was_contended_is_inconclusive():
    """Contention is judged for the comparison, both sides: a method ratio whose baseline row alone
    was measured under heavy contention says its Ratio is inconclusive (issue #38: shown once as a
    clean 1.87 against a true 2.03); the same ratio with neither side contended says nothing."""
    from perflab.analysis import analyse
    job = get_job("short")
    for contended_base in (True, False):
        clock = FakeClock()
        results = Engine(job, lambda c, i: FakeWorker(clock, 1e6 * (2 if c.benchmark.name == "x" else 1),
                                                      noise=0.01, seed=i),
                         clock=clock, rng=random.Random(3), executor=InlineExecutor).run_group(
            [make_case("base", baseline=True), make_case("x")])
        base = next(r for r in results if r.case.benchmark.name == "base")
        base.contention = {"level": "heavy" if contended_base else "quiet", "reasons": ["load 3.0 per CPU"]}
        rows = analyse(results, job.confidence, job.target_rel_error)
        x = next(r for r in rows if r.result.case.benchmark.name == "x")
        assert x.ratio is not None and not x.contended
        said = [w for w in x.warnings if "baseline" in w and "contention" in w]
        assert bool(said) == contended_base
        if said:
            assert "treat its Ratio as inconclusive" in said[0]


def test_rounds_well_above_the_back_to_back_warmup_are_warned_of():
    """A case whose round iterations ran well above the level its processes reached back to back in
    their warmup gets a warning that its figure depends on the iteration length; one whose rounds
    ran at that level does not."""
    from perflab.analysis import analyse
    clock = FakeClock()
    engine = Engine(get_job("short"), lambda c, i: FakeWorker(clock, 1000.0, noise=0.01, seed=i),
                    clock=clock, rng=random.Random(2))
    [res] = engine.run_group([make_case()])
    [row] = analyse([res])
    assert not [w for w in row.warnings if "back-to-back warmup" in w]
    for ln in res.launches:
        ln.workload = [int(x * 1.5) for x in ln.workload]
    [row] = analyse([res])
    [warning] = [w for w in row.warnings if "back-to-back warmup" in w]
    assert re.search(r"×1\.(49|50|51|52) its back-to-back", warning) and "--iteration-time" in warning
