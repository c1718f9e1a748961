"""`compare(a, b, pairing, thresholds) -> Comparison`: one comparison, judged once, in golang/perf
benchmath's shape. `a` is New (or the case), `b` Old (or its baseline); each is a stats Estimate
(the Robust assumption's summary). `pairing`: the launches of both when they were measured in the
same interleaved rounds (the paired launch-pair ratio), None when apart (the delta method)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..stats.estimate import Estimate
from .interval import delta, exp_, paired
from .rules import Thresholds, contention_reason, decide_change
from .verdict import Verdict


@dataclass
class Pairing:
    """Both sides' launches, measured in the same rounds (stats/ratio.launch_pairs)."""
    launches_a: list
    launches_b: list
    ops_a: int = 1
    ops_b: int = 1
    subtract_overhead: bool = True


@dataclass
class Comparison:
    ratio: float | None
    low: float | None
    high: float | None
    p: float | None
    verdict: Verdict
    reasons: list[str] = field(default_factory=list)
    paired: bool = False

    @property
    def has_interval(self) -> bool:
        return self.low is not None and self.high is not None


def compare(a: Estimate | None, b: Estimate | None, pairing: Pairing | None = None,
            thresholds: Thresholds = Thresholds(), contention: tuple[str | None, str | None] = (None, None),
            same_code: bool = False, p: float | None = None) -> Comparison:
    """a / b with its interval, p and verdict. `contention`: the two sides' levels (stats/contention);
    `same_code`: the same benchmark and parameters on both sides (a runtime or a revision compared);
    `p`: a p-value adjusted across the cases judged together (BH), to decide by instead of this one's."""
    if a is None or b is None or a.mean <= 0 or b.mean <= 0:
        return Comparison(None, None, None, None, Verdict.NA, ["no mean above zero on both sides"])
    lr, was_paired = None, False
    if pairing is not None:
        from ..stats.ratio import launch_pairs, pair_spread
        spread = pair_spread(launch_pairs(pairing.launches_a, pairing.launches_b, pairing.ops_a,
                                          pairing.ops_b, pairing.subtract_overhead))
        if spread is not None:
            lr, was_paired = paired(spread.centre, spread.se, spread.launches), True
    if lr is None:
        lr = delta(a.mean, a.se, a.df, b.mean, b.se, b.df)
    ratio = exp_(lr.centre)
    if not lr.has_interval:
        return Comparison(ratio, None, None, None, Verdict.INCONCLUSIVE, ["one process: no interval"],
                          was_paired)
    low, high = lr.interval(thresholds.confidence)
    own_p = lr.p
    why = contention_reason(*contention, paired=was_paired, same_code=same_code,
                            cpu_new=a.cpu_timed, cpu_old=b.cpu_timed)
    if why:
        # interference that hit one side's iterations alike can fake a change or hide one: neither
        # "slower" nor "same" is a verdict such data support
        return Comparison(ratio, low, high, own_p, Verdict.INCONCLUSIVE, [why], was_paired)
    verdict = decide_change(ratio, own_p if p is None else p, thresholds)
    return Comparison(ratio, low, high, own_p, verdict, [], was_paired)


def adjust(ps: list[float]) -> list[float]:
    """Benjamini–Hochberg across the cases judged together (a family: one `compare` of two runs, one
    case's history)."""
    if not ps:
        return []
    from scipy.stats import false_discovery_control  # imported here: 0.35 s that `run` never needs
    return [float(x) for x in false_discovery_control(ps, method="bh")]


def verdict_from_interval(ratio: float, low: float, high: float, thresholds: Thresholds) -> Verdict:
    """A verdict from an interval already computed at `thresholds.confidence` (the run's stored
    ratio): the interval excluding 1 is p < α."""
    if not (math.isfinite(high) and low > 0):
        return Verdict.INCONCLUSIVE
    return decide_change(ratio, 0.0 if (low > 1 or high < 1) else 1.0, thresholds)
