"""A ratio's interval, computed here and nowhere else, and the one interval of a geometric mean.

Two methods, chosen by the pairing the data have (`ratio`):

- **paired**: cases measured in the same interleaved rounds are judged on their launch pairs
  (stats/ratio.py's `launch_pairs` and `pair_spread`: the pairs' log ratios as a random-effects
  layout); the interval is exp(centre ± t·se), t on P − 1 degrees of freedom over P pairs;
- **delta**: estimates measured apart (or with fewer than two launch pairs): Mean ÷ Mean, the two
  relative standard errors combined on the log scale, t on Welch–Satterthwaite's degrees of freedom
  from each side's own (its launches − 1). With one process on either side there is no interval.

Either way the p-value is the two-sided one of the same t statistic on the log ratio, so "p < 1 −
confidence" and "the interval excludes 1" are one statement (tests/test_judge.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..policy import DEFAULT
from ..stats.distributions import f_survival, normal_quantile, t_quantile


def t_factor(df: float | None, confidence: float) -> float:
    """The t (normal without degrees of freedom) a two-sided interval at `confidence` is that many
    standard errors wide on each side: what planning reads an interval's width back with."""
    p = 0.5 + confidence / 2
    return t_quantile(df, p) if df else normal_quantile(p)


@dataclass(frozen=True)
class LogRatio:
    """A ratio on the log scale: its centre, standard error and degrees of freedom (df < 1 or an
    infinite se: no interval)."""
    centre: float
    se: float
    df: float

    @property
    def has_interval(self) -> bool:
        return self.df >= 1 and math.isfinite(self.se)

    def interval(self, confidence: float) -> tuple[float, float]:
        """exp(centre ± t·se): (0, ∞) without an interval."""
        if not self.has_interval:
            return 0.0, math.inf
        half = t_quantile(self.df, 0.5 + confidence / 2) * self.se
        return exp_(self.centre - half), exp_(self.centre + half)

    @property
    def p(self) -> float | None:
        """Two-sided p of "the ratio is 1"; None without an interval."""
        if not self.has_interval:
            return None
        if self.se == 0:
            return 0.0 if self.centre != 0 else 1.0
        return f_survival(1, self.df, (self.centre / self.se) ** 2)


def delta(mean_a: float, se_a: float, df_a: float, mean_b: float, se_b: float, df_b: float) -> LogRatio:
    """a/b of two estimates measured apart (means > 0): the delta method on the log scale, t on
    Welch–Satterthwaite's degrees of freedom (the fewer of the two when both are exact)."""
    centre = math.log(mean_a / mean_b)
    if min(df_a, df_b) < 1 or not math.isfinite(se_a + se_b):
        return LogRatio(centre, math.inf, 0.0)
    a, b = (se_a / mean_a) ** 2, (se_b / mean_b) ** 2
    df = (a + b) ** 2 / (a * a / df_a + b * b / df_b) if a + b > 0 else min(df_a, df_b)
    return LogRatio(centre, math.sqrt(a + b), df)


def paired(centre: float, se: float, pairs: int) -> LogRatio:
    """The launch pairs' log ratio (stats/ratio.pair_spread): t on P − 1 degrees of freedom."""
    return LogRatio(centre, se, pairs - 1)


@dataclass(frozen=True)
class GeometricMean:
    value: float | None
    low: float | None = None
    high: float | None = None
    why_none: str = ""  # why there is no interval (said instead of printing [<0.001–>1000])

    @property
    def has_interval(self) -> bool:
        return self.low is not None and self.high is not None


def geometric_mean(intervals: list[tuple[float, float, float]], confidence: float,
                   meaningful_factor: float = DEFAULT.claims.meaningful_factor) -> GeometricMean:
    """The geometric mean of ratios (value, low, high), its interval treating the cases as fixed and
    independent: each case's log standard error read back from its own interval (width / 2z), the
    mean of n logs with standard error √Σse²/n. Ratios without a finite interval above 0 are left
    out. When the interval does not place the mean within ×`meaningful_factor` either side (a case
    measured with one or two processes has an interval of ×1000), it is not given: `why_none` says so."""
    usable = [(v, lo, hi) for v, lo, hi in intervals
              if v > 0 and lo is not None and hi is not None and lo > 0 and math.isfinite(hi)]
    if not usable:
        return GeometricMean(None)
    z = normal_quantile(0.5 + confidence / 2)
    logs = [math.log(v) for v, _, _ in usable]
    mean = sum(logs) / len(logs)
    ses = [(math.log(hi) - math.log(lo)) / (2 * z) for _, lo, hi in usable]
    se = math.sqrt(sum(s * s for s in ses)) / len(ses)
    if z * se > math.log(meaningful_factor):
        return GeometricMean(math.exp(mean), why_none=(
            f"no meaningful interval: the cases' own intervals do not place it within ×{meaningful_factor:g} "
            "either side"))
    return GeometricMean(math.exp(mean), math.exp(mean - z * se), math.exp(mean + z * se))


def exp_(x: float) -> float:
    """exp without overflow: an interval bound beyond ±1e300 is as good as 0 or infinity."""
    return float(np.exp(np.clip(x, -690.0, 690.0)))
