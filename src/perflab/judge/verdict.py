"""The words a verdict may be, each defined once. Both enums are `str`s: results files, templates and
tests read them as the plain words they always were."""
from __future__ import annotations

from enum import Enum


class _Word(str, Enum):
    def __str__(self) -> str:  # f"{v}" prints the word, not the enum's name
        return self.value

    __format__ = str.__format__


class Verdict(_Word):
    """A comparison's verdict (New/Old, or a case against its baseline)."""
    FASTER = "faster"
    SLOWER = "slower"
    SAME = "same"
    INCONCLUSIVE = "inconclusive"   # measured, but the data cannot support a verdict (`reasons` say why)
    NA = "n/a"                      # nothing to compare (a side failed, not measured, too few samples)

    @property
    def changed(self) -> bool:
        return self in (Verdict.FASTER, Verdict.SLOWER)


class ClaimVerdict(_Word):
    """A claim against our comparison (perflab.report.claims)."""
    CONFIRMED = "confirmed"
    CONTRADICTED = "contradicted"
    INCONCLUSIVE = "inconclusive"


# what each verdict is called where the measure counts instructions (fewer/more, not faster/slower)
COUNT_WORDS = {Verdict.FASTER: "fewer", Verdict.SLOWER: "more", Verdict.SAME: "same"}
