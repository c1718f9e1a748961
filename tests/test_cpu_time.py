"""Protocol v2's per-iteration CPU time through the engine: fake workers report it (cpu = wall unless
a test plants preemption), the engine keeps it beside the wall times, a worker that breaks the rules
fails its case alone, and the results document keeps it."""
import json
import random

import pytest

from perflab.analysis import Row
from perflab.engine.runner import Engine
from perflab.engine.worker import CpuClock, Timings
from perflab.errors import ProtocolError
from perflab.jobs import get_job
from perflab.results import case_result_from_json, row_to_json
from perflab.policy import DEFAULT

from fakes import FakeClock, FakeWorker, make_case


def run_group(cases, factory, clock, job="short"):
    return Engine(get_job(job), factory, clock=clock, rng=random.Random(1)).run_group(cases)


@pytest.mark.parametrize("paired", [False, True])
def test_cpu_times_are_kept_beside_the_wall_times_they_go_with(paired):
    """Every kept workload/overhead iteration has its CPU time at the same index, whether the overhead
    comes in its own request or paired with the workload; a preempted iteration shows wall > cpu."""
    clock = FakeClock()
    preempted = tuple(range(20, 400, 7))

    def launch(case, i):
        return FakeWorker(clock, 20.0, overhead_ns=30.0, noise=0.01, seed=i, with_overhead=paired,
                          preempted=preempted, preempted_ns=2e6)

    [res] = run_group([make_case()], launch, clock)
    assert res.ok
    slowed = 0
    for ln in res.launches:
        assert len(ln.workload_cpu) == len(ln.workload) > 0
        assert len(ln.overhead_cpu) == len(ln.overhead) > 0
        for wall, cpu in zip(ln.workload + ln.overhead, ln.workload_cpu + ln.overhead_cpu):
            assert wall - cpu in (0, 2_000_000)  # cpu = wall, or preempted for exactly 2 ms
            slowed += wall - cpu > 0
    assert slowed > 0  # some kept iterations were among the planted ones
    assert res.worker_runtime["cpu_clock"]["scope"] == "thread"


def test_a_worker_without_a_cpu_clock_leaves_the_cpu_lists_empty():
    clock = FakeClock()
    [res] = run_group([make_case()], lambda c, i: FakeWorker(clock, 1000.0, noise=0.01, seed=i,
                                                              cpu_clock=False), clock)
    assert res.ok and all(ln.workload and not ln.workload_cpu and not ln.overhead_cpu
                          for ln in res.launches)
    assert "cpu_clock" not in res.worker_runtime


def test_a_protocol_error_fails_its_case_alone():
    """A worker whose CPU times break the rules (the host raises ProtocolError on its reply) fails the
    case it runs, with the reason; the other case of the group is measured as usual."""
    clock = FakeClock()

    class Lying(FakeWorker):
        def run(self, stage, invocations, iterations, timeout):
            if stage == "workload":
                raise ProtocolError("samples.cpu_ns[0] = 9000000 ns of CPU time exceeds the "
                                    "iteration's 1000 ns wall time (slack 1000000 ns)")
            return super().run(stage, invocations, iterations, timeout)

    def launch(case, i):
        cls = Lying if case.runtime.name == "bad" else FakeWorker
        return cls(clock, 1000.0, noise=0.01, seed=i)

    bad, good = run_group([make_case(runtime="bad"), make_case(runtime="good")], launch, clock)
    assert bad.case.runtime.name == "bad" and not bad.ok
    assert "cpu_ns[0]" in bad.error
    assert good.ok and good.launches and all(ln.workload_cpu for ln in good.launches)


def test_cpu_times_round_trip_through_the_results_document():
    clock = FakeClock()
    [res] = run_group([make_case()], lambda c, i: FakeWorker(clock, 1000.0, noise=0.01, seed=i,
                                                              preempted=(12, 13)), clock)
    doc = json.loads(json.dumps(row_to_json(Row(res))))
    back = case_result_from_json(doc)
    assert [ln.workload_cpu for ln in back.launches] == [ln.workload_cpu for ln in res.launches]
    assert [ln.overhead_cpu for ln in back.launches] == [ln.overhead_cpu for ln in res.launches]
    assert any(ln.workload_cpu for ln in back.launches)
    assert back.worker_runtime["cpu_clock"] == {"source": "fake", "scope": "thread", "resolution_ns": 1.0}
    assert [ln.cpu_scope for ln in back.launches] == ["thread"] * len(res.launches)
    # a document from before launches kept their clock's scope: the case's clock says it
    for ln in doc["launches"]:
        del ln["cpu_scope"]
    assert {ln.cpu_scope for ln in case_result_from_json(doc).launches} == {"thread"}


def test_slack_is_the_largest_of_the_floor_two_clock_steps_and_one_percent_of_wall():
    assert CpuClock("x", "thread", 1).slack_ns(1000) == 1_000_000
    assert CpuClock("x", "thread", 4_000_000).slack_ns(1000) == 8_000_000  # a 4 ms tick clock
    assert CpuClock("x", "thread", 1).slack_ns(1_000_000_000) == 10_000_000


def test_timings_default_to_no_cpu():
    assert Timings([5]).cpu == []


def test_a_finished_case_carries_its_time_to_the_log():
    """`on_case_done` feeds the run's log, which `--resume` reads: the case's wall_seconds must be
    set by then (it was 0 in every log line: the group set it only at its end)."""
    clock = FakeClock()
    seen = []
    engine = Engine(get_job("short"), lambda case, i: FakeWorker(clock, 20.0, seed=i), clock=clock,
                    rng=random.Random(1), on_case_done=lambda r: seen.append(r.wall_seconds))
    [res] = engine.run_group([make_case()])
    assert seen and seen[0] > 0 and seen[0] == res.wall_seconds


def _samples(cpu, wall):
    return {"cpu_ns": list(cpu), "ns": list(wall)}


def test_a_rare_iteration_with_more_cpu_than_wall_is_a_clock_glitch_not_a_failed_case():
    """A quiet run lost a whole case to one iteration with 5.38 ms of thread CPU in 2.98 ms of wall
    time: a process may have Replies.cpu_glitch_share of its iterations over (one at least), kept as measured;
    more means a worker reading the wrong clock, and fails as before."""
    from perflab.engine.worker import CpuGlitches, check_cpu_times
    clock = CpuClock("x", "thread", 1)
    wall = [2_981_643] * 10
    glitched = [2_900_000] * 10
    glitched[0] = 5_381_683
    g = CpuGlitches()
    msg = _samples(glitched, wall)
    check_cpu_times(msg, "cpu_ns", wall, clock, g)  # one in ten: allowed
    assert (g.checked, g.over) == (10, 1) and msg["cpu_ns"][0] == 5_381_683  # raw value kept
    with pytest.raises(ProtocolError, match=r"cpu_ns\[0\].*2 of the process's 20 iterations"):
        check_cpu_times(_samples(glitched, wall), "cpu_ns", wall, clock, g)  # a second one: too many
    # a longer process may have its share: 2 % of 500 iterations
    g = CpuGlitches(checked=490)
    for _ in range(int(DEFAULT.replies.cpu_glitch_share * 500)):
        check_cpu_times(_samples([2_900_000] * 9 + [5_381_683], wall[:10]), "cpu_ns", wall, clock, g)
    assert g.over == int(DEFAULT.replies.cpu_glitch_share * 500) and g.over <= g.allowed()
    # without a process's count (a conformance vector) none may be over
    with pytest.raises(ProtocolError, match=r"cpu_ns\[0\]"):
        check_cpu_times(_samples(glitched, wall), "cpu_ns", wall, clock)
    # a process clock may exceed wall time (other threads): never an error
    check_cpu_times(_samples([10 * w for w in wall], wall), "cpu_ns", wall, CpuClock("x", "process", 1))


def test_a_glitched_iteration_does_not_move_a_cpu_timed_estimate():
    """The glitch kept as measured: a CPU-timed case fences its time as a gross outlier, so the
    estimate is that of the clean samples."""
    import numpy as np
    from perflab.model import LaunchSamples
    from perflab.stats.clean import clean_case

    def launches(glitch):
        rng, out = np.random.default_rng(7), []
        for i in range(4):
            wall = [int(x) for x in rng.normal(1_000_000, 5_000, 30)]
            cpu = [w - 1_000 for w in wall]
            if glitch and i == 1:
                cpu[3] = wall[3] + 2_400_000
            out.append(LaunchSamples(index=i, invocations=1, workload=wall, workload_cpu=cpu,
                                     cpu_scope="thread"))
        return out
    clean = clean_case(launches(False), subtract_overhead=False)
    glitched = clean_case(launches(True), subtract_overhead=False)
    assert all(c.cpu_timed for c in glitched)
    assert glitched[1].set_aside.get("slow") == 1 and len(glitched[1].x) == 29
    a = np.mean(np.concatenate([c.x for c in clean]))
    b = np.mean(np.concatenate([c.x for c in glitched]))
    assert abs(b / a - 1) < 0.001
