"""The duet (engine/duet.py): a group of two cases runs each launch pair's round iterations at the same
moments, one side per CPU, the sides swapping CPUs at every launch pair; everything else as before.
Fake workers and a recording placement: no process is started, nothing is timed."""
import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from perflab.engine import affinity
from perflab.engine.affinity import Placement
from perflab.engine.duet import cpu_of, duet_cpus, together
from perflab.engine.runner import Engine
from perflab.jobs import get_job
from perflab.stats.contention import measured_together, ratio_stands
from perflab.judge import contention_reason

from fakes import FakeClock, FakeWorker, InlineExecutor, make_case


class RecordingPlacement(Placement):
    """Two CPUs, 0 the measuring one; every launch uses one CPU at a time. Records pins and holds."""

    def __init__(self):
        super().__init__(cpu=0, cpus=frozenset({0, 1}))
        self.pins, self.joins, self.holds = {}, {}, 0

    def probe(self, pid):
        return (0.0, 0.0)

    def pin_if_single(self, pid, start, busy_s, cpu=None):
        target = self.cpu if cpu is None else cpu
        self.pins[pid] = target
        return affinity.Decision(target, 0.97)

    def join(self, pid, single, cpu=None):
        self.joins[pid] = self.cpu if cpu is None else cpu

    def move_off(self, pid):
        pass

    def unpin(self, pid):
        pass

    def hold_host(self):
        self.holds += 1

    def release_host(self):
        pass


def _launcher(clock, pids, calls):
    def launch(case, i):
        w = FakeWorker(clock, 1000.0, noise=0.05, seed=hash((case.runtime.name, i)) % 1000)
        w.hello.pid = next(pids)
        calls.append((case.runtime.name, i, w))
        return w
    return launch


def _group(n):
    return [make_case(runtime=f"rt{k}") for k in range(n)]


def test_duet_needs_two_cases_a_pinning_placement_two_cpus_and_the_job():
    place = Placement(cpu=1, cpus=frozenset({0, 1}))
    job = get_job("short", duet=True)
    assert duet_cpus(place, job, 2) == (1, 0)  # the measuring CPU first
    assert duet_cpus(place, job, 3) is None  # not a pair
    assert duet_cpus(place, get_job("short", duet=False), 2) is None
    assert duet_cpus(place, get_job("dry", duet=True), 2) is None
    assert duet_cpus(Placement(cpu=None, cpus=frozenset({0, 1})), job, 2) is None  # --affinity off
    assert duet_cpus(Placement(cpu=0, cpus=frozenset({0})), job, 2) is None  # one CPU


def test_the_sides_swap_cpus_at_every_launch_pair():
    cpus = (3, 5)
    assert [cpu_of(cpus, 0, k) for k in range(4)] == [3, 5, 3, 5]
    assert [cpu_of(cpus, 1, k) for k in range(4)] == [5, 3, 5, 3]


def test_together_runs_both_sides_at_once_and_returns_when_both_are_done():
    """Each side waits for the other to have started: with one side only at a time this deadlocks
    (the barrier breaks and the test fails)."""
    barrier = threading.Barrier(2, timeout=30)
    done = []
    with ThreadPoolExecutor(1) as pool:
        together(pool, lambda: (barrier.wait(), done.append("a")), lambda: (barrier.wait(), done.append("b")))
    assert sorted(done) == ["a", "b"]


def test_together_raises_a_failure_after_both_returned():
    done = []

    def fail():
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        together(InlineExecutor(), fail, lambda: done.append("b"))
    assert done == ["b"]


def test_a_pair_runs_as_a_duet_each_side_pinned_to_its_cpu_and_the_host_held_nowhere():
    clock, calls, place = FakeClock(), [], RecordingPlacement()
    engine = Engine(get_job("short", duet=True), _launcher(clock, iter(range(100, 400)), calls), clock=clock,
                    rng=random.Random(1), placement=place, executor=InlineExecutor,
                    starts_aside=lambda case: True)
    a, b = engine.run_group(_group(2))
    assert a.ok and b.ok
    assert a.contention.get("duet") is True and b.contention.get("duet") is True
    assert place.holds == 0  # both CPUs measure: perflab's own process is not held off either
    for side, res in enumerate((a, b)):
        for ln in res.launches:
            assert place.pins.get(ln.pid, place.joins.get(ln.pid)) == cpu_of((0, 1), side, ln.index)
    # launch k of both sides ran the same rounds: a duet round is one iteration of each
    for la, lb in zip(a.launches, b.launches):
        assert la.workload_rounds == lb.workload_rounds
    # nothing was started ahead: no CPU is spare beside a duet
    assert len(calls) == len(a.launches) + len(b.launches)


def test_duet_off_or_three_cases_measure_as_before_on_the_measuring_cpu():
    for job, n in ((get_job("short", duet=False), 2), (get_job("short", duet=True), 3)):
        clock, calls, place = FakeClock(), [], RecordingPlacement()
        results = Engine(job, _launcher(clock, iter(range(100, 400)), calls), clock=clock,
                         rng=random.Random(1), placement=place, executor=InlineExecutor).run_group(_group(n))
        assert all(r.ok and "duet" not in r.contention for r in results)
        assert set(place.pins.values()) == {0} and place.holds > 0


@pytest.mark.parametrize("split", [False, True])
def test_a_failing_side_of_a_duet_fails_alone(split):
    clock, place = FakeClock(), RecordingPlacement()
    pids = iter(range(100, 400))

    def launch(case, i):
        kind, extra = (SplitWorker, {"log": []}) if split else (FakeWorker, {})
        w = kind(clock, 1000.0, noise=0.05, seed=i,
                 fail_stage="workload" if case.runtime.name == "rt1" else None, **extra)
        w.hello.pid = next(pids)
        return w

    a, b = Engine(get_job("short", duet=True), launch, clock=clock, rng=random.Random(1), placement=place,
                  executor=InlineExecutor).run_group(_group(2))
    assert a.ok and not b.ok and "planted failure" in b.error


def test_a_method_ratio_under_contention_stands_only_when_measured_as_a_duet():
    assert not ratio_stands(True, False, True, True)
    assert ratio_stands(True, False, True, True, together=True)
    assert not ratio_stands(False, False, True, True, together=True)  # not paired
    assert not ratio_stands(True, False, True, False, together=True)  # a side wall-timed
    assert contention_reason("heavy", "quiet", True, False, True, True) == "contention in new"
    assert contention_reason("heavy", "quiet", True, False, True, True, together=True) == ""
    assert measured_together({"duet": True}, {"duet": True, "level": "heavy"})
    assert not measured_together({"duet": True}, {})
    assert not measured_together({"duet": True}, None)


class SplitWorker(FakeWorker):
    """A fake that can send a workload request and read its reply later (WorkerProcess.begin_workload)."""

    def __init__(self, *args, log=None, name="", **kwargs):
        super().__init__(*args, **kwargs)
        self.log, self.name = log, name

    def begin_workload(self, invocations, timeout):
        self.log.append(("send", self.name))

        def finish():
            self.log.append(("reply", self.name))
            return self.run("workload", invocations, 1, timeout)
        return finish


def test_a_duet_round_sends_both_requests_before_reading_either_reply():
    clock, place, log = FakeClock(), RecordingPlacement(), []
    pids = iter(range(100, 400))

    def launch(case, i):
        w = SplitWorker(clock, 1000.0, noise=0.05, seed=i, log=log, name=f"{case.runtime.name}/{i}")
        w.hello.pid = next(pids)
        return w

    a, b = Engine(get_job("short", duet=True), launch, clock=clock, rng=random.Random(1), placement=place,
                  executor=InlineExecutor).run_group(_group(2))
    assert a.ok and b.ok and log
    # every round of a launch pair: send, send, reply, reply (each side's launch k once)
    for i in range(0, len(log), 4):
        kinds = [e[0] for e in log[i:i + 4]]
        names = {e[1] for e in log[i:i + 4]}
        assert kinds == ["send", "send", "reply", "reply"]
        assert len(names) == 2 and len({n.split("/")[1] for n in names}) == 1
    for la, lb in zip(a.launches, b.launches):
        assert la.workload_rounds == lb.workload_rounds and len(la.workload_cpu) == len(la.workload)
