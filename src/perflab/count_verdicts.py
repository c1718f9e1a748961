"""Instruction counts as results record them (`--measure instructions`), read for compare, history
and the reports: per-op Ir, the launches' spread, why a case has no count. The verdict on two counts
is perflab.judge's Exact assumption (judge/assumption.py: four rules, no interval).

The default threshold (0.1 %) is far below wall time's (2 %): counts of native code repeat to 0.01 %,
CPython's to about 0.1 %.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .measures.counts import format_count  # noqa: F401  (compare, history and the web print counts with it)
from .policy import DEFAULT

MEASURE = "instructions"


def _finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def per_op(counts: dict | None, event: str = "Ir") -> float | None:
    """A counted case's per-operation figure (net of the empty loop), or None."""
    if not isinstance(counts, dict) or counts.get("error") or not isinstance(counts.get("per_op"), dict):
        return None
    v = counts["per_op"].get(event)
    return float(v) if _finite(v) else None


def launch_irs(counts: dict) -> list[float]:
    return [float(ln["per_op"]["Ir"]) for ln in counts.get("launches") or []
            if isinstance(ln, dict) and isinstance(ln.get("per_op"), dict) and _finite(ln["per_op"].get("Ir"))]


def spread(counts: dict) -> float | None:
    """(max − min) / median of the launches' per-op Ir, as recorded (else from the launches); None with
    one launch: nothing says how well this case's count repeats."""
    irs = launch_irs(counts)
    if len(irs) == 1 or not (irs or _finite(counts.get("spread"))):
        return None
    if _finite(counts.get("spread")):
        return float(counts["spread"])
    irs.sort()
    mid = irs[len(irs) // 2] if len(irs) % 2 else (irs[len(irs) // 2 - 1] + irs[len(irs) // 2]) / 2
    return (irs[-1] - irs[0]) / abs(mid) if mid else math.inf


def not_counted(counts: dict | None) -> str:
    """Why a case has no count to judge ("" when it has one)."""
    if counts is None:
        return "not counted"
    if counts.get("error"):
        return f"not counted: {counts['error']}"
    if per_op(counts) is None:
        return "no instruction count"
    return ""


@dataclass
class CountVerdict:
    old: float | None            # per-op Ir of each side
    new: float | None
    ratio: float | None = None   # New/Old
    verdict: str = "n/a"         # faster | slower | same | inconclusive | n/a
    note: str = ""
    old_spread: float | None = None
    new_spread: float | None = None
    tolerance: float | None = None  # max(threshold, spreads): what a change must exceed


def judge_counts(old: dict | None, new: dict | None,
                 threshold: float = DEFAULT.change.count_threshold) -> CountVerdict | None:
    """The verdict on New/Old per-op Ir; None when neither side was counted."""
    if old is None and new is None:
        return None
    from .judge.assumption import CountSummary, Exact
    sides = [CountSummary(per_op(c), spread(c) if c is not None and not not_counted(c) else None,
                          c.get("agreed") if isinstance(c, dict) else None, not_counted(c))
             for c in (old, new)]
    judged = Exact.compare(*sides, threshold)
    cv = CountVerdict(sides[0].per_op, sides[1].per_op, judged.ratio, judged.verdict, "; ".join(judged.reasons),
                      tolerance=judged.tolerance)
    if judged.ratio is not None:
        cv.old_spread, cv.new_spread = sides[0].spread, sides[1].spread
    return cv
