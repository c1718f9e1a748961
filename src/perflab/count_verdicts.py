"""Verdicts on instruction counts (`--measure instructions`), for compare, history and the reports.

A count needs no interval: valgrind counts the same code the same way, and what varies between launches
(a JIT's timing, a hash seed left free) shows as the spread of the case's own launches, which the
results record (`counts.spread`: (max − min) / median of the launches' per-op Ir; the schema is in
docs/instructions.md). So a verdict on New/Old per-op Ir follows four rules, each testable alone:

1. a side counted in one launch says nothing of how its count repeats: "inconclusive";
2. a change larger than max(threshold, old spread, new spread) is real: "faster" (fewer instructions)
   or "slower" (more);
3. otherwise, if a side's launches did not agree and its spread is wider than the threshold, that
   spread covers the change: "inconclusive", saying so;
4. otherwise "same".

The default threshold (0.1 %) is far below wall time's (2 %): counts of native code repeat to 0.01 %,
CPython's to about 0.1 %.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .measures.counts import format_count  # noqa: F401  (compare, history and the web print counts with it)

DEFAULT_COUNT_THRESHOLD = 0.001
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
                 threshold: float = DEFAULT_COUNT_THRESHOLD) -> CountVerdict | None:
    """The verdict on New/Old per-op Ir; None when neither side was counted."""
    if old is None and new is None:
        return None
    a, b = per_op(old), per_op(new)
    cv = CountVerdict(a, b)
    missing = [f"{side} {why}" for side, c in (("old", old), ("new", new)) if (why := not_counted(c))]
    if missing:
        cv.note = "; ".join(missing)
        return cv
    if a <= 0 or b <= 0:
        # net of the empty loop, a case can count no more instructions than the loop itself
        cv.note = "indistinguishable from the empty loop"
        return cv
    cv.ratio = b / a
    cv.old_spread, cv.new_spread = spread(old), spread(new)
    cv.tolerance = max(threshold, cv.old_spread or 0.0, cv.new_spread or 0.0)
    change = abs(cv.ratio - 1)
    once = [side for side, s in (("old", cv.old_spread), ("new", cv.new_spread)) if s is None]
    if once:  # rule 1: without a second launch no change can be told from variation
        cv.verdict = "inconclusive"
        cv.note = (f"{' and '.join(once)} counted in one launch: how well the count repeats is "
                   "unknown")
        return cv
    if change > cv.tolerance:  # rule 2
        cv.verdict = "slower" if cv.ratio > 1 else "faster"
        return cv
    wide = [f"{side}'s launches did not agree: their spread {s:.2%} covers the {cv.ratio - 1:+.2%} change"
            for side, c, s in (("old", old, cv.old_spread), ("new", new, cv.new_spread))
            if c.get("agreed") is False and s > threshold]
    if wide:  # rule 3: the spread covers the change, and is wider than the threshold
        cv.verdict, cv.note = "inconclusive", "; ".join(wide)
        return cv
    cv.verdict = "same"  # rule 4
    return cv


