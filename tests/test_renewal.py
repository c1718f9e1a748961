"""Renewal arithmetic (allocation.plan_renewal) on hand-built counts: no engine, no process."""
import math

from perflab.engine.allocation import plan_renewal
from perflab.jobs import get_job

JOB = get_job("default")


def test_live_launches_double_when_none_has_measured_enough():
    done, count = plan_renewal([[10, 10, 10], [10, 10, 10]], math.inf, 3, 10.0, 0.05, JOB)
    assert done == [] and count == min(6, JOB.launches_live) - 3


def test_a_position_retires_only_when_every_contender_measured_enough_there():
    done, count = plan_renewal([[20, 20, 5], [20, 5, 20]], 12, 3, 10.0, 0.05, JOB)
    assert done == [0]
    assert count == min(6, JOB.launches_live) - 2  # the retired position is refilled too


def test_the_total_cap_and_the_budget_left_limit_the_starts():
    _, count = plan_renewal([[10] * 3], math.inf, JOB.launches_max - 1, 10.0, 0.05, JOB)
    assert count == 1
    # 0.3 s left, a launch costs 0.1 s for each of two contenders: one launch each
    _, count = plan_renewal([[10] * 3, [10] * 3], math.inf, 3, 0.3, 0.1, JOB)
    assert count == 1
    _, count = plan_renewal([[10] * 3], math.inf, JOB.launches_max, 10.0, 0.05, JOB)
    assert count <= 0  # nothing to do
