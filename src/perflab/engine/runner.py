"""The engine: one implementation of how every case in every language is measured.

A *group* is the set of cases that differ only by runtime (same benchmark, same parameters). All their
launches (worker processes) are kept alive together and measured in *rounds*: each round runs one
workload iteration on every live launch of every unfinished case, in a fresh random order. Machine
drift therefore hits every contender alike, and the rounds pair their samples for ratio statistics.

Per launch: start → setup → pilot (first launch only: pick invocations per iteration so one iteration
lasts the job's iteration time) → warmup until the times stop trending → overhead (an empty call in
the same loop). Then rounds, until each case reaches its precision target (or its budget runs out).
If processes disagree more than iterations do, the engine doubles the launches instead of adding iterations.
A failing case fails alone: its workers are killed and the reason is kept; the others go on.
"""
from __future__ import annotations

import math
import random
import secrets
import time
from concurrent.futures import Executor, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import numpy as np

from ..errors import ProtocolError, WorkerFailure
from ..jobs import Job
from ..model import Case, CaseResult, Diagnostics, LaunchSamples
from ..stats import Ratio, estimate, ratio_from_launches
from ..stats.ratio import wilcoxon_rank
from .affinity import PROBE_S, PROBE_TRIES, Placement
from .allocation import doubling_pays, iterations_per_launch
from .worker import WITH_OVERHEAD, BenchmarkError, Hello, Timings


class WorkerHandle(Protocol):
    hello: Hello

    def setup(self, benchmark_id: str, params: dict[str, int], timeout: float) -> None: ...
    def run(self, stage: str, invocations: int, iterations: int, timeout: float) -> Timings: ...
    # only called when hello.capabilities has WITH_OVERHEAD: (workload, overhead)
    def run_with_overhead(self, invocations: int, iterations: int, timeout: float
                          ) -> tuple[Timings, Timings]: ...
    def diagnose(self, invocations: int, iterations: int, timeout: float) -> dict[str, Any]: ...
    def teardown(self, timeout: float) -> None: ...
    def say_bye(self) -> None: ...
    def close(self) -> None: ...
    def output_bytes(self) -> int: ...
    def stderr_tail(self) -> str: ...


Launcher = Callable[[Case, int], WorkerHandle]


def is_stable(samples: list[int], tolerance: float = 0.02, least: int = 6) -> bool:
    """Warmup is over when the newest iterations no longer differ from the ones just before them by
    more than `tolerance` (or than the noise), i.e. the times have stopped trending. `least`: the
    fewest samples that can tell."""
    if len(samples) < max(4, least):
        return False
    tail = np.asarray(samples[-8:], dtype=float)
    half = len(tail) // 2
    before, after = np.median(tail[:half]), np.median(tail[half:])
    centre = float(np.median(tail))
    # standard error of the difference of two half-window locations, from a robust spread (MAD)
    noise = 1.4826 * float(np.median(np.abs(tail - centre))) * math.sqrt(2 / half)
    return abs(after - before) <= tolerance * centre + noise


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


def settled_after(samples: list[int], tolerance: float = 0.02) -> int:
    """How many leading iterations of a finished warmup lie off the level its times settled at (its
    second half): the iterations a process of this code spends warming up."""
    x = np.asarray(samples, dtype=float)
    if len(x) < 4:
        return len(x)
    off = np.flatnonzero(_off_level(x[:len(x) // 2], x[len(x) // 2:], tolerance))
    return int(off[-1]) + 1 if len(off) else 0


def _off_level(x: np.ndarray, tail: np.ndarray, tolerance: float = 0.02) -> np.ndarray:
    """Which of `x` lie off the level of `tail` (its median) by more than `tolerance` or three robust
    standard deviations of `tail`."""
    level = float(np.median(tail))
    sd = 1.4826 * float(np.median(np.abs(tail - level)))
    return np.abs(x - level) > tolerance * level + 3 * sd


def pick_invocations(measured_ns: int, invocations: int, target_ns: float, unroll: int) -> int:
    """Next invocation count for the pilot: aim at target_ns per iteration, growing at most ×1000 a step
    (a reading near the clock's resolution is too coarse to extrapolate further)."""
    per_call = max(measured_ns, 1) / invocations
    wanted = math.ceil(target_ns / per_call)
    wanted = min(wanted, invocations * 1000)
    wanted = max(wanted, invocations + 1)
    if wanted >= unroll > 1:
        wanted = math.ceil(wanted / unroll) * unroll
    return int(min(wanted, 1 << 40))


@dataclass
class _Launch:
    handle: WorkerHandle
    samples: LaunchSamples
    probe: Any = None  # start of the CPU-share window that decides pinning (see Placement)
    probe_busy: float = 0.0  # seconds its iterations took since then
    probe_tries: int = 0
    retired: bool = False  # measured enough and closed (see Engine._renew); its samples stay


@dataclass
class _CaseState:
    case: Case
    result: CaseResult
    launches: list[_Launch] = field(default_factory=list)
    invocations: int = 0
    per_call_ns: float = 0.0
    spent: float = 0.0
    done: bool = False
    interleave_overhead: bool = False
    # warmup iterations of later launches, set when the first launch's warmup was flat (0: the full check)
    later_warmup: int = 0
    estimate: Any = None  # the latest judgement's estimate (None until the minimum is measured)
    rounds: int = 0  # interleaving rounds this case took part in
    # what a launch costs (start, setup, warmup, overhead) against one of its iterations in a round:
    # together with the variance components, how many iterations a launch is worth (Engine._enough)
    launch_seconds: float = 0.0
    launches_started: int = 0
    round_seconds: float = 0.0
    round_iterations: int = 0
    # processes started ahead, off the measuring CPU, for the next renewal (see Engine._start_ahead)
    ahead: list[Future] = field(default_factory=list)

    def live(self) -> list[_Launch]:
        return [ln for ln in self.launches if not ln.retired]


class Engine:
    def __init__(self, job: Job, launcher: Launcher, clock: Callable[[], float] = time.monotonic,
                 rng: random.Random | None = None,
                 on_case_done: Callable[[CaseResult], None] | None = None,
                 placement: Placement | None = None,
                 starts_aside: Callable[[Case], bool] | None = None,
                 executor: Callable[[int], Executor] | None = None):
        self.job = job
        self.placement = placement or Placement()  # default: launches are not pinned
        self.launcher = launcher
        # whether a case's runtime may start while others are measured (see _start_ahead)
        self.starts_aside = starts_aside or (lambda case: False)
        self.executor = executor or (lambda n: ThreadPoolExecutor(max_workers=n))
        # perflab's own time per round iteration (its wall time minus what the worker timed), averaged
        # with and without a start ahead under way: what starting ahead costs the rounds (_ahead_hurts)
        self._lag: dict[bool, float | None] = {True: None, False: None}
        self._lag_n = {True: 0, False: 0}
        self._ahead_paused_until = -math.inf
        # starts ahead not yet done (a done callback removes each): checked at every round iteration
        self._starting: set[Future] = set()
        self.clock = clock
        self.rng = rng or random.Random()
        self.on_case_done = on_case_done

    # -- public ---------------------------------------------------------------------------------

    def run_group(self, cases: list[Case]) -> list[CaseResult]:
        # a fresh id per group: results of a resumed run must never pair with a new group's rounds
        group_id = secrets.randbits(48) + 1
        states = [_CaseState(c, CaseResult(case=c, round_group=group_id)) for c in cases]
        started = self.clock()
        # retired launches exit in the background: waiting for a process to go is not measuring
        self._reaper = self.executor(MAX_CONCURRENT_STARTS)
        self._starter = self.executor(1)  # one start ahead at a time (see _start_ahead)
        try:
            self._run_rounds(states)
        finally:
            for st in states:
                self._drop_ahead(st)
            self._starter.shutdown(wait=True)
            self._reaper.shutdown(wait=True)
            self.placement.release_host()
        elapsed = self.clock() - started
        for st in states:
            st.result.wall_seconds = st.spent if st.spent else elapsed / max(1, len(states))
        return [st.result for st in states]

    def _run_rounds(self, states: list[_CaseState]) -> None:
        # Every contender's first launches start at once: a process start is mostly waiting (exec,
        # imports, JIT boot) and none of it is measured, so starting them side by side costs one
        # start instead of many. The stages that time something run one launch at a time.
        handles = self._spawn([(st, i) for st in states for i in range(self.job.launches_min)])
        for st in self._shuffled(states):
            self._guard(st, self._attach, st, *handles[id(st)])
        self._start_ahead(self._active(states))
        rnd = 0
        judged_at, judge_cost = self.clock(), 0.0
        while self._active(states):
            rnd += 1
            for st in self._active(states):
                st.rounds += 1
            for st, ln in self._round_order(self._active(states)):
                if not st.done:
                    self._guard(st, self._workload, st, ln, rnd)
            # Judging looks at every sample so far (tens of milliseconds with many launches): it waits
            # until the rounds since the last judgement took JUDGE_SPACING times as long as judging
            # did, so judging never costs more than a fraction of the measuring — but never longer
            # than JUDGE_WAIT_MAX_S, whatever one slow judgement took (the budget is checked there).
            if self.clock() - judged_at < min(JUDGE_SPACING * judge_cost, JUDGE_WAIT_MAX_S):
                continue
            t0 = self.clock()
            renew, enough = self._judge_group(self._active(states), states)
            judged_at = self.clock()
            judge_cost = judged_at - t0
            if renew:
                self._renew(renew, enough)
            self._start_ahead(self._active(states))

    def _round_order(self, active: list[_CaseState]) -> list[tuple[_CaseState, _Launch]]:
        """One round: every live launch once. Launch k of every contender forms a block, measured back
        to back in random order, and the blocks come in random order: a burst of interference (the
        machine's other core busy, a noisy neighbour) lasts milliseconds, so it hits both sides of a
        block alike and cancels in their ratio instead of landing on one side only."""
        live = {id(st): st.live() for st in active}
        blocks = [[(st, live[id(st)][k]) for st in active if k < len(live[id(st)])]
                  for k in range(max(len(x) for x in live.values()))]
        for block in blocks:
            self.rng.shuffle(block)
        self.rng.shuffle(blocks)
        return [item for block in blocks for item in block]

    # -- stages ---------------------------------------------------------------------------------

    def _timed(self, st: _CaseState, fn, *args):
        t0 = self.clock()
        try:
            return fn(*args)
        finally:
            st.spent += self.clock() - t0

    def _run_timeout(self, st: _CaseState, invocations: int, iterations: int) -> float:
        expected = st.per_call_ns * invocations * iterations / 1e9
        return max(self.job.timeout_s, 10 * expected)

    def _spawn(self, wanted: list[tuple[_CaseState, int]]) -> dict[int, tuple[list, BaseException | None]]:
        """Start worker processes for (case, launch index) pairs concurrently. Per case (by id): its
        handles in index order and its first start failure, if any."""
        t0 = self.clock()
        # starts ahead must not fork while the host has every CPU: they would start on the measuring
        # CPU and go on there once measuring resumes
        wait(list(self._starting))

        def start(item):
            st, index = item
            try:
                return st, self.launcher(st.case, index), None
            except Exception as exc:  # kept per case: a failing start fails that case alone
                return st, None, exc

        self.placement.release_host()  # children start with every CPU (see Placement.release_host)
        try:
            with ThreadPoolExecutor(max_workers=max(1, min(len(wanted), MAX_CONCURRENT_STARTS))) as pool:
                results = list(pool.map(start, wanted))  # map keeps the order of `wanted`
        finally:
            self.placement.hold_host()
        out: dict[int, tuple[list, BaseException | None]] = {}
        for st, handle, exc in results:
            handles, error = out.get(id(st), ([], None))
            out[id(st)] = (handles + [handle] if handle is not None else handles, error or exc)
        elapsed = self.clock() - t0
        for st, _ in wanted:
            st.spent += elapsed / len(wanted)
            st.launch_seconds += elapsed / len(wanted)
        return out

    def _attach(self, st: _CaseState, handles: list, error: BaseException | None) -> None:
        """Prepare freshly started launches one by one (their stages are timed); on any failure the
        handles not yet attached are closed too, then the failure goes up to fail the case."""
        pending = list(handles)
        t0 = self.clock()
        try:
            while pending:
                self._add_launch(st, pending.pop(0))
                st.launches_started += 1
        finally:
            st.launch_seconds += self.clock() - t0
            for h in pending:
                h.close()
        if error is not None:
            raise error

    def _add_launch(self, st: _CaseState, handle: WorkerHandle | None = None) -> None:
        job, case = self.job, st.case
        index = len(st.launches)
        if handle is None:
            handle = self._timed(st, self.launcher, case, index)
        launch = _Launch(handle, LaunchSamples(index=index, pid=handle.hello.pid))
        st.launches.append(launch)
        if index == 0:
            st.result.clock_resolution_ns = handle.hello.clock_resolution_ns
            st.result.worker_runtime = dict(handle.hello.runtime)
            if handle.hello.cpu_clock is not None:  # what LaunchSamples.*_cpu were read with
                st.result.worker_runtime["cpu_clock"] = dict(vars(handle.hello.cpu_clock))
        else:
            # A case whose first launch was pinned (it uses one CPU) has every later one measured
            # from its warmup on where it will be measured, not after a probe window of its own: a
            # launch lives for a dozen iterations, and one left to the scheduler for its first
            # several ran a whole process 10-35 % slow (it woke beside perflab or a start ahead).
            # A process started ahead gets every CPU back otherwise.
            self.placement.join(handle.hello.pid, st.launches[0].samples.cpu is not None)
        self._timed(st, handle.setup, case.benchmark.id, case.param_indices, job.timeout_s)
        if index == 0:
            self._pilot(st, launch)
        launch.samples.invocations = st.invocations
        n = st.invocations
        if job.warmup_max > 0:
            at_first_look = self._warm(st, launch, n)
            if index == 0 and self._repilot(st, launch):
                # the warmup so far ran at the old count: kept with the pilot readings (count, ns)
                launch.samples.pilot[-1:-1] = [(n, ns) for ns in launch.samples.warmup]
                n = launch.samples.invocations = st.invocations
                launch.samples.warmup = []
                self._warm(st, launch, n)
                at_first_look = False  # it sped up after the pilot: a JIT, whatever its warmup shows
            if index == 0 and at_first_look:
                st.later_warmup = later_warmup(launch.samples.pilot, launch.samples.warmup, n,
                                               0.1 * job.iteration_time_s * 1e9)
        if job.overhead:
            # the empty loop warms up like any other code before its times count
            self._stage(st, launch, "overhead", n, 2)  # the empty loop's first passes are discarded
            if index > 0 and st.interleave_overhead:
                return  # measured in every round, next to each workload iteration it is subtracted from
            timed = self._run_stage(st, launch, "overhead", n, max(5, job.iterations_min))
            over = timed.ns
            launch.samples.overhead += over
            launch.samples.overhead_cpu += timed.cpu
            launch.samples.overhead_rounds += [0] * len(over)
            # When the empty call is a noticeable share of an iteration, the machine's drift between
            # this measurement and the workload would leak into the result: measure it again in
            # every round, next to the workload, and subtract it locally.
            reference = launch.samples.warmup or [s[1] for s in launch.samples.pilot[-1:]]
            if index == 0 and reference and np.median(over) > 0.05 * np.median(reference):
                st.interleave_overhead = True

    def _warm(self, st: _CaseState, launch: _Launch, n: int) -> bool:
        """Warm up until stable, but a slow benchmark (one call ≥ an iteration) on a busy machine may
        never look stable: past its share of the budget, the launch goes on to be measured (the
        warmup samples are kept, so a reader can see the trend). Whether the times were stable at
        the first look (see `_add_launch`)."""
        job, warm = self.job, launch.samples.warmup
        started = self.clock()
        cap = WARMUP_BUDGET_SHARE * job.budget_s / max(1, job.launches_min)
        if launch.probe is None and launch.samples.cpu_share is None:
            launch.probe = self.placement.probe(launch.samples.pid)
        if launch.samples.index > 0 and st.later_warmup:
            # the first launch showed that this code settles within that many iterations; a
            # process whose last one is still off the first's settled level gets the full check
            warm += self._stage(st, launch, "warmup", n, min(st.later_warmup, job.warmup_max))
            settled = st.launches[0].samples.warmup
            settled = np.asarray(settled[len(settled) // 2:], dtype=float)
            if not _off_level(np.asarray(warm[-1:], dtype=float), settled)[0]:
                return True
        # The first launch is judged on 3 against 3 iterations. A later launch, one of dozens, on 2
        # against 2, one iteration at a time: the first has shown how this code warms up, and a
        # launch's warmup is a fifth of its cost when it lives for a dozen iterations.
        first = launch.samples.index == 0
        least, step = (6, 2) if first else (4, 1)
        warm += self._stage(st, launch, "warmup", n, job.warmup_min)
        looks = 0
        while len(warm) < job.warmup_max and (job.budget_s <= 0 or self.clock() - started < cap):
            if len(warm) >= least:
                looks += 1
                if is_stable(warm, least=least):
                    break
            warm += self._stage(st, launch, "warmup", n, min(step, job.warmup_max - len(warm)))
        return looks == 1

    def _repilot(self, st: _CaseState, launch: _Launch) -> bool:
        """A JIT can make calls many times faster during warmup (a JVM compiling after the pilot saw
        the interpreter). If the warmed-up call is under half the pilot's estimate, the iterations are
        now too short: choose the invocation count again from the warmed-up speed."""
        job, samples = self.job, launch.samples
        if not job.pilot or st.case.benchmark.iteration_setup or not samples.pilot or not samples.warmup:
            return False
        n = st.invocations
        pilot_n, pilot_ns = samples.pilot[-1]
        now = float(np.median(samples.warmup[-3:])) / n
        if now >= 0.5 * max(pilot_ns, 1) / pilot_n:
            return False
        target = max(job.iteration_time_s * 1e9, 1000 * launch.handle.hello.clock_resolution_ns)
        unroll = launch.handle.hello.unroll
        wanted = max(n, math.ceil(target / max(now, 1e-3)))
        if wanted >= unroll > 1:
            wanted = math.ceil(wanted / unroll) * unroll
        st.invocations = int(min(wanted, 1 << 40))
        samples.pilot.append((st.invocations, int(now * st.invocations)))
        return st.invocations != n

    def _pilot(self, st: _CaseState, launch: _Launch) -> None:
        job, bench = self.job, st.case.benchmark
        unroll = launch.handle.hello.unroll
        if not job.pilot or bench.iteration_setup:
            st.invocations = 1
            return
        target = max(job.iteration_time_s * 1e9, 1000 * launch.handle.hello.clock_resolution_ns)
        n = 1
        for _ in range(12):
            ns = self._stage(st, launch, "pilot", n, 1)[0]
            launch.samples.pilot.append((n, ns))
            st.per_call_ns = max(ns, 1) / n
            if ns >= 0.9 * target:
                break
            n = pick_invocations(ns, n, target, unroll)
        st.invocations = n

    def _stage(self, st: _CaseState, launch: _Launch, stage: str, n: int, iterations: int) -> list[int]:
        """The wall times of one stage's iterations (where their CPU times are not kept)."""
        return self._run_stage(st, launch, stage, n, iterations).ns

    def _run_stage(self, st: _CaseState, launch: _Launch, stage: str, n: int, iterations: int) -> Timings:
        t0 = self.clock()
        timed = self._timed(st, launch.handle.run, stage, n, iterations,
                            self._run_timeout(st, n, iterations))
        self._after_stage(st, launch, t0, timed.ns if stage != "overhead" else [], n)
        return timed

    def _workload_with_overhead(self, st: _CaseState, launch: _Launch, n: int) -> tuple[Timings, Timings]:
        """One workload iteration and the overhead iteration after it, in one request (the worker
        offers WITH_OVERHEAD): one round trip per round instead of two."""
        t0 = self.clock()
        work, over = self._timed(st, launch.handle.run_with_overhead, n, 1, self._run_timeout(st, n, 2))
        self._after_stage(st, launch, t0, work.ns, n)
        return work, over

    def _after_stage(self, st: _CaseState, launch: _Launch, t0: float, workload_ns: list[int],
                     n: int) -> None:
        """The CPU-share probe (see _probe) and the per-call time that sizes timeouts."""
        if launch.probe is not None:
            self._probe(launch, self.clock() - t0)
        if workload_ns:
            st.per_call_ns = max(1.0, float(np.median(workload_ns)) / n)

    def _probe(self, launch: _Launch, seconds: float) -> None:
        """Once a launch has been watched for PROBE_S of its own measured time, pin it to the
        measuring CPU if it used one CPU at a time (see engine/affinity.py); if it did not, watch
        again, up to PROBE_TRIES windows in all."""
        launch.probe_busy += seconds
        if launch.probe_busy >= PROBE_S:
            launch.samples.cpu, launch.samples.cpu_share = self.placement.pin_if_single(
                launch.samples.pid, launch.probe, launch.probe_busy)
            launch.probe_tries += 1
            launch.probe, launch.probe_busy = None, 0.0
            if launch.samples.cpu is None and launch.probe_tries < PROBE_TRIES:
                # a JIT still compiling on other threads looks like a parallel benchmark: look again
                launch.probe = self.placement.probe(launch.samples.pid)

    def _workload(self, st: _CaseState, launch: _Launch, rnd: int) -> None:
        t0 = self.clock()
        try:
            self._measure_in_round(st, launch, rnd)
        finally:
            st.round_seconds += self.clock() - t0
            st.round_iterations += 1

    def _measure_in_round(self, st: _CaseState, launch: _Launch, rnd: int) -> None:
        t0 = self.clock()
        over = Timings([])
        if st.interleave_overhead and WITH_OVERHEAD in launch.handle.hello.capabilities:
            work, over = self._workload_with_overhead(st, launch, st.invocations)
        else:
            work = self._run_stage(st, launch, "workload", st.invocations, 1)
            if st.interleave_overhead:
                over = self._run_stage(st, launch, "overhead", st.invocations, 1)
        ns = work.ns
        launch.samples.workload += ns
        launch.samples.workload_cpu += work.cpu
        launch.samples.workload_rounds += [rnd] * len(ns)
        launch.samples.overhead += over.ns
        launch.samples.overhead_cpu += over.cpu
        launch.samples.overhead_rounds += [rnd] * len(over.ns)
        lag = (self.clock() - t0) - (sum(ns) + sum(over.ns)) / 1e9
        starting = bool(self._starting)
        before = self._lag[starting]
        self._lag[starting] = lag if before is None else before + LAG_WEIGHT * (lag - before)
        self._lag_n[starting] += 1

    # -- judging --------------------------------------------------------------------------------

    def target_met(self, est) -> bool:
        target = self.job.target_rel_error
        if est is None or not math.isfinite(est.error):
            return False
        if est.error <= target * abs(est.mean):
            return True
        # indistinguishable from empty: the interval straddles zero and is narrow compared with
        # what was actually timed (call + loop), so more iterations would not change the verdict
        return est.ci_low <= 0 <= est.ci_high and est.error <= target * max(est.gross_mean, 0.0)

    def _status(self, st: _CaseState, alone: bool = True) -> str:
        """'met' (precision target reached), 'spent' (budget or iteration cap used up), 'grow' (processes
        disagree more than iterations do: more launches are needed) or 'more'."""
        job = self.job
        counts = [len(ln.samples.workload) for ln in st.launches]
        if job.name == "dry" or job.target_rel_error <= 0:
            return "met" if min(counts) >= job.iterations_min else "more"
        enough = min(counts) >= job.iterations_min and len(st.launches) >= job.launches_min
        est = estimate([ln.samples for ln in st.launches], st.case.benchmark.ops_per_invoke,
                       job.confidence, subtract_overhead=job.overhead, modality=False) if enough else None
        st.estimate = est
        if enough and self.target_met(est):
            return "met"
        # the job's minimum iterations per launch are always measured (an interval from one iteration
        # per launch is meaningless), unless the case runs far past its budget
        short_of_min = min(counts) < job.iterations_min and st.spent < MIN_ITERATIONS_BUDGET_FACTOR * job.budget_s
        if (st.spent >= job.budget_s and not short_of_min) or sum(counts) >= job.iterations_max:
            return "spent"
        return "grow" if self._wants_processes(st, alone) else "more"

    def _out_of_budget(self, st: _CaseState) -> bool:
        """Its budget or its iteration cap used up."""
        return (st.spent >= self.job.budget_s
                or sum(len(ln.samples.workload) for ln in st.launches) >= self.job.iterations_max)

    def _wants_processes(self, st: _CaseState, alone: bool = True) -> bool:
        """Processes disagree (more iterations cannot help, more processes can; with a few iterations
        each, a between-process share is only believed when the launches' ANOVA says so), or the live
        ones have measured what a process is worth: a fresh process now tells more than an iteration."""
        est, job = st.estimate, self.job
        return (est is not None and len(st.launches) < job.launches_max and st.spent < job.budget_s
                and ((est.between_share > 0.5 and est.launch_anova_p < DISAGREE_P)
                     or max(len(ln.samples.workload) for ln in st.live()) >= self._enough(st)
                     or (alone and self._doubling_pays(st))))

    def _costs(self, st: _CaseState) -> tuple[float, float]:
        """What a launch (start, setup, warmup, overhead) and a round iteration have cost this case."""
        c_iteration = st.round_seconds / st.round_iterations if st.round_iterations else 0.0
        return st.launch_seconds / max(1, st.launches_started), c_iteration

    def _doubling_pays(self, st: _CaseState) -> bool:
        return st.estimate is not None and doubling_pays(st.estimate, len(st.live()), *self._costs(st),
                                                         self.job)

    def _judge_group(self, active: list[_CaseState], group: list[_CaseState]
                     ) -> tuple[list[_CaseState], float | None]:
        """The contenders of a group stop together: a case that reached its target keeps being measured
        while another still needs rounds, so every round stays paired (a ratio judged over rounds one
        side sat out would mix drift back in). The group stops when all reached the target, or when
        every ratio to the baseline did (see `_group_ratios`), or when one has spent its budget.
        Returns the contenders that need more processes (see `_renew`), if they do, and the
        iterations a launch is worth for the comparison (None: as each case's own estimate says)."""
        # a lone case is judged by its mean; the contenders of a comparison by their ratios
        alone = len([st for st in group if not st.result.error]) < 2
        status = {}
        for st in active:
            try:
                status[id(st)] = self._status(st, alone)
            except (WorkerFailure, ProtocolError) as exc:
                self._guard(st, _raise, exc)
        active = [st for st in active if not st.done]
        if not active:
            return [], None
        ratios = self._group_ratios(group)
        met = (all(self._ratio_met(r) for r in ratios) if ratios is not None
               else all(status[id(st)] == "met" for st in active))
        if ratios is not None and not met:
            # a comparison goes on while its ratios are short of the target, however precise its
            # means are, until a contender has spent its budget
            for st in active:
                if status[id(st)] == "met" and self._out_of_budget(st):
                    status[id(st)] = "spent"
        values = [status[id(st)] for st in active]
        by_ratio = ratios is not None and met
        enough = None
        wants = "grow" in values
        if ratios is not None and not met and not wants:
            # the ratio's interval is the launch pairs': it needs processes as a lone mean does
            enough = self._ratios_want_processes(active, ratios)
            wants = enough is not None or any(self._wants_processes(st, alone) for st in active)
        if wants and "spent" not in values and not met:
            return active, enough
        if met or "spent" in values:
            for st in active:
                reason = {"met": "target reached", "more": "budget exhausted"}.get(status[id(st)])
                if by_ratio and status[id(st)] != "met":
                    reason = "ratio target reached"
                elif reason is None:
                    counts = sum(len(ln.samples.workload) for ln in st.launches)
                    reason = "iteration limit" if counts >= self.job.iterations_max else "budget exhausted"
                if self.job.name == "dry":
                    reason = "dry run"
                elif self.job.target_rel_error <= 0:
                    reason = "iterations done"
                self._guard(st, self._finish, st, reason)
        return [], None

    def _renew(self, active: list[_CaseState], enough: float | None = None) -> None:
        """More processes are needed. Launches that have measured what a process is worth (`_enough`)
        retire — their samples stay, their processes exit — and the live launches double (up to the
        job's live cap, total cap and what the budget left can attach), all started together: a case
        that needs 24 launches gets there in three steps. Launch k of every contender starts and
        retires with the others, so each launch keeps its partners in the rounds' blocks. `enough`:
        the iterations a launch pair is worth to a comparison's ratio (None: each case's own)."""
        job = self.job
        live = min(len(st.live()) for st in active)
        if enough is None:
            enough = max(self._enough(st) for st in active)
        # positions whose launches (in every contender) have measured enough
        done = [k for k in range(live)
                if all(len(st.live()[k].samples.workload) >= enough for st in active)]
        count = min(2 * live, job.launches_live) - (live - len(done))
        count = min(count, job.launches_max - max(len(st.launches) for st in active))
        left = min(job.budget_s - st.spent for st in active)
        per_launch = max(st.launch_seconds / max(1, st.launches_started) for st in active)
        if per_launch > 0:  # start no more than the budget left can attach (start, warmup, overhead)
            count = min(count, max(1, int(left / (per_launch * len(active)))))
        if count <= 0:
            return
        for st in active:
            self._guard(st, self._retire, st, [st.live()[k] for k in done])
        active = [st for st in active if not st.done]
        started = self._take_ahead(active, count)
        wanted = [(st, len(st.launches) + len(started[id(st)][0]) + i)
                  for st in active for i in range(count - started[id(st)][2])]
        spawned = self._spawn(wanted) if wanted else {}
        for st in self._shuffled(active):
            handles, error, _ = started[id(st)]
            more, more_error = spawned.get(id(st), ([], None))
            self._guard(st, self._attach, st, handles + more, error or more_error)

    def _start_ahead(self, active: list[_CaseState]) -> None:
        """Start the processes the next renewal will want while the live ones are measured: a start
        (exec, the runtime's own start, loading the benchmark file) is about a third of what a
        short-lived launch costs, and none of it is measured. They start on the host's CPUs, off the
        measuring one (a child inherits the affinity of the thread that starts it), and get every CPU
        back when they join. They start one at a time: perflab's own process shares that CPU, and the
        rounds wait on it at every iteration — with 16 starting at once, its reply to an iteration
        took 3-6 ms instead of 0.8 (lowering them to idle priority did not help); one at a time,
        0.8-1.0 ms, and still ahead of the renewals. Only for runtimes that do not size themselves by
        the CPUs they may use when they start (`starts_aside`: CPython, PyPy and Node do not; Go's
        GOMAXPROCS and the JVM's GC threads do), and only for cases whose processes differ: they are
        the ones that renew (a case that stops first closes what it started ahead, unused)."""
        job = self.job
        if (not active or not self.placement.can_start_aside() or self._ahead_hurts()
                or not all(self.starts_aside(st.case) for st in active)
                or not any(self._may_renew(st) for st in active)):
            return
        live = min(len(st.live()) for st in active)
        want = min(2 * live, job.launches_live, job.launches_max - max(len(st.launches) for st in active))
        if min(job.budget_s - st.spent for st in active) <= 0:
            return
        for st in active:
            while len(st.ahead) < want:
                fut = self._starter.submit(self.launcher, st.case, len(st.launches) + len(st.ahead))
                self._starting.add(fut)
                fut.add_done_callback(self._starting.discard)
                st.ahead.append(fut)

    def _may_renew(self, st: _CaseState) -> bool:
        """Whether a case is likely to want more processes: before its first judgement (with t on L-1
        degrees of freedom nearly every case doubles its first launches, and a comparison's ratio is
        judged on as many launch pairs), when doubling pays, and whenever its processes differ."""
        if self.job.name == "dry" or self.job.target_rel_error <= 0:
            return False
        est = st.estimate
        if est is None:
            return True
        return est.between_share > 0 or self._doubling_pays(st)

    def _ahead_hurts(self) -> bool:
        """Whether starting ahead slows perflab's own process more than it is worth: on a machine
        whose other CPUs are busy (another process computing there), a start ahead shares the one
        CPU perflab has with it, and perflab's reply to each iteration came 2-3.5 ms later instead
        of 1 — over a start's 30-90 ms, that outweighs the start it saves. Then starts ahead pause
        for AHEAD_PAUSE_S and are tried afresh: the machine may have quietened."""
        now = self.clock()
        if now < self._ahead_paused_until:
            return True
        busy, idle = self._lag[True], self._lag[False]
        if (min(self._lag_n.values()) >= LAG_MIN_SAMPLES and busy is not None and idle is not None
                and busy > idle + AHEAD_LAG_MAX_S):
            self._ahead_paused_until = now + AHEAD_PAUSE_S
            self._lag[True], self._lag_n[True] = None, 0  # measured afresh when they resume
            return True
        return False

    def _take_ahead(self, active: list[_CaseState], count: int) -> dict[int, tuple[list, BaseException | None, int]]:
        """Up to `count` of each case's processes started ahead: per case (by id), the handles, the
        first start failure and how many starts were used. Starts still queued are dropped — the
        renewal starts what it misses all at once (`_spawn`), faster than one by one — and the one
        under way is waited for."""
        t0 = self.clock()
        out = {}
        for st in active:
            st.ahead = [fut for fut in st.ahead if not fut.cancel()]
            used, st.ahead = st.ahead[:count], st.ahead[count:]
            handles, error = [], None
            for fut in used:
                try:
                    handle = fut.result()
                except Exception as exc:  # as in _spawn: a failing start fails its case alone
                    error = error or exc
                    continue
                handles.append(handle)
            out[id(st)] = (handles, error, len(used))
        taken = sum(n for _, _, n in out.values())
        if taken:
            elapsed = self.clock() - t0
            for st in active:
                share = elapsed * out[id(st)][2] / taken
                st.spent += share
                st.launch_seconds += share
        return out

    def _drop_ahead(self, st: _CaseState) -> None:
        """Close a finished case's processes started ahead and never used (in the background)."""
        for fut in st.ahead:
            if not fut.cancel():
                self._reaper.submit(_close_started, fut)
        st.ahead = []

    def _enough(self, st: _CaseState) -> float:
        """Iterations a launch is worth before a fresh process tells more (see allocation.py)."""
        if st.estimate is None:
            return math.inf
        return iterations_per_launch(st.estimate, *self._costs(st), self.job)

    def _retire(self, st: _CaseState, launches: list[_Launch]) -> None:
        for ln in launches:
            self._timed(st, ln.handle.teardown, self.job.timeout_s)  # its global cleanup still runs
            st.result.output_bytes += _output_bytes(ln.handle)
            ln.retired = True
            self.placement.move_off(ln.samples.pid)
            self._reaper.submit(ln.handle.close)

    def _group_ratios(self, group: list[_CaseState]) -> list[Ratio | None] | None:
        """Every contender's ratio to its baseline (the group's baseline method, else the same method,
        on the group's first runtime — the order runtimes were given in), an entry None while it cannot
        be judged yet; None when the group has no ratio to judge (a lone case, a failed baseline).
        A comparison is stopped by its ratios, not by its means: drift that hits both sides of a round
        cancels in the ratio, not in the means, so a ratio is often precise long before the means —
        and sometimes later, when processes differ."""
        live = [st for st in group if not st.result.error]
        if len(live) < 2 or self.job.target_rel_error <= 0:
            return None
        if any(st.done or st.estimate is None for st in live):
            return [None]
        # a paired interval needs enough rounds; before that, spare the work
        if wilcoxon_rank(min(st.rounds for st in live), self.job.confidence) < 0:
            return [None]
        first_runtime = group[0].case.runtime.label  # a group shares its parameters: one plan key
        base_id = next((st.case.benchmark.id for st in live if st.case.benchmark.baseline), None)
        out = []
        for st in live:
            base = next((b for b in live if b.case.runtime.label == first_runtime
                         and b.case.benchmark.id == (base_id or st.case.benchmark.id)), None)
            if base is None:
                return None
            if base is not st:
                out.append(ratio_from_launches(
                    st.estimate, base.estimate, [ln.samples for ln in st.launches],
                    [ln.samples for ln in base.launches], st.case.benchmark.ops_per_invoke,
                    base.case.benchmark.ops_per_invoke, self.job.overhead, self.job.confidence))
        return out or None

    def _ratio_met(self, r: Ratio | None) -> bool:
        """A paired ratio whose interval is within the precision target. The rule looks at the
        interval's width only, never at where it lies, so stopping on it does not bias the verdict."""
        if r is None or not r.paired or r.ci_low <= 0 or not math.isfinite(r.ci_high):
            return False
        return max(r.ci_high / r.value - 1, 1 - r.ci_low / r.value) <= self.job.target_rel_error

    def _ratios_want_processes(self, active: list[_CaseState], ratios: list[Ratio | None]
                               ) -> float | None:
        """Whether a ratio short of its target needs more launch pairs: they differ (their ANOVA says
        so), the live ones have measured what a pair is worth, or doubling them reaches the target
        sooner (t on P-1 degrees of freedom). A pair costs a launch and a round iteration of every
        contender. Returns the iterations a launch pair is worth (inf: any number), or None."""
        job = self.job
        if (max(len(st.launches) for st in active) >= job.launches_max
                or any(self._out_of_budget(st) for st in active)):
            return None
        c_launch = sum(self._costs(st)[0] for st in active)
        c_iteration = sum(self._costs(st)[1] for st in active)
        live = min(len(st.live()) for st in active)
        longest = max(len(ln.samples.workload) for st in active for ln in st.live())
        for r in ratios:
            spread = r.spread() if r is not None and not self._ratio_met(r) else None
            if spread is None:
                continue
            worth = iterations_per_launch(spread, c_launch, c_iteration, job)
            if ((spread.between_share > 0.5 and spread.anova_p < DISAGREE_P) or longest >= worth
                    or doubling_pays(spread, live, c_launch, c_iteration, job)):
                return worth
        return None

    def _finish(self, st: _CaseState, reason: str) -> None:
        st.result.stop_reason = reason
        st.result.launch_cost_s, st.result.iteration_cost_s = self._costs(st)
        first = st.live()[0]
        if self.job.diagnose and {"alloc", "gc", "allocs", "codesize"} & set(first.handle.hello.capabilities):
            try:
                st.result.diagnostics = self._diagnose(st, first)
            except (WorkerFailure, ProtocolError) as exc:
                # the timings are measured and kept; only the diagnostic columns are lost
                st.result.diagnostics = Diagnostics(notes=[f"diagnostic pass failed: {exc}"])
                st.result.error_detail = getattr(exc, "detail", "")
        for ln in st.live():
            self._timed(st, ln.handle.teardown, self.job.timeout_s)
        # the group's contenders finish together: nothing is measured any more, so these processes
        # may exit on any CPU (squeezed onto the host's, 24 exits slowed the host by 0.2 s)
        self._close(st, anywhere=True)
        st.done = True
        if self.on_case_done:
            self.on_case_done(st.result)

    def _diagnose(self, st: _CaseState, launch: _Launch) -> Diagnostics:
        n = max(1, st.invocations)
        reply = self._timed(st, launch.handle.diagnose, n, 1, self._run_timeout(st, n, 20))
        calls = n * int(reply.get("iterations", 1) or 1)
        ops = calls * st.case.benchmark.ops_per_invoke
        d = Diagnostics(notes=[str(x) for x in reply.get("notes", []) or []])
        if isinstance(reply.get("alloc_bytes"), (int, float)):
            d.alloc_bytes_per_op = reply["alloc_bytes"] / ops
        if isinstance(reply.get("allocs"), (int, float)):
            d.allocs_per_op = reply["allocs"] / ops
        if isinstance(reply.get("gc"), list):
            d.gc_per_1000_ops = [1000.0 * g / ops for g in reply["gc"]]
        if isinstance(reply.get("code_size"), int):
            d.code_size = reply["code_size"]
        if isinstance(reply.get("code_address"), int) and isinstance(reply.get("binary"), str):
            d.code_address, d.binary = reply["code_address"], reply["binary"]
        return d

    # -- failures -------------------------------------------------------------------------------

    def _guard(self, st: _CaseState, fn, *args) -> None:
        if st.done:
            return
        try:
            fn(*args)
        except BenchmarkError as exc:
            where = f" ({exc.file}:{exc.line})" if exc.file and exc.line else ""
            self._fail(st, exc.reason + where, exc.detail)
        except WorkerFailure as exc:
            self._fail(st, exc.reason, exc.detail)
        except ProtocolError as exc:
            self._fail(st, f"protocol error: {exc}", "")

    def _fail(self, st: _CaseState, reason: str, detail: str) -> None:
        st.result.error = reason
        tails = [ln.handle.stderr_tail() for ln in st.live()]
        st.result.error_detail = "\n".join(x for x in [detail, *tails] if x)
        st.result.stop_reason = "failed"
        self._close(st)
        st.done = True
        if self.on_case_done:
            self.on_case_done(st.result)

    def _close(self, st: _CaseState, anywhere: bool = False) -> None:
        """Close the live launches; each close waits for its process to exit, which the reaper does
        in the background (run_group waits for it before it returns). Unless nothing is measured any
        more (`anywhere`), they exit off the measuring CPU."""
        for ln in st.live():
            st.result.output_bytes += _output_bytes(ln.handle)
            ln.retired = True
            if anywhere:
                self.placement.unpin(ln.samples.pid)
            else:
                self.placement.move_off(ln.samples.pid)
            ln.handle.say_bye()  # they exit side by side meanwhile
            self._reaper.submit(ln.handle.close)
        self._drop_ahead(st)
        st.result.launches = [ln.samples for ln in st.launches]

    # -- helpers --------------------------------------------------------------------------------

    @staticmethod
    def _active(states: list[_CaseState]) -> list[_CaseState]:
        return [s for s in states if not s.done]

    def _shuffled(self, items: list) -> list:
        items = list(items)
        self.rng.shuffle(items)
        return items


def _raise(exc: BaseException) -> None:
    raise exc


def _close_started(fut: Future) -> None:
    try:
        handle = fut.result()
    except Exception:  # it never started: nothing to close
        return
    handle.close()


def _output_bytes(handle: WorkerHandle) -> int:
    try:
        return handle.output_bytes()
    except (OSError, ValueError):
        return 0


MAX_CONCURRENT_STARTS = 16
WARMUP_BUDGET_SHARE = 0.25  # of the case's budget, split over the job's first launches
MIN_ITERATIONS_BUDGET_FACTOR = 5.0  # how far past its budget a case may go to get its minimum
DISAGREE_P = 0.01  # launch ANOVA p-value under which processes are taken to differ
JUDGE_SPACING = 4.0  # measuring between judgements, as a multiple of what the last judgement took
JUDGE_WAIT_MAX_S = 0.5  # the longest measuring between two judgements
LAG_WEIGHT = 0.1  # of a new round iteration in the running averages of perflab's own time per iteration
LAG_MIN_SAMPLES = 20  # round iterations with and without a start under way before they are compared
AHEAD_LAG_MAX_S = 0.001  # extra time per round iteration that starting ahead may cost (see _ahead_hurts)
AHEAD_PAUSE_S = 10.0  # how long starts ahead pause once they cost more
