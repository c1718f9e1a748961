"""Warmup and pilot arithmetic, as pure functions of the times a launch measured: whether warmup is
over, how long later launches warm up, and how many invocations make an iteration last the job's
iteration time. The engine (runner.py) runs the stages; these decide from their readings."""
from __future__ import annotations

import math

import numpy as np

from ..policy import DEFAULT
from ..stats.robust import robust_sd

# the rules' numbers, each with why it is what it is: perflab.policy.Warmup and .Pilot (the same in
# every job's policy; a caller with another policy passes its numbers)
WARMUP, PILOT = DEFAULT.warmup, DEFAULT.pilot


def is_stable(samples: list[int], tolerance: float = WARMUP.tolerance, least: int = WARMUP.least_first) -> bool:
    """Warmup is over when the newest iterations no longer differ from the ones just before them by
    more than `tolerance` (or than the noise), i.e. the times have stopped trending, and they lie
    on one level (their robust spread is within Warmup.settled_spread of it: wild times are a JIT
    still at work, not noise that hides a trend). `least`: the fewest samples that can tell."""
    if len(samples) < max(4, least):
        return False
    tail = np.asarray(samples[-8:], dtype=float)
    half = len(tail) // 2
    before, after = np.median(tail[:half]), np.median(tail[half:])
    centre = float(np.median(tail))
    spread = robust_sd(tail, centre)
    if spread > WARMUP.settled_spread * centre:
        return False
    # standard error of the difference of two half-window locations
    noise = spread * math.sqrt(2 / half)
    return abs(after - before) <= tolerance * centre + noise


def far_above(samples: list[int], level: float | None, factor: float = WARMUP.level_factor) -> bool:
    """Whether a later process's newest warmup iterations (the last two) lie above `factor` × the
    level its case's first process settled at: code that process had compiled still runs slowly here."""
    if not samples or not level:
        return False
    return float(np.median(samples[-2:])) > factor * level


def later_warmup(pilot: list[tuple[int, int]], warmup: list[int], invocations: int,
                 shortest_ns: float) -> int:
    """Warmup iterations for a case's later launches, from its first launch's pilot readings (count,
    ns) and warmup, whose times were stable at the first look (0: the full check, as the first had).
    Code whose calls ran at the settled speed in every pilot reading of at least `shortest_ns` (no
    JIT compiling it meanwhile: the pilot's readings are a JIT's first calls) and whose warmup was
    flat from its start (no cache still filling) settles in the first iterations of every process:
    later launches, dozens of them, warm up as many iterations as the first spent off that level,
    and one more (each still checked against that level, see `Engine._warm`)."""
    if len(warmup) < 4 or not pilot or pilot[-1][0] != invocations:
        return 0
    tail = np.asarray(warmup[len(warmup) // 2:], dtype=float) / invocations
    timed = [ns / n for n, ns in pilot if ns >= shortest_ns]
    if not timed or _off_level(np.asarray(timed, dtype=float), tail).any():
        return 0
    return settled_after(warmup) + 1


def settled_after(samples: list[int], tolerance: float = WARMUP.tolerance) -> int:
    """How many leading iterations of a finished warmup lie off the level its times settled at (its
    second half): the iterations a process of this code spends warming up."""
    x = np.asarray(samples, dtype=float)
    if len(x) < 4:
        return len(x)
    off = np.flatnonzero(_off_level(x[:len(x) // 2], x[len(x) // 2:], tolerance))
    return int(off[-1]) + 1 if len(off) else 0


def _off_level(x: np.ndarray, tail: np.ndarray, tolerance: float = WARMUP.tolerance) -> np.ndarray:
    """Which of `x` lie off the level of `tail` (its median) by more than `tolerance` or three robust
    standard deviations of `tail`."""
    level = float(np.median(tail))
    sd = robust_sd(tail, level)
    return np.abs(x - level) > tolerance * level + WARMUP.off_level_sds * sd


def pick_invocations(measured_ns: int, invocations: int, target_ns: float, unroll: int) -> int:
    """Next invocation count for the pilot: aim at target_ns per iteration, growing at most ×1000 a step
    (a reading near the clock's resolution is too coarse to extrapolate further)."""
    per_call = max(measured_ns, 1) / invocations
    wanted = math.ceil(target_ns / per_call)
    wanted = min(wanted, invocations * PILOT.growth_max)
    wanted = max(wanted, invocations + 1)
    if wanted >= unroll > 1:
        wanted = math.ceil(wanted / unroll) * unroll
    return int(min(wanted, 1 << 40))




def iteration_target_ns(iteration_time_s: float, clock_resolution_ns: float) -> float:
    """What one iteration should last: the job's iteration time, and many clock steps at least."""
    return max(iteration_time_s * 1e9, PILOT.iteration_min_resolutions * clock_resolution_ns)


def repilot_invocations(pilot: tuple[int, int], warmup: list[int], invocations: int, target_ns: float,
                        unroll: int) -> int | None:
    """A JIT can make calls many times faster during warmup (a JVM compiling after the pilot saw the
    interpreter). If the warmed-up call (its last three iterations) is under Pilot.repilot_speedup of the
    pilot's last reading (count, ns), the iterations are now too short: the invocation count chosen
    again from the warmed-up speed; else None."""
    pilot_n, pilot_ns = pilot
    now = float(np.median(warmup[-3:])) / invocations
    if now >= PILOT.repilot_speedup * max(pilot_ns, 1) / pilot_n:
        return None
    wanted = max(invocations, math.ceil(target_ns / max(now, 1e-3)))
    if wanted >= unroll > 1:
        wanted = math.ceil(wanted / unroll) * unroll
    return int(min(wanted, 1 << 40))
