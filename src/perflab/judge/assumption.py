"""What each measure assumes about its samples, as benchmath's assumptions do: how a summary is
made, and how two summaries are compared.

- **Robust** (time): samples are noisy, processes differ; the summary is stats/estimate.py's
  (cleaned, launches as units, an interval), and two are compared by `judge.compare` (an interval
  and a p).
- **Exact** (instruction counts): a count repeats; what varies between launches (a JIT's timing, a
  hash seed) shows as the spread of the case's own launches. No interval: New/Old per-op Ir is
  judged by four rules, each testable alone (tests/test_compare_counts.py):
  1. a side counted in one launch says nothing of how its count repeats: inconclusive;
  2. a change larger than max(threshold, old spread, new spread) is real: faster (fewer
     instructions) or slower (more);
  3. otherwise, if a side's launches did not agree and its spread is wider than the threshold,
     that spread covers the change: inconclusive, saying so;
  4. otherwise same.
"""
from __future__ import annotations

from dataclasses import dataclass

from .verdict import Verdict


class Robust:
    """Time: the summary is a case's estimate (stats/estimate.py)."""
    name = "time"

    @staticmethod
    def summary(launches, ops_per_invoke: int = 1, confidence: float = 0.999, overhead: bool = True,
                modality: bool = True):
        from ..stats.estimate import estimate
        return estimate(launches, ops_per_invoke, confidence, subtract_overhead=overhead, modality=modality)


@dataclass
class CountSummary:
    per_op: float | None  # per-op Ir, net of the empty loop
    spread: float | None  # (max − min) / median of the launches' per-op Ir; None: one launch
    agreed: bool | None = None
    missing: str = ""  # why there is no count ("" when there is one)


@dataclass
class CountComparison:
    ratio: float | None
    verdict: Verdict
    reasons: list[str]
    tolerance: float | None = None  # max(threshold, spreads): what a change must exceed


class Exact:
    """Instruction counts (perflab.count_verdicts reads the results' counts into a CountSummary)."""
    name = "instructions"

    @staticmethod
    def compare(old: CountSummary, new: CountSummary, threshold: float) -> CountComparison:
        missing = [f"{side} {s.missing}" for side, s in (("old", old), ("new", new)) if s.missing]
        if missing:
            return CountComparison(None, Verdict.NA, ["; ".join(missing)])
        a, b = old.per_op, new.per_op
        if a <= 0 or b <= 0:
            # net of the empty loop, a case can count no more instructions than the loop itself
            return CountComparison(None, Verdict.NA, ["indistinguishable from the empty loop"])
        ratio = b / a
        tolerance = max(threshold, old.spread or 0.0, new.spread or 0.0)
        once = [side for side, s in (("old", old), ("new", new)) if s.spread is None]
        if once:  # rule 1: without a second launch no change can be told from variation
            return CountComparison(ratio, Verdict.INCONCLUSIVE, [
                f"{' and '.join(once)} counted in one launch: how well the count repeats is unknown"],
                tolerance)
        if abs(ratio - 1) > tolerance:  # rule 2
            return CountComparison(ratio, Verdict.SLOWER if ratio > 1 else Verdict.FASTER, [], tolerance)
        wide = [f"{side}'s launches did not agree: their spread {s.spread:.2%} covers the {ratio - 1:+.2%} change"
                for side, s in (("old", old), ("new", new)) if s.agreed is False and s.spread > threshold]
        if wide:  # rule 3: the spread covers the change, and is wider than the threshold
            return CountComparison(ratio, Verdict.INCONCLUSIVE, wide, tolerance)
        return CountComparison(ratio, Verdict.SAME, [], tolerance)  # rule 4
