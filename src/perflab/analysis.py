"""Judging results: per case the estimate, the ratio to its baseline, and the warnings a reviewer needs.

Which case a case is divided by is perflab.ratios' rule: the group's baseline method on the same
runtime (`ratio`), and the same method on the first runtime of its language (`runtime_ratio`).
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field


from .model import CaseResult, StopReason
from .ratios import METHOD_COLUMN, identity, pair, runtime_column
from .judge import contention_reason, processes_disagree
from .stats.contention import measured_together
from .judge.ratio import ratio_from_launches, ratio_of
from .stats import Estimate, Ratio, estimate, indistinguishable_from_empty
from .stats.drift import speed_drift
from .policy import for_confidence
from .too_fast import MachineSpeed, count_notes, declared_bytes, this_machine, time_notes
from .units import format_time


@dataclass
class Row:
    result: CaseResult
    estimate: Estimate | None = None
    ratio: Ratio | None = None
    alloc_ratio: float | None = None
    baseline_key: str | None = None      # Ratio: against the group's baseline method (perflab.ratios)
    is_baseline: bool = False
    runtime_ratio: Ratio | None = None   # Ratio vs <runtime>: against the language's first runtime
    runtime_alloc_ratio: float | None = None
    runtime_baseline_key: str | None = None
    is_runtime_baseline: bool = False
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # measured under heavy or changing contention (stats/contention.py): its verdicts are inconclusive
    contended: bool = False

    @property
    def key(self) -> str:
        return self.result.case.key


def analyse(results: list[CaseResult], confidence: float = 0.999, target_rel_error: float = 0.02,
            overhead: bool = True, runtime_order: list[str] | None = None,
            cache: dict | None = None, runtimes: dict[str, dict[str, None]] | None = None,
            speed: MachineSpeed | None | bool = True) -> list[Row]:
    """Judge results. `runtime_order` is the order runtimes were given in: the first of each language
    is its baseline (results arrive in completion order, which must not decide that). `runtimes`:
    the whole run's, when `results` are a part of it (see perflab.ratios.pair). `speed`: the bounds
    of the machine that measured them, for the "far too fast" notes (perflab.too_fast; True: this
    machine's, None: no such notes)."""
    if speed is True:
        speed = this_machine()
    rows = [Row(r) for r in results]
    for row in rows:
        if row.result.ok and row.result.launches:
            # a finished case's samples never change: `cache` (keyed by the result object) spares
            # re-estimating every case each time the document is rewritten during a run
            key = id(row.result)
            if cache is None or key not in cache:
                est = estimate(row.result.launches, row.result.case.benchmark.ops_per_invoke,
                               confidence, subtract_overhead=overhead)
                if cache is None:
                    row.estimate = est
                    continue
                cache[key] = (row.result, est)  # holding the result keeps its id unique
            row.estimate = cache[key][1]
    pairs = pair([identity(r.result.case) for r in rows], runtime_order or [], runtimes)
    for row, p in zip(rows, pairs):
        if p.method_base is not None:
            base = rows[p.method_base]
            row.baseline_key, row.is_baseline = base.key, base is row
            row.ratio = _ratio(row, base, overhead, confidence)
            row.alloc_ratio = _alloc_ratio(row, base)
        if p.runtime_base is not None:
            base = rows[p.runtime_base]
            row.runtime_baseline_key, row.is_runtime_baseline = base.key, base is row
            row.runtime_ratio = _ratio(row, base, overhead, confidence)
            row.runtime_alloc_ratio = _alloc_ratio(row, base)
    for row in rows:
        _judge(row, target_rel_error, overhead, speed or None)
    for row, p in zip(rows, pairs):
        _judge_contended_baseline(row, rows, p)
    return rows


def _contention_level(row: Row) -> str | None:
    level = (row.result.contention or {}).get("level")
    return level if level in ("heavy", "changing") else None


def _judge_contended_baseline(row: Row, rows: list[Row], p) -> None:
    """Contention is judged for a comparison, both sides, never for one row of it: a ratio whose
    baseline was measured under heavy contention is inconclusive like one whose own row was (issue
    #38: a ratio read 1.87 [1.78, 1.96], "target reached", no note, against a true 2.03, because
    only its baseline row was contended). The one ratio that stands is the same code on two
    runtimes, paired, both timed by CPU time (stats/contention.ratio_stands)."""
    if row.contended:
        return  # its own warning already says every verdict of the row is inconclusive
    for ratio, index, same_code, column in (
            (row.ratio, p.method_base, False, METHOD_COLUMN),
            (row.runtime_ratio, p.runtime_base, True, None)):
        if ratio is None or index is None or rows[index] is row:
            continue
        base = rows[index]
        if not ratio_blocked(row, base, ratio, same_code):
            continue
        name = column or runtime_column(base.result.case.runtime.label)
        row.warnings.append(f"its baseline {base.key} was measured under {_contention_level(base)} "
                            f"contention: treat its {name} as inconclusive")


def ratio_blocked(row: Row, base: Row, ratio: Ratio, same_code: bool) -> bool:
    """Whether contention leaves row/base without a verdict (perflab.judge.contention_reason: either
    side contended, unless the ratio is paired, of the same code, both sides CPU-timed)."""
    return bool(contention_reason(_contention_level(row), _contention_level(base), ratio.paired, same_code,
                                  bool(row.estimate and row.estimate.cpu_timed),
                                  bool(base.estimate and base.estimate.cpu_timed),
                                  together=measured_together(row.result.contention, base.result.contention)))


def _ratio(row: Row, base: Row, overhead: bool, confidence: float) -> Ratio | None:
    """row / base (which ratios exist is perflab.ratios' rule; this is how one is computed)."""
    if base is row:
        return Ratio(1.0, 0.0, 1.0, 1.0, True) if row.estimate and row.estimate.mean > 0 else None
    if not (row.estimate and base.estimate):
        return None
    if base.result.round_group and base.result.round_group == row.result.round_group:
        return ratio_from_launches(
            row.estimate, base.estimate, row.result.launches, base.result.launches,
            row.result.case.benchmark.ops_per_invoke, base.result.case.benchmark.ops_per_invoke,
            overhead, confidence)
    return ratio_of(row.estimate, base.estimate, confidence)


def _alloc_ratio(row: Row, base: Row) -> float | None:
    da, db = row.result.diagnostics, base.result.diagnostics
    if da and db and da.alloc_bytes_per_op is not None and db.alloc_bytes_per_op:
        return da.alloc_bytes_per_op / db.alloc_bytes_per_op
    return None


def _judge(row: Row, target: float, overhead: bool, speed: MachineSpeed | None = None) -> None:
    res, est = row.result, row.estimate
    if res.output_bytes:
        row.warnings.append(f"the benchmark wrote {res.output_bytes} bytes to stdout/stderr")
    declared = declared_bytes(res.diagnostics.rates if res.diagnostics else None)
    if res.ok and res.counts:
        row.warnings.extend(count_notes(res.counts.get("instructions_per_op"), declared))
    if not res.ok or est is None:
        return
    invocations = max((ln.invocations for ln in res.launches), default=1) or 1
    resolution = res.clock_resolution_ns / (invocations * res.case.benchmark.ops_per_invoke)
    empty = overhead and indistinguishable_from_empty(est, resolution)
    if empty:
        row.warnings.append(
            "indistinguishable from an empty benchmark: mean "
            f"{format_time(est.mean)}, {_interval(est.confidence, est.ci_low, est.ci_high)} "
            f"(the call itself costs {format_time(est.overhead_per_op)}, the empty loop varies by "
            f"{format_time(est.overhead_noise)})"
            + ("; below zero: the empty loop costs more than this benchmark's, the loops differ"
               if est.ci_high < 0 else ""))
    if res.machine is None:  # measured here (a cluster's node has bounds of its own)
        row.warnings.extend(time_notes(speed, est.mean, est.ci_low, est.ci_high,
                                       res.case.benchmark.ops_per_invoke, declared, empty, net=overhead))
    policy = for_confidence(est.confidence, target)
    rules = policy.diagnosis
    if est.mvalue >= rules.multimodal_threshold and est.n >= rules.multimodal_min_samples:
        row.warnings.append(f"the distribution looks multimodal (mValue = {est.mvalue:.2f})")
    if est.launches > 1 and processes_disagree(est.between_share, est.launch_anova_p, rules) and est.mean > 0:
        spread = (max(est.launch_means) - min(est.launch_means)) / est.mean
        if spread > rules.disagree_warn_spread:
            row.warnings.append(f"processes disagree: launch means differ by {spread:.0%} "
                                f"(p = {est.launch_anova_p:.1g}); results depend on the process")
    floor = max(policy.pilot.iteration_min_resolutions * res.clock_resolution_ns, rules.short_iteration_ns)
    if est.iteration_ns_median < floor and res.stop_reason != StopReason.DRY:
        row.warnings.append(
            f"iterations are short ({format_time(est.iteration_ns_median)} each, clock resolution "
            f"{format_time(res.clock_resolution_ns)}): timer granularity and per-iteration setup "
            "weigh on the result")
    if res.stop_reason in (StopReason.BUDGET, StopReason.ITERATION_LIMIT) and est.mean > 0 and not empty:
        # the interval the engine judged, as it judged it: a comparison's ratio (its contenders carry
        # the warning, not the baseline), or the mean
        judged = None
        if res.judged_by != "ratio":
            judged = ("mean", est.rel_error)
        else:
            # the engine judges every ratio of a comparison: the widest one is what kept it going
            widths = [r.rel_error for r, base in ((row.ratio, row.is_baseline),
                                                 (row.runtime_ratio, row.is_runtime_baseline))
                      if r is not None and not base]
            if widths:
                judged = ("ratio", max(widths))
        if judged is not None:
            what, reached = judged
            width = f"±{reached:.1%}" if reached < float("inf") else "unbounded"
            drift = speed_drift(res.launches, rules)
            why = ("the machine's own speed changed during the run: the empty loop, the same code in "
                   f"every process, took {format_time(drift[0])}–{format_time(drift[1])} a call "
                   f"(×{drift[1] / drift[0]:.2f})" if drift else "the machine or the benchmark is noisy")
            row.warnings.append(f"precision target ±{target:.0%} not reached ({res.stop_reason}; the "
                                f"{what}'s {est.confidence:.1%} interval is {width}): {why}")
    if est.launches < 2 and res.stop_reason != StopReason.DRY:
        row.notes.append("one process: no interval")
    if est.cpu_timed and est.preempted:  # CPU-bound: their CPU time is the code's (stats/clean.py)
        row.notes.append(f"{est.preempted} preempted iteration(s) timed by their thread's CPU time")
    aside = {"preempted": 0 if est.cpu_timed else est.preempted, "slow": est.outliers_upper_removed,
             "fast": est.outliers_lower}
    if any(aside.values()):
        row.notes.append("set aside: " + ", ".join(f"{n} {why}" for why, n in aside.items() if n)
                         + " iteration(s)")
    if est.processes_set_aside:
        row.notes.append(f"set aside: {est.processes_set_aside} process(es) far from the others "
                         "(interference for their whole life, or processes that really differ)")
    level = (res.contention or {}).get("level")
    if level in ("heavy", "changing"):
        row.contended = True
        reasons = "; ".join((res.contention or {}).get("reasons") or [])
        # a paired CPU-timed ratio of the same code on two runtimes keeps its verdict
        # (stats/contention.ratio_stands); everything else about the case is inconclusive
        which = ("treat its mean as inconclusive (its Ratio vs a runtime or revision stands when both "
                 "sides are timed by CPU time, and its ratio to a baseline method when the two were "
                 "measured as a duet)" if est.cpu_timed else "treat its verdicts as inconclusive")
        row.warnings.append(f"measured under {level} contention ({reasons}): interference that hit "
                            f"every iteration alike cannot be told from the code; {which}")
    if not row.contended and not empty:
        rounds = rounds_above_warmup(res.launches, rules)
        if rounds is not None:
            row.warnings.append(
                f"its round iterations ran ×{rounds[0]:.2f} its back-to-back warmup iterations (median over "
                f"{rounds[1]} process{'es' if rounds[1] > 1 else ''}): its short interleaved iterations measured more than back-to-back "
                "ones; a longer --iteration-time tells whether the figure depends on it (bench/iteration_length.py)")
    if res.diagnostics:
        row.notes.extend(res.diagnostics.notes)


def rounds_above_warmup(launches, rules) -> tuple[float, int] | None:
    """(median over processes of round iterations' median / the warmup's settled level, processes)
    when the rounds ran well above the level the same process reached back to back, else None. perflab
    measures one iteration a round, interleaved with other processes; with Node's allocating code its
    mean falls as the iteration time grows (×1.4-1.7 a plain timer at 2 ms, ×1.2 at 50 ms, quiet:
    bench/iteration_length.py), and in the JS corpus such cases read ×1.24 the native harness
    (median; the others ×0.99)."""
    ratios = []
    for ln in launches:
        warm, work = ln.warmup, ln.workload
        if len(warm) >= rules.rounds_min_warmup and len(work) >= rules.rounds_min_workload:
            settled = float(statistics.median(warm[len(warm) // 2:]))
            if settled > 0:
                ratios.append(float(statistics.median(work)) / settled)
    if len(ratios) < rules.rounds_min_processes:
        return None
    r = float(statistics.median(ratios))
    return (r, len(ratios)) if r >= rules.rounds_above_warmup else None


def _interval(confidence: float, low: float, high: float) -> str:
    return f"{confidence:.1%} CI [{format_time(low)}, {format_time(high)}]"
