"""The rules that turn a comparison into a verdict, each named once (tests/test_judge.py tests each).

- `decide_change`: faster/slower when the ratio's p (two-sided, BH-adjusted across the cases judged
  together, if any) is under α = 1 − confidence and the ratio is beyond the noise threshold from 1;
  else same. With α = 1 − confidence, "p < α" is "the interval excludes 1".
- `contention_reason`: contention is judged once, for the comparison (both sides): either side
  measured under heavy or changing contention makes it inconclusive, unless the ratio is paired, of
  the same code (or of two methods measured as a duet), and both sides were timed by their thread's
  CPU time (stats/contention.ratio_stands).
- `claim_verdict`: a seed claim against our interval and the "same" band.
- `processes_disagree`: the launches' ANOVA says the processes differ, and most of the variance is
  between them: more iterations cannot help, more processes can (the stop rule), and the run's table
  warns that results depend on the process.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..policy import DEFAULT, Diagnosis
from ..stats.contention import ratio_stands
from .verdict import ClaimVerdict, Verdict

CONTENDED_LEVELS = ("heavy", "changing")


@dataclass(frozen=True)
class Thresholds:
    """What a verdict is held to. One confidence per job: the interval printed beside a verdict and
    the α its p is held to (α = 1 − confidence) are the same number."""
    confidence: float = DEFAULT.stop.confidence
    min_change: float = DEFAULT.change.threshold  # a change smaller than this is "same" however sure
    same_band: tuple[float, float] = DEFAULT.claims.same_band  # a seed claim of "same": the interval inside it

    @property
    def alpha(self) -> float:
        return 1 - self.confidence

    def text(self) -> str:
        """As printed beside verdicts."""
        return f"{confidence_text(self.confidence)} confidence, noise threshold {self.min_change:.0%}"


def confidence_text(confidence: float) -> str:
    """99.9 %, 99 %: as every output prints the confidence."""
    return f"{confidence * 100:.10g} %"


def decide_change(ratio: float, p: float, th: Thresholds) -> Verdict:
    if p < th.alpha and ratio > 1 + th.min_change:
        return Verdict.SLOWER
    if p < th.alpha and ratio < 1 - th.min_change:
        return Verdict.FASTER
    return Verdict.SAME


def contended(level: str | None) -> bool:
    return level in CONTENDED_LEVELS


def contention_reason(level_new: str | None, level_old: str | None, paired: bool = False,
                      same_code: bool = False, cpu_new: bool = False, cpu_old: bool = False,
                      names: tuple[str, str] = ("new", "old"), together: bool = False) -> str:
    """Why contention leaves the comparison without a verdict ("": it does not). `together`: both
    sides measured as one duet (engine/duet.py)."""
    sides = [name for name, level in zip(names, (level_new, level_old)) if contended(level)]
    if not sides or ratio_stands(paired, same_code, cpu_new, cpu_old, together):
        return ""
    return f"contention in {' and '.join(sides)}"


def claim_verdict(low: float | None, high: float | None, expect: str | None,
                  band: tuple[float, float] = DEFAULT.claims.same_band) -> ClaimVerdict:
    """A claim ("faster", "slower" or "same") against the interval of after/before. A claim of a
    change is ruled out once the interval leaves no room for a change a reader would notice (the
    "same" band)."""
    if low is None or high is None or expect not in (Verdict.FASTER, Verdict.SLOWER, Verdict.SAME):
        return ClaimVerdict.INCONCLUSIVE
    if expect == Verdict.FASTER:
        return (ClaimVerdict.CONFIRMED if high < 1 else ClaimVerdict.CONTRADICTED if low >= band[0]
                else ClaimVerdict.INCONCLUSIVE)
    if expect == Verdict.SLOWER:
        return (ClaimVerdict.CONFIRMED if low > 1 else ClaimVerdict.CONTRADICTED if high <= band[1]
                else ClaimVerdict.INCONCLUSIVE)
    if band[0] <= low and high <= band[1]:
        return ClaimVerdict.CONFIRMED
    return ClaimVerdict.CONTRADICTED if high < band[0] or low > band[1] else ClaimVerdict.INCONCLUSIVE


def expected(before: float, after: float) -> Verdict:
    """What a seed's own figures claim."""
    return Verdict.FASTER if after < before else Verdict.SLOWER if after > before else Verdict.SAME


def processes_disagree(between_share: float, anova_p: float, rules: Diagnosis = DEFAULT.diagnosis) -> bool:
    return between_share > rules.disagree_share and anova_p < rules.disagree_p
