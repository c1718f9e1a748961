"""The stop policy: when a case or a comparison has been measured enough. Pure functions of a frozen
snapshot (what each case has measured, its estimate, the budget it spent, what its launches and
iterations cost) and, for a comparison, its ratios: a decision out — go on with more rounds, renew the
processes, or stop each case with the reason its table row will show. The rounds (runner.py) take
the snapshots and carry the decisions out; every rule here is tested on hand-built snapshots
(tests/test_stop_policy.py).

The rules, in the order they are applied, each with its test: docs/engine-structure.md ("The
decision rules"), the one description of the stop rule. The reasons are model.StopReason; whether
processes disagree is perflab.judge's rule (judge/rules.py), shared with the run's table.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..jobs import Job
from ..judge import processes_disagree
from ..model import StopReason
from ..stats import Ratio, indistinguishable_from_empty
from ..stats.estimate import Estimate
from .allocation import doubling_pays, iterations_per_launch


@dataclass(frozen=True)
class CaseSnapshot:
    """What one case has measured so far, as the stop policy sees it."""

    counts: tuple[int, ...]  # workload iterations of each launch, retired ones included
    live: int  # launches still running
    longest_live: int  # the most iterations a live launch has measured
    spent: float  # seconds of its budget used
    estimate: Estimate | None  # None until every launch has its minimum iterations
    resolution_per_op: float = 0.0  # the clock's step per operation (see target_met)
    c_launch: float = 0.0  # seconds a launch has cost (start, setup, warmup, overhead)
    c_iteration: float = 0.0  # seconds a round iteration has cost

    @property
    def launches(self) -> int:
        return len(self.counts)


@dataclass(frozen=True)
class Decision:
    """`action`: "continue" (more rounds), "renew" (more processes; `enough`: the iterations a launch
    pair is worth to a comparison's ratio, None: as each case's own estimate says) or "stop" (with one
    reason per case, in the snapshots' order, and what was judged: "ratio" or "mean")."""

    action: str
    reasons: tuple[str, ...] = ()
    judged_by: str = ""
    enough: float | None = None


def target_met(est: Estimate | None, job: Job, resolution_per_op: float = 0.0) -> bool:
    """The mean's interval is within the target — or the case is indistinguishable from empty
    (stats/estimate.py) with an interval narrow compared with what was actually timed (call + loop),
    so more iterations would not change the verdict."""
    target = job.target_rel_error
    if est is None or not math.isfinite(est.error):
        return False
    if est.rel_error <= target:
        return True
    return indistinguishable_from_empty(est, resolution_per_op) and est.error <= target * max(est.gross_mean, 0.0)


def ratio_met(r: Ratio | None, job: Job) -> bool:
    """A paired ratio whose interval is within the precision target. The rule looks at the interval's
    width only, never at where it lies, so stopping on it does not bias the verdict."""
    return r is not None and r.paired and r.rel_error <= job.target_rel_error


def out_of_budget(c: CaseSnapshot, job: Job) -> bool:
    """Its budget or its iteration cap used up."""
    return c.spent >= job.budget_s or sum(c.counts) >= job.iterations_max


def enough_iterations(c: CaseSnapshot, job: Job) -> float:
    """Iterations a launch is worth before a fresh process tells more (see allocation.py)."""
    if c.estimate is None:
        return math.inf
    return iterations_per_launch(c.estimate, c.c_launch, c.c_iteration, job)


def doubling_pays_for(c: CaseSnapshot, job: Job) -> bool:
    return c.estimate is not None and doubling_pays(c.estimate, c.live, c.c_launch, c.c_iteration, job)


def wants_processes(c: CaseSnapshot, job: Job, alone: bool = True) -> bool:
    """Processes disagree (more iterations cannot help, more processes can; with a few iterations
    each, a between-process share is only believed when the launches' ANOVA says so), or the live ones
    have measured what a process is worth: a fresh process now tells more than an iteration; or (a
    lone case) doubling the processes reaches the target sooner."""
    est = c.estimate
    return (est is not None and c.launches < job.launches_max and c.spent < job.budget_s
            and (processes_disagree(est.between_share, est.launch_anova_p)
                 or c.longest_live >= enough_iterations(c, job)
                 or (alone and doubling_pays_for(c, job))))


def may_renew(c: CaseSnapshot, job: Job) -> bool:
    """Whether a case is likely to want more processes (worth starting some ahead): before its first
    judgement (with t on L-1 degrees of freedom nearly every case doubles its first launches, and a
    comparison's ratio is judged on as many launch pairs), when doubling pays, and whenever its
    processes differ."""
    if job.dry or job.target_rel_error <= 0:
        return False
    if c.estimate is None:
        return True
    return c.estimate.between_share > 0 or doubling_pays_for(c, job)


def case_status(c: CaseSnapshot, job: Job, alone: bool = True) -> str:
    """'met' (precision target reached), 'spent' (budget or iteration cap used up), 'grow' (more
    processes are needed) or 'more' (more rounds)."""
    least = min(c.counts) if c.counts else 0
    if job.dry or job.target_rel_error <= 0:
        return "met" if least >= job.iterations_min else "more"
    enough = least >= job.iterations_min and c.launches >= job.launches_min
    if enough and target_met(c.estimate, job, c.resolution_per_op):
        return "met"
    # the job's minimum iterations per launch are always measured (an interval from one iteration per
    # launch is meaningless), unless the case runs far past its budget
    short_of_min = least < job.iterations_min and c.spent < job.policy.stop.min_iterations_budget_factor * job.budget_s
    if (c.spent >= job.budget_s and not short_of_min) or sum(c.counts) >= job.iterations_max:
        return "spent"
    return "grow" if wants_processes(c, job, alone) else "more"


def ratios_want_processes(cases: list[CaseSnapshot], ratios: list[Ratio | None], job: Job) -> float | None:
    """Whether a ratio short of its target needs more launch pairs: they differ (their ANOVA says so),
    the live ones have measured what a pair is worth, or doubling them reaches the target sooner (t on
    P-1 degrees of freedom). A pair costs a launch and a round iteration of every contender. Returns
    the iterations a launch pair is worth (inf: any number), or None."""
    if max(c.launches for c in cases) >= job.launches_max or any(out_of_budget(c, job) for c in cases):
        return None
    c_launch = sum(c.c_launch for c in cases)
    c_iteration = sum(c.c_iteration for c in cases)
    live = min(c.live for c in cases)
    longest = max(c.longest_live for c in cases)
    for r in ratios:
        spread = r.spread() if r is not None and not ratio_met(r, job) else None
        if spread is None:
            continue
        worth = iterations_per_launch(spread, c_launch, c_iteration, job)
        if (processes_disagree(spread.between_share, spread.anova_p) or longest >= worth
                or doubling_pays(spread, live, c_launch, c_iteration, job)):
            return worth
    return None


def judge_group(cases: list[CaseSnapshot], ratios: list[Ratio | None] | None, job: Job,
                alone: bool) -> Decision:
    """The contenders of a group stop together: a case that reached its target keeps being measured
    while another still needs rounds, so every round stays paired (a ratio judged over rounds one side
    sat out would mix drift back in). The group stops when all reached the target, or when every
    ratio to the baseline did (`ratios`, None when the group has none to judge: a lone case), or when
    one has spent its budget. `alone`: the group has one case that has not failed."""
    status = [case_status(c, job, alone) for c in cases]
    met = (all(ratio_met(r, job) for r in ratios) if ratios is not None else all(s == "met" for s in status))
    if ratios is not None and not met:
        # a comparison goes on while its ratios are short of the target, however precise its means
        # are, until a contender has spent its budget
        status = ["spent" if s == "met" and out_of_budget(c, job) else s for c, s in zip(cases, status)]
    enough = None
    wants = "grow" in status
    if ratios is not None and not met and not wants:
        # the ratio's interval is the launch pairs': it needs processes as a lone mean does
        enough = ratios_want_processes(cases, ratios, job)
        wants = enough is not None or any(wants_processes(c, job, alone) for c in cases)
    if wants and "spent" not in status and not met:
        return Decision("renew", enough=enough)
    if not (met or "spent" in status):
        return Decision("continue")
    return Decision("stop", tuple(_reason(c, s, ratios is not None and met, ratios is None, job)
                                  for c, s in zip(cases, status)),
                    judged_by="ratio" if ratios is not None else "mean")


def _reason(c: CaseSnapshot, status: str, by_ratio: bool, lone: bool, job: Job) -> StopReason:
    """The reason names the interval that was judged: a comparison's ratios, else the mean."""
    if job.dry:
        return StopReason.DRY
    if job.target_rel_error <= 0:
        return StopReason.ITERATIONS_DONE
    if by_ratio:
        return StopReason.RATIO_TARGET
    if lone and status == "met":
        return StopReason.TARGET
    return StopReason.ITERATION_LIMIT if sum(c.counts) >= job.iterations_max else StopReason.BUDGET
