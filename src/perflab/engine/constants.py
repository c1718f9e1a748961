"""The engine's tuned numbers in one place, each with why it is what it is and where that was measured
(README's lab notebook and docs/ hold the studies). Statistical thresholds of the samples themselves
live with the statistics (stats/clean.py)."""

# -- starting processes --------------------------------------------------------------------------
# Processes started side by side: a start is mostly waiting (exec, imports, JIT boot), none of it
# measured; 16 covers the job's first launches of a group of a few runtimes at once.
MAX_CONCURRENT_STARTS = 16

# -- pilot and warmup ----------------------------------------------------------------------------
PILOT_STEPS_MAX = 12  # pilot readings at most: ×1000 a step reaches any count in far fewer
PILOT_DONE_SHARE = 0.9  # a pilot reading this close to the iteration time is close enough
PILOT_GROWTH_MAX = 1000  # a reading near the clock's resolution is too coarse to extrapolate further
# Clock steps an iteration lasts at least: below, the clock's resolution shows in the samples.
ITERATION_MIN_RESOLUTIONS = 1000
# A warmed-up call under this share of the pilot's estimate was sped up by a JIT after the pilot:
# the invocations are chosen again (a JVM compiling after the pilot saw the interpreter).
REPILOT_SPEEDUP = 0.5
WARMUP_TOLERANCE = 0.02  # relative change between warmup halves still taken as "stopped trending"
# Iterations of a first launch's warmup judged at each look (3 against 3), and added between looks;
# a later launch, one of dozens, 2 against 2, one at a time (its warmup is a fifth of its cost).
WARMUP_LEAST_FIRST, WARMUP_STEP_FIRST = 6, 2
WARMUP_LEAST_LATER, WARMUP_STEP_LATER = 4, 1
WARMUP_BUDGET_SHARE = 0.25  # of the case's budget, split over the job's first launches
# A warmup whose newest iterations scatter by more than this share of their level (a robust standard
# deviation) has not settled on any level, however flat its halves' medians: a JIT compiling and
# deoptimising on a busy machine ([94, 234, 5, 191, 9, 95] µs) is not done warming up.
WARMUP_SETTLED_SPREAD = 0.5
# A later process whose warmup settled above this multiple of the level the case's first process
# settled at is still running code the first one had compiled (its JIT starved of CPU, say): it warms
# up on, up to its share of the budget, rather than carry the compilation into its measurement.
WARMUP_LEVEL_FACTOR = 2.0
# Pilot readings shorter than this share of the iteration time are not used to tell whether the
# code ran at its settled speed (clock and call overhead dominate them).
SETTLED_READING_SHARE = 0.1

# -- overhead ------------------------------------------------------------------------------------
OVERHEAD_DISCARDED = 2  # the empty loop's first passes warm it up and are not kept
OVERHEAD_ITERATIONS_MIN = 5  # overhead iterations measured before the rounds, at least
# Overhead this share of an iteration or more is measured again in every round, next to the
# workload: the machine's drift between a measurement before the rounds and the workload would leak
# into the result.
INTERLEAVE_OVERHEAD_SHARE = 0.05

# -- stopping ------------------------------------------------------------------------------------
MIN_ITERATIONS_BUDGET_FACTOR = 5.0  # how far past its budget a case may go to get its minimum
JUDGE_SPACING = 4.0  # measuring between judgements, as a multiple of what the last judgement took
JUDGE_WAIT_MAX_S = 0.5  # the longest measuring between two judgements (the budget is checked there)

# -- starting ahead (see Engine._start_ahead) -----------------------------------------------------
LAG_WEIGHT = 0.1  # of a new round iteration in the running averages of perflab's own time per iteration
LAG_MIN_SAMPLES = 20  # round iterations with and without a start under way before they are compared
# Extra time per round iteration that starting ahead may cost: with the other core busy, perflab's
# reply came 2-3.5 ms later instead of 1, which outweighs the 30-90 ms start it saves.
AHEAD_LAG_MAX_S = 0.001
AHEAD_PAUSE_S = 10.0  # how long starts ahead pause once they cost more, before they are tried again

# -- paired comparisons under contention (engine/duet.py, engine/runqueue.py, stats/clean.py) ------
from dataclasses import dataclass  # noqa: E402  (kept beside the numbers it holds, to move them whole)


@dataclass(frozen=True)
class PairedTuning:
    """The tuned numbers of a paired comparison under contention, together so they move as one."""
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
    # iterations' CPU shares reaches CPU_BOUND_SHARE (a case that blocks in every iteration never does)
    unblocked_quantile: float = 0.98


PAIRED = PairedTuning()
