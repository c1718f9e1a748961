"""Ratio of a case to its baseline, with RatioSD and an interval.

When both cases were measured in the same interleaved rounds, the ratio is judged from pairs, so
machine drift that hits both sides cancels. Two intervals, and the reported one spans both:

- Launch pairs as the units (`launch_pairs`). Launch k of every contender starts, runs its rounds
  and retires with launch k of the others, so within a pair drift cancels round by round, and what
  is left is the two processes' own levels (memory layout, hash seeds, JIT decisions) plus the
  iterations' noise. Their log ratios form a one-way random-effects layout, judged as a lone case's
  launches are (stats/estimate.py): modified Hartung-Knapp-Sidik-Jonkman, t on P-1 degrees of
  freedom over P pairs. Widening a paired interval by each side's estimated between-process variance
  (what this did before) trusted an estimate of 0 from a few processes that happened to agree: with
  processes 2 % apart the interval held 1.00 in 97.5 % of simulated A/A pairs, not 99.9 %.
- The paired rounds (`hodges_lehmann` over the per-round log ratios): robust to a burst that hits one
  side of a round, with no normality assumed. The interval is never narrower than this one.

Otherwise the delta method on the two estimates is used. RatioSD follows BenchmarkDotNet: the spread
of the ratio's distribution, i.e. ratio × sqrt((sd_a/mean_a)² + (sd_b/mean_b)²) unpaired, or the
standard deviation of paired ratios.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import LaunchSamples
from .distributions import normal_quantile, t_quantile
from .estimate import Estimate, components, launch_weighted, per_op_all, round_means
from .outliers import launch_fences


@dataclass
class Ratio:
    value: float
    sd: float
    ci_low: float
    ci_high: float
    paired: bool
    n_pairs: int = 0  # paired rounds
    # the launch pairs' log ratios (see `pair_spread`): how many, and their variance components
    units: int = 0
    var_between: float = 0.0
    var_within: float = 0.0
    anova_p: float = 1.0

    def to_json(self) -> dict:
        return dict(self.__dict__)

    def spread(self) -> "PairSpread | None":
        """The launch pairs' components, as the engine's allocation reads a case's (log scale, so the
        'mean' a relative target applies to is 1); None when the ratio was not judged from them."""
        if self.units < 2:
            return None
        return PairSpread(0.0, 0.0, self.units, self.n_pairs, self.var_between, self.var_within,
                          self.anova_p)


@dataclass
class PairSpread:
    """One-way random-effects summary of the launch pairs' log ratios. Named like an Estimate's fields
    (launches, n, var_between, var_within, mean) so the allocation arithmetic reads either."""
    centre: float
    se: float
    launches: int  # launch pairs
    n: int  # paired iterations in all
    var_between: float
    var_within: float
    anova_p: float
    mean: float = 1.0  # the scale a relative target is taken on (log ratios: ±2 % is ±0.02)

    @property
    def between_share(self) -> float:
        a, b = self.var_between / self.launches, self.var_within / max(1, self.n)
        return a / (a + b) if a + b > 0 else 0.0


def ratio_of(a: Estimate, b: Estimate, confidence: float = 0.999,
             paired_a: np.ndarray | None = None, paired_b: np.ndarray | None = None,
             units: list[np.ndarray] | None = None) -> Ratio | None:
    """a / b, where b is the baseline. `paired_a`/`paired_b`: the two cases' per-round means over the
    rounds both took part in; `units`: the log ratios of each launch pair, round by round (see
    `launch_pairs`)."""
    if b.mean <= 0 or a.mean <= 0:
        return None
    value = a.mean / b.mean
    if paired_a is not None and paired_b is not None and len(paired_a) >= 3:
        pa, pb = np.asarray(paired_a, float), np.asarray(paired_b, float)
        ok = (pa > 0) & (pb > 0)
        if ok.sum() >= 3 and wilcoxon_rank(int(ok.sum()), confidence) >= 0:
            logs = np.log(pa[ok] / pb[ok])
            centre, lo, hi = hodges_lehmann(logs, confidence)
            ratios = pa[ok] / pb[ok]
            r = Ratio(float(np.exp(centre)), float(np.std(ratios, ddof=1)), 0.0, 0.0, True, int(ok.sum()))
            spread = pair_spread(units or [])
            if spread is not None:
                # Pairing the rounds removes the machine's drift, not the processes' own levels: the
                # launch pairs are the independent units, and the interval spans theirs too
                half = t_quantile(spread.launches - 1, 0.5 + confidence / 2) * spread.se
                lo, hi = min(lo, spread.centre - half), max(hi, spread.centre + half)
                r.units, r.var_between, r.var_within, r.anova_p = (
                    spread.launches, spread.var_between, spread.var_within, spread.anova_p)
            r.ci_low, r.ci_high = _exp(lo), _exp(hi)
            return r
    cv_a = a.stddev / a.mean
    cv_b = b.stddev / b.mean
    sd = value * float(np.hypot(cv_a, cv_b))
    rel_se = float(np.hypot(a.se / a.mean, b.se / b.mean))
    df = max(1.0, min(a.df, b.df))
    t = t_quantile(df, 0.5 + confidence / 2)
    return Ratio(value, sd, value * _exp(-t * rel_se), value * _exp(t * rel_se), False)


def ratio_from_launches(a: Estimate, b: Estimate, launches_a: list[LaunchSamples],
                        launches_b: list[LaunchSamples], ops_a: int = 1, ops_b: int = 1,
                        subtract_overhead: bool = True, confidence: float = 0.999) -> Ratio | None:
    """a / b from two cases measured in the same interleaved rounds: paired over the rounds both took
    part in (their per-round means, see `round_means`) and over their launch pairs."""
    rounds_a = round_means(launches_a, ops_a, subtract_overhead)
    rounds_b = round_means(launches_b, ops_b, subtract_overhead)
    common = sorted(set(rounds_a) & set(rounds_b))
    if len(common) < 3:
        return ratio_of(a, b, confidence)
    return ratio_of(a, b, confidence, np.array([rounds_a[k] for k in common]),
                    np.array([rounds_b[k] for k in common]),
                    launch_pairs(launches_a, launches_b, ops_a, ops_b, subtract_overhead))


def launch_pairs(launches_a: list[LaunchSamples], launches_b: list[LaunchSamples], ops_a: int = 1,
                 ops_b: int = 1, subtract_overhead: bool = True) -> list[np.ndarray]:
    """For each pair of launches measured in the same rounds (the engine starts and retires launch k
    of every contender together; here each launch of `a` gets the launch of `b` it shared the most
    rounds with, each used once), the log ratios a/b of their iterations, round by round: the
    rounds both measured with neither sample above its case's outlier fence."""
    sides = []
    for launches, ops in ((launches_a, ops_a), (launches_b, ops_b)):
        timed = [ln for ln in launches if ln.workload and len(ln.workload_rounds) == len(ln.workload)]
        xs = [x for x, _ in per_op_all(timed, ops, subtract_overhead)]
        side = []
        for ln, x, (_, hi) in zip(timed, xs, launch_fences(xs)):
            r = np.asarray(ln.workload_rounds, dtype=np.int64)
            keep = (x <= hi) & (x > 0)
            side.append((r[keep], x[keep]))
        sides.append(side)
    side_a, side_b = sides
    if not side_a or not side_b:
        return []
    # rounds shared by launch i of a and launch j of b, from each launch's first and last round
    # (a launch takes part in every round while it is live)
    span = [np.array([(r.min(), r.max()) if len(r) else (1, 0) for r, _ in s], dtype=float)
            for s in (side_a, side_b)]
    overlap = (np.minimum(span[0][:, None, 1], span[1][None, :, 1])
               - np.maximum(span[0][:, None, 0], span[1][None, :, 0]) + 1)
    taken_a, taken_b, units = set(), set(), []
    for flat in np.argsort(-overlap, axis=None, kind="stable"):
        i, j = divmod(int(flat), overlap.shape[1])
        if overlap[i, j] <= 0:
            break
        if i in taken_a or j in taken_b:
            continue
        taken_a.add(i)
        taken_b.add(j)
        (ra, xa), (rb, xb) = side_a[i], side_b[j]
        _, ia, ib = np.intersect1d(ra, rb, assume_unique=True, return_indices=True)
        if len(ia):
            units.append(np.log(xa[ia] / xb[ib]))
    return units


def pair_spread(units: list[np.ndarray]) -> PairSpread | None:
    """The launch pairs' log ratios as a one-way random-effects layout, judged as stats/estimate.py
    judges a lone case's launches: each pair weighs 1/(var_b + var_w/n_p), the standard error is the
    weighted spread of the pairs' means (never under the model's own), for t on P-1 degrees of
    freedom. None with fewer than two pairs, or too few iterations to tell their spread."""
    units = [u for u in units if len(u)]
    P = len(units)
    if P < 2:
        return None
    counts = np.array([len(u) for u in units], dtype=float)
    n = int(counts.sum())
    if n <= P:
        return None
    d = np.concatenate(units)
    ids = np.repeat(np.arange(P), counts.astype(int))
    means = np.bincount(ids, weights=d, minlength=P) / counts
    msw, var_b, p = components(d, ids, None, P)
    centre, se2 = launch_weighted(means, counts, var_b, msw)
    return PairSpread(centre, float(np.sqrt(se2)), P, n, var_b, msw, p)


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
