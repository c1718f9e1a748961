"""Every tuned number of perflab's engine, statistics and judge, grouped by the rule that uses it: the
answer to "which number decided this?" (issue #37). A job has one `Policy` (`Job.policy`), derived
from its confidence and precision target where a rule's number follows from them; the results
document saves it under "policy", so a result says which numbers judged it.

Why here and not in `perflab.judge`: the statistics (cleaning, contention) and the engine read these
numbers too, and they sit below the judge; a module of plain data beside `jobs.py` is importable by
every layer without a cycle. Each number keeps the note that says why it is what it is and where that
was measured (README's lab notebook and docs/ hold the studies).

Who reads what: the engine (`engine/*`) reads its job's policy (`job.policy.<group>`); the statistics
and the report, which judge a results document rather than a job, take a group as a parameter whose
default is `DEFAULT`'s. Only `stop` and `diagnosis.drift_significance` differ between jobs today
(they follow the job's confidence and target); every other group is the same in every job's policy.
`tests/test_policy.py` fails on a numeric module constant anywhere else in the package.
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Starts:
    """Starting worker processes, and starting the next ones ahead (engine/ahead.py)."""
    # Processes started side by side: a start is mostly waiting (exec, imports, JIT boot), none of it
    # measured; 16 covers the job's first launches of a group of a few runtimes at once.
    max_concurrent: int = 16
    lag_weight: float = 0.1  # of a new round iteration in the running averages of perflab's own time per iteration
    lag_min_samples: int = 20  # round iterations with and without a start under way before they are compared
    # Extra time per round iteration that starting ahead may cost: with the other core busy, perflab's
    # reply came 2-3.5 ms later instead of 1, which outweighs the 30-90 ms start it saves.
    ahead_lag_max_s: float = 0.001
    ahead_pause_s: float = 10.0  # how long starts ahead pause once they cost more, before they are tried again


@dataclass(frozen=True)
class Pilot:
    """Choosing the invocations per iteration (engine/warmup.py, runner's pilot; the count's pilot too)."""
    steps_max: int = 12  # pilot readings at most: ×1000 a step reaches any count in far fewer
    done_share: float = 0.9  # a pilot reading this close to the iteration time is close enough
    growth_max: int = 1000  # a reading near the clock's resolution is too coarse to extrapolate further
    # Clock steps an iteration lasts at least: below, the clock's resolution shows in the samples.
    iteration_min_resolutions: int = 1000
    # A warmed-up call under this share of the pilot's estimate was sped up by a JIT after the pilot:
    # the invocations are chosen again (a JVM compiling after the pilot saw the interpreter).
    repilot_speedup: float = 0.5
    # Pilot readings shorter than this share of the iteration time are not used to tell whether the
    # code ran at its settled speed (clock and call overhead dominate them).
    settled_reading_share: float = 0.1


@dataclass(frozen=True)
class Warmup:
    """When a launch's warmup is over (engine/warmup.py)."""
    tolerance: float = 0.02  # relative change between warmup halves still taken as "stopped trending"
    # Iterations of a first launch's warmup judged at each look (3 against 3), and added between looks;
    # a later launch, one of dozens, 2 against 2, one at a time (its warmup is a fifth of its cost).
    least_first: int = 6
    step_first: int = 2
    least_later: int = 4
    step_later: int = 1
    budget_share: float = 0.25  # of the case's budget, split over the job's first launches
    # A warmup whose newest iterations scatter by more than this share of their level (a robust standard
    # deviation) has not settled on any level, however flat its halves' medians: a JIT compiling and
    # deoptimising on a busy machine ([94, 234, 5, 191, 9, 95] µs) is not done warming up.
    settled_spread: float = 0.5
    # A later process whose warmup settled above this multiple of the level the case's first process
    # settled at is still running code the first one had compiled (its JIT starved of CPU, say): it warms
    # up on, up to its share of the budget, rather than carry the compilation into its measurement.
    level_factor: float = 2.0
    # a warmup iteration lies off its settled level beyond the tolerance and this many robust sd
    off_level_sds: float = 3.0


@dataclass(frozen=True)
class Overhead:
    """The empty loop measured beside the workload."""
    discarded: int = 2  # the empty loop's first passes warm it up and are not kept
    iterations_min: int = 5  # overhead iterations measured before the rounds, at least
    # Overhead this share of an iteration or more is measured again in every round, next to the
    # workload: the machine's drift between a measurement before the rounds and the workload would leak
    # into the result.
    interleave_share: float = 0.05


@dataclass(frozen=True)
class Paired:
    """A paired comparison under contention (engine/duet.py, stats/clean.py rule 0 under load)."""
    # CPUs a duet needs: one per side, both sides' iterations running at the same moments
    duet_cpus: int = 2
    # Whether a paired comparison (two cases in a group) runs as a duet by default when duet_cpus are
    # usable. Off: bench/revisions.py --duet on,off (2026-11-28, 3-4 trials a cell) found no gain under
    # bench/stress.py at 2× (A/A interval half-width 3.5 % on, 3.6 % off; method A/A 3.0 % on, 2.0 %
    # off; inconclusive alike) nor quiet; it stays an option (--duet on) to measure further.
    duet_default: bool = False
    # stats/clean.py rule 0 under load: the run-queue wait (a lower bound) explains at least this share
    # of the case's off-CPU time ("most": contention, not the code's own waiting) ...
    runqueue_explains: float = 0.75
    # ... and the code ran without blocking for a whole iteration at least once: this quantile of the
    # iterations' CPU shares reaches Cleaning.cpu_bound_share (a case that blocks in every iteration never does)
    unblocked_quantile: float = 0.98


@dataclass(frozen=True)
class Stop:
    """The stop rule (engine/stop.py, engine/allocation.py): the job's confidence and precision target,
    and how the engine spends its way to them."""
    confidence: float = 0.999  # the job's: of every interval the run prints and the stop rule holds
    target_rel_error: float = 0.02  # the job's: an interval's half-width, relative to its centre
    min_iterations_budget_factor: float = 5.0  # how far past its budget a case may go to get its minimum
    judge_spacing: float = 4.0  # measuring between judgements, as a multiple of what the last judgement took
    judge_wait_max_s: float = 0.5  # the longest measuring between two judgements (the budget is checked there)
    # A launch's median is the centre its gross outliers are told from (see stats/clean.py): a median of
    # five holds against two outliers.
    min_iterations_before_retiring: int = 5
    # a reply is awaited at least this many times what the iteration should take (runner._timeout)
    reply_wait_factor: float = 10.0


@dataclass(frozen=True)
class Cleaning:
    """Which samples are set aside (stats/clean.py, whose docstring gives the rules)."""
    preempted_share: float = 0.9  # of the case's unhindered CPU share: below it, an iteration waited for a CPU
    # the unhindered CPU share below which rule 1 is off: the measuring thread mostly waits (for a child
    # process, a peer thread, the network), and its share says nothing of waiting for a CPU
    preempt_min_share: float = 0.5
    # the unhindered CPU share (its 90th percentile over the iterations) from which a case counts as
    # CPU-bound and is timed by its thread's CPU time (rule 0)
    cpu_bound_share: float = 0.95
    # robust standard deviations from a launch's median beyond which a sample is set aside. Not lower:
    # 3.5 held the true mean more often in bench/coverage.py's contaminated mode with 10 %-noisy
    # iterations (19/20 cases against 8/20), but on clean data it spread six-iteration launches' means,
    # made agreeing processes look different (ANOVA p < 0.05 in 13 % of datasets) and let an empty
    # benchmark's interval miss 0 in 2.5 % of them (tests/test_stats.py, tests/test_robust.py)
    gross_k: float = 5.0
    # floor of the robust scale, relative to the samples' level: a clock that ticks in steps (MAD = 0)
    # must not make every sample off the median an outlier
    scale_floor_rel: float = 1e-3
    # A process whose level is this far from the median process's is set aside whole: the robust scale
    # of the processes' levels, floored at this share of that median, times gross_k. Interference
    # that lasts a whole short-lived process (a memory hog's 50-400 ms burst over a process of a dozen
    # 2 ms iterations) slows every one of its iterations alike, and CPU time cannot see it when the
    # thread kept its CPU. Processes that really differ (memory layout, hash seeds) were measured 1-25 %
    # apart here, so the floor keeps them: only a process over 25 % and 5 robust sd from the median goes.
    process_floor_rel: float = 0.05
    min_units_to_judge: int = 6  # fewer processes (or launch pairs) cannot tell an outlying one from a spread


@dataclass(frozen=True)
class Contention:
    """When a case was measured under contention (stats/contention.py); the judge makes a comparison
    with a contended side inconclusive (judge/rules.py)."""
    # A tenth of the iterations preempted: interference then came often enough that it also hit the
    # iterations no CPU clock shows it in (cache and frequency effects of the neighbour that preempted).
    heavy_preempted_share: float = 0.10
    # Other work using more than every CPU but one, by this much: it no longer fits beside the CPU the
    # launches are measured on, and takes turns on it. One busy loop on a 2-CPU machine (1.0) fits.
    heavy_foreign_margin: float = 0.25
    # Other work of at least half a CPU: enough to be what preempted the launches (see judge)
    preemption_foreign_cpus: float = 0.5
    # Without a reading of perflab's own CPU time: more runnable tasks than 1.5 per CPU (perflab and its
    # worker alone make about one runnable task).
    heavy_load_per_cpu: float = 1.5
    # A twentieth of the CPU time stolen by a hypervisor: a virtual machine whose host is oversubscribed.
    heavy_steal_share: float = 0.05
    # The load per CPU moving by this much between a case's start and end: its launches were measured
    # under different conditions, early ones against late ones.
    changing_load_per_cpu: float = 0.75


@dataclass(frozen=True)
class Diagnosis:
    """The warnings the run's table prints beside a figure: processes that disagree, drift, modes."""
    disagree_p: float = 0.01  # launch ANOVA p-value under which processes are taken to differ
    disagree_share: float = 0.5  # ... when the between-process share of the variance is above this, too
    # processes that disagree are worth a warning once their means are this far apart; closer, the
    # interval across processes already says it (analysis.py)
    disagree_warn_spread: float = 0.05
    drift_factor: float = 1.2  # the empty loop's slowest process over its fastest: above it, the machine drifted
    drift_min_samples: int = 3  # empty-loop iterations a process needs for its level to count
    # the processes' empty loops differ beyond their own noise: 1 − the job's confidence
    drift_significance: float = 0.001
    multimodal_threshold: float = 2.8  # BenchmarkDotNet reports "can have several modes" from here
    multimodal_min_samples: int = 30  # fewer samples cannot show modes
    # iterations shorter than this (or than Pilot.iteration_min_resolutions clock steps) are warned of:
    # timer granularity and per-iteration setup weigh on the result
    short_iteration_ns: float = 100_000.0
    # a case whose round iterations ran this many times its back-to-back warmup's settled level is
    # warned of (analysis.rounds_above_warmup): its figure depends on the iteration length. In the JS
    # corpus, cases above ×1.15 (33 of 155) read ×1.24 the native harness (median); the others ×0.99.
    rounds_above_warmup: float = 1.15
    rounds_min_warmup: int = 4  # warmup iterations a process needs: its second half is the settled level
    rounds_min_workload: int = 3  # round iterations a process needs
    # processes that show it, at least (later processes of a case that settled at once warm up briefly:
    # often only the first has a warmup to compare with)
    rounds_min_processes: int = 1
    # "far too fast" (too_fast.py): the bytes a core can load a cycle bound a declared byte rate
    loads_per_cycle: int = 3  # vector loads a core issues a cycle at most (Golden Cove, Zen 4: 3; older: 2)
    # where only the nominal clock is known (a VM's /proc/cpuinfo): turbo may run this much faster
    turbo_headroom: float = 1.5


@dataclass(frozen=True)
class Change:
    """`perflab compare` and --fail-on-regression (judge/rules.decide_change, compare.py)."""
    threshold: float = 0.02  # a change smaller than this is "same", however significant
    confidence: float = 0.99  # of compare's intervals; α = 1 − confidence (BH-adjusted)
    min_samples: int = 5  # per side; below that there is nothing to judge
    count_threshold: float = 0.001  # instruction counts: a relative change below this is "same"


@dataclass(frozen=True)
class History:
    """Change points in a series of runs (history.py)."""
    penalty_per_log_n: float = 3.0  # PELT's penalty, per log(n) of the series
    min_shift: float = 0.02  # a step smaller than this is not a change point
    significance: float = 0.002  # permutation p-value of the best split of the two neighbouring segments
    permutations: int = 1999
    segment_runs: int = 3  # the fewest runs PELT puts on either side of a change point
    tie_tolerance: float = 1e-9  # relative: permutation statistics this close to the observed one are ties
    # the series' noise is floored at this share of its level: timings never repeat to better than
    # 0.1 %, and no wiggle below that is a change
    sigma_floor_rel: float = 1e-3


@dataclass(frozen=True)
class Claims:
    """`perflab report`: seed claims against our intervals, families' geometric means."""
    same_band: tuple[float, float] = (0.95, 1.05)  # a claim of "same" holds when our interval lies within
    # a geometric mean's interval is given only when it places the mean within this factor either side:
    # [0.59–2.07] around ×1.10 cannot say whether a family got faster (issue 39); none is printed then
    meaningful_factor: float = 1.25
    # a section's ratio plot only where it says more than its table: a handful of cases read better as rows
    plot_min_cases: int = 4


@dataclass(frozen=True)
class Placement:
    """Where a launch runs (engine/affinity.py)."""
    cpu_share_limit: float = 1.25  # CPU seconds per wall second over the probe window: "uses one CPU"
    # Threads that hand work to each other are each woken thousands of times a second while using one
    # CPU between them; pinned to one CPU, every hand-off waits for the scheduler (node18's PingPong
    # went from 0.25 s a call to over 10 s). Go's runtime threads are woken 1,000-4,000 times a second
    # but each uses a few hundredths of a CPU; hand-off pairs 5,600-114,000 (engine/affinity.py).
    handoff_rate: float = 4000.0  # times scheduled in per second of the window, for each of two threads
    handoff_cpu: float = 0.1  # CPU seconds per second of the window each of them used, at least
    # measured time a launch is watched before it is pinned (or not): about its warmup and overhead
    # stages, so a launch that lives for a dozen iterations (see Engine._renew) is measured pinned
    probe_s: float = 0.02
    probe_tries: int = 3  # windows a launch that used more than one CPU is given (a JVM still compiling after warmup)


@dataclass(frozen=True)
class Memory:
    """A worker's memory: the limit, and out-of-memory told from slowness (engine/memory.py, jvm_gc.py)."""
    watch_interval_s: float = 0.05  # 20 readings a second; a reading of one worker is two small /proc reads
    heap_share: float = 0.75  # of the limit, for a runtime's own heap flag: its other memory fits beside
    # a worker whose resident memory is this share of its heap flag when a reply times out is reported
    # out of memory: its runtime was collecting garbage at the heap's limit (WorkerProcess._heap_full)
    full_heap_share: float = 0.95
    # past a reply's deadline, a worker at half its heap (or limit) or more whose resident memory still
    # rises by this share of it per climb_step_s is awaited a step more (WorkerProcess._still_climbing)
    climb_share: float = 0.01
    climb_step_s: float = 1.0
    default_min_bytes: int = 1 << 30  # the default limit is never below this
    jvm_gc_share: float = 0.5  # of a reading's wall time spent in collections: the heap is full to the collector
    jvm_heap_share: float = 0.5  # of the heap's maximum in use at the same time (a leak, not a large young heap)
    jvm_reading_s: float = 1.0


@dataclass(frozen=True)
class Replies:
    """How a worker's reply is checked (engine/worker.check_cpu_times) and how long one is awaited."""
    # A CPU time may exceed its wall time by this much before it is a protocol error (see
    # docs/cpu-time.md). The CPU clock is read just outside the two wall-clock reads, so its interval also
    # holds those reads, and interrupt work the kernel charges to the running thread (kernels without
    # IRQ_TIME_ACCOUNTING) can land in that gap: on a loaded 2-CPU VM, C reading
    # CLOCK_THREAD_CPUTIME_ID around CLOCK_MONOTONIC saw up to 197 µs more CPU than wall time (92 of
    # 10^6 iterations over 50 µs). The 1 ms floor is five times that, yet half of a default
    # 2 ms iteration, so a worker reporting a busy process's CPU time as its thread's is still caught.
    cpu_slack_floor_ns: int = 1_000_000
    # Beyond the slack, a rare iteration is a glitch of the VM's clocks, not a worker's error (a quiet
    # known-ratio run lost a case to one iteration with 5.38 ms of CPU in 2.98 ms of wall, 2026-11-26).
    # A process may have this share of its iterations over (one at least); more is a worker that reads
    # the wrong clock, and fails.
    cpu_glitch_share: float = 0.02
    # a reply under valgrind comes 50-100x later than without, and a JVM starts at valgrind's speed: its
    # first reply took 9-15 min on this project's loaded 2-core VM (docs/instructions-languages.md)
    count_timeout_min_s: float = 1800.0


@dataclass(frozen=True)
class Budget:
    """The run's total budget (--budget-total, engine/total_budget.py)."""
    min_budget_scale: float = 0.1  # past the total, a case still gets a tenth of its budget: measured, roughly
    timeout_floor_s: float = 10.0  # a JVM's start and a first call's JIT fit in it
    timeout_per_budget: float = 3.0  # a reply may take three times the case's whole budget, no longer
    reference_weight: float = 0.25  # a case no claim stands on gets a quarter of a deciding case's share
    retry_after_skips: int = 2  # runs that skip a timed-out case before one tries it again


@dataclass(frozen=True)
class Counts:
    """Instruction counts (measures/counts.py, engine/count.py)."""
    max_launches: int = 5  # past this, the count is reported as not agreed, with its spread
    # iai-callgrind's estimate (and the one CodSpeed and rustc-perf's cachegrind diffs read alike): an L1
    # hit costs 1 cycle, an LL hit 5, a RAM access 35. A ranking aid, not a clock: see docs/instructions.md.
    ll_hit_cycles: int = 5
    ram_cycles: int = 35


@dataclass(frozen=True)
class Profile:
    """The profiled launch (engine/profile.py): a pilot of ×10 steps, then one run sized to last."""
    pilot_min_s: float = 0.05  # a pilot run this long tells a call's cost
    pilot_steps_max: int = 8  # ×10 a step: 10^8 calls reach pilot_min_s for any call over half a ns
    seconds: float = 1.0  # how long the profiled run is sized to last
    run_timeout_factor: float = 10.0  # the profiled run's reply is awaited this many times its planned length
    # a frame's self share must change by more than this many standard errors of sampling (two
    # proportions, pooled) to be coloured in a difference flame graph (report/flame.py; flamegraph.js
    # holds the same number, and a test keeps them equal)
    noise_z: float = 3.0


@dataclass(frozen=True)
class Recording:
    """Where finished cases go, and how often (recording.py)."""
    document_interval_s: float = 30.0
    # an interval rewrite waits until the run has this share more cases than the last one held
    document_growth: float = 0.25
    # cases that finish faster than this go to the store together, in one transaction per interval (a
    # commit per case cost a dry run about 0.4 ms per case); slower ones, one by one.
    store_interval_s: float = 1.0
    # a rewrite that costs c seconds waits at least c × this: the document never takes more than a
    # tenth of the host's time, however large the run
    max_document_share: float = 0.1


@dataclass(frozen=True)
class Cluster:
    """`run --cluster` (cluster/driver.py)."""
    max_losses: int = 3  # a group whose Ray task is lost this often fails its cases (a benchmark that kills its host)


@dataclass(frozen=True)
class Policy:
    starts: Starts = field(default_factory=Starts)
    pilot: Pilot = field(default_factory=Pilot)
    warmup: Warmup = field(default_factory=Warmup)
    overhead: Overhead = field(default_factory=Overhead)
    paired: Paired = field(default_factory=Paired)
    stop: Stop = field(default_factory=Stop)
    cleaning: Cleaning = field(default_factory=Cleaning)
    contention: Contention = field(default_factory=Contention)
    diagnosis: Diagnosis = field(default_factory=Diagnosis)
    change: Change = field(default_factory=Change)
    history: History = field(default_factory=History)
    claims: Claims = field(default_factory=Claims)
    placement: Placement = field(default_factory=Placement)
    memory: Memory = field(default_factory=Memory)
    replies: Replies = field(default_factory=Replies)
    budget: Budget = field(default_factory=Budget)
    counts: Counts = field(default_factory=Counts)
    profile: Profile = field(default_factory=Profile)
    recording: Recording = field(default_factory=Recording)
    cluster: Cluster = field(default_factory=Cluster)

    def to_json(self) -> dict[str, Any]:
        """The policy as the results document saves it: {group: {number: value}}."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> "Policy":
        """A saved policy; groups and numbers it lacks (an older perflab) are today's defaults, names this
        perflab does not know are ignored."""
        if not isinstance(data, dict):
            return DEFAULT
        groups = {}
        for f in dataclasses.fields(cls):
            saved = data.get(f.name)
            group_type = type(getattr(DEFAULT, f.name))
            if isinstance(saved, dict):
                known = {g.name for g in dataclasses.fields(group_type)}
                values = {k: tuple(v) if isinstance(v, list) else v for k, v in saved.items() if k in known}
                groups[f.name] = group_type(**values)
        return cls(**groups)


DEFAULT = Policy()


def policy_for(job) -> Policy:
    """A job's policy (`Job.policy`)."""
    return for_confidence(job.confidence, job.target_rel_error)


@functools.lru_cache(maxsize=64)
def for_confidence(confidence: float, target_rel_error: float) -> Policy:
    """The policy of a job with this confidence and precision target: today's numbers, with the stop
    rule's confidence and target those, and the drift test's significance 1 − that confidence (0.001
    for every job perflab ships). What a results document is re-judged with when it saved no policy."""
    return dataclasses.replace(
        DEFAULT,
        stop=dataclasses.replace(DEFAULT.stop, confidence=confidence, target_rel_error=target_rel_error),
        diagnosis=dataclasses.replace(DEFAULT.diagnosis, drift_significance=round(1 - confidence, 12)),
    )
