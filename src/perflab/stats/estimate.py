"""The estimate of one case from its launches: mean, error (half-width of the CI), spread, percentiles.

Samples are per-operation times, cleaned by stats/clean.py (preempted iterations and gross outliers,
slow and fast, set aside; the mean of the launch's kept overhead subtracted): every consumer of samples
sees the same ones.

The units are the processes: iterations inside one process are not independent of it (JIT, memory
layout, address randomisation). One-way random-effects model: with L launches of n_i kept samples,
within-launch mean square MSW and between-launch variance component s²_B, each launch's mean weighs
w_i = 1/(s²_B + MSW/n_i), and the interval is the modified Hartung-Knapp-Sidik-Jonkman one
(`launch_weighted`): t with L−1 degrees of freedom. A single launch has no interval.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..model import LaunchSamples
from .distributions import f_survival, t_quantile
from .clean import RULES, CleanLaunch, clean_case, outlying_units, set_aside_totals
from .modality import mvalue

PERCENTILES = (0, 25, 50, 75, 90, 95, 99, 100)


@dataclass
class Estimate:
    mean: float
    error: float  # half-width of the CI at `confidence`
    ci_low: float
    ci_high: float
    stddev: float
    median: float
    min: float
    max: float
    n: int
    launches: int
    confidence: float
    se: float
    df: float
    percentiles: dict[str, float] = field(default_factory=dict)
    outliers_upper_removed: int = 0  # slow samples set aside (stats/clean.py)
    outliers_lower: int = 0  # fast samples set aside
    preempted: int = 0  # iterations whose thread waited for a CPU (set aside, or CPU-timed and kept)
    cpu_timed: bool = False  # timed by the measuring thread's CPU time (stats/clean.py rule 0)
    processes_set_aside: int = 0  # whole processes far from the others (stats/clean.outlying_units)
    overhead_per_op: float = 0.0
    # how much the empty loop itself varies, per op: the larger of one overhead iteration's standard
    # deviation and that of the launches' overhead levels
    overhead_noise: float = 0.0
    gross_mean: float = 0.0  # mean per op including the loop/call overhead
    launch_means: list[float] = field(default_factory=list)
    between_share: float = 0.0  # share of var_between/L + var_within/n that comes from between launches
    var_between: float = 0.0  # variance of the processes' own levels (random-effects component)
    var_within: float = 0.0  # variance of one sample within a process
    launch_anova_p: float = 1.0
    mvalue: float = 2.0
    iteration_ns_median: float = 0.0

    @property
    def rel_error(self) -> float:
        return abs(self.error / self.mean) if self.mean else float("inf")

    def to_json(self) -> dict:
        return {k: (float(v) if isinstance(v, (np.floating, float)) else v)
                for k, v in self.__dict__.items()}


def _t(confidence: float, df: float) -> float:
    if not np.isfinite(df) or df <= 0:
        return float("inf")
    return t_quantile(df, 0.5 + confidence / 2)


def estimate(launches: list[LaunchSamples], ops_per_invoke: int = 1, confidence: float = 0.999,
             remove_outliers: bool = True, subtract_overhead: bool = True,
             modality: bool = True) -> Estimate | None:
    """The case's mean per operation and its interval, from its launches cleaned by stats/clean.py.
    `modality=False` skips the mValue (a kernel density estimate), which only the final judgement
    needs, not the engine's stopping decision after every round."""
    return estimate_cleaned(clean_case(launches, ops_per_invoke, subtract_overhead, remove_outliers),
                            launches, confidence, modality)


def estimate_cleaned(cleaned: list[CleanLaunch], launches: list[LaunchSamples],
                     confidence: float = 0.999, modality: bool = True) -> Estimate | None:
    """`estimate` from launches already cleaned (`launches`: the raw ones, for the iterations' own
    times)."""
    used = [c for c in cleaned if len(c.x)]
    if not used:
        return None
    levels = np.array([c.location for c in used])
    far = outlying_units(levels, RULES.process_floor_rel * abs(median_of(levels)))
    used = [c for c, f in zip(used, far) if not f]
    xs = [c.x for c in used]
    L = len(xs)
    counts = np.array([len(x) for x in xs])
    ids = np.repeat(np.arange(L), counts)
    allx = np.concatenate(xs)
    rounds = np.concatenate([c.rounds for c in used])
    n = len(allx)
    sd = float(np.std(allx, ddof=1)) if n > 1 else 0.0
    launch_means = np.array([c.location for c in used])
    var_b, p = 0.0, 1.0
    if L > 1 and n > L:
        msw, var_b, p = components(allx, ids, rounds, L)
        mean, se2 = launch_weighted(launch_means, counts, var_b, msw)
        a, b = var_b / L, msw / n
        between = a / (a + b) if a + b > 0 else 0.0
        df = float(L - 1)
    else:
        # One process: its iterations are not independent of it (JIT decisions, memory layout), and
        # one process says nothing of how another would measure. No interval.
        msw = sd ** 2
        mean, se2, df, between = float(np.mean(allx)), float("inf"), 0.0, 0.0
    se = float(np.sqrt(se2))
    half = _t(confidence, df) * se
    overheads = np.array([c.overhead_per_op for c in used])
    aside = set_aside_totals(cleaned)
    ordered = np.sort(allx)
    pct = percentiles_of_sorted(ordered, PERCENTILES)
    iteration_ns = np.concatenate([np.asarray(ln.workload, dtype=float) for ln in launches if ln.workload])
    return Estimate(
        mean=mean, error=half, ci_low=mean - half, ci_high=mean + half, stddev=sd,
        median=median_of_sorted(ordered), min=float(ordered[0]), max=float(ordered[-1]),
        n=n, launches=L, confidence=confidence, se=se, df=df,
        percentiles={f"p{int(q)}": float(v) for q, v in zip(PERCENTILES, pct)},
        outliers_upper_removed=aside["slow"], outliers_lower=aside["fast"], preempted=aside["waited"],
        cpu_timed=bool(used[0].cpu_timed), processes_set_aside=int(far.sum()),
        overhead_per_op=float(np.mean(overheads)),
        overhead_noise=max(float(np.std(overheads, ddof=1)) if L > 1 else 0.0,
                           median_of(np.array([c.overhead_sd for c in used]))),
        gross_mean=float(np.mean(np.concatenate([c.gross for c in used]))),
        launch_means=launch_means.tolist(), between_share=float(between), launch_anova_p=p,
        var_between=float(var_b), var_within=float(msw),
        mvalue=mvalue(allx) if modality else 2.0, iteration_ns_median=median_of(iteration_ns),
    )


# np.median and np.percentile cost 0.1-0.35 ms a call on this VM whatever the array's size (their
# Python-level dispatch), five calls a case estimate: a third of the estimate's time on a dry case,
# and the engine estimates a case after every few rounds. One sort gives the same numbers.

def median_of_sorted(s: np.ndarray) -> float:
    """np.median of an ascending array without NaN, exactly (the mean of the middle two)."""
    n = len(s)
    m = n // 2
    return float(s[m]) if n % 2 else float((s[m - 1] + s[m]) / 2)


def median_of(x: np.ndarray) -> float:
    """np.median of an array without NaN."""
    return median_of_sorted(np.sort(x))


def percentiles_of_sorted(s: np.ndarray, qs) -> np.ndarray:
    """np.percentile(s, qs) (its default, linear method) of an ascending array without NaN, exactly:
    the same virtual index and the same two-sided interpolation as numpy's."""
    q = np.true_divide(np.asarray(qs, dtype=float), 100)
    pos = q * (len(s) - 1)
    below = np.floor(pos).astype(np.intp)
    above = np.minimum(below + 1, len(s) - 1)
    t = pos - below
    a, b = s[below], s[above]
    diff = b - a
    return np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)


def precision(est: Estimate) -> float:
    """The relative half-width of the interval that was judged: what a target is met against and
    what every message quotes (inf: no interval)."""
    return est.rel_error


def indistinguishable_from_empty(est: Estimate, resolution_per_op: float = 0.0) -> bool:
    """Whether the net time (overhead subtracted) cannot be told from an empty benchmark's. What the
    measurement resolves: the clock's resolution per operation, and the empty loop's own noise per
    operation (`overhead_noise`); a net time below that is within what the subtraction itself varies
    by (BenchmarkDotNet's zero-measurement rule compares with half a CPU cycle). Empty when the net
    time is below it (its value, or its whole interval: a benchmark cannot cost less than an empty
    one, and an interval below zero says the loops differ, not the code), or when its interval reaches
    zero and stays below what the call itself costs. An interval that reaches zero because it is
    enormous is noise, not emptiness (the precision warning reports it)."""
    if est.overhead_per_op <= 0:  # nothing was subtracted: the time is what it is
        return False
    resolvable = max(resolution_per_op, est.overhead_noise)
    if abs(est.mean) < resolvable or est.ci_high < resolvable:
        return True
    return est.ci_low <= 0 and est.ci_high < est.overhead_per_op


def components(x: np.ndarray, ids: np.ndarray, rounds: np.ndarray | None, L: int
               ) -> tuple[float, float, float]:
    """Within-launch variance, between-launch variance and the launch ANOVA's p-value, from samples
    `x` of launches `ids` measured in `rounds` (None: no common shift per round to take out, as in a
    ratio's launch pairs, where pairing cancelled it)."""
    n = len(x)
    counts = np.bincount(ids, minlength=L)
    mean = float(np.mean(x))
    launch_means = np.bincount(ids, weights=x, minlength=L) / counts
    # Within-launch variance from the raw samples (it includes the machine's drift over time); the
    # between-launch component from samples with each round's common shift removed, so a burst of
    # noise that hit every process in the same round is not mistaken for processes that differ.
    msw = float(np.sum((x - launch_means[ids]) ** 2)) / (n - L)
    shifts, shared = _round_shifts(x, rounds, mean) if rounds is not None else (np.zeros(n), 0)
    # each round mean taken out costs the residuals a degree of freedom (the two-way layout of
    # launches × rounds): dividing by n - L alone made launches that agree look different
    resid_df = n - L - max(0, shared - 1)
    if resid_df <= 0:
        shifts, resid_df = np.zeros(n), n - L
    adjusted = x - shifts
    amean = float(np.mean(adjusted))
    a_means = np.bincount(ids, weights=adjusted, minlength=L) / counts
    amsw = float(np.sum((adjusted - a_means[ids]) ** 2)) / resid_df
    msb = float(np.sum(counts * (a_means - amean) ** 2)) / (L - 1)
    n0 = (n - float(np.sum(counts.astype(float) ** 2)) / n) / (L - 1)
    var_b = max(0.0, (msb - amsw) / n0)
    p = f_survival(L - 1, resid_df, msb / amsw) if amsw > 0 else (0.0 if msb > 0 else 1.0)
    return msw, var_b, p


def launch_weighted(means: np.ndarray, counts: np.ndarray, var_b: float, msw: float
                     ) -> tuple[float, float]:
    """The mean over launches and its squared standard error, by the modified Hartung-Knapp-Sidik-
    Jonkman method of random-effects meta-analysis: each launch weighs 1/(var_b + msw/n_i), and the
    variance is the weighted spread of the launch means around that mean, never less than the model's
    own 1/Σw (t with L-1 degrees of freedom goes with it: the processes are the independent units).
    With var_b = 0 this is the plain mean of all samples; with var_b large, the mean of the launch
    means. A Satterthwaite interval that trusts an estimate var_b = 0 from three processes that
    happened to agree covered the truth in 97 % of simulated cases instead of 99.9 %
    (bench/coverage.py)."""
    w = 1.0 / (var_b + msw / counts) if var_b + msw > 0 else counts.astype(float)
    mean = float(np.sum(w * means) / np.sum(w))
    q = float(np.sum(w * (means - mean) ** 2)) / (len(means) - 1)
    return mean, max(1.0, q) / float(np.sum(w))


def _round_shifts(values: np.ndarray, rounds: np.ndarray, grand: float) -> tuple[np.ndarray, int]:
    """For every sample, how far the mean of its round (over the launches measured in that round) is
    from the grand mean: subtracted, it leaves what differs between launches. Rounds seen by a single
    launch carry no shared information and are left as they are. Also: how many rounds were shared."""
    uniq, inverse = np.unique(rounds, return_inverse=True)
    counts = np.bincount(inverse)
    means = np.bincount(inverse, weights=values) / counts
    return np.where(counts > 1, means - grand, 0.0)[inverse], int(np.sum(counts > 1))
