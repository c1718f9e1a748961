"""How contended the machine was while a case was measured, and whether that was too much to trust a
confident verdict.

Per case, from its samples (stats/clean.py's one definition of a preempted iteration) and from the
host readings the engine takes when the case's group starts and ends (engine/host.py):

- `preempted_share`: the share of its workload iterations that were preempted (CPU time per wall
  second well under the case's unhindered share; set aside, or timed by their CPU time); None when the worker did not report CPU times.
- `cpu_share`: the mean CPU time per wall second of its iterations (None: not reported). Recorded,
  not judged on its own: a benchmark that blocks by nature (I/O, a lock) has a low share on a quiet
  machine; the preempted share compares each iteration with the case's own unhindered share.
- `load_start`, `load_end`: the host's 1-minute load average per CPU at the group's start and end.
  Recorded; judged only when `foreign_cpus` cannot be read: it counts perflab's own processes too.
- `foreign_cpus`: how many CPUs' worth of time *other* work used while the group was measured: the
  machine's busy CPU time (/proc/stat) minus the CPU time of perflab's own processes (the host, its
  workers, their runtimes' threads), per second of the group. A steady busy loop is 1.0.
- `steal_share`: the share of the host's CPU time stolen by a hypervisor meanwhile (/proc/stat).

Cleaning sets aside the iterations interference hit, and the interval across processes widens when
interference hit some processes more than others. What no statistic can see is interference that
hit every iteration of every process alike (a busy sibling hyperthread, a lowered clock, caches shared
with a neighbour all along): it moves the estimate and the data look clean. So a case measured under
heavy or changing contention is flagged: the Notes say so, and its verdicts are inconclusive —
save one (`ratio_stands`): the run's own paired ratio of the same benchmark and parameters on two
runtimes, both sides timed by their thread's CPU time. Their rounds put the same work through the
same interference one beside the other, and the CPU time leaves out the waits; what is left (shared
caches, memory bandwidth) slows the same code alike on both sides. Under bench/stress.py at 2×
oversubscription such ratios held a known 2.00 in 54 of 54 runs and called identical code the same in
62 of 62 (docs/figures.md). A ratio between two methods stands on one more condition: its two sides
were measured as a duet (engine/duet.py), each round's iterations at the same moments on two CPUs, so
that every burst of load met both. Measured apart, one after the other on one CPU, a burst meets one
method and not the other, and a memory-bound and a compute-bound method meet a memory hog differently.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..model import CaseResult, LaunchSamples
from ..policy import DEFAULT
from .clean import clean_case

# when a case counts as contended, each number with why: perflab.policy.Contention
RULES = DEFAULT.contention


def case_contention(launches: list[LaunchSamples], host_start: dict | None, host_end: dict | None,
                    ops_per_invoke: int = 1, subtract_overhead: bool = True) -> dict[str, Any]:
    """The contention record of a case (see the module's doc), with its `level` and `reasons`. The
    record reads only the workload's iterations (their CPU shares and which were preempted), which
    neither the operations per call nor the overhead's subtraction change: given the case's, the
    cleaning is the one its estimate makes next, and clean_case's memo serves both (it was done
    twice per case: about 0.3 ms of the host's time on a one-sample dry case)."""
    out: dict[str, Any] = {"preempted_share": None, "cpu_share": None, "load_start": None,
                           "load_end": None, "foreign_cpus": None, "steal_share": None}
    cleaned = clean_case(launches, ops_per_invoke, subtract_overhead)
    with_cpu = [c for c in cleaned if c.cpu_shares is not None]
    if with_cpu:
        raw = sum(c.raw for c in with_cpu)
        out["preempted_share"] = sum(c.preempted for c in with_cpu) / raw
        out["cpu_share"] = float(np.mean(np.concatenate([c.cpu_shares for c in with_cpu])))
    if host_start and host_end:
        cpus = max(1, int(host_start.get("cpus") or 1))
        out["cpus"] = cpus
        if host_start.get("loadavg") is not None and host_end.get("loadavg") is not None:
            out["load_start"] = host_start["loadavg"] / cpus
            out["load_end"] = host_end["loadavg"] / cpus
        total = host_end.get("ticks_total", 0) - host_start.get("ticks_total", 0)
        if total > 0:
            out["steal_share"] = (host_end.get("ticks_steal", 0) - host_start.get("ticks_steal", 0)) / total
        out["foreign_cpus"] = foreign_cpus(host_start, host_end)
    out["level"], out["reasons"] = judge(out)
    return out


def foreign_cpus(host_start: dict, host_end: dict) -> float | None:
    """CPUs' worth of time other work than perflab's used between two host readings (None when
    either lacks the fields): busy ticks minus perflab's own CPU time, over the elapsed ticks."""
    keys = ("ticks_total", "ticks_busy", "own_cpu_s", "clk_tck")
    if not all(k in host_start and k in host_end for k in keys):
        return None
    total = host_end["ticks_total"] - host_start["ticks_total"]
    if total <= 0:
        return None
    busy = host_end["ticks_busy"] - host_start["ticks_busy"]
    own = (host_end["own_cpu_s"] - host_start["own_cpu_s"]) * host_end["clk_tck"]
    cpus = max(1, int(host_start.get("cpus") or 1))
    return max(0.0, busy - own) / total * cpus


def judge(c: dict[str, Any]) -> tuple[str, list[str]]:
    """'quiet', 'heavy' or 'changing', and why, from a contention record's figures. Other work's CPU
    time is judged when it was read; the load average (which counts perflab's own processes) only
    when it was not."""
    heavy, changing = [], []
    cpus = c.get("cpus") or 0
    foreign = c.get("foreign_cpus") if cpus else None
    # Preemption is blamed on other work when other work was there: at least half a CPU's worth.
    # Without it, what preempted the launch was perflab's own (a runtime's GC or compiler threads on
    # the CPU the launch is pinned to: 74 of 254 cases of a quiet main job were over a tenth). Other
    # work's CPU *time* cannot show how much more it wanted: under bench/stress.py at twice the CPUs
    # it used 0.8-0.96 CPUs (the launches held the rest) while 20-57 % of their iterations waited.
    if (c.get("preempted_share") is not None and c["preempted_share"] >= RULES.heavy_preempted_share
            and (foreign is None or foreign >= RULES.preemption_foreign_cpus)):
        heavy.append(f"{c['preempted_share']:.0%} of iterations preempted")
    loads = [x for x in (c.get("load_start"), c.get("load_end")) if x is not None]
    if foreign is not None:
        if foreign >= cpus - 1 + RULES.heavy_foreign_margin:
            heavy.append(f"other work used {c['foreign_cpus']:.1f} of {cpus} CPUs")
    else:
        if loads and max(loads) >= RULES.heavy_load_per_cpu:
            heavy.append(f"load {max(loads):.1f} per CPU")
        if len(loads) == 2 and abs(loads[1] - loads[0]) >= RULES.changing_load_per_cpu:
            changing.append(f"load per CPU went {loads[0]:.1f} → {loads[1]:.1f}")
    if c.get("steal_share") is not None and c["steal_share"] >= RULES.heavy_steal_share:
        heavy.append(f"{c['steal_share']:.0%} of CPU time stolen")
    if heavy:
        return "heavy", heavy + changing
    if changing:
        return "changing", changing
    return "quiet", []


def run_contention(results: list[CaseResult]) -> dict[str, Any]:
    """The run's summary: the worst level, how many cases were measured under each, and the extremes."""
    recs = [r.contention for r in results if r.contention]
    if not recs:
        return {}
    levels = [c.get("level", "quiet") for c in recs]

    def most(key):
        vals = [c[key] for c in recs if c.get(key) is not None]
        return max(vals) if vals else None

    worst = "heavy" if "heavy" in levels else "changing" if "changing" in levels else "quiet"
    return {"level": worst, "cases": len(recs),
            "cases_heavy": levels.count("heavy"), "cases_changing": levels.count("changing"),
            "preempted_share_max": most("preempted_share"),
            "load_per_cpu_max": max([x for x in (most("load_start"), most("load_end")) if x is not None],
                                    default=None),
            "foreign_cpus_max": most("foreign_cpus"),
            "steal_share_max": most("steal_share")}


def contention_differs(a: dict[str, Any], b: dict[str, Any]) -> str:
    """Why two runs' contention differs clearly (empty: it does not, or it is unknown): one was
    measured under heavy contention and the other not, or their loads per CPU are far apart."""
    if not a or not b:
        return ""
    la, lb = a.get("level", "quiet"), b.get("level", "quiet")
    if (la == "heavy") != (lb == "heavy"):
        return f"contention was {la} in one run and {lb} in the other"
    fa, fb = a.get("foreign_cpus_max"), b.get("foreign_cpus_max")
    if fa is not None and fb is not None:  # the load average counts perflab's own processes too
        if abs(fa - fb) >= 1.0:
            return f"other work used up to {fa:.1f} CPUs in one run and {fb:.1f} in the other"
        return ""
    pa, pb = a.get("load_per_cpu_max"), b.get("load_per_cpu_max")
    if pa is not None and pb is not None and abs(pa - pb) >= RULES.changing_load_per_cpu:
        return f"load per CPU {pa:.1f} in one run and {pb:.1f} in the other"
    return ""


def ratio_stands(paired: bool, same_code: bool, after_cpu_timed: bool, before_cpu_timed: bool,
                 together: bool = False) -> bool:
    """Whether a ratio keeps its verdict although a side was measured under heavy or changing
    contention: the run's own paired ratio, both sides timed by their thread's CPU time, of the same
    code (benchmark and parameters) on two runtimes or revisions — or of two methods measured
    `together`, as a duet (see the module's notes)."""
    return paired and (same_code or together) and after_cpu_timed and before_cpu_timed


def measured_together(*records: dict[str, Any] | None) -> bool:
    """Whether every side of a comparison was measured in one duet (their contention records say
    so: engine/runner.py writes `duet`)."""
    return all(isinstance(r, dict) and r.get("duet") is True for r in records)
