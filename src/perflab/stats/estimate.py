"""The estimate of one case from its launches: mean, error (half-width of the CI), spread, percentiles.

Samples are per-operation times: each iteration's nanoseconds minus that launch's overhead (median of its
overhead iterations), divided by invocations × ops per invoke.

The error honours launches: iterations inside one process are not independent of the process (JIT,
memory layout, address randomisation), so we use a one-way random-effects model. With L launches of
n_i samples, within-launch mean square MSW and between-launch variance component s²_B, each launch
weighs w_i = 1/(s²_B + MSW/n_i), and the interval is the modified Hartung-Knapp-Sidik-Jonkman one
(`launch_weighted`): t with L−1 degrees of freedom, the processes being the independent units.
Upper outliers are removed by Tukey's fences: the case's pooled fences, or a launch's own when its median
lies outside them (see `launch_fences`). The variance components come from every sample clamped to the
same fences.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..model import LaunchSamples
from .distributions import f_survival, t_quantile
from .modality import mvalue
from .outliers import launch_fences
from .segments import Segments

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


OVERHEAD_WINDOW = 2  # rounds on each side whose overhead iterations are pooled for a workload sample


def per_op(launch: LaunchSamples, ops_per_invoke: int, subtract_overhead: bool = True
           ) -> tuple[np.ndarray, float]:
    """Per-operation samples of one launch (overhead subtracted) and that launch's overhead per op
    (see `per_op_all`)."""
    return per_op_all([launch], ops_per_invoke, subtract_overhead)[0]


def per_op_all(launches: list[LaunchSamples], ops_per_invoke: int, subtract_overhead: bool = True
               ) -> list[tuple[np.ndarray, float]]:
    """`per_op` of every launch, remembered per launch while its samples stay as they are (the engine
    judges after rounds over every launch so far, and a retired launch's samples no longer change);
    the launches that changed are computed together (`_per_op_many`)."""
    out: list = [None] * len(launches)
    stale, keys = [], []
    for i, launch in enumerate(launches):
        key = (id(launch.workload), len(launch.workload), launch.workload[-1:], id(launch.overhead),
               len(launch.overhead), launch.overhead[-1:], len(launch.overhead_rounds),
               launch.invocations, ops_per_invoke, subtract_overhead)
        hit = launch.__dict__.get("_per_op_cache")
        if hit is not None and hit[0] == key:
            out[i] = hit[1]
        else:
            stale.append(i)
            keys.append(key)
    fresh = _per_op_many([launches[i] for i in stale], ops_per_invoke, subtract_overhead)
    for i, key, value in zip(stale, keys, fresh):
        value[0].setflags(write=False)  # shared between callers
        launches[i].__dict__["_per_op_cache"] = (key, value)
        out[i] = value
    return out


def _per_op_many(launches: list[LaunchSamples], ops_per_invoke: int, subtract_overhead: bool = True
                 ) -> list[tuple[np.ndarray, float]]:
    """Per-operation samples of each launch (overhead subtracted) and its overhead per op.

    Overhead measured in the rounds (next to the workload) is subtracted locally: each workload sample
    loses the median of the overhead iterations within ±OVERHEAD_WINDOW rounds of it, which follows the
    machine's drift while averaging the overhead's own noise. Otherwise the launch's overhead median
    is subtracted from every sample. Upper outliers of the overhead (interference, as in the
    workload) are left out first: a burst in the empty loop would make the samples beside it look
    fast, and removing upper outliers of the workload cannot catch that."""
    out: list = [None] * len(launches)
    with_over = []
    for i, launch in enumerate(launches):
        denom = max(1, launch.invocations) * max(1, ops_per_invoke)
        work = np.asarray(launch.workload, dtype=float)
        if subtract_overhead and launch.overhead:
            with_over.append((i, work, denom))
        else:
            out[i] = (work / denom, 0.0)
    if not with_over:
        return out
    overs = [np.asarray(launches[i].overhead, dtype=float) for i, _, _ in with_over]
    segs = Segments(overs)
    q1, q3 = segs.quantiles(0.25), segs.quantiles(0.75)
    upper = np.where(segs.counts >= 4, q3 + 1.5 * (q3 - q1), np.inf)  # Tukey's upper fence
    local_v, local_r, local_w, local_at = [], [], [], []  # launches whose overhead ran in the rounds
    plain = []
    for k, ((i, work, denom), over_all) in enumerate(zip(with_over, overs)):
        launch = launches[i]
        rounds = np.asarray(launch.overhead_rounds, dtype=np.int64) if len(launch.overhead_rounds) == len(
            over_all) else np.zeros(len(over_all), dtype=np.int64)
        clean = over_all <= upper[k]
        over_all, rounds = over_all[clean], rounds[clean]
        in_rounds = rounds > 0
        if in_rounds.any() and len(launch.workload_rounds) == len(work):
            local_v.append(over_all[in_rounds])
            local_r.append(rounds[in_rounds])
            local_w.append(np.asarray(launch.workload_rounds, dtype=np.int64))
            local_at.append(k)
        else:
            plain.append((k, over_all))
    if plain:
        medians = Segments([v for _, v in plain]).medians()
        for (k, _), over in zip(plain, medians):
            i, work, denom = with_over[k]
            out[i] = ((work - over) / denom, float(over) / denom)
    if local_at:
        local, over = _window_medians_many(local_r, local_v, local_w)
        for k, x, o in zip(local_at, local, over):
            i, work, denom = with_over[k]
            out[i] = ((work - x) / denom, float(o) / denom)
    return out


def round_means(launches: list[LaunchSamples], ops_per_invoke: int = 1, subtract_overhead: bool = True,
                remove_upper_outliers: bool = True) -> dict[int, float]:
    """Per interleaving round, the mean per-op time over the launches measured in it: the values a
    paired ratio compares round by round. Upper outliers are left out as `estimate` leaves them out
    of the mean (one launch's hiccup would otherwise move its whole round). Each launch is centred on
    the case's mean first: which processes were live changes from round to round when launches retire
    and fresh ones start, and their own levels must not show up as round-to-round noise — the ratio's
    interval takes the processes' differences from its launch pairs instead (see stats/ratio.py)."""
    timed = [ln for ln in launches if ln.workload and len(ln.workload_rounds) == len(ln.workload)]
    if not timed:
        return {}
    xs = [x for x, _ in per_op_all(timed, ops_per_invoke, subtract_overhead)]
    ids = np.repeat(np.arange(len(xs)), [len(x) for x in xs])
    values = np.concatenate(xs)
    keys = np.concatenate([np.asarray(ln.workload_rounds, dtype=int) for ln in timed])
    if remove_upper_outliers:
        keep = values <= np.array([hi for _, hi in launch_fences(xs)])[ids]
        values, keys, ids = values[keep], keys[keep], ids[keep]
    grand = float(np.mean(values))
    launch_means = np.bincount(ids, weights=values, minlength=len(xs)) / np.maximum(
        np.bincount(ids, minlength=len(xs)), 1)
    values = values - launch_means[ids] + grand
    uniq, inverse = np.unique(keys, return_inverse=True)
    means = np.bincount(inverse, weights=values) / np.bincount(inverse)
    return dict(zip(uniq.tolist(), means.tolist()))


def _window_medians(r_over: np.ndarray, v_over: np.ndarray, r_work: np.ndarray) -> np.ndarray:
    """For every workload round, the median of the overhead values measured within ±OVERHEAD_WINDOW
    rounds of it (the launch's overall overhead median where there are none)."""
    return _window_medians_many([r_over], [v_over], [r_work])[0][0]


def _window_medians_many(r_overs: list[np.ndarray], v_overs: list[np.ndarray],
                         r_works: list[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
    """`_window_medians` of many launches at once, and each launch's overall overhead median. The
    launches' rounds are keyed apart (launch × stride + round) so one sorted array holds them all and
    no window reaches into another launch; windows of equal width take one vectorised median each."""
    stride = int(max(max((r.max() for r in r_overs if len(r)), default=0),
                     max((r.max() for r in r_works if len(r)), default=0))) + 2 * OVERHEAD_WINDOW + 2
    overall = Segments(v_overs).medians()
    key_over = np.concatenate([r + k * stride for k, r in enumerate(r_overs)])
    key_work = np.concatenate([r + k * stride for k, r in enumerate(r_works)])
    values = np.concatenate(v_overs).astype(float)
    order = np.argsort(key_over, kind="stable")
    key_sorted, v_sorted = key_over[order], values[order]
    lo = np.searchsorted(key_sorted, key_work - OVERHEAD_WINDOW, side="left")
    hi = np.searchsorted(key_sorted, key_work + OVERHEAD_WINDOW, side="right")
    width = hi - lo
    out = overall[np.repeat(np.arange(len(r_works)), [len(r) for r in r_works])]
    for w in np.unique(width[width > 0]):
        rows = np.flatnonzero(width == w)
        block = np.sort(v_sorted[lo[rows, None] + np.arange(w)[None, :]], axis=1)
        out[rows] = (block[:, (w - 1) // 2] + block[:, w // 2]) / 2
    bounds = np.cumsum([len(r) for r in r_works])[:-1]
    return np.split(out, bounds), overall


def _t(confidence: float, df: float) -> float:
    if not np.isfinite(df) or df <= 0:
        return float("inf")
    return t_quantile(df, 0.5 + confidence / 2)


def estimate(launches: list[LaunchSamples], ops_per_invoke: int = 1, confidence: float = 0.999,
             remove_upper_outliers: bool = True, subtract_overhead: bool = True,
             modality: bool = True) -> Estimate | None:
    """`modality=False` skips the mValue (a kernel density estimate), which only the final judgement
    needs, not the engine's stopping decision after every round."""
    timed = [ln for ln in launches if ln.workload]
    if not timed:
        return None
    converted = per_op_all(timed, ops_per_invoke, subtract_overhead)
    xs = [x for x, _ in converted]
    fences = launch_fences(xs)
    # every launch's samples end to end (`ids`: the launch of each), as the per-launch sums below need
    sizes = [len(x) for x in xs]
    ids = np.repeat(np.arange(len(xs)), sizes)
    x_all = np.concatenate(xs)
    r_all = np.concatenate([np.asarray(ln.workload_rounds if len(ln.workload_rounds) == n else range(n),
                                       dtype=int) for ln, n in zip(timed, sizes)])
    lo = np.array([f[0] for f in fences])[ids]
    hi = np.array([f[1] for f in fences])[ids]
    keep = x_all <= hi if remove_upper_outliers else np.ones(len(x_all), dtype=bool)
    removed = int((~keep).sum())
    ids_all, r_full = ids, r_all  # every sample's launch and round, outliers included
    allx, ids, r_all = x_all[keep], ids[keep], r_all[keep]
    lower = int((allx < lo[keep]).sum())
    overheads = np.array([over for _, over in converted])
    n, L = len(allx), len(xs)
    counts = np.bincount(ids, minlength=L)
    mean = float(np.mean(allx))
    sd = float(np.std(allx, ddof=1)) if n > 1 else 0.0
    launch_means = np.bincount(ids, weights=allx, minlength=L) / counts
    means = launch_means.tolist()
    var_b = 0.0
    if L > 1 and n > L:
        # The variance components come from every sample with its upper outliers clamped to its fence
        # (winsorised), not from the samples the mean keeps: trimming shrinks the within-launch
        # spread, and the ANOVA then calls processes that agree different. (Fences around each
        # launch's own noisy median did worse: with 24 agreeing launches of 6 iterations, p < 0.05 in
        # 17 % of datasets, p < 0.01 in 6 %, and a made-up between-process sd of a sixth of the
        # iterations'. Now 6.5 % and 1.5 %.) The spread of the kept means still widens the interval
        # through the weighted spread in launch_weighted.
        # The within-launch variance that weighs the launches is the kept samples' own, what their
        # means are made of (the clamped samples' is larger by the tails the mean left out).
        if remove_upper_outliers:
            _, var_b, p = components(np.minimum(x_all, hi), ids_all, r_full, L)
            msw = float(np.sum((allx - launch_means[ids]) ** 2)) / (n - L)
        else:
            msw, var_b, p = components(allx, ids, r_all, L)
        mean, se2 = launch_weighted(launch_means, counts, var_b, msw)
        a, b = var_b / L, msw / n
        between = a / (a + b) if a + b > 0 else 0.0
        df = float(L - 1)
    else:
        msw = sd ** 2
        se2 = sd ** 2 / n if n > 1 else float("inf")
        df, between, p = float(n - 1), 0.0, 1.0
    gross_mean = float(np.mean(allx + overheads[ids]))
    iteration_ns = np.concatenate([np.asarray(ln.workload, dtype=float) for ln in timed])
    se = float(np.sqrt(se2))
    half = _t(confidence, df) * se if n > 1 else float("inf")
    pct = np.percentile(allx, PERCENTILES)
    return Estimate(
        mean=mean, error=half, ci_low=mean - half, ci_high=mean + half, stddev=sd,
        median=float(np.median(allx)), min=float(np.min(allx)), max=float(np.max(allx)),
        n=n, launches=L, confidence=confidence, se=se, df=float(df),
        percentiles={f"p{int(q)}": float(v) for q, v in zip(PERCENTILES, pct)},
        outliers_upper_removed=removed, outliers_lower=lower,
        overhead_per_op=float(np.mean(overheads)), gross_mean=gross_mean,
        launch_means=means, between_share=float(between), launch_anova_p=p,
        var_between=float(var_b), var_within=float(msw),
        mvalue=mvalue(allx) if modality else 2.0, iteration_ns_median=float(np.median(iteration_ns)),
    )


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
