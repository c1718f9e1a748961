"""How many processes and how many iterations each: the arithmetic behind the engine's renewals, from
a case's variance components (stats/estimate.py) and what a launch and an iteration cost it. Pure
functions, so the engine's rounds stay about running things. A comparison's ratio is planned the same
way from its launch pairs' components (stats/ratio.PairSpread, with the same field names)."""
from __future__ import annotations

import math

from ..jobs import Job
from ..stats.distributions import t_quantile
from ..stats.estimate import Estimate
from ..stats.ratio import PairSpread



def iterations_per_launch(est: Estimate | PairSpread, c_launch: float, c_iteration: float, job: Job) -> float:
    """Iterations a launch is worth before a fresh process tells more. With between-process variance
    var_b, within-process variance var_w, and a launch costing c_L seconds (start, warmup, overhead)
    against c_i per iteration, n = sqrt(c_L/c_i · var_w/var_b) iterations per launch give the
    narrowest interval for the time (the optimal allocation of a two-stage sample). inf: processes
    do not differ, or the costs are not known yet."""
    if est.var_between <= 0 or c_iteration <= 0:
        return math.inf
    n = math.sqrt(c_launch / c_iteration * est.var_within / est.var_between)
    return max(job.policy.stop.min_iterations_before_retiring, job.iterations_min, math.ceil(n))


def doubling_pays(est: Estimate | PairSpread, live: int, c_launch: float, c_iteration: float, job: Job) -> bool:
    """The interval's t has L-1 degrees of freedom (the processes are the independent units): with
    three processes it is 31.6 at 99.9 %, with six 6.9. Doubling the `live` launches pays when the
    target is predicted to be reached sooner that way — each new launch costing a start and the
    iterations before it may retire — than by iterating the processes there are."""
    if c_iteration <= 0 or est.n <= est.launches or not est.mean:
        return False
    L, n = est.launches, est.n
    more = min(live, job.launches_max - L)
    if more <= 0:
        return False
    each = max(job.policy.stop.min_iterations_before_retiring, job.iterations_min)

    def samples_needed(launches: int) -> float:
        return _samples_needed(est.var_between, est.var_within, est.mean, launches, job)

    iterating = (max(samples_needed(L), n) - n) * c_iteration
    doubling = more * c_launch + (max(samples_needed(L + more), n + more * each) - n) * c_iteration
    return doubling < iterating


def _samples_needed(var_b: float, var_w: float, mean: float, launches: int, job: Job) -> float:
    """Samples in all for t²·(var_b/L + var_w/N) to come within the job's target (inf: never), t on
    L-1 degrees of freedom."""
    goal = (job.target_rel_error * mean) ** 2
    room = goal / t_quantile(launches - 1, 0.5 + job.confidence / 2) ** 2 - var_b / launches
    return var_w / room if room > 0 else math.inf


def plan_renewal(live_counts: list[list[int]], enough: float, most_launches: int, left_s: float,
                 per_launch_s: float, job: Job) -> tuple[list[int], int]:
    """A renewal: which positions of the live launches retire and how many launches each contender
    starts. `live_counts`: per contender, the workload iterations of each live launch in position
    order (launch k of every contender starts and retires with the others, so each keeps its
    partners in the rounds' blocks). Positions whose launches (in every contender) have measured
    `enough` retire; the live launches double, up to the job's live cap and total cap (`most_launches`
    used by the contender with the most) and what the budget left (`left_s`, the least any contender
    has) can attach at `per_launch_s` (start, warmup, overhead) a launch of each contender — one at
    least, if any. A count of 0 or less: nothing is to be done."""
    live = min(len(c) for c in live_counts)
    done = [k for k in range(live) if all(c[k] >= enough for c in live_counts)]
    count = min(2 * live, job.launches_live) - (live - len(done))
    count = min(count, job.launches_max - most_launches)
    if per_launch_s > 0:
        count = min(count, max(1, int(left_s / (per_launch_s * len(live_counts)))))
    return done, count


def cheapest_run(var_b: float, var_w: float, mean: float, c_launch: float, c_iteration: float,
                 job: Job) -> tuple[int, int, float] | None:
    """The least measuring that reaches the job's target for a case whose processes and iterations
    vary by var_b and var_w and cost c_launch and c_iteration seconds: (launches, iterations in all,
    seconds), or None when no allowed number of launches reaches it. Knowing the variances from
    the start, with nothing spent on finding them out: a floor to set a run's measuring against, by
    which a target that the machine's noise and a process's cost put out of reach shows as such."""
    if c_iteration <= 0 or not mean:
        return None
    best = None
    for launches in range(max(2, job.launches_min), job.launches_max + 1):
        needed = _samples_needed(var_b, var_w, mean, launches, job)
        if not math.isfinite(needed):
            continue
        n = max(math.ceil(needed), launches * max(1, job.iterations_min))
        seconds = launches * c_launch + n * c_iteration
        if best is None or seconds < best[2]:
            best = (launches, n, seconds)
    return best
