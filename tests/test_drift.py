"""The machine's own speed drift, read from the empty loop of every process (stats/drift.py), and the
reason a missed precision target gives for itself."""
import random

from fakes import FakeClock, FakeWorker, InlineExecutor, make_case

from perflab.analysis import analyse
from perflab.engine.runner import Engine
from perflab.jobs import get_job
from perflab.model import LaunchSamples
from perflab.stats.drift import speed_drift


def launch(i, empty_ns, n=1000, k=6):
    return LaunchSamples(index=i, invocations=n, overhead=[int(empty_ns * n)] * k, workload=[int(3 * empty_ns * n)] * k)


def test_speed_drift_is_the_empty_loops_spread_over_processes():
    assert speed_drift([launch(0, 30.0), launch(1, 31.0), launch(2, 29.5)]) is None  # within ×1.2
    assert speed_drift([launch(0, 30.0), launch(1, 48.0), launch(2, 31.0)]) == (30.0, 48.0)
    assert speed_drift([launch(0, 30.0)]) is None  # one process cannot tell
    assert speed_drift([launch(0, 30.0), launch(1, 48.0, k=2)]) is None  # too few empty-loop samples
    assert speed_drift([launch(0, 30.0), LaunchSamples(index=1)]) is None  # no empty loop (--no-overhead)


def _missed_target(drift, noise):
    job = get_job("short", target_rel_error=0.01)
    clock = FakeClock()
    rng = random.Random(3)

    def factory(case, i):
        clock.t += 0.03
        return FakeWorker(clock, 2000.0, overhead_ns=40.0, noise=noise, seed=rng.randrange(1 << 30), drift=drift)

    [res] = Engine(job, factory, clock=clock, rng=random.Random(1), executor=InlineExecutor).run_group([make_case()])
    assert res.stop_reason == "budget exhausted"
    [row] = analyse([res], job.confidence, job.target_rel_error)
    [w] = [w for w in row.warnings if "precision target" in w]
    return w


def test_a_missed_target_says_when_the_machine_itself_drifted():
    # the whole machine 1.6 times slower every other 0.4 s (a VM's host busy elsewhere)
    w = _missed_target(lambda t: 1.6 if int(t / 0.4) % 2 else 1.0, 0.03)
    assert "the machine's own speed changed during the run" in w and "×1." in w
    # noise within every process, the empty loop's too: not a drift of the machine
    w = _missed_target(None, 0.25)
    assert "the machine or the benchmark is noisy" in w and "own speed" not in w
