"""`perflab history`: the runs in the store, a benchmark's series across runs and runtimes, and the
points where its performance shifted (`--changes`).

Change points: PELT (ruptures, a maintained library; its C implementation of the L2 cost) on the log of each case's means, scaled by the
series' own run-to-run noise (a robust estimate from successive differences), with a BIC-like penalty;
a proposed change is reported only if the shift is at least the threshold (2%) and a permutation test of
the best split of its two neighbouring segments (the statistic E-Divisive-style methods test) gives
p < 0.002 — a plain t-test would ignore that the split was chosen as the best of many. For every change we report the runs on both
sides and the size of the shift.

A young series, one with fewer runs than the permutation test can ever call significant
(CHANGE_POINT_RUNS: below it, C(n, n/2) orderings cannot give p < 0.002), is judged step by step
instead, from its second run on: each pair of consecutive runs is tested as `perflab compare` tests
a case (its raw samples, launches as units, a Welch t on the log ratio), the p-values of the series'
steps are adjusted together (Benjamini–Hochberg), and a step is a change where compare would say
slower or faster (never under contention). Such Changes say how they were found (`method`).

Instruction counts (`--measure instructions`) need none of that: a count repeats, and each run records
how well (its launches' spread). A step in a case's count series is a pair of consecutive counted runs
that `compare` would call faster or slower (perflab.count_verdicts: beyond the count threshold and
beyond both runs' launch spreads); deterministic, no penalty, no permutation test. Count changes are
Changes of measure "instructions", listed beside the time's, never merged with them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .judge import Verdict
from .model import Status
from .policy import DEFAULT
from .stats.robust import robust_sd

RULES = DEFAULT.history  # the change-point rule's numbers, each with why: perflab.policy.History


def _fewest_testable_runs() -> int:
    """The fewest runs whose best split the permutation test can call significant: a clean split of n
    runs into halves is matched by 2 of its C(n, n/2) orderings, so p >= 2 / C(n, n/2)."""
    n = 2 * RULES.segment_runs
    while 2 / math.comb(n, n // 2) >= RULES.significance:
        n += 1
    return n


CHANGE_POINT_RUNS = _fewest_testable_runs()  # 13; fewer runs are judged step by step, as compare does


def max_split_t(x: np.ndarray, min_size: int = 3) -> np.ndarray:
    """For each row of x, the largest |t| (pooled variance) over every split into two parts."""
    x = np.atleast_2d(x)
    # centred first (the statistic does not move): sums of squares of values far from 0 lose the
    # small differences between them, and equal statistics would not come out equal
    x = x - x.mean(axis=1, keepdims=True)
    n = x.shape[1]
    k = np.arange(min_size, n - min_size + 1)
    if len(k) == 0:
        return np.zeros(x.shape[0])
    c1, c2 = np.cumsum(x, axis=1), np.cumsum(x * x, axis=1)
    s1, q1 = c1[:, k - 1], c2[:, k - 1]
    s2, q2 = c1[:, -1:] - s1, c2[:, -1:] - q1
    m1, m2 = s1 / k, s2 / (n - k)
    ss = (q1 - s1 * m1) + (q2 - s2 * m2)
    pooled = np.maximum(ss / (n - 2), 1e-300) * (1 / k + 1 / (n - k))
    return np.max(np.abs(m1 - m2) / np.sqrt(pooled), axis=1)




def permutation_p(x: np.ndarray, seed: int = 0) -> float:
    """The share of orderings of x whose largest split statistic reaches the observed one. An ordering
    that deals the same halves gives the same statistic, but summed in another order it can come out
    an ulp below: such ties count as reaching it (a bare `>=` lost them, and p came out too small)."""
    rng = np.random.default_rng(seed)
    observed = max_split_t(x)[0]
    perms = np.array([rng.permutation(x) for _ in range(RULES.permutations)])
    reach = max_split_t(perms) >= observed * (1 - RULES.tie_tolerance)
    return float((np.sum(reach) + 1) / (RULES.permutations + 1))


@dataclass
class Change:
    key: str
    before_run: int
    after_run: int
    before_mean: float
    after_mean: float
    runs_before: list[int]
    runs_after: list[int]
    measure: str = "time"  # "time": means in ns; "instructions": per-op Ir
    method: str = "change point"  # or "step": consecutive runs of a young series, judged as compare does

    @property
    def change(self) -> float:
        return self.after_mean / self.before_mean - 1

    @property
    def verdict(self) -> Verdict:
        """A change found is a verdict: slower (a higher time, or more instructions) or faster."""
        return Verdict.SLOWER if self.change > 0 else Verdict.FASTER


def change_points(runs: list[int], means: list[float], min_shift: float = RULES.min_shift
                  ) -> list[tuple[int, float, float]]:
    """Indices where a new level starts, with the mean level before and after."""
    import ruptures as rpt
    x = np.log(np.asarray(means, dtype=float))
    n = len(x)
    if n < 2 * RULES.segment_runs:
        return []  # PELT cannot place a change with RULES.segment_runs runs on each side
    diffs = np.diff(x)
    sigma = robust_sd(diffs, 0.0) / math.sqrt(2)
    sigma = max(sigma, RULES.sigma_floor_rel)
    # PELT with the L2 cost, exactly: ruptures' KernelCPD with the linear kernel is that same cost, in
    # its C implementation (rpt.Pelt(model="l2") computes it in Python: seconds for 1,000 runs,
    # where the dashboard has a fraction of a second)
    algo = rpt.KernelCPD(kernel="linear", min_size=RULES.segment_runs, jump=1).fit((x / sigma).reshape(-1, 1))
    bkps = [int(b) for b in algo.predict(pen=RULES.penalty_per_log_n * math.log(n))[:-1]]
    out = []
    edges = [0, *bkps, n]
    for i, b in enumerate(bkps):
        left, right = x[edges[i]:b], x[b:edges[i + 2]]
        before, after = float(np.exp(np.mean(left))), float(np.exp(np.mean(right)))
        # PELT proposes; a shift is reported only if it is also large and unlikely to be noise. The
        # split was chosen as the best of many, so its significance comes from a permutation test of
        # the largest split statistic over the two neighbouring segments (as E-Divisive does).
        p = permutation_p(np.concatenate([left, right]))
        if abs(after / before - 1) >= min_shift and p < RULES.significance:
            out.append((b, before, after))
    return out


def find_changes(series: list[dict], min_shift: float = RULES.min_shift, load_case=None) -> list[Change]:
    """The changes of every case in `series` (Store.series rows): change points where a case has
    CHANGE_POINT_RUNS measured runs or more; below that, steps between consecutive runs judged as
    compare judges them, when `load_case(run_id, key)` gives the stored case and its run's job."""
    by_key: dict[str, list[dict]] = {}
    for s in series:
        if s["status"] == Status.OK and s["mean_ns"] and s["mean_ns"] > 0:
            by_key.setdefault(s["key"], []).append(s)
    changes = []
    for key, points in by_key.items():
        runs = [p["run_id"] for p in points]
        if len(points) < CHANGE_POINT_RUNS:
            if load_case is not None:
                changes += young_steps(key, runs, load_case, min_shift)
            continue
        for idx, before, after in change_points(runs, [p["mean_ns"] for p in points], min_shift):
            changes.append(Change(key, runs[idx - 1], runs[idx], before, after, runs[:idx], runs[idx:]))
    return changes


def young_steps(key: str, runs: list[int], load_case, min_shift: float = RULES.min_shift) -> list[Change]:
    """Steps between consecutive runs of one case: each pair tested as `perflab compare` tests the
    case, the series' p-values adjusted together, compare's verdict rule with min_shift as its
    threshold. Before and after are compare's estimates of the two runs."""
    from .compare import decide, measure_case
    loaded = [load_case(r, key) for r in runs]
    tested = []
    for i in range(1, len(runs)):
        (old, old_job), (new, new_job) = loaded[i - 1], loaded[i]
        if old is None or new is None:
            continue
        cc = measure_case(old, new, bool((old_job or {}).get("overhead", True)),
                          bool((new_job or {}).get("overhead", True)))
        if cc.p is not None:
            tested.append((i, cc))
    if not tested:
        return []
    decide([cc for _, cc in tested], threshold=min_shift)
    steps = [(i, cc) for i, cc in tested if Verdict(cc.verdict).changed]
    edges = [0, *(i for i, _ in steps), len(runs)]
    return [Change(key, runs[i - 1], runs[i], cc.old_mean, cc.new_mean, runs[edges[j]:i],
                   runs[i:edges[j + 2]], method="step")
            for j, (i, cc) in enumerate(steps)]


class StoredCases:
    """load_case for find_changes: a stored case and its run's job, each run's job read once."""

    def __init__(self, store):
        self.store, self._jobs = store, {}

    def __call__(self, run_id: int, key: str) -> tuple[dict | None, dict]:
        if run_id not in self._jobs:
            self._jobs[run_id] = self.store.run(run_id).get("job") or {}
        return self.store.case(run_id, key), self._jobs[run_id]


def count_steps(points: list[dict], threshold: float) -> list[int]:
    """Indices i of `points` (one case's counted runs, oldest first, each with its `counts`) where
    run i counts clearly more or fewer instructions than run i−1."""
    from .count_verdicts import judge_counts
    return [i for i in range(1, len(points))
            if Verdict(judge_counts(points[i - 1]["counts"], points[i]["counts"], threshold).verdict).changed]


def find_count_changes(series: list[dict], threshold: float | None = None) -> list[Change]:
    """Steps in the instruction counts of every case in `series` (Store.series rows); the runs on
    each side are those up to the neighbouring steps."""
    from .count_verdicts import per_op
    threshold = DEFAULT.change.count_threshold if threshold is None else threshold
    by_key: dict[str, list[dict]] = {}
    for s in series:
        if per_op(s.get("counts")) is not None:
            by_key.setdefault(s["key"], []).append(s)
    changes = []
    for key, points in by_key.items():
        runs = [p["run_id"] for p in points]
        steps = count_steps(points, threshold)
        edges = [0, *steps, len(points)]
        for j, i in enumerate(steps):
            changes.append(Change(key, runs[i - 1], runs[i], per_op(points[i - 1]["counts"]),
                                  per_op(points[i]["counts"]), runs[edges[j]:i], runs[i:edges[j + 2]],
                                  measure="instructions"))
    return changes
