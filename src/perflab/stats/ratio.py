"""Ratio of a case to its baseline, with RatioSD and an interval.

When both cases were measured in the same interleaved rounds, the ratio is judged from the paired
per-round ratios (log scale), so machine drift that hits both cancels. On a shared machine a burst of
interference hits one side of a pair now and then, so the paired estimate is robust: the
Hodges–Lehmann estimate (median of Walsh averages) with the Wilcoxon signed-rank interval — no
normality assumed. The between-launch variance of each side widens it, because pairing cannot cancel
differences between processes. Otherwise the delta method on the
two estimates is used. RatioSD follows BenchmarkDotNet: the spread of the ratio's distribution, i.e.
ratio × sqrt((sd_a/mean_a)² + (sd_b/mean_b)²) unpaired, or the standard deviation of paired ratios.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .distributions import normal_quantile, t_quantile
from .estimate import Estimate


@dataclass
class Ratio:
    value: float
    sd: float
    ci_low: float
    ci_high: float
    paired: bool
    n_pairs: int = 0

    def to_json(self) -> dict:
        return dict(self.__dict__)


def ratio_of(a: Estimate, b: Estimate, confidence: float = 0.999,
             paired_a: np.ndarray | None = None, paired_b: np.ndarray | None = None) -> Ratio | None:
    """a / b, where b is the baseline."""
    if b.mean <= 0 or a.mean <= 0:
        return None
    value = a.mean / b.mean
    if paired_a is not None and paired_b is not None and len(paired_a) >= 3:
        pa, pb = np.asarray(paired_a, float), np.asarray(paired_b, float)
        ok = (pa > 0) & (pb > 0)
        if ok.sum() >= 3 and wilcoxon_rank(int(ok.sum()), confidence) >= 0:
            logs = np.log(pa[ok] / pb[ok])
            centre, lo, hi = hodges_lehmann(logs, confidence)
            # Pairing removes the machine's drift, not the processes' own levels: every launch of a
            # runtime has its own memory layout, hash seed, JIT decisions. Their between-launch
            # variance components (relative, from each estimate) widen the interval, with
            # Satterthwaite's degrees of freedom, so A/A intervals cover process effects. (The
            # components, not the means' whole errors: those also carry the drift between
            # generations of launches, which pairing does cancel.)
            extra = [(e.var_between / e.launches / e.mean ** 2, e.launches - 1) for e in (a, b)
                     if e.mean and e.launches > 1 and e.var_between > 0]
            if extra:
                var = sum(v for v, _ in extra)
                df = var ** 2 / sum(v * v / d for v, d in extra)
                widen = t_quantile(max(df, 1.0), 0.5 + confidence / 2) * float(np.sqrt(var))
                lo, hi = centre - float(np.hypot(centre - lo, widen)), centre + float(np.hypot(hi - centre, widen))
            ratios = pa[ok] / pb[ok]
            return Ratio(float(np.exp(centre)), float(np.std(ratios, ddof=1)), _exp(lo), _exp(hi), True,
                         int(ok.sum()))
    cv_a = a.stddev / a.mean
    cv_b = b.stddev / b.mean
    sd = value * float(np.hypot(cv_a, cv_b))
    rel_se = float(np.hypot(a.se / a.mean, b.se / b.mean))
    df = max(1.0, min(a.df, b.df))
    t = t_quantile(df, 0.5 + confidence / 2)
    return Ratio(value, sd, value * _exp(-t * rel_se), value * _exp(t * rel_se), False)


def ratio_from_rounds(a: Estimate, b: Estimate, rounds_a: dict[int, float], rounds_b: dict[int, float],
                      confidence: float = 0.999) -> Ratio | None:
    """a / b from two cases measured in the same interleaved rounds: paired over the rounds both took
    part in (their per-round means, see `round_means`)."""
    common = sorted(set(rounds_a) & set(rounds_b))
    if len(common) < 3:
        return ratio_of(a, b, confidence)
    return ratio_of(a, b, confidence, np.array([rounds_a[k] for k in common]),
                    np.array([rounds_b[k] for k in common]))


def _exp(x: float) -> float:
    """exp without overflow: an interval bound beyond ±1e300 is as good as 0 or infinity."""
    return float(np.exp(np.clip(x, -690.0, 690.0)))


def wilcoxon_rank(n: int, confidence: float) -> int:
    """Index of the lower bound among the n(n+1)/2 sorted Walsh averages; negative when n pairs are too
    few for a distribution-free interval at this confidence (at 99.9 %: fewer than 14 pairs). Then
    `ratio_of` judges from the two estimates instead (their t intervals do exist)."""
    m = n * (n + 1) // 2
    z = normal_quantile(0.5 + confidence / 2)
    return int(np.floor(m / 2 - z * np.sqrt(n * (n + 1) * (2 * n + 1) / 24)))


def hodges_lehmann(d: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """Hodges–Lehmann location of `d` and its distribution-free interval from the Wilcoxon signed-rank
    statistic (normal approximation of its quantiles; exact enough from a dozen pairs on)."""
    d = np.asarray(d, dtype=float)
    n = len(d)
    i, j = np.triu_indices(n)
    walsh = np.sort((d[i] + d[j]) / 2)
    m = len(walsh)
    centre = float(np.median(walsh))
    k = wilcoxon_rank(n, confidence)
    if k < 0:  # too few pairs for this confidence: the interval is the whole observed range
        return centre, float(walsh[0]), float(walsh[-1])
    return centre, float(walsh[k]), float(walsh[m - 1 - k])
