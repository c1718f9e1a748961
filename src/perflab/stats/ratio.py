"""Ratio of a case to its baseline, with RatioSD and an interval — one centre for both.

When both cases were measured in the same interleaved rounds, the units are **launch pairs**: launch
k of every contender starts, runs its rounds and retires with launch k of the others, so within a
pair the machine's drift cancels round by round, and what is left is the two processes' own levels
(memory layout, hash seeds, JIT decisions) plus the iterations' noise. The log ratios of a pair's
cleaned samples (stats/clean.py), round by round, form a one-way random-effects layout, judged as a
lone case's launches are (stats/estimate.py): each pair weighs 1/(var_b + var_w/n_p), modified
Hartung-Knapp-Sidik-Jonkman, t on P−1 degrees of freedom over P pairs. The Ratio is exp of that
weighted centre and its interval is exp(centre ± t·se): the value printed is the centre of the
interval printed. (It is not Mean ÷ Mean, which mixes in the drift the pairs cancel.)

Cases measured apart (or with fewer than two launch pairs) are compared by the delta method on the
two estimates: the value is Mean ÷ Mean. The intervals themselves (exp(centre ± t·se), and the delta
method's) are computed in one place, perflab.judge.interval; this module gives the paired centre and
its standard error.

RatioSD follows BenchmarkDotNet: the spread of the ratio's distribution — here the spread of one
paired iteration's ratio, value × sqrt(var_b + var_w) on the log scale; unpaired,
ratio × sqrt((sd_a/mean_a)² + (sd_b/mean_b)²).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..model import LaunchSamples
from .clean import RULES, clean_case, outlying_units
from .estimate import components, launch_weighted


@dataclass
class Ratio:
    value: float
    sd: float
    ci_low: float
    ci_high: float
    paired: bool
    n_pairs: int = 0  # paired iterations in all
    # the launch pairs' log ratios (see `pair_spread`): how many, and their variance components
    units: int = 0
    var_between: float = 0.0
    var_within: float = 0.0
    anova_p: float = 1.0
    df: float = 0.0  # of the log ratio's t (perflab.judge.interval); 0: no interval
    p: float | None = None  # two-sided p of "the ratio is 1" at those degrees of freedom

    def to_json(self) -> dict:
        return dict(self.__dict__)

    @property
    def rel_error(self) -> float:
        """The relative half-width of the interval, as a target is judged on and messages quote it
        (the larger side: the interval is symmetric on the log scale)."""
        if not (self.value > 0 and self.ci_low > 0 and math.isfinite(self.ci_high)):
            return math.inf
        return max(self.ci_high / self.value - 1, 1 - self.ci_low / self.value)

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


def launch_pairs(launches_a: list[LaunchSamples], launches_b: list[LaunchSamples], ops_a: int = 1,
                 ops_b: int = 1, subtract_overhead: bool = True) -> list[np.ndarray]:
    """For each pair of launches measured in the same rounds (the engine starts and retires launch k
    of every contender together; here each launch of `a` gets the launch of `b` it shared the most
    rounds with, each used once), the log ratios a/b of their cleaned samples, round by round: the
    rounds in which both kept their sample, and it is above zero."""
    sides = []
    for launches, ops in ((launches_a, ops_a), (launches_b, ops_b)):
        timed = [ln for ln in launches if ln.workload and len(ln.workload_rounds) == len(ln.workload)]
        side = []
        for c in clean_case(timed, ops, subtract_overhead):
            positive = c.x > 0
            side.append((c.rounds[positive], c.x[positive]))
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
    # a pair one of whose processes was hit for its whole life (see clean.outlying_units): its log
    # ratio lies far from the other pairs'; the floor is RULES.process_floor_rel on the log scale
    far = outlying_units(np.array([float(np.mean(u)) for u in units]), RULES.process_floor_rel)
    units = [u for u, f in zip(units, far) if not f]
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
