"""Run-queue wait (engine/runqueue.py) and what stats/clean.py makes of it: a case whose off-CPU time
the run-queue wait explains is CPU-bound and contended, and is timed by its thread's CPU time; one
whose off-CPU time it does not explain waits by nature, and keeps the wall clock. Deterministic fake
readings throughout: no /proc file is read, nothing is timed."""
import random

import numpy as np
import pytest

from perflab.engine.runner import Engine
from perflab.engine.runqueue import RunQueueWatch, in_iteration
from perflab.jobs import get_job
from perflab.model import LaunchSamples
from perflab.results import launches_from_json
from perflab.stats.clean import clean_case

from fakes import FakeClock, FakeWorker, make_case


def test_the_iterations_wait_is_the_windows_less_its_margin_never_below_zero():
    assert in_iteration(5_000, window_ns=12_000, timed_ns=10_000) == 3_000
    assert in_iteration(1_000, window_ns=12_000, timed_ns=10_000) == 0
    assert in_iteration(4_000, window_ns=9_000, timed_ns=10_000) == 4_000  # no margin to take off


def test_the_measuring_thread_is_the_one_that_ran_most_and_only_its_file_is_read_after():
    reads = {"all": 0, "one": 0}
    state = {(7, 7): (100, 0), (7, 8): (10, 0)}

    def read_all(pid):
        reads["all"] += 1
        return dict(state)

    def read_one(pid, tid):
        reads["one"] += 1
        return state.get((pid, tid))

    watch = RunQueueWatch(7, read_all, read_one)
    before = watch.mark()
    state[(7, 7)], state[(7, 8)] = (300, 50), (2_010, 900)  # thread 8 ran the iteration
    after = watch.mark()
    assert watch.waited(before, after, window_ns=2_100, timed_ns=2_000) == 800
    assert watch.thread == (7, 8)
    before = watch.mark()
    state[(7, 8)] = (4_010, 1_900)
    assert watch.waited(before, watch.mark(), window_ns=2_000, timed_ns=2_000) == 1_000
    assert reads == {"all": 2, "one": 2}
    del state[(7, 8)]  # it ended: the next mark looks at every thread again
    assert watch.mark() == state and reads["all"] == 3


def test_a_reading_that_failed_counts_as_no_wait():
    watch = RunQueueWatch(7, lambda pid: None, lambda pid, tid: None)
    assert watch.waited(watch.mark(), watch.mark(), 1e6, 1e6) == 0
    assert watch.waited({(7, 7): (0, 0)}, {(7, 9): (5, 5)}, 1e6, 1e6) == 0


class _FakeQueue:
    """A run-queue reader whose measuring thread waited 1 µs more at every mark."""

    def __init__(self, pid):
        self.n = 0

    def mark(self):
        self.n += 1
        return {(1, 1): (self.n, 1000 * self.n)}

    def waited(self, before, after, window_ns, timed_ns, cpu_ns=None):
        return after[(1, 1)][1] - before[(1, 1)][1]


def test_the_engine_records_one_wait_per_workload_iteration_for_thread_clocks_only():
    clock = FakeClock()
    for clock_kind in (True, False):
        def launch(case, i):
            return FakeWorker(clock, 1000.0, overhead_ns=400.0, noise=0.05, seed=i, cpu_clock=clock_kind)

        [res] = Engine(get_job("short"), launch, clock=clock, rng=random.Random(1),
                       runqueue=_FakeQueue).run_group([make_case()])
        for ln in res.launches:
            assert len(ln.workload_wait) == (len(ln.workload) if clock_kind else 0)
            assert set(ln.workload_wait) <= {1000}


def test_without_a_reader_nothing_is_recorded():
    clock = FakeClock()
    [res] = Engine(get_job("short"), lambda case, i: FakeWorker(clock, 1000.0, seed=i), clock=clock,
                   rng=random.Random(1)).run_group([make_case()])
    assert all(ln.workload_wait == [] for ln in res.launches)


def _contended(waits_explain: float, seed: int = 0, share_quiet: float = 1.0) -> list[LaunchSamples]:
    """Launches of a 1 ms call (CPU time 1 ms × share_quiet: the rest it blocks by nature) under heavy
    load: every iteration also waited 1-3 ms for a CPU, of which `waits_explain` was read."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(6):
        cpu = rng.normal(1e6 * share_quiet, 5e3, 12)
        queued = rng.uniform(1e6, 3e6, 12)
        wall = cpu / share_quiet + queued
        out.append(LaunchSamples(index=i, invocations=1, workload=[int(x) for x in wall],
                                 workload_cpu=[int(x) for x in cpu], cpu_scope="thread",
                                 workload_rounds=list(range(1, 13)),
                                 workload_wait=[int(x * waits_explain) for x in queued]))
    return out


def test_a_cpu_bound_case_whose_waits_the_run_queue_explains_is_cpu_timed():
    cleaned = clean_case(_contended(1.0), subtract_overhead=False)
    assert all(c.cpu_timed for c in cleaned)
    assert np.mean(np.concatenate([c.x for c in cleaned])) == pytest.approx(
        np.mean([x for ln in _contended(1.0) for x in ln.workload_cpu]), rel=1e-9)


def test_without_the_run_queue_reading_the_same_case_keeps_its_wall_times():
    launches = _contended(1.0)
    for ln in launches:
        ln.workload_wait = []
    assert not any(c.cpu_timed for c in clean_case(launches, subtract_overhead=False))


def test_a_case_that_blocks_by_nature_is_not_cpu_timed_however_its_waits_are_read():
    # 30 % of its quiet time it blocks: the run-queue wait, read in full, leaves that unexplained
    assert not any(c.cpu_timed for c in clean_case(_contended(1.0, share_quiet=0.7), subtract_overhead=False))


def test_a_wait_read_only_in_part_is_not_enough():
    assert not any(c.cpu_timed for c in clean_case(_contended(0.5), subtract_overhead=False))


def test_waits_round_trip_through_the_results_document():
    ln = _contended(1.0)[0]
    [back] = launches_from_json({"launches": [ln.to_json()]})
    assert back.workload_wait == ln.workload_wait


def _weakly_read(unhit: int, share_quiet: float = 1.0) -> list[LaunchSamples]:
    """A 1 ms call under heavy load whose host woke late: every hit iteration's wait was read at only
    80 % (the lower bound lost the host's margin); `unhit` iterations of each launch did not wait."""
    out = _contended(0.8, seed=3, share_quiet=share_quiet)
    for ln in out:
        for k in range(unhit):
            ln.workload[k] = int(ln.workload_cpu[k] / share_quiet)
            ln.workload_wait[k] = 0
    return out


def test_most_of_the_off_cpu_time_explained_and_an_unblocked_iteration_make_a_case_cpu_timed():
    cleaned = clean_case(_weakly_read(unhit=1), subtract_overhead=False)
    assert all(c.cpu_timed for c in cleaned)


def test_without_an_unblocked_iteration_a_weak_reading_is_not_enough():
    assert not any(c.cpu_timed for c in clean_case(_weakly_read(unhit=0), subtract_overhead=False))


def test_a_case_that_blocks_in_every_iteration_is_not_cpu_timed_even_with_quiet_iterations():
    assert not any(c.cpu_timed for c in clean_case(_weakly_read(unhit=2, share_quiet=0.8),
                                                    subtract_overhead=False))


def test_a_tracked_thread_that_no_longer_runs_the_iterations_is_dropped():
    state = {(7, 7): (1_000, 0), (7, 8): (0, 0)}
    watch = RunQueueWatch(7, lambda pid: dict(state), lambda pid, tid: state.get((pid, tid)))
    before = watch.mark()
    state[(7, 7)] = (3_000, 100)
    assert watch.waited(before, watch.mark(), 2_000, 2_000, cpu_ns=2_000) == 100 and watch.thread == (7, 7)
    before = watch.mark()  # only thread 7 is read; the next run happens on thread 8
    state[(7, 8)] = (2_000, 500)
    assert watch.waited(before, watch.mark(), 2_000, 2_000, cpu_ns=2_000) == 0
    assert watch.thread is None and len(watch.mark()) == 2  # every thread read again
