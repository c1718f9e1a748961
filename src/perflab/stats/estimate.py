"""The estimate of one case from its launches: mean, error (half-width of the CI), spread, percentiles.

Samples are per-operation times: each iteration's nanoseconds minus that launch's overhead (median of its
overhead iterations), divided by invocations × ops per invoke.

The error honours launches: iterations inside one process are not independent of the process (JIT,
memory layout, address randomisation), so we use a one-way random-effects model. With L launches,
N samples, within-launch mean square MSW and between-launch variance component s²_B:
    SE² = s²_B / L + MSW / N,
with Satterthwaite's degrees of freedom. When processes agree, s²_B ≈ 0 and this is the usual
t-interval on N−L degrees of freedom; when they disagree, the interval widens honestly towards L−1.
Upper outliers are removed per launch by Tukey's fences centred on the launch and scaled by the spread of
every launch around its own median (see `launch_fences`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..model import LaunchSamples
from .distributions import f_survival, t_quantile
from .modality import mvalue
from .outliers import launch_fences, tukey_fences

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
    outliers_upper_removed: int = 0
    outliers_lower: int = 0
    overhead_per_op: float = 0.0
    gross_mean: float = 0.0  # mean per op including the loop/call overhead
    launch_means: list[float] = field(default_factory=list)
    between_share: float = 0.0  # share of SE² that comes from between-launch variance
    launch_anova_p: float = 1.0
    mvalue: float = 2.0
    iteration_ns_median: float = 0.0

    @property
    def rel_error(self) -> float:
        return abs(self.error / self.mean) if self.mean else float("inf")

    def to_json(self) -> dict:
        return {k: (float(v) if isinstance(v, (np.floating, float)) else v)
                for k, v in self.__dict__.items()}


OVERHEAD_WINDOW = 2  # rounds on each side whose overhead iterations are pooled for a workload sample


def per_op(launch: LaunchSamples, ops_per_invoke: int, subtract_overhead: bool = True
           ) -> tuple[np.ndarray, float]:
    """`_per_op`, remembered while the launch's samples stay as they are: the engine judges after
    rounds over every launch so far, and a retired launch's samples no longer change."""
    key = (id(launch.workload), len(launch.workload), launch.workload[-1:], id(launch.overhead),
           len(launch.overhead), launch.overhead[-1:], len(launch.overhead_rounds), launch.invocations,
           ops_per_invoke, subtract_overhead)
    hit = launch.__dict__.get("_per_op_cache")
    if hit is not None and hit[0] == key:
        return hit[1]
    out = _per_op(launch, ops_per_invoke, subtract_overhead)
    out[0].setflags(write=False)  # shared between callers
    launch.__dict__["_per_op_cache"] = (key, out)
    return out


def _per_op(launch: LaunchSamples, ops_per_invoke: int, subtract_overhead: bool = True
            ) -> tuple[np.ndarray, float]:
    """Per-operation samples of one launch (overhead subtracted) and that launch's overhead per op.

    Overhead measured in the rounds (next to the workload) is subtracted locally: each workload sample
    loses the median of the overhead iterations within ±OVERHEAD_WINDOW rounds of it, which follows the
    machine's drift while averaging the overhead's own noise. Otherwise the launch's overhead median
    is subtracted from every sample. Upper outliers of the overhead (interference, as in the
    workload) are left out first: a burst in the empty loop would make the samples beside it look
    fast, and removing upper outliers of the workload cannot catch that."""
    denom = max(1, launch.invocations) * max(1, ops_per_invoke)
    work = np.asarray(launch.workload, dtype=float)
    if not (subtract_overhead and launch.overhead):
        return work / denom, 0.0
    over_all = np.asarray(launch.overhead, dtype=float)
    rounds = np.asarray(launch.overhead_rounds, dtype=int) if len(launch.overhead_rounds) == len(
        over_all) else np.zeros(len(over_all), dtype=int)
    clean = over_all <= tukey_fences(over_all)[1]
    over_all, rounds = over_all[clean], rounds[clean]
    in_rounds = rounds > 0
    if in_rounds.any() and len(launch.workload_rounds) == len(work):
        r_over, v_over = rounds[in_rounds], over_all[in_rounds]
        local = _window_medians(r_over, v_over, np.asarray(launch.workload_rounds, dtype=int))
        return (work - local) / denom, float(np.median(v_over)) / denom
    over = float(np.median(over_all))
    return (work - over) / denom, over / denom


def round_means(launches: list[LaunchSamples], ops_per_invoke: int = 1, subtract_overhead: bool = True,
                remove_upper_outliers: bool = True) -> dict[int, float]:
    """Per interleaving round, the mean per-op time over the launches measured in it: the values a
    paired ratio compares round by round. Upper outliers are left out as `estimate` leaves them out
    of the mean (one launch's hiccup would otherwise move its whole round). Each launch is centred on
    the case's mean first: which processes were live changes from round to round when launches retire
    and fresh ones start, and their own levels must not show up as round-to-round noise — the ratio's
    interval takes the between-process variance from the estimates instead (see `ratio_of`)."""
    values, keys = [], []
    timed = [ln for ln in launches if ln.workload and len(ln.workload_rounds) == len(ln.workload)]
    xs = [per_op(ln, ops_per_invoke, subtract_overhead)[0] for ln in timed]
    fences = launch_fences(xs)
    for launch, x, (_, hi) in zip(timed, xs, fences):
        r = np.asarray(launch.workload_rounds, dtype=int)
        if remove_upper_outliers:
            keep = x <= hi
            x, r = x[keep], r[keep]
        values.append(x)
        keys.append(r)
    if not values:
        return {}
    grand = float(np.mean(np.concatenate(values)))
    values = [x - np.mean(x) + grand if len(x) else x for x in values]
    uniq, inverse = np.unique(np.concatenate(keys), return_inverse=True)
    means = np.bincount(inverse, weights=np.concatenate(values)) / np.bincount(inverse)
    return dict(zip(uniq.tolist(), means.tolist()))


def _window_medians(r_over: np.ndarray, v_over: np.ndarray, r_work: np.ndarray) -> np.ndarray:
    """For every workload round, the median of the overhead values measured within ±OVERHEAD_WINDOW
    rounds of it (the launch's overall overhead median where there are none). Vectorised: the
    engine judges after every round, over every sample so far."""
    order = np.argsort(r_over, kind="stable")
    r_sorted, v_sorted = r_over[order], v_over[order]
    lo = np.searchsorted(r_sorted, r_work - OVERHEAD_WINDOW, side="left")
    hi = np.searchsorted(r_sorted, r_work + OVERHEAD_WINDOW, side="right")
    width = hi - lo
    out = np.full(len(r_work), float(np.median(v_over)))
    for w in np.unique(width[width > 0]):  # windows of equal width: one vectorised median each
        rows = np.flatnonzero(width == w)
        out[rows] = np.median(v_sorted[lo[rows, None] + np.arange(w)[None, :]], axis=1)
    return out


def _t(confidence: float, df: float) -> float:
    if not np.isfinite(df) or df <= 0:
        return float("inf")
    return t_quantile(df, 0.5 + confidence / 2)


def estimate(launches: list[LaunchSamples], ops_per_invoke: int = 1, confidence: float = 0.999,
             remove_upper_outliers: bool = True, subtract_overhead: bool = True,
             modality: bool = True) -> Estimate | None:
    """`modality=False` skips the mValue (a kernel density estimate), which only the final judgement
    needs, not the engine's stopping decision after every round."""
    groups: list[np.ndarray] = []
    rounds: list[np.ndarray] = []
    overheads: list[float] = []
    removed = lower = 0
    gross: list[float] = []
    iteration_ns: list[float] = []
    timed = [ln for ln in launches if ln.workload]
    converted = [per_op(ln, ops_per_invoke, subtract_overhead) for ln in timed]
    fences = launch_fences([x for x, _ in converted])
    for launch, (x, over), (lo, hi) in zip(timed, converted, fences):
        r = np.asarray(launch.workload_rounds if len(launch.workload_rounds) == len(x)
                       else range(len(x)), dtype=int)
        if remove_upper_outliers:
            keep = x <= hi
            removed += int((~keep).sum())
            x, r = x[keep], r[keep]
        lower += int((x < lo).sum())
        groups.append(x)
        rounds.append(r)
        overheads.append(over)
        gross.extend((x + over).tolist())
        iteration_ns.extend(launch.workload)
    if not groups:
        return None
    allx = np.concatenate(groups)
    n, L = len(allx), len(groups)
    mean = float(np.mean(allx))
    sd = float(np.std(allx, ddof=1)) if n > 1 else 0.0
    means = [float(np.mean(g)) for g in groups]
    if L > 1 and n > L:
        # Within-launch variance from the raw samples (it includes the machine's drift over time);
        # the between-launch component from samples with each round's common shift removed, so a
        # burst of noise that hit every process in the same round is not mistaken for processes
        # that differ.
        ssw = sum(float(np.sum((g - np.mean(g)) ** 2)) for g in groups)
        msw = ssw / (n - L)
        adjusted = _remove_round_effects(groups, rounds, mean)
        amean = float(np.mean(np.concatenate(adjusted)))
        assw = sum(float(np.sum((g - np.mean(g)) ** 2)) for g in adjusted)
        amsw = assw / (n - L)
        msb = sum(len(g) * (np.mean(g) - amean) ** 2 for g in adjusted) / (L - 1)
        n0 = (n - sum(len(g) ** 2 for g in groups) / n) / (L - 1)
        var_b = max(0.0, (msb - amsw) / n0)
        a, b = var_b / L, msw / n
        se2 = a + b
        df = se2 ** 2 / ((a ** 2 / (L - 1) if a else 0.0) + (b ** 2 / (n - L) if b else 0.0)) \
            if se2 > 0 else float(n - L)
        between = a / se2 if se2 > 0 else 0.0
        p = f_survival(L - 1, n - L, msb / amsw) if amsw > 0 else (0.0 if msb > 0 else 1.0)
    else:
        se2 = sd ** 2 / n if n > 1 else float("inf")
        df, between, p = float(n - 1), 0.0, 1.0
    se = float(np.sqrt(se2))
    half = _t(confidence, df) * se if n > 1 else float("inf")
    pct = np.percentile(allx, PERCENTILES)
    return Estimate(
        mean=mean, error=half, ci_low=mean - half, ci_high=mean + half, stddev=sd,
        median=float(np.median(allx)), min=float(np.min(allx)), max=float(np.max(allx)),
        n=n, launches=L, confidence=confidence, se=se, df=float(df),
        percentiles={f"p{int(q)}": float(v) for q, v in zip(PERCENTILES, pct)},
        outliers_upper_removed=removed, outliers_lower=lower,
        overhead_per_op=float(np.mean(overheads)), gross_mean=float(np.mean(gross)),
        launch_means=means, between_share=float(between), launch_anova_p=p,
        mvalue=mvalue(allx) if modality else 2.0, iteration_ns_median=float(np.median(iteration_ns)),
    )


def _remove_round_effects(groups: list[np.ndarray], rounds: list[np.ndarray], grand: float
                          ) -> list[np.ndarray]:
    """Subtract from every sample the mean of its round (over the launches measured in that round)
    and add back the grand mean. Rounds seen by a single launch carry no shared information and are
    left as they are."""
    values, keys = np.concatenate(groups), np.concatenate(rounds).astype(int)
    uniq, inverse = np.unique(keys, return_inverse=True)
    counts = np.bincount(inverse)
    means = np.bincount(inverse, weights=values) / counts
    shift = np.where(counts > 1, means - grand, 0.0)[inverse]
    bounds = np.cumsum([len(g) for g in groups])[:-1]
    return [g - s for g, s in zip(groups, np.split(shift, bounds))]
