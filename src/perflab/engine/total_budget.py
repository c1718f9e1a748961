"""`perflab run --budget-total SECONDS`: one wall-time budget for a whole run, shared among its cases.

Five rules, each tested alone (tests/test_total_budget.py):

- **A case costs what it really took.** A case's budget pays for measuring only; its launches,
  warm-up, pilot and a time-out come on top. Per language, the median of what a case took beyond its
  budget (its group's wall time per case − its budget) is charged to every remaining case first, and
  only what is left is shared as budgets (`budget_scale`). The clock starts with the run, so the
  builds before the first case are charged too. The median, not the mean: a case that ran away is
  paid for once by the clock, not projected onto every case of its language.
- **A time-out costs at most a few shares.** No reply is awaited longer than
  max(Budget.timeout_floor_s, Budget.timeout_per_budget × the case's budget) (`reply_timeout`) — unless the user
  chose `--timeout`; a case that outlasts it fails alone, "timed out after …", as any time-out.
- **A reference group gives up after one time-out.** In a run where some group decides a claim, in a
  group that does not (see below), a case that timed out before its partners started skips them
  (`Job.timeout_ends_group`): the group's ratio is gone with it, and the partners would most
  likely spend a time-out each too (Mono with and without its interpreter: 8 time-outs, 80 s of a
  468 s first pass). A deciding group measures every case: a claim needs both sides.
- **A case that timed out last time is not measured again** (store.last_timeouts): skipped, with the
  run that timed out in its reason; measured alone (without --budget-total) it is tried again, and
  after Budget.retry_after_skips runs skipped it: a time-out may have been the machine's (a loaded laptop)
  rather than the case's, and a skip that never ends would hide the case from every later main job.
- **What decides comes first.** Given `favoured` (the run passes report.claims.decides_in: the
  benchmarks a seed claim stands on), the favoured groups are measured first, with a full share; the
  others (shown for reference) with Budget.reference_weight of one, and never under the floor every case
  has (Budget.min_budget_scale of its budget) — still measured, so every row keeps its ratio, only wider.
"""
from __future__ import annotations

import dataclasses
import statistics
import time
from collections import defaultdict
from typing import Callable

from ..jobs import Job
from ..policy import DEFAULT


def budget_scale(time_left: float, groups: list, budget_s: float, per_language: dict[str, float],
                 overhead: dict[str, float] | None = None, weight: Callable[[list], float] | None = None
                 ) -> float:
    """The factor (≤ 1, ≥ Budget.min_budget_scale) on every remaining case's budget (× its group's weight)
    so that the remaining groups fit in the time left: each case's overhead (seconds beyond its
    budget, per language) is charged first, the rest is shared in proportion to the weighted budgets."""
    overhead, weight = overhead or {}, weight or (lambda g: 1.0)
    nominal = fixed = 0.0
    for g in groups:
        language = g[0].runtime.language
        nominal += len(g) * per_language.get(language, budget_s) * weight(g)
        fixed += len(g) * overhead.get(language, 0.0)
    if nominal <= 0:
        return 1.0
    return max(DEFAULT.budget.min_budget_scale, min(1.0, (time_left - fixed) / nominal))


def reply_timeout(budget_s: float) -> float:
    """The longest wait for one reply of a case whose budget is `budget_s`."""
    return max(DEFAULT.budget.timeout_floor_s, DEFAULT.budget.timeout_per_budget * budget_s)


class Overheads:
    """Per language, what a case took beyond its budget, learnt from the groups measured so far."""

    def __init__(self) -> None:
        self._seen: dict[str, list[float]] = defaultdict(list)

    def add(self, language: str, cases: int, wall_s: float, budget_s: float) -> None:
        if cases > 0:
            self._seen[language].append(max(0.0, wall_s / cases - budget_s))

    def per_case(self, languages) -> dict[str, float]:
        """The median per language; a language not measured yet gets the median of all others (a first
        guess better than nothing: every runtime has a launch to pay for)."""
        everything = [x for xs in self._seen.values() for x in xs]
        guess = statistics.median(everything) if everything else 0.0
        return {lang: statistics.median(self._seen[lang]) if self._seen.get(lang) else guess
                for lang in languages}


@dataclasses.dataclass
class TotalBudget:
    """The run's one budget: `job_for` before each group, `charge` after it."""

    total_s: float
    started: float  # clock reading when the run began (its builds are charged too)
    budget_per_language: dict[str, float]
    fixed_timeout: bool = False  # the user chose --timeout: it is theirs, not capped
    favoured: Callable[[object], bool] | None = None  # cases that decide something (see the module)
    clock: Callable[[], float] = time.monotonic
    overheads: Overheads = dataclasses.field(default_factory=Overheads)
    # some group decides a claim (set by `order`): only then are the others "reference" groups that
    # give up after a time-out — in a run where nothing decides, every case is what was asked for
    has_favoured: bool = False

    def time_left(self) -> float:
        return self.total_s - (self.clock() - self.started)

    def weight(self, group: list) -> float:
        if self.favoured is None or any(self.favoured(c) for c in group):
            return 1.0
        return DEFAULT.budget.reference_weight

    def order(self, groups: list) -> list:
        """The groups to measure, favoured ones first (otherwise in the plan's order): when the time
        runs short, it is the reference cases that get the least."""
        self.has_favoured = any(self.weight(g) == 1.0 for g in groups)
        return sorted(groups, key=lambda g: self.weight(g) < 1.0)

    def job_for(self, job: Job, groups_left: list) -> Job:
        """The job for groups_left[0]: its language's budget scaled to its share, and its replies'
        time-out bounded by that share."""
        group = groups_left[0]
        languages = {g[0].runtime.language for g in groups_left}
        scale = budget_scale(self.time_left(), groups_left, job.budget_s, self.budget_per_language,
                             self.overheads.per_case(languages), self.weight)
        # the floor is the same for every case: a reference case squeezed by an overrun is still measured
        factor = max(DEFAULT.budget.min_budget_scale, self.weight(group) * scale)
        budget = self.budget_per_language.get(group[0].runtime.language, job.budget_s) * factor
        if self.fixed_timeout:
            return dataclasses.replace(job, budget_s=budget)
        cap = reply_timeout(budget)
        return dataclasses.replace(job, budget_s=budget, timeout_s=min(job.timeout_s, cap), timeout_cap_s=cap,
                                   timeout_ends_group=self.has_favoured and self.weight(group) < 1.0)

    def charge(self, group: list, job: Job, wall_s: float) -> None:
        """What the group took, as wall time (launches, warm-up, time-outs included)."""
        self.overheads.add(group[0].runtime.language, len(group), wall_s, job.budget_s)


SKIPPED = "skipped:"  # the error of a case a run did not measure (not an attempt: see store.last_timeouts)


def skip_timed_out(groups: list, store) -> tuple[list, list]:
    """(the groups without the cases whose latest attempt in the history timed out, [(case, reason)]
    for those): under --budget-total a case known to time out would spend a whole time-out again.
    After Budget.retry_after_skips runs skipped it, a case is tried again."""
    found = {k: v for k, v in store.last_timeouts([c.key for g in groups for c in g], SKIPPED).items()
             if v[2] < DEFAULT.budget.retry_after_skips}
    skipped = [(c, f"{SKIPPED} timed out in run #{found[c.key][0]} ({found[c.key][1]}); --budget-total "
                   f"does not spend its time on it again — measure it alone, without --budget-total "
                   f"(--filter '{c.benchmark.id}' --runtimes '{c.runtime.label}')")
               for g in groups for c in g if c.key in found]
    kept = [[c for c in g if c.key not in found] for g in groups]
    return [g for g in kept if g], skipped
