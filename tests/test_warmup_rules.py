"""Pilot rules (engine/warmup.py) on hand-made readings."""
from perflab.engine.warmup import iteration_target_ns, repilot_invocations


def test_the_count_is_chosen_again_only_when_warmup_made_calls_over_twice_as_fast():
    # the pilot saw 100 calls in 10 ms (100 us a call); warmed up, 1000 calls take 100 ms: no change
    assert repilot_invocations((100, 10_000_000), [100_000_000] * 3, 1000, 10e6, 1) is None
    # warmed up, 1000 calls take 20 ms (20 us a call, 5x faster): 10 ms would take 500 calls, but the
    # count never shrinks below the one in use
    assert repilot_invocations((100, 10_000_000), [20_000_000] * 3, 1000, 10e6, 1) == 1000
    # 1000 calls take 1 ms (1 us a call): 10 ms iterations need 10000, rounded up to the unroll
    assert repilot_invocations((100, 10_000_000), [1_000_000] * 3, 1000, 10e6, 16) == 10_000


def test_an_iteration_lasts_the_job_iteration_time_and_many_clock_steps():
    assert iteration_target_ns(0.01, 1.0) == 10e6
    assert iteration_target_ns(1e-6, 100.0) == 100_000  # a coarse clock: 1000 of its steps
