"""`--measure`: what a run measures — time (the Engine), instructions (engine/count.py), or both —
and the group flow that joins them, so cases still finish one by one through the run's callback
(results stored, progress lines, a failure isolated to its case).

- time: the Engine alone, unchanged.
- instructions: each case counted; a case whose runtime cannot be counted (NotCountable) is timed
  by the Engine instead and carries the reason in its `counts` note.
- time,instructions: the group timed by the Engine (interleaved as usual), then each case that
  measured fine is counted; a count that fails leaves the time in place and says why in `counts`.
"""
from __future__ import annotations

from typing import Callable

from ..errors import UsageError
from ..measures import counts as arith
from ..measures.callgrind import NotCountable
from ..model import Case, CaseResult, StopReason
from .count import CountFailed, Counter

MEASURES = ("time", "instructions")


def parse_measure(text: str | list | None, where: str = "--measure") -> tuple[str, ...]:
    """'time', 'instructions' or 'time,instructions' (a list from the config file too)."""
    items = text if isinstance(text, list) else (text or "time").split(",")
    wanted = [m.strip() for m in items if m.strip()]
    bad = [m for m in wanted if m not in MEASURES]
    if bad or not wanted:
        raise UsageError(f"{where}: unknown measure '{bad[0] if bad else text}'; choose time, "
                         "instructions or time,instructions")
    return tuple(m for m in MEASURES if m in wanted)


class MeasuringEngine:
    """Engine.run_group's shape (and its `job`), measuring what `measures` asks for."""

    def __init__(self, engine, counter: Counter | None, measures: tuple[str, ...],
                 on_case_done: Callable[[CaseResult], None] | None = None, profiler=None):
        self.engine, self.counter, self.measures = engine, counter, measures
        self.profiler = profiler  # engine/profile.Profiler (`--profile`): one more launch per case
        self.on_case_done = on_case_done
        engine.on_case_done = None  # a case is done once it is timed and counted

    @property
    def job(self):
        return self.engine.job

    @job.setter
    def job(self, value) -> None:
        self.engine.job = value

    def close(self) -> None:
        self.engine.close()

    def run_group(self, cases: list[Case]) -> list[CaseResult]:
        counting = "instructions" in self.measures and self.counter is not None
        why_not: dict[str, str] = {}
        if counting:
            for case in cases:
                try:
                    self.counter.profile(case)
                except NotCountable as exc:
                    why_not[case.key] = str(exc)
        timed = cases if "time" in self.measures or not counting else [c for c in cases if c.key in why_not]
        by_key = {r.case.key: r for r in (self.engine.run_group(timed) if timed else [])}
        if (counting or self.profiler is not None) and timed:
            self.engine.settle()  # the timed processes are gone before counting starts its own
        out = []
        for case in cases:
            result = by_key.get(case.key) or CaseResult(case=case)
            if counting:
                self._count(case, result, why_not.get(case.key), timed=case.key in by_key)
            if self.profiler is not None and result.ok:  # after its figures: they never include it
                result.profile = self.profiler.profile(case)
            out.append(result)
            if self.on_case_done:
                self.on_case_done(result)
        return out

    def _count(self, case: Case, result: CaseResult, why_not: str | None, timed: bool) -> None:
        if why_not is not None:
            result.counts = arith.not_counted(why_not)
            return
        if not result.ok:  # the timed run failed already: its reason is the case's
            return
        try:
            result.counts = self.counter.count(case)
        except CountFailed as exc:
            if timed:  # the time stays measured; the count says why it is missing
                result.counts = {**arith.not_counted(exc.reason), "error": exc.reason, "note": ""}
                result.error_detail = "\n".join(x for x in [result.error_detail, exc.detail] if x)
            else:
                result.error, result.error_detail, result.stop_reason = exc.reason, exc.detail, StopReason.FAILED
            return
        if not timed:
            result.wall_seconds = result.counts["wall_s"]
            result.stop_reason = StopReason.COUNTS_AGREED if result.counts["agreed"] else StopReason.COUNTS_DISAGREED
