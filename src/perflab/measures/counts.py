"""The arithmetic of counts, pure and testable alone: per-op events net of the empty loop, the derived
figures (L1/LL misses, estimated cycles), the stop rule over launches, and the `counts` record
(docs/instructions.md)."""
from __future__ import annotations

import statistics
from typing import Any, Sequence
from ..policy import DEFAULT


def derived(events: dict[str, float]) -> dict[str, float]:
    """L1 misses, LL misses and estimated cycles from callgrind's cache events (none without them)."""
    if "I1mr" not in events:
        return {}
    g = lambda k: events.get(k, 0)  # noqa: E731 - callgrind leaves trailing zero events out
    l1_misses = g("I1mr") + g("D1mr") + g("D1mw")
    ram = g("ILmr") + g("DLmr") + g("DLmw")
    accesses = g("Ir") + g("Dr") + g("Dw")
    return {"l1_misses": l1_misses, "ll_misses": ram,
            "est_cycles": (accesses - l1_misses) + DEFAULT.counts.ll_hit_cycles * (l1_misses - ram) + DEFAULT.counts.ram_cycles * ram}


def per_op(workload: dict[str, int], overhead: dict[str, int], ops: int) -> dict[str, float]:
    """Every event of the workload run net of the empty loop's run (same invocations and iterations),
    per operation; then the derived figures of those."""
    out = {k: (workload.get(k, 0) - overhead.get(k, 0)) / ops for k in workload}
    out.update(derived(out))
    return out


def pair_mean(first: dict[str, int], second: dict[str, int]) -> dict[str, float]:
    """Two runs of one loop at one size, event by event, averaged (engine/count.py's O W W O)."""
    return {k: (v + second.get(k, v)) / 2 for k, v in first.items()}


def resolution(first: dict[str, int], second: dict[str, int], ops: int) -> float:
    """Ir per op that two runs of the overhead loop, same size, one after the other, differ by: the
    fixed part of a run that varies from run to run (0 for native code), so the smallest per-op
    count a launch can tell from 0."""
    return abs(first.get("Ir", 0) - second.get("Ir", 0)) / ops


# what each of callgrind's events counts (the keys of `per_op`, `workload`, `overhead`)
EVENT_NAMES = {"Ir": "instructions executed", "Dr": "data reads", "Dw": "data writes",
               "I1mr": "L1 instruction-cache read misses", "D1mr": "L1 data-cache read misses",
               "D1mw": "L1 data-cache write misses", "ILmr": "last-level cache instruction read misses",
               "DLmr": "last-level cache data read misses", "DLmw": "last-level cache data write misses",
               "l1_misses": "L1 misses (I1mr + D1mr + D1mw)",
               "ll_misses": "last-level cache misses (ILmr + DLmr + DLmw)",
               "est_cycles": "estimated cycles: L1 hits + 5 × LL hits + 35 × RAM accesses"}


def agree(a: float, b: float, tolerance: float, floor: float = 0.0) -> bool:
    """Two per-op counts agree when they differ by at most `tolerance` of the larger magnitude, or by
    no more than `floor` (the launches' resolution: near 0, as for an empty benchmark, a share of the
    magnitude is nothing, and two launches would never agree)."""
    scale = max(abs(a), abs(b))
    return scale == 0 or abs(a - b) <= max(tolerance * scale, floor)


def agreeing_pair(values: Sequence[float], tolerance: float,
                  floors: Sequence[float] | None = None) -> tuple[int, int] | None:
    """The first pair of launches (in the order they finished) whose counts agree, or None. The
    stop rule: count launches until this is not None, at most Counts.max_launches. `floors`: each launch's
    resolution (a pair agrees within the larger of its two)."""
    floors = floors or [0.0] * len(values)
    for j in range(1, len(values)):
        for i in range(j):
            if agree(values[i], values[j], tolerance, max(floors[i], floors[j])):
                return i, j
    return None


def spread(values: Sequence[float]) -> float:
    """(max − min) / |median| of the launches' per-op counts (0 for one launch or all equal)."""
    if len(values) < 2:
        return 0.0
    mid = abs(statistics.median(values))
    return (max(values) - min(values)) / mid if mid else (0.0 if max(values) == min(values) else float("inf"))


def summary(launches: list[dict[str, Any]], tolerance: float) -> dict[str, Any]:
    """per_op, spread and agreed over the launches' records: the figure shown is the mean of the
    first agreeing pair, event by event; without one, the median of every launch."""
    irs = [ln["per_op"].get("Ir", 0.0) for ln in launches]
    pair = agreeing_pair(irs, tolerance, [ln.get("resolution", 0.0) for ln in launches])
    chosen = [launches[i] for i in pair] if pair else launches
    keys = list(chosen[0]["per_op"]) if chosen else []
    pick = statistics.fmean if pair else statistics.median
    per = {k: pick([ln["per_op"].get(k, 0.0) for ln in chosen]) for k in keys}
    return {"per_op": per, "instructions_per_op": per.get("Ir"), "spread": spread(irs),
            "resolution": max((ln.get("resolution", 0.0) for ln in chosen), default=0.0),
            "agreed": pair is not None}


def record(*, tool: str, marker: str, pinned: dict[str, str], launches: list[dict[str, Any]],
           tolerance: float, wall_s: float, error: str | None = None, note: str = "") -> dict[str, Any]:
    """The `counts` record of a case, as docs/instructions.md lays it out."""
    events = list(launches[0]["workload"]) if launches else []
    out = {"tool": tool, "marker": marker, "pinned": dict(pinned), "events": events,
           "event_names": event_names(events), "per_op": None, "instructions_per_op": None,
           "resolution": None, "launches": launches, "spread": None, "agreed": False,
           "tolerance": tolerance, "wall_s": wall_s, "error": error, "note": note}
    if launches:
        out.update(summary(launches, tolerance))
    return out


def event_names(events: list[str]) -> dict[str, str]:
    """What each event of `per_op` counts (the derived figures too, when the cache events are there)."""
    keys = [*events, *(derived({e: 0 for e in events}).keys())]
    return {k: EVENT_NAMES[k] for k in keys if k in EVENT_NAMES}


def not_counted(reason: str) -> dict[str, Any]:
    """The record of a case whose runtime cannot be counted (NotCountable): its time is measured."""
    return {"tool": "", "marker": "", "pinned": {}, "events": [], "event_names": {}, "per_op": None,
            "instructions_per_op": None, "resolution": None, "launches": [],
            "spread": None, "agreed": False, "tolerance": None, "wall_s": 0.0, "error": None,
            "note": f"not counted: {reason}"}


def format_count(x: float | None) -> str:
    """Events per operation as every output prints them: whole numbers with thousands separators from
    1000 on (a 0.01 % change in 18,005 must show), a few decimals below; NA when not counted."""
    if x is None:
        return "NA"
    if abs(x) < 0.005:  # a net count of about nothing: no "-0.00"
        return "0.00"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.1f}" if abs(x) >= 10 else f"{x:.2f}"
