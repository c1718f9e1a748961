"""Ratio of a case to its baseline, with RatioSD and an interval.

When both cases were measured in the same interleaved rounds, the ratio is judged from the paired
per-round ratios (log scale), so machine drift that hits both cancels; the between-launch variance of
each side is added, because pairing cannot cancel differences between processes. Otherwise the delta method on the
two estimates is used. RatioSD follows BenchmarkDotNet: the spread of the ratio's distribution, i.e.
ratio × sqrt((sd_a/mean_a)² + (sd_b/mean_b)²) unpaired, or the standard deviation of paired ratios.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

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
        if ok.sum() >= 3:
            logs = np.log(pa[ok] / pb[ok])
            k = len(logs)
            # Pairing removes the machine's drift, not the processes' own levels: every launch of a
            # runtime has its own memory layout, hash seed, JIT decisions. Their between-launch
            # variance components (relative, from each estimate) are added to the paired variance,
            # with Satterthwaite's degrees of freedom, so A/A intervals cover process effects.
            terms = [(float(np.var(logs, ddof=1)) / k, k - 1)]
            for e in (a, b):
                rel_between = e.between_share * e.se ** 2 / e.mean ** 2 if e.mean else 0.0
                if rel_between > 0 and e.launches > 1:
                    terms.append((rel_between, e.launches - 1))
            var = sum(v for v, _ in terms)
            se = float(np.sqrt(var))
            df = var ** 2 / sum(v * v / d for v, d in terms if d > 0) if var > 0 else k - 1
            t = float(sps.t.ppf(0.5 + confidence / 2, max(df, 1.0)))
            centre = float(np.mean(logs))
            ratios = pa[ok] / pb[ok]
            return Ratio(value, float(np.std(ratios, ddof=1)), float(np.exp(centre - t * se)),
                         float(np.exp(centre + t * se)), True, k)
    cv_a = a.stddev / a.mean
    cv_b = b.stddev / b.mean
    sd = value * float(np.hypot(cv_a, cv_b))
    rel_se = float(np.hypot(a.se / a.mean, b.se / b.mean))
    df = max(1.0, min(a.df, b.df))
    t = float(sps.t.ppf(0.5 + confidence / 2, df))
    return Ratio(value, sd, value * float(np.exp(-t * rel_se)), value * float(np.exp(t * rel_se)),
                 False)
