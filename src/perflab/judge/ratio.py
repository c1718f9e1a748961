"""A case against its baseline as the run's table, the stop rule and `--fail-on-regression` read it:
a stats.ratio.Ratio, its interval from perflab.judge.interval (paired when the two were measured in
the same rounds, else the delta method)."""
from __future__ import annotations

import math

import numpy as np

from ..model import LaunchSamples
from ..stats.estimate import Estimate
from ..stats.ratio import Ratio, launch_pairs, pair_spread
from .interval import delta, exp_, paired


def ratio_of(a: Estimate, b: Estimate, confidence: float = 0.999) -> Ratio | None:
    """a / b from two estimates measured apart (b the baseline): Mean ÷ Mean, the delta method's
    interval (none with one process a side)."""
    if b.mean <= 0 or a.mean <= 0:
        return None
    value = a.mean / b.mean
    sd = value * float(np.hypot(a.stddev / a.mean, b.stddev / b.mean))
    lr = delta(a.mean, a.se, a.df, b.mean, b.se, b.df)
    low, high = lr.interval(confidence)
    if not lr.has_interval:
        return Ratio(value, sd, 0.0, math.inf, False)
    return Ratio(value, sd, low, high, False, df=lr.df, p=lr.p)


def ratio_from_launches(a: Estimate, b: Estimate, launches_a: list[LaunchSamples],
                        launches_b: list[LaunchSamples], ops_a: int = 1, ops_b: int = 1,
                        subtract_overhead: bool = True, confidence: float = 0.999) -> Ratio | None:
    """a / b from two cases measured in the same interleaved rounds, judged on their launch pairs;
    from the two estimates when there are fewer than two pairs."""
    if a is None or b is None:
        return None
    spread = pair_spread(launch_pairs(launches_a, launches_b, ops_a, ops_b, subtract_overhead))
    if spread is None:
        return ratio_of(a, b, confidence)
    lr = paired(spread.centre, spread.se, spread.launches)
    low, high = lr.interval(confidence)
    value = exp_(spread.centre)
    return Ratio(value, value * math.sqrt(spread.var_between + spread.var_within), low, high, True,
                 spread.n, spread.launches, spread.var_between, spread.var_within, spread.anova_p,
                 df=lr.df, p=lr.p)
