"""The one cleaning step every consumer of samples uses (estimate, ratio, compare, analysis): from a
case's raw launches to the per-operation samples kept, with a count of what was set aside and why.

Per launch, for the workload and the overhead (the empty loop) alike — the same rules on both sides,
so that an empty benchmark, whose workload *is* the overhead, nets to zero on average:

0. **CPU-bound cases are timed by their thread's CPU time.** When every launch reported the CPU time
   of its measuring thread (a thread clock, not a process one) and the case keeps its CPU while it
   runs (its unhindered CPU share is at least Cleaning.cpu_bound_share), an iteration's time is its CPU time:
   wall time minus the time the thread waited for a CPU, which is interference by definition, and
   nothing else. Under heavy load most iterations wait, and the share itself says little: then the
   share counted is the one left once the thread's run-queue wait (the host's reading of the kernel's
   schedstat around each iteration, engine/runqueue.py; a lower bound) is taken out of its wall time.
   Off-CPU time the run-queue wait explains is contention; what it leaves is the code's own waiting.
   So a CPU-bound case under heavy load is CPU-timed, while one that blocks by nature keeps a low
   share whatever the load. On a quiet machine the two agree (the share is 0.97-1.0); on a loaded one the wall
   time of the same code depended on how long its iterations were (a 2 ms iteration is preempted
   more often than a 1 ms one): an A/A comparison under bench/stress.py came out 0.964
   [0.930, 0.999] by wall time and 0.992 [0.974, 1.011] by CPU time, from the same samples.
   What the CPU time still holds is what the neighbours do to the caches and the memory bus, which
   the later rules and the process units deal with. A case that blocks by nature (I/O, a lock,
   work handed to other threads) has a low share and is timed by the wall clock. Preempted
   iterations of a CPU-timed case are counted, not set aside: their CPU time is the code's.
1. **Preempted** iterations are set aside when the worker reported the CPU time of its measuring
   thread (`workload_cpu` / `overhead_cpu`, as long as `workload` / `overhead`): an iteration whose
   CPU time per wall second is below Cleaning.preempted_share of the case's unhindered share (its 90th
   percentile) spent that much of its time waiting for a CPU. Compared with the case's own share, not
   with 1: a benchmark that blocks by nature (I/O, a lock) keeps its iterations. For such a case
   (unhindered share under Cleaning.cpu_bound_share) the reference is each process's own unhindered share:
   how long a thread waits for its peers depends on where its process's scheduler put them, and
   processes of one case differ in it (0.50 against 0.43). A process clock's share above 1 is read
   as 1 (other threads beside the measuring one). Only for a case whose
   unhindered share is at least Cleaning.preempt_min_share: a thread that mostly waits (it starts a process
   and waits for it: 0.01-0.15) has a CPU time of a few hundred µs per 100 ms whose own jitter moves
   its share by more than a preemption would, and the rule set aside 20-26 of 30-37 iterations of
   every HelloWorld case of a quiet main job (2026-11-25), leaving a case one process and no
   interval. Such a case's interference is left to the gross-outlier rule below.
2. **Gross outliers**, slow *and* fast, are set aside: more than Cleaning.gross_k robust standard deviations
   (MAD_TO_SD × MAD) from the launch's median. The scale is the case's typical launch's (the median of
   the launches' MADs), so a launch of six iterations is fenced as well as one of sixty; a process
   that differs keeps its own centre and all its samples. A launch whose median is no level of its
   own — no majority of its samples around it, or far from the case's common level (the median of
   the launches' medians) while some of its iterations ran at that level — is fenced around the
   common level instead: a burst of interference hits some iterations of a process (even most of
   them), a process that differs differs in all of them. Fast outliers go too: an overhead
   burst that escaped its own fence, subtracted, makes its iterations look fast.

Then each launch's net samples are its kept workload per op minus the mean of its kept overhead per
op (the in-round overhead iterations when there are any, measured next to the workload): the same
estimator of location on both sides, so nothing skews one side only (subtracting the overhead's
*median* from the workload's *mean* biased an empty benchmark by the difference of the two).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..model import LaunchSamples
from ..policy import DEFAULT
from .robust import MAD_TO_SD, robust_sd
from .segments import Segments

# the rules' numbers, each with why it is what it is: perflab.policy.Cleaning
RULES = DEFAULT.cleaning


@dataclass
class CleanLaunch:
    """One launch's samples after cleaning."""

    index: int
    x: np.ndarray  # kept net samples per operation (overhead subtracted)
    rounds: np.ndarray  # the round of each kept sample (its position when rounds are unknown)
    gross: np.ndarray  # the kept samples per operation with the overhead in
    overhead_per_op: float
    overhead_sd: float  # standard deviation of its kept overhead iterations, per op
    raw: int  # workload iterations before cleaning
    set_aside: dict[str, int] = field(default_factory=dict)  # reason → iterations (workload)
    overhead_set_aside: int = 0
    cpu_shares: np.ndarray | None = None  # CPU/wall of each workload iteration, when known
    preempted: int = 0  # workload iterations that waited for a CPU (set aside, or CPU-timed and kept)
    cpu_timed: bool = False  # its times are the thread's CPU times (rule 0), not wall times

    @property
    def location(self) -> float:
        """The launch's level: the mean of its kept samples (nan when none was kept)."""
        return float(np.mean(self.x)) if len(self.x) else float("nan")


def clean_case(launches: list[LaunchSamples], ops_per_invoke: int = 1, subtract_overhead: bool = True,
               remove_outliers: bool = True) -> list[CleanLaunch]:
    """Every launch with workload samples, cleaned (see the module's doc). `remove_outliers=False`
    keeps every sample (the rules are then off, preempted iterations included). The engine judges a
    comparison's estimates and its ratio from the same launches after every few rounds: the latest
    cleanings are remembered while those launches' samples stay as they are."""
    timed = [ln for ln in launches if ln.workload]
    if not timed:
        return []
    key = (tuple((id(ln), len(ln.workload), len(ln.overhead), len(ln.workload_cpu), len(ln.overhead_cpu),
                  len(ln.workload_wait), ln.invocations) for ln in timed), ops_per_invoke, subtract_overhead, remove_outliers)
    hit = _MEMO.get(key)
    if hit is not None:
        return hit[1]
    out = _clean_case(timed, ops_per_invoke, subtract_overhead, remove_outliers)
    _MEMO[key] = (timed, out)  # holding the launches keeps their ids from being reused
    while len(_MEMO) > _MEMO_SIZE:
        del _MEMO[next(iter(_MEMO))]
    return out


_MEMO: dict = {}
_MEMO_SIZE = 16


def _clean_case(timed: list[LaunchSamples], ops_per_invoke: int, subtract_overhead: bool,
                remove_outliers: bool) -> list[CleanLaunch]:
    L = len(timed)
    denom = np.array([max(1, ln.invocations) * max(1, ops_per_invoke) for ln in timed], dtype=float)
    thread = np.array([ln.cpu_scope == "thread" for ln in timed])
    work = _Flat([ln.workload for ln in timed], denom, [ln.workload_cpu for ln in timed], thread,
                 [ln.workload_wait for ln in timed])
    cpu_timed = cpu_bound(work, thread)
    preempted = work.per_launch(work.preempted()).astype(np.int64)
    if cpu_timed:
        work.time_by_cpu()
    keep_w, why_w = _clean(work, remove_outliers)
    over_mean, over_sd, over_aside = np.zeros(L), np.zeros(L), np.zeros(L, dtype=np.int64)
    if subtract_overhead:
        over = _Flat([ln.overhead for ln in timed], denom, [ln.overhead_cpu for ln in timed], thread)
        if cpu_timed and over.cpu_known[over.counts > 0].all():
            over.time_by_cpu()  # the empty loop on the same clock as the workload it is subtracted from
        keep_o, _ = _clean(over, remove_outliers)
        rounds = np.concatenate([np.asarray(ln.overhead_rounds, dtype=np.int64) if len(ln.overhead_rounds)
                                 == len(ln.overhead) else np.zeros(len(ln.overhead), dtype=np.int64)
                                 for ln in timed]) if over.n else np.zeros(0, dtype=np.int64)
        # the overhead measured in the rounds, next to the workload, when a launch has some: it
        # follows the machine as the workload did; a launch whose overhead was all set aside keeps it all
        in_rounds = keep_o & (rounds > 0)
        chosen = np.where(over.per_launch(in_rounds)[over.ids] > 0, in_rounds, keep_o)
        chosen |= (over.per_launch(chosen) == 0)[over.ids]
        n = over.per_launch(chosen)
        total = np.bincount(over.ids, weights=np.where(chosen, over.values, 0.0), minlength=L)
        over_mean = np.divide(total, n, out=np.zeros(L), where=n > 0)
        dev2 = np.bincount(over.ids, weights=np.where(chosen, (over.values - over_mean[over.ids]) ** 2, 0.0),
                           minlength=L)
        over_sd = np.sqrt(np.divide(dev2, n - 1, out=np.zeros(L), where=n > 1))
        over_aside = over.counts - n.astype(np.int64)
    w_rounds = np.concatenate([np.asarray(ln.workload_rounds if len(ln.workload_rounds) == len(ln.workload)
                                          else range(len(ln.workload)), dtype=np.int64) for ln in timed])
    split = np.cumsum(work.per_launch(keep_w)).astype(np.int64)[:-1]
    kept = np.split(work.values[keep_w], split)
    kept_rounds = np.split(w_rounds[keep_w], split)
    shares = np.split(work.shares, np.cumsum(work.counts)[:-1]) if work.shares is not None else None
    return [CleanLaunch(index=ln.index, x=kept[i] - over_mean[i], rounds=kept_rounds[i], gross=kept[i],
                        overhead_per_op=float(over_mean[i]), overhead_sd=float(over_sd[i]),
                        raw=int(work.counts[i]), set_aside={k: int(v[i]) for k, v in why_w.items()},
                        overhead_set_aside=int(over_aside[i]),
                        cpu_shares=shares[i] if shares is not None and work.cpu_known[i] else None,
                        preempted=int(preempted[i]), cpu_timed=cpu_timed)
            for i, ln in enumerate(timed)]


class _Flat:
    """One kind of iteration (workload or overhead) of every launch, per op, laid end to end; with the
    CPU time per wall second of the iterations whose launch reported one per iteration."""

    def __init__(self, samples: list[list[int]], denom: np.ndarray, cpus: list[list[int]],
                 thread: np.ndarray | None = None, waits: list[list[int]] | None = None):
        self.counts = np.array([len(x) for x in samples], dtype=np.int64)
        # per launch: its CPU times are its measuring thread's (None: all are)
        self.thread = thread
        self.ids = np.repeat(np.arange(len(samples)), self.counts)
        self.n = int(self.counts.sum())
        self.values = (np.concatenate([np.asarray(x, dtype=float) for x in samples]) / denom[self.ids]
                       if self.n else np.zeros(0))
        self.cpu_known = np.array([len(c) == len(x) and len(x) > 0 for x, c in zip(samples, cpus)])
        self.shares = None
        self.cpu_timed = False
        if self.cpu_known.any():
            cpu = np.concatenate([np.asarray(c, dtype=float) if known else np.full(len(x), np.nan)
                                  for x, c, known in zip(samples, cpus, self.cpu_known)]) / denom[self.ids]
            # a launch without CPU times counts as unhindered (share 1): nothing says otherwise
            self.shares = np.where(np.isnan(cpu), 1.0,
                                   np.divide(cpu, self.values, out=np.ones(self.n), where=self.values > 0))
        # the CPU share once the run-queue wait is taken out of the wall time (None: no wait read)
        self.free_shares = None
        self.explained = None  # the share of the off-CPU time the run-queue wait explains
        if self.shares is not None and waits is not None and any(len(w) for w in waits):
            known = np.array([len(w) == len(x) for x, w in zip(samples, waits)])
            wait = np.concatenate([np.asarray(w, dtype=float) if k else np.zeros(len(x))
                                   for x, w, k in zip(samples, waits, known)]) / denom[self.ids]
            free_wall = np.maximum(self.values - wait, self.values * self.shares)
            self.free_shares = np.divide(self.values * self.shares, free_wall, out=self.shares.copy(),
                                         where=free_wall > 0)
            off = np.maximum(self.values * (1 - self.shares), 0.0)[self.cpu_known[self.ids]]
            waited = np.minimum(wait[self.cpu_known[self.ids]], off)
            self.explained = float(waited.sum() / off.sum()) if off.sum() > 0 else None

    def per_launch(self, mask: np.ndarray) -> np.ndarray:
        return np.bincount(self.ids, weights=mask.astype(float), minlength=len(self.counts))

    def unhindered_share(self) -> float | None:
        """The CPU share of the case's iterations that did not wait: the 90th percentile of the
        shares (None without CPU times), each with its run-queue wait taken out where it was read."""
        if self.shares is None:
            return None
        shares = self.shares if self.free_shares is None else self.free_shares
        return float(np.quantile(shares[self.cpu_known[self.ids]], 0.9))

    def preempted(self) -> np.ndarray:
        """Which iterations waited for a CPU: CPU share below Cleaning.preempted_share of the unhindered one
        (none when the case mostly waits by nature: its unhindered share is below Cleaning.preempt_min_share).
        A process clock (Node's) counts every thread of the process: a share above 1 is other
        threads running beside the measuring one, not its own progress, so such shares are read as
        1 here. Uncapped, a ping-pong whose two threads overlapped now and then (shares 1.0-1.23)
        had 16 of 21 iterations at 1.0 set aside as 'preempted' on a quiet machine, and one process
        left: no interval."""
        if self.shares is None or self.n < 3:
            return np.zeros(self.n, dtype=bool)
        shares = self.shares
        if self.thread is not None and not self.thread.all():
            shares = np.where(self.thread[self.ids], shares, np.minimum(shares, 1.0))
        known = self.cpu_known[self.ids]
        unhindered = float(np.quantile(shares[known], 0.9))
        if unhindered < RULES.preempt_min_share:
            return np.zeros(self.n, dtype=bool)
        if unhindered < RULES.cpu_bound_share:
            # a thread that waits by nature for its peers: how much depends on where its process's
            # scheduler put them (Go's PingPong: 0.50 in one process, 0.43 in the next; Java's
            # ConnectAcceptAsync 0.70 and 0.60), so each process is its own reference. Against
            # the case's, every iteration of the lower processes was 'preempted' and the case
            # kept one process: no interval, in two quiet main jobs.
            own = np.zeros(len(self.counts))
            for i in np.flatnonzero(self.cpu_known & (self.counts > 0)):
                own[i] = np.quantile(shares[self.ids == i], 0.9)
            ref = own[self.ids]
            return known & (ref >= RULES.preempt_min_share) & (shares < RULES.preempted_share * ref)
        return known & (shares < RULES.preempted_share * unhindered)

    def time_by_cpu(self) -> None:
        """Each iteration's time becomes its CPU time (rule 0); its share stays as measured."""
        self.values = self.values * self.shares
        self.cpu_timed = True


def cpu_bound(work: _Flat, thread: np.ndarray) -> bool:
    """Rule 0: every launch with iterations timed its measuring thread's CPU with a thread clock, and
    the case's unhindered CPU share is at least Cleaning.cpu_bound_share."""
    has = work.counts > 0
    if work.shares is None or not (work.cpu_known[has].all() and thread[has].all()):
        return False
    if work.unhindered_share() >= RULES.cpu_bound_share:
        return True
    # Under heavy load: the run-queue wait (a lower bound) explains most of the off-CPU time, and the
    # code ran a whole iteration unblocked at least once. The wait the host reads includes its own
    # margin around the iteration (engine/runqueue.py), so a hit iteration's share with the wait taken
    # out stays low whenever the host woke late: the share of off-CPU time explained is the test.
    return (work.explained is not None and work.explained >= DEFAULT.paired.runqueue_explains
            and float(np.quantile(work.shares[work.cpu_known[work.ids]], DEFAULT.paired.unblocked_quantile))
            >= RULES.cpu_bound_share)


def _clean(flat: _Flat, active: bool) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Which samples are kept, and per launch how many were set aside, by reason."""
    L = len(flat.counts)
    keep = np.ones(flat.n, dtype=bool)
    why = {k: np.zeros(L, dtype=np.int64) for k in ("preempted", "slow", "fast")}
    if not active or flat.n < 3:
        return keep, why
    ids, v = flat.ids, flat.values
    # 1. preempted, from the CPU time of the measuring thread (kept when timed by that CPU time)
    if flat.shares is not None and not flat.cpu_timed:
        hit = flat.preempted()
        keep &= ~hit
        why["preempted"] = flat.per_launch(hit).astype(np.int64)
    # 2. gross outliers, both sides, from the samples that were not preempted
    counts = flat.per_launch(keep).astype(np.int64)
    if counts.sum() < 3:
        return keep, why
    kept = Segments.grouped(v[keep], counts)
    medians = kept.medians()
    # the scale is the typical launch's MAD (the median of theirs): a launch whose median sits among
    # its own outliers has a huge MAD, and pooling its deviations with the others' would let it
    # fence nothing anywhere
    mads = Segments.grouped(np.abs(kept.values - medians[kept.ids]), counts).medians()
    level = float(np.median(np.abs(kept.values)))
    scale = max(MAD_TO_SD * float(np.nanmedian(mads)), RULES.scale_floor_rel * level, 1e-12)
    fence = RULES.gross_k * scale
    common = float(np.nanmedian(medians))
    # A launch is fenced around the case's common level (the median of the launches' medians) instead
    # of its own median when some of its iterations ran at that level and its median is no level of
    # its own: no majority of its samples lies around it, or it lies far (two fences) from the common
    # level. A burst of interference hits some iterations of a process; a process that differs
    # differs in all of them.
    own = np.where(np.isnan(medians), common, medians)
    inside = flat.per_launch(keep & (np.abs(v - own[ids]) <= fence))
    at_common = flat.per_launch(keep & (np.abs(v - common) <= fence)) > 0
    switch = at_common & ((inside * 2 <= counts) | (np.abs(own - common) > 2 * fence))
    centre = np.where(switch, common, own)[ids]
    slow = keep & (v > centre + fence)
    fast = keep & (v < centre - fence)
    keep &= ~(slow | fast)
    why["slow"], why["fast"] = flat.per_launch(slow).astype(np.int64), flat.per_launch(fast).astype(np.int64)
    return keep, why


# A process whose level is far from the median process's is set aside whole (Cleaning.process_floor_rel
# says how far, and why).


def outlying_units(levels: np.ndarray, floor: float) -> np.ndarray:
    """Which units (processes' levels, or launch pairs' log ratios) lie beyond Cleaning.gross_k robust
    standard deviations of the median unit, the scale floored at `floor` (an absolute value)."""
    levels = np.asarray(levels, dtype=float)
    if len(levels) < RULES.min_units_to_judge:
        return np.zeros(len(levels), dtype=bool)
    centre = float(np.median(levels))
    scale = max(robust_sd(levels, centre), floor)
    return np.abs(levels - centre) > RULES.gross_k * scale


def set_aside_totals(cleaned: list[CleanLaunch]) -> dict[str, int]:
    """Iterations set aside over a case's launches, by reason (workload only), and under "waited"
    the iterations that were preempted, set aside or (CPU-timed) kept."""
    out = {"preempted": 0, "slow": 0, "fast": 0, "waited": 0}
    for c in cleaned:
        for k, v in c.set_aside.items():
            out[k] = out.get(k, 0) + v
        out["waited"] += c.preempted
    return out
