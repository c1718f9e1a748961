"""Start-ahead bookkeeping (engine/ahead.py) on hand-fed lags: no engine, no process."""
from perflab.engine.ahead import AheadGate, starts_wanted
from perflab.jobs import get_job
from perflab.policy import DEFAULT


def _gate(busy: float, idle: float, n: int = DEFAULT.starts.lag_min_samples) -> AheadGate:
    gate = AheadGate()
    for _ in range(n):
        gate.record(True, busy)
        gate.record(False, idle)
    return gate


def test_starting_ahead_goes_on_while_it_costs_the_rounds_little():
    assert not _gate(busy=0.0012, idle=0.0010).hurts(now=0.0)


def test_starting_ahead_pauses_when_it_slows_every_round_iteration_and_is_tried_afresh_later():
    gate = _gate(busy=0.0035, idle=0.0010)
    assert gate.hurts(now=0.0)
    assert gate.n[True] == 0 and gate.lag[True] is None  # measured afresh when they resume
    assert gate.hurts(now=DEFAULT.starts.ahead_pause_s / 2)  # still paused
    assert not gate.hurts(now=DEFAULT.starts.ahead_pause_s)


def test_too_few_iterations_cannot_tell():
    assert not _gate(busy=0.0035, idle=0.0010, n=DEFAULT.starts.lag_min_samples - 1).hurts(now=0.0)


def test_starts_wanted_doubles_the_live_launches_within_the_job_caps():
    job = get_job("default")
    assert starts_wanted(3, 3, job) == min(6, job.launches_live)
    assert starts_wanted(3, job.launches_max - 2, job) == 2
    assert starts_wanted(3, job.launches_max, job) == 0
