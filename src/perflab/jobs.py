"""Jobs: how hard the engine works for each case. `perflab run --job NAME`.

| job     | launches: first, live, all | warmup it. | min it./launch | iteration | precision target (99.9% CI half-width) | budget/case |
|---------|----------------------------|------------|----------------|-----------|-----------------------------------------|-------------|
| dry     | 1, 1, 1                    | 0          | 1              | 1 call    | none: checks that every benchmark runs  | —           |
| short   | 2, ≤ 6, ≤ 24               | 2 – 10     | 3              | 2 ms      | ±5 % of the mean (of the ratio)         | 2 s; Java 6 s |
| default | 3, ≤ 24, ≤ 192             | 3 – 30     | 3              | 2 ms      | ±2 % of the mean (of the ratio)         | 10 s        |
| long    | 5, ≤ 40, ≤ 160             | 5 – 60     | 5              | 10 ms     | ±1 % of the mean (of the ratio)         | 60 s        |

A launch is a separate worker process; the engine doubles the live launches (up to the live cap) when
processes disagree more than iterations within a process do, and adds iterations otherwise. At the
live cap, launches that have measured what one process is worth retire (their samples stay) and fresh
processes take their places, up to the total cap. A
comparison (runtimes of a benchmark, methods of a class with a baseline) is held to the target on its
ratios, a lone case on its mean. Iterations are short (2 ms) because this machine's interference comes
in bursts of milliseconds, which short iterations isolate as outliers (see README "Jobs"). Processes of one
runtime really do differ (memory layout, hash seeds, JIT decisions), often by several percent, and no
number of iterations inside a few of them can measure that: a precise verdict needs many launches, so
launches are cheap — started concurrently (a start is waiting, not measuring), doubled each
time more are needed, with short iterations so each one's warmup and overhead stages take little time. A case stops as soon
as its target is reached, or when its budget is spent (then it is marked "target not reached").

A language whose processes cost more than a job's budget can pay for has its own budget in that job: a
JVM process (start, class loading, JIT warm-up) costs about 0.3 s, so the short job's 2 s buys two
processes a side, where its 10 % verdict needs a dozen (`bench/languages.py`: 1 of 4 found at 2 s).
`--budget` overrides it: a plain `--budget 3` is every language's budget, `--budget java=4` Java's.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from .errors import UsageError
from .policy import DEFAULT, Policy, policy_for


@dataclass(frozen=True)
class Job:
    name: str
    launches_min: int
    launches_max: int  # processes per case in all (live ones and retired ones)
    warmup_min: int
    warmup_max: int
    iterations_min: int  # per launch
    iterations_max: int  # per case, all launches together
    iteration_time_s: float
    target_rel_error: float
    budget_s: float
    confidence: float = DEFAULT.stop.confidence  # of every interval the run prints
    overhead: bool = True
    diagnose: bool = True
    pilot: bool = True
    timeout_s: float = 60.0  # longest wait for any single reply from a worker
    launches_live: int = 0  # processes alive at once per case; 0: the same as launches_max
    # no reply is awaited longer than this, however slow the calls (0: no cap). Set by --budget-total:
    # a call that outlasts a case's share would spend other cases' time (engine/total_budget.py)
    timeout_cap_s: float = 0.0
    # a case of the group timed out before its partners started measuring: they are skipped, not
    # given a time-out each. Set by --budget-total for groups no claim stands on (total_budget.py)
    timeout_ends_group: bool = False
    # (language, seconds per case) where a language's process cost needs more than budget_s
    budget_by_language: tuple[tuple[str, float], ...] = ()
    # bytes of resident memory a worker's processes may hold (--memory-limit; engine/memory.py);
    # 0: none (the command line sets the machine's default)
    memory_limit: int = 0
    # a dry job runs each benchmark once to check it works: no precision target, no interval
    dry: bool = False
    # a group of two cases (a paired comparison) runs both sides' launches at the same time, one per
    # CPU, round by round (engine/duet.py), when the placement has a CPU for each (--duet on|off)
    duet: bool = DEFAULT.paired.duet_default

    def __post_init__(self):
        if self.launches_live <= 0:
            object.__setattr__(self, "launches_live", self.launches_max)

    @property
    def policy(self) -> Policy:
        """Every tuned number the engine and the judge use for this job (perflab.policy)."""
        return policy_for(self)

    def budget_for(self, language: str) -> float:
        return dict(self.budget_by_language).get(language, self.budget_s)

    def for_language(self, language: str) -> "Job":
        """This job as a case of `language` runs it: with that language's budget."""
        budget = self.budget_for(language)
        return self if budget == self.budget_s else dataclasses.replace(self, budget_s=budget)

    def with_budgets(self, default: float | None, per_language: dict[str, float]) -> "Job":
        """The job with `--budget`'s figures: a plain figure is every language's budget (the job's
        own language budgets go), a named language's figure is that language's."""
        languages = {} if default is not None else dict(self.budget_by_language)
        languages.update(per_language)
        return dataclasses.replace(self, budget_s=self.budget_s if default is None else default,
                                   budget_by_language=tuple(sorted(languages.items())))


JOBS = {
    "dry": Job("dry", 1, 1, 0, 0, 1, 1, 0.0, 0.0, 0.0, overhead=False, diagnose=False, pilot=False, dry=True),
    "short": Job("short", 2, 24, 2, 10, 3, 2000, 0.002, 0.05, 2.0, launches_live=6,
                 budget_by_language=(("java", 6.0),)),
    "default": Job("default", 3, 192, 3, 30, 3, 20000, 0.002, 0.02, 10.0, launches_live=24),
    "long": Job("long", 5, 160, 5, 60, 5, 40000, 0.010, 0.01, 60.0, launches_live=40),
}


def get_job(name: str, **overrides) -> Job:
    try:
        job = JOBS[name]
    except KeyError:
        raise UsageError(f"--job: unknown job '{name}'; choose one of {', '.join(JOBS)}") from None
    changes = {k: v for k, v in overrides.items() if v is not None}
    return dataclasses.replace(job, **changes) if changes else job


def parse_budget(text) -> tuple[float | None, dict[str, float]]:
    """`--budget`: seconds per case, and per language where it differs — `2`, `java=6`, `2,java=6`.
    (None, {}) when not given; the job's own budget then stands for the languages not named."""
    if text is None or str(text).strip() == "":
        return None, {}
    default, per_language = None, {}
    for item in str(text).split(","):
        lang, eq, value = item.strip().rpartition("=")
        try:
            seconds = float(value)
        except ValueError:
            seconds = -1.0
        if not math.isfinite(seconds) or seconds <= 0 or (eq and not lang.strip()):
            raise UsageError(f"--budget: '{item.strip()}' is not a number of seconds above 0 or "
                             "LANGUAGE=SECONDS; e.g. --budget 2,java=6")
        if eq:
            per_language[lang.strip().lower()] = seconds
        else:
            default = seconds
    return default, per_language
