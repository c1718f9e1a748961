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

This module is the loop and its side effects only. The decisions are pure functions beside it:
stop.py (when to stop, renew or go on), allocation.py (renewal arithmetic), warmup.py (warmup and
pilot), ahead.py (starting processes ahead), ledger.py (what each case spent); every tuned number is
the job's policy (perflab/policy.py). docs/engine-structure.md maps them to their tests.
"""
from __future__ import annotations

import random
import secrets
import time
from concurrent.futures import Executor, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import numpy as np

from ..errors import TIMED_OUT, ProtocolError, WorkerFailure
from ..jobs import Job
from ..model import Case, CaseResult, Diagnostics, LaunchSamples, StopReason
from ..policy import DEFAULT
from ..ratios import identity, pair
from ..judge.ratio import ratio_from_launches
from ..report import rates
from ..stats import Ratio, estimate
from ..stats.contention import case_contention
from .affinity import Placement
from .ahead import AheadGate, starts_wanted
from .duet import cpu_of, duet_cpus, together
from .allocation import plan_renewal
from .host import read_host
from .ledger import Ledger
from .runqueue import RunQueueWatch
from .total_budget import SKIPPED
from .stop import CaseSnapshot, enough_iterations, judge_group, may_renew
# the warmup and pilot rules, re-exported: callers and tests import them from the engine
from .warmup import (_off_level, far_above, is_stable, iteration_target_ns, later_warmup, pick_invocations,  # noqa: F401
                     repilot_invocations, settled_after)
from .worker import OVERHEAD_FIRST, WITH_OVERHEAD, BenchmarkError, Hello, Timings


class WorkerHandle(Protocol):
    hello: Hello

    def setup(self, benchmark_id: str, params: dict[str, int], timeout: float) -> None: ...
    def run(self, stage: str, invocations: int, iterations: int, timeout: float) -> Timings: ...
    # only called when hello.capabilities has WITH_OVERHEAD and OVERHEAD_FIRST: (workload, overhead)
    def run_with_overhead(self, invocations: int, iterations: int, timeout: float,
                          overhead_first: bool = False) -> tuple[Timings, Timings]: ...
    def diagnose(self, invocations: int, iterations: int, timeout: float) -> dict[str, Any]: ...
    def teardown(self, timeout: float) -> None: ...
    def say_bye(self) -> None: ...
    def close(self) -> None: ...
    def output_bytes(self) -> int: ...
    def stderr_tail(self) -> str: ...


Launcher = Callable[[Case, int], WorkerHandle]


@dataclass
class _Launch:
    handle: WorkerHandle
    samples: LaunchSamples
    probe: Any = None  # start of the CPU-share window that decides pinning (see Placement)
    probe_busy: float = 0.0  # seconds its iterations took since then
    probe_tries: int = 0
    retired: bool = False  # measured enough and closed (see Engine._renew); its samples stay
    # the order of the second of a pair of rounds whose first was drawn (see Engine._overhead_first)
    overhead_first_next: bool | None = None
    watch: RunQueueWatch | None = None  # its measuring thread's run-queue wait (engine/runqueue.py)


@dataclass
class _CaseState:
    case: Case
    result: CaseResult
    launches: list[_Launch] = field(default_factory=list)
    invocations: int = 0
    per_call_ns: float = 0.0
    # what it spent of its budget, and what its launches and round iterations cost (see ledger.py):
    # with the variance components, how many iterations a launch is worth (stop.enough_iterations)
    ledger: Ledger = field(default_factory=Ledger)
    done: bool = False
    interleave_overhead: bool = False
    # warmup iterations of later launches, set when the first launch's warmup was flat (0: the full check)
    later_warmup: int = 0
    estimate: Any = None  # the latest judgement's estimate (None until the minimum is measured)
    rounds: int = 0  # interleaving rounds this case took part in
    # processes started ahead, off the measuring CPU, for the next renewal (see Engine._start_ahead)
    ahead: list[Future] = field(default_factory=list)

    def live(self) -> list[_Launch]:
        return [ln for ln in self.launches if not ln.retired]



def _left_alone(first: "_Launch", launch: "_Launch") -> bool:
    """Whether `launch`, a later launch of a case, stays on every CPU unwatched because the case's
    first launch was watched Placement.probe_tries times and left alone (it used more than one CPU). A case's
    launches are placed alike: left to its own probe, a later launch of a two-thread I/O case was
    sometimes pinned (its window happened to look single), and then measured another thing — Java's
    HttpDownload ran 40 ms a call with every CPU and 100 ms pinned (client and server threads on one
    CPU), ConnectAcceptAsync 185 against 270 ms — and the processes disagreed by that much."""
    return (launch is not first and first.samples.cpu is None and first.probe is None
            and first.probe_tries >= DEFAULT.placement.probe_tries)

class Engine:
    def __init__(self, job: Job, launcher: Launcher, clock: Callable[[], float] = time.monotonic,
                 rng: random.Random | None = None,
                 on_case_done: Callable[[CaseResult], None] | None = None,
                 placement: Placement | None = None,
                 starts_aside: Callable[[Case], bool] | None = None,
                 executor: Callable[[int], Executor] | None = None,
                 host: Callable[[], dict] | None = None,
                 runqueue: Callable[[int], RunQueueWatch] | None = None):
        self.job = job
        # the host's load, read when a group starts and as each of its cases finishes (contention)
        self.host = host or read_host
        # a launch's run-queue reader (engine/runqueue.py), for launches timed by a thread clock;
        # None: not read (the commands pass RunQueueWatch)
        self.runqueue = runqueue
        self._host_start: dict = {}
        self.placement = placement or Placement()  # default: launches are not pinned
        self.launcher = launcher
        # whether a case's runtime may start while others are measured (see _start_ahead)
        self.starts_aside = starts_aside or (lambda case: False)
        self.executor = executor or (lambda n: ThreadPoolExecutor(max_workers=n))
        # The background threads live as long as the engine, not a group: making them afresh for
        # every group (and a pool for every start) cost a dry run about 2 ms of threads per case.
        # They follow the host's affinity as perflab's main thread does (pin_process: every thread).
        self._reaper: Executor | None = None  # retired launches exit here
        self._starter: Executor | None = None  # one start ahead at a time (see _start_ahead)
        self._spawner: ThreadPoolExecutor | None = None  # starts side by side (see _spawn)
        # closes under way in the background: the next group waits for them once its processes
        # have started (see settle), so a group's exits overlap the next one's starts
        self._closing: list[Future] = []
        # what starting ahead costs the rounds (see ahead.AheadGate)
        self._gate = AheadGate(job.policy.starts)
        # starts ahead not yet done (a done callback removes each): checked at every round iteration
        self._starting: set[Future] = set()
        self.clock = clock
        self.rng = rng or random.Random()
        self.on_case_done = on_case_done
        # the group's duet (engine/duet.py): its two CPUs, and each case's side (by id); None: no duet
        self._duet: tuple[int, int] | None = None
        self._side: dict[int, int] = {}
        self._partner: Executor | None = None  # runs the second side of a duet round

    # -- public ---------------------------------------------------------------------------------

    def run_group(self, cases: list[Case]) -> list[CaseResult]:
        # a fresh id per group: results of a resumed run must never pair with a new group's rounds
        group_id = secrets.randbits(48) + 1
        states = [_CaseState(c, CaseResult(case=c, round_group=group_id)) for c in cases]
        self._duet = duet_cpus(self.placement, self.job, len(states))
        self._side = {id(st): i for i, st in enumerate(states)} if self._duet else {}
        if self._duet and self._partner is None:
            self._partner = self.executor(1)
        self._host_start = self.host()
        started = self.clock()
        # retired launches exit in the background: waiting for a process to go is not measuring
        if self._reaper is None:
            self._reaper = self.executor(self.job.policy.starts.max_concurrent)
            self._starter = self.executor(1)
        try:
            self._run_rounds(states)
        finally:
            for st in states:
                self._drop_ahead(st)  # a start still under way is closed by the reaper once it is up
            self.placement.release_host()
        elapsed = self.clock() - started
        for st in states:
            st.result.wall_seconds = st.ledger.spent if st.ledger.spent else elapsed / max(1, len(states))
        return [st.result for st in states]

    def settle(self) -> None:
        """Wait until the processes of the groups measured before are gone. A group's processes exit
        in the background after run_group returns (a Python worker's exit took 2 ms of the host's time
        per case when each group waited for its own); the next group waits here once its own
        processes have started, before anything is measured: exits never run beside measuring."""
        closing, self._closing = self._closing, []
        wait(closing)

    def close(self) -> None:
        """Wait for the last processes, stop the background threads (once every group is measured)."""
        self.settle()
        for pool in (self._starter, self._reaper, self._spawner, self._partner):
            if pool is not None:
                pool.shutdown(wait=True)
        self._reaper = self._starter = self._spawner = self._partner = None

    def _reap(self, fn, *args) -> None:
        """Run a close in the background (see settle)."""
        self._closing.append(self._reaper.submit(fn, *args))

    def _run_rounds(self, states: list[_CaseState]) -> None:
        # Every contender's first launches start at once: a process start is mostly waiting (exec,
        # imports, JIT boot) and none of it is measured, so starting them side by side costs one
        # start instead of many. The stages that time something run one launch at a time.
        handles = self._spawn([(st, i) for st in states for i in range(self.job.launches_min)])
        self.settle()  # the groups before exited while these processes started
        for st in self._shuffled(states):
            skip = self._after_timeout(states)
            if skip:
                for h in handles[id(st)][0]:
                    self._reap(h.close)
                self._fail(st, skip, "")
                continue
            self._guard(st, self._attach, st, *handles[id(st)])
        self._start_ahead(self._active(states))
        rnd = 0
        judged_at, judge_cost = self.clock(), 0.0
        while self._active(states):
            rnd += 1
            for st in self._active(states):
                st.rounds += 1
            for block in self._round_blocks(self._active(states)):
                if self._duet and len(block) == 2:
                    self._duet_round(block, rnd)
                    continue
                for st, ln in block:
                    if not st.done:
                        self._guard(st, self._workload, st, ln, rnd)
            # Judging looks at every sample so far (tens of milliseconds with many launches): it waits
            # until the rounds since the last judgement took Stop.judge_spacing times as long as judging
            # did, so judging never costs more than a fraction of the measuring — but never longer
            # than Stop.judge_wait_max_s, whatever one slow judgement took (the budget is checked there).
            if self.clock() - judged_at < min(self.job.policy.stop.judge_spacing * judge_cost,
                                              self.job.policy.stop.judge_wait_max_s):
                continue
            t0 = self.clock()
            renew, enough = self._judge_group(self._active(states), states)
            judged_at = self.clock()
            judge_cost = judged_at - t0
            if renew:
                self._renew(renew, enough)
            self._start_ahead(self._active(states))

    def _after_timeout(self, states: list[_CaseState]) -> str | None:
        """Why a case not started yet is skipped: under Job.timeout_ends_group, a case of its group
        timed out (a reference group's ratio is gone with it, and its partners would most likely
        spend a time-out each too). None: measure it."""
        if not self.job.timeout_ends_group:
            return None
        out = next((st for st in states if (st.result.error or "").startswith(TIMED_OUT)), None)
        if out is None:
            return None
        return (f"{SKIPPED} {out.case.runtime.label} timed out in this comparison; --budget-total gives "
                "no second time-out to a case no claim stands on")

    def _round_order(self, active: list[_CaseState]) -> list[tuple[_CaseState, _Launch]]:
        """One round's launches in the order they are measured (see `_round_blocks`)."""
        return [item for block in self._round_blocks(active) for item in block]

    def _round_blocks(self, active: list[_CaseState]) -> list[list[tuple[_CaseState, _Launch]]]:
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
        return blocks

    # -- stages ---------------------------------------------------------------------------------

    def _timed(self, st: _CaseState, fn, *args):
        t0 = self.clock()
        try:
            return fn(*args)
        finally:
            st.ledger.charge(self.clock() - t0)

    def _run_timeout(self, st: _CaseState, invocations: int, iterations: int) -> float:
        expected = st.per_call_ns * invocations * iterations / 1e9
        wait = max(self.job.timeout_s, self.job.policy.stop.reply_wait_factor * expected)
        return min(wait, self.job.timeout_cap_s) if self.job.timeout_cap_s > 0 else wait

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
            if len(wanted) == 1:  # a lone start (a group of one case) needs no other thread
                results = [start(wanted[0])]
            else:
                if self._spawner is None:
                    self._spawner = ThreadPoolExecutor(max_workers=self.job.policy.starts.max_concurrent)
                results = list(self._spawner.map(start, wanted))  # map keeps the order of `wanted`
        finally:
            if self._duet is None:  # a duet measures on every CPU: perflab's own process is held nowhere
                self.placement.hold_host()
        out: dict[int, tuple[list, BaseException | None]] = {}
        for st, handle, exc in results:
            handles, error = out.get(id(st), ([], None))
            out[id(st)] = (handles + [handle] if handle is not None else handles, error or exc)
        elapsed = self.clock() - t0
        for st, _ in wanted:
            st.ledger.charge_start(elapsed / len(wanted))
        return out

    def _attach(self, st: _CaseState, handles: list, error: BaseException | None) -> None:
        """Prepare freshly started launches one by one (their stages are timed); on any failure the
        handles not yet attached are closed too, then the failure goes up to fail the case."""
        pending = list(handles)
        t0, attached = self.clock(), 0
        try:
            while pending:
                self._add_launch(st, pending.pop(0))
                attached += 1
        finally:
            st.ledger.launches_prepared(self.clock() - t0, attached)
            for h in pending:
                h.close()
        if error is not None:
            raise error

    def _add_launch(self, st: _CaseState, handle: WorkerHandle | None = None) -> None:
        job, case = self.job, st.case
        index = len(st.launches)
        if handle is None:
            handle = self._timed(st, self.launcher, case, index)
        clock = handle.hello.cpu_clock
        launch = _Launch(handle, LaunchSamples(index=index, pid=handle.hello.pid,
                                               cpu_scope=clock.scope if clock is not None else None))
        st.launches.append(launch)
        if self.runqueue is not None and launch.samples.cpu_scope == "thread" and launch.samples.pid > 0:
            launch.watch = self.runqueue(launch.samples.pid)
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
            single = st.launches[0].samples.cpu is not None
            if self._duet is not None:
                self.placement.join(handle.hello.pid, single, cpu=self._cpu(st, launch))
            else:
                self.placement.join(handle.hello.pid, single)
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
                                               job.policy.pilot.settled_reading_share * job.iteration_time_s * 1e9)
        if job.overhead:
            # the empty loop warms up like any other code before its times count
            self._stage(st, launch, "overhead", n, job.policy.overhead.discarded)  # the empty loop's first passes are discarded
            if index > 0 and st.interleave_overhead:
                return  # measured in every round, next to each workload iteration it is subtracted from
            timed = self._run_stage(st, launch, "overhead", n, max(job.policy.overhead.iterations_min, job.iterations_min))
            over = timed.ns
            launch.samples.overhead += over
            launch.samples.overhead_cpu += timed.cpu
            launch.samples.overhead_rounds += [0] * len(over)
            # When the empty call is a noticeable share of an iteration, the machine's drift between
            # this measurement and the workload would leak into the result: measure it again in
            # every round, next to the workload, and subtract it locally.
            # Each side's fastest iteration, the least disturbed: with the medians, an empty CPython
            # benchmark at load 15 (warmup 745 and 18 ns a call, the first preempted) compared its
            # 17.7 ns overhead with 381 ns, measured it only before the rounds, and read the
            # machine's drift since then as its time (issue #38).
            reference = launch.samples.warmup or [s[1] for s in launch.samples.pilot[-1:]]
            if index == 0 and reference and min(over) > job.policy.overhead.interleave_share * min(reference):
                st.interleave_overhead = True

    def _warm(self, st: _CaseState, launch: _Launch, n: int) -> bool:
        """Warm up until stable, but a slow benchmark (one call ≥ an iteration) on a busy machine may
        never look stable: past its share of the budget, the launch goes on to be measured (the
        warmup samples are kept, so a reader can see the trend). Whether the times were stable at
        the first look (see `_add_launch`)."""
        job, warm = self.job, launch.samples.warmup
        started = self.clock()
        cap = job.policy.warmup.budget_share * job.budget_s / max(1, job.launches_min)
        if launch.probe is None and launch.samples.cpu_share is None and not _left_alone(st.launches[0], launch):
            launch.probe = self.placement.probe(launch.samples.pid)
        level = self._settled_level(st) if launch.samples.index > 0 else None
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
        rules = job.policy.warmup
        least, step = ((rules.least_first, rules.step_first) if first else (rules.least_later, rules.step_later))
        warm += self._stage(st, launch, "warmup", n, job.warmup_min)
        looks = 0
        while len(warm) < job.warmup_max and (job.budget_s <= 0 or self.clock() - started < cap):
            if len(warm) >= least:
                looks += 1
                if is_stable(warm, least=least) and not far_above(warm, level):
                    break
            warm += self._stage(st, launch, "warmup", n, min(step, job.warmup_max - len(warm)))
        return looks == 1

    @staticmethod
    def _settled_level(st: _CaseState) -> float | None:
        """The level (ns an iteration) the case's first process settled at: its measured iterations'
        median, or before it has any, its warmup's second half's."""
        first = st.launches[0].samples
        times = first.workload or first.warmup[len(first.warmup) // 2:]
        return float(np.median(times)) if times else None

    def _repilot(self, st: _CaseState, launch: _Launch) -> bool:
        """A JIT can make calls many times faster during warmup (a JVM compiling after the pilot saw
        the interpreter). If the warmed-up call is under half the pilot's estimate, the iterations are
        now too short: choose the invocation count again from the warmed-up speed."""
        job, samples = self.job, launch.samples
        if not job.pilot or st.case.benchmark.iteration_setup or not samples.pilot or not samples.warmup:
            return False
        n = st.invocations
        target = iteration_target_ns(job.iteration_time_s, launch.handle.hello.clock_resolution_ns)
        wanted = repilot_invocations(samples.pilot[-1], samples.warmup, n, target, launch.handle.hello.unroll)
        if wanted is None:
            return False
        st.invocations = wanted
        now = float(np.median(samples.warmup[-3:])) / n
        samples.pilot.append((st.invocations, int(now * st.invocations)))
        return st.invocations != n

    def _pilot(self, st: _CaseState, launch: _Launch) -> None:
        job, bench = self.job, st.case.benchmark
        unroll = launch.handle.hello.unroll
        if not job.pilot or bench.iteration_setup:
            st.invocations = 1
            return
        target = iteration_target_ns(job.iteration_time_s, launch.handle.hello.clock_resolution_ns)
        n = 1
        for _ in range(job.policy.pilot.steps_max):
            ns = self._stage(st, launch, "pilot", n, 1)[0]
            launch.samples.pilot.append((n, ns))
            st.per_call_ns = max(ns, 1) / n
            if ns >= job.policy.pilot.done_share * target:
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

    def _overhead_first(self, launch: _Launch) -> bool:
        """Whether this round measures the launch's overhead iteration before its workload iteration.
        Whichever of the two comes second is the one a loaded machine preempts (CPython 3.11, an
        empty benchmark: overhead 149/46/196 ns a call against its workload's 48/47/52 when the
        overhead always came second), and one order always would bias the subtracted overhead. So
        each pair of a launch's rounds has one of each order, which one first drawn at random: the
        order effect lands on both sides alike and cancels in the net time (off by one round at most),
        and no periodic interference can line up with a fixed alternation.
        What is "second" is second within a request: a worker woken by a request runs its first
        iteration on a fresh scheduler slice, and the one after it in the same request is the one
        preempted. Pairing the workload-first order into one `with_overhead` request while the
        overhead-first order took two left the overhead second of its request in half its rounds and
        the workload never: an empty CPython benchmark's mean was below zero in 4 of 4 runs
        (-0.16 to -0.26 ns against an 18.7 ns call, load 5-6), the overhead iterations' medians 2-3x
        the workload's in 8 of 15 processes. So the two orders are alike: both in one request
        (OVERHEAD_FIRST) or both in two."""
        first = launch.overhead_first_next
        if first is None:
            first = self.rng.random() < 0.5
            launch.overhead_first_next = not first
        else:
            launch.overhead_first_next = None
        return first

    def _workload_with_overhead(self, st: _CaseState, launch: _Launch, n: int, overhead_first: bool
                                ) -> tuple[Timings, Timings]:
        """One workload iteration and one overhead iteration, in one request, in the order asked (the
        worker offers WITH_OVERHEAD and OVERHEAD_FIRST): one round trip per round instead of two."""
        t0 = self.clock()
        args = (n, 1, self._run_timeout(st, n, 2)) + ((True,) if overhead_first else ())
        work, over = self._timed(st, launch.handle.run_with_overhead, *args)
        self._after_stage(st, launch, t0, work.ns, n)
        return work, over

    def _after_stage(self, st: _CaseState, launch: _Launch, t0: float, workload_ns: list[int],
                     n: int) -> None:
        """The CPU-share probe (see _probe) and the per-call time that sizes timeouts."""
        if launch.probe is not None:
            self._probe(st, launch, self.clock() - t0)
        if workload_ns:
            st.per_call_ns = max(1.0, float(np.median(workload_ns)) / n)

    def _probe(self, st: _CaseState, launch: _Launch, seconds: float) -> None:
        """Once a launch has been watched for Placement.probe_s of its own measured time, pin it to the
        measuring CPU if it used one CPU at a time (see engine/affinity.py); if it did not, watch
        again, up to Placement.probe_tries windows in all. A later launch follows the case's first (see
        `_left_alone`): while the first is still watched, it is watched again; once the first was
        left alone, so is it."""
        launch.probe_busy += seconds
        if launch.probe_busy < self.job.policy.placement.probe_s:
            return
        first = st.launches[0]
        if launch is not first and first.probe is not None:
            launch.probe, launch.probe_busy = self.placement.probe(launch.samples.pid), 0.0
            return
        if _left_alone(first, launch):
            launch.probe, launch.probe_busy = None, 0.0
            return
        if self._duet is not None:
            decision = self.placement.pin_if_single(launch.samples.pid, launch.probe, launch.probe_busy,
                                                    cpu=self._cpu(st, launch))
        else:
            decision = self.placement.pin_if_single(launch.samples.pid, launch.probe, launch.probe_busy)
        launch.samples.cpu, launch.samples.cpu_share = decision[0], decision[1]
        launch.samples.handoff_rate = decision[2] if len(decision) > 2 else None
        launch.probe_tries += 1
        launch.probe, launch.probe_busy = None, 0.0
        if launch.samples.cpu is None and launch.probe_tries < self.job.policy.placement.probe_tries:
            # a JIT still compiling on other threads looks like a parallel benchmark: look again
            launch.probe = self.placement.probe(launch.samples.pid)

    def _workload(self, st: _CaseState, launch: _Launch, rnd: int) -> None:
        t0 = self.clock()
        try:
            self._measure_in_round(st, launch, rnd)
        finally:
            st.ledger.round_iteration(self.clock() - t0)

    def _measure_in_round(self, st: _CaseState, launch: _Launch, rnd: int) -> None:
        t0 = self.clock()
        over = Timings([])
        caps = launch.handle.hello.capabilities
        n = st.invocations
        if not st.interleave_overhead:
            work = self._watched(launch, lambda: self._run_stage(st, launch, "workload", n, 1))
        elif WITH_OVERHEAD in caps and OVERHEAD_FIRST in caps:
            # both orders in one request each: which one comes second of its request is what a
            # loaded machine preempts, and it must be each side alike (see `_overhead_first`)
            first = self._overhead_first(launch)
            work, over = self._watched(launch, lambda: self._workload_with_overhead(st, launch, n, first))
        elif self._overhead_first(launch):
            over = self._run_stage(st, launch, "overhead", n, 1)
            work = self._watched(launch, lambda: self._run_stage(st, launch, "workload", n, 1))
        else:
            # not `with_overhead` alone: the overhead would be second of its request in every
            # workload-first round and the workload never (see `_overhead_first`)
            work = self._watched(launch, lambda: self._run_stage(st, launch, "workload", n, 1))
            over = self._run_stage(st, launch, "overhead", n, 1)
        ns = work.ns
        launch.samples.workload += ns
        launch.samples.workload_cpu += work.cpu
        launch.samples.workload_rounds += [rnd] * len(ns)
        launch.samples.overhead += over.ns
        launch.samples.overhead_cpu += over.cpu
        launch.samples.overhead_rounds += [rnd] * len(over.ns)
        lag = (self.clock() - t0) - (sum(ns) + sum(over.ns)) / 1e9
        self._gate.record(bool(self._starting), lag)

    def _duet_round(self, pair: list[tuple[_CaseState, _Launch]], rnd: int) -> None:
        """A duet round (engine/duet.py): the launch pair's iterations at the same moments. Both
        requests are sent before either reply is read, from this thread: the two iterations start
        microseconds apart, with no thread to wake in between (under load, a woken thread waited
        for a CPU for up to a scheduler slice). A case whose overhead is measured in the rounds, or
        a handle that cannot split a request, takes the same round on two threads instead."""
        if any(st.interleave_overhead or not hasattr(ln.handle, "begin_workload") for st, ln in pair):
            (sa, la), (sb, lb) = pair
            together(self._partner, lambda: self._guard(sa, self._workload, sa, la, rnd),
                     lambda: self._guard(sb, self._workload, sb, lb, rnd))
            return
        begun = []
        for st, ln in pair:
            if st.done:
                continue
            t0 = self.clock()
            mark = ln.watch.mark() if ln.watch is not None else None
            try:
                finish = ln.handle.begin_workload(st.invocations, self._run_timeout(st, st.invocations, 1))
            except (BenchmarkError, WorkerFailure, ProtocolError) as exc:
                self._guard(st, _raise, exc)
                continue
            begun.append((st, ln, t0, mark, finish))
        for st, ln, t0, mark, finish in begun:
            self._guard(st, self._duet_reply, st, ln, t0, mark, finish, rnd)

    def _duet_reply(self, st: _CaseState, ln: _Launch, t0: float, mark, finish, rnd: int) -> None:
        """Read one side's reply of a duet round and keep it as `_measure_in_round` keeps a round's."""
        try:
            work = finish()
        finally:
            elapsed = self.clock() - t0
            st.ledger.charge(elapsed)
            st.ledger.round_iteration(elapsed)
        if ln.watch is not None and len(work.ns) == 1:
            ln.samples.workload_wait.append(
                ln.watch.waited(mark, ln.watch.mark(), (self.clock() - t0) * 1e9, work.ns[0],
                                work.cpu[0] if work.cpu else None))
        self._after_stage(st, ln, t0, work.ns, st.invocations)
        ln.samples.workload += work.ns
        ln.samples.workload_cpu += work.cpu
        ln.samples.workload_rounds += [rnd] * len(work.ns)

    def _watched(self, launch: _Launch, request):
        """Make a round's workload request, reading the launch's run-queue wait around it (see
        engine/runqueue.py) into `workload_wait`, one figure per workload iteration."""
        watch = launch.watch
        if watch is None:
            return request()
        t0 = self.clock()
        before = watch.mark()
        got = request()
        after = watch.mark()
        window_ns = (self.clock() - t0) * 1e9
        work = got[0] if isinstance(got, tuple) else got
        if len(work.ns) == 1:
            launch.samples.workload_wait.append(watch.waited(before, after, window_ns, work.ns[0],
                                                             work.cpu[0] if work.cpu else None))
        return got

    # -- judging --------------------------------------------------------------------------------

    def _snapshot(self, st: _CaseState) -> CaseSnapshot:
        """What the stop policy (stop.py) sees of a case. Takes its estimate afresh once every launch
        has its minimum iterations (the estimate is kept for renewals and starts ahead)."""
        job = self.job
        counts = tuple(len(ln.samples.workload) for ln in st.launches)
        if not job.dry and job.target_rel_error > 0:
            enough = min(counts) >= job.iterations_min and len(st.launches) >= job.launches_min
            st.estimate = estimate([ln.samples for ln in st.launches], st.case.benchmark.ops_per_invoke,
                                   job.confidence, subtract_overhead=job.overhead,
                                   modality=False) if enough else None
        return self._view(st)

    def _view(self, st: _CaseState) -> CaseSnapshot:
        """The snapshot of a case with the estimate it has (none taken afresh)."""
        live = st.live()
        return CaseSnapshot(
            counts=tuple(len(ln.samples.workload) for ln in st.launches), live=len(live),
            longest_live=max((len(ln.samples.workload) for ln in live), default=0), spent=st.ledger.spent,
            estimate=st.estimate,
            resolution_per_op=st.result.clock_resolution_ns / max(1, st.invocations * st.case.benchmark.ops_per_invoke),
            c_launch=st.ledger.costs()[0], c_iteration=st.ledger.costs()[1])

    def _judge_group(self, active: list[_CaseState], group: list[_CaseState]
                     ) -> tuple[list[_CaseState], float | None]:
        """Judge the group by the stop policy (stop.judge_group) and carry its decision out: finish
        every case with its reason, or return the contenders that need more processes (see `_renew`)
        and the iterations a launch is worth for the comparison (None: as each case's own estimate
        says)."""
        # a lone case is judged by its mean; the contenders of a comparison by their ratios
        alone = len([st for st in group if not st.result.error]) < 2
        views = {}
        for st in active:
            try:
                views[id(st)] = self._snapshot(st)
            except (WorkerFailure, ProtocolError) as exc:
                self._guard(st, _raise, exc)
        active = [st for st in active if not st.done]
        if not active:
            return [], None
        decision = judge_group([views[id(st)] for st in active], self._group_ratios(group), self.job, alone)
        if decision.action == "renew":
            return active, decision.enough
        if decision.action == "stop":
            for st, reason in zip(active, decision.reasons):
                st.result.judged_by = decision.judged_by
                self._guard(st, self._finish, st, reason)
        return [], None

    def _renew(self, active: list[_CaseState], enough: float | None = None) -> None:
        """More processes are needed (allocation.plan_renewal says how many). Launches that have
        measured what a process is worth (`stop.enough_iterations`) retire — their samples stay, their
        processes exit — and the live launches double, all started together: a case that needs 24
        launches gets there in three steps. `enough`:
        the iterations a launch pair is worth to a comparison's ratio (None: each case's own)."""
        job = self.job
        if enough is None:
            enough = max(enough_iterations(self._view(st), job) for st in active)
        done, count = plan_renewal(
            [[len(ln.samples.workload) for ln in st.live()] for st in active], enough,
            max(len(st.launches) for st in active), min(job.budget_s - st.ledger.spent for st in active),
            max(st.ledger.per_launch() for st in active), job)
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
        if (not active or self._duet is not None or not self.placement.can_start_aside() or self._ahead_hurts()
                or not all(self.starts_aside(st.case) for st in active)
                or not any(may_renew(self._view(st), job) for st in active)):
            return
        live = min(len(st.live()) for st in active)
        want = starts_wanted(live, max(len(st.launches) for st in active), job)
        if min(job.budget_s - st.ledger.spent for st in active) <= 0:
            return
        for st in active:
            while len(st.ahead) < want:
                fut = self._starter.submit(self.launcher, st.case, len(st.launches) + len(st.ahead))
                self._starting.add(fut)
                fut.add_done_callback(self._starting.discard)
                st.ahead.append(fut)

    def _ahead_hurts(self) -> bool:
        """Whether starting ahead costs the rounds more than it saves (see ahead.AheadGate)."""
        return self._gate.hurts(self.clock())

    # what the gate averaged: perflab's own time per round iteration, with and without a start under way
    @property
    def _lag(self) -> dict[bool, float | None]:
        return self._gate.lag

    @_lag.setter
    def _lag(self, value: dict[bool, float | None]) -> None:
        self._gate.lag = value

    @property
    def _lag_n(self) -> dict[bool, int]:
        return self._gate.n

    @_lag_n.setter
    def _lag_n(self, value: dict[bool, int]) -> None:
        self._gate.n = value

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
                st.ledger.charge_start(elapsed * out[id(st)][2] / taken)
        return out

    def _drop_ahead(self, st: _CaseState) -> None:
        """Close a finished case's processes started ahead and never used (in the background)."""
        for fut in st.ahead:
            if not fut.cancel():
                self._reap(_close_started, fut)
        st.ahead = []

    def _retire(self, st: _CaseState, launches: list[_Launch]) -> None:
        for ln in launches:
            self._timed(st, ln.handle.teardown, self.job.timeout_s)  # its global cleanup still runs
            st.result.output_bytes += _output_bytes(ln.handle)
            ln.retired = True
            self._move_off(ln.samples.pid)
            self._reap(ln.handle.close)

    def _group_ratios(self, group: list[_CaseState]) -> list[Ratio | None] | None:
        """Every ratio the tables will print for this group (perflab.ratios.pair: against the baseline
        method on the same runtime, and against the same method on the first runtime), an entry None
        while it cannot be judged yet; None when the group has no ratio to judge (a lone case, failed
        baselines). A comparison is stopped by its ratios, not by its means: drift that hits both
        sides of a round cancels in the ratio, not in the means, so a ratio is often precise long
        before the means — and sometimes later, when processes differ. The pairs are the tables'
        own, so the interval the stop rule held to the target is the one printed."""
        live = [st for st in group if not st.result.error]
        if len(live) < 2 or self.job.target_rel_error <= 0:
            return None
        # the group's cases come in the order runtimes were given: its first runtime is the baseline
        pairs = pair([identity(st.case) for st in group], [st.case.runtime.label for st in group])
        bases = [(st, group[i]) for st, p in zip(group, pairs) if not st.result.error
                 for i in (p.method_base, p.runtime_base)
                 if i is not None and group[i] is not st and not group[i].result.error]
        if not bases:
            return None
        if any(st.done or st.estimate is None for st in live):
            return [None]
        # the ratio's units are launch pairs: with fewer than two there is no interval to judge
        if min(len(st.launches) for st in live) < 2:
            return [None]
        return [ratio_from_launches(
            st.estimate, base.estimate, [ln.samples for ln in st.launches],
            [ln.samples for ln in base.launches], st.case.benchmark.ops_per_invoke,
            base.case.benchmark.ops_per_invoke, self.job.overhead, self.job.confidence)
            for st, base in bases]

    def _finish(self, st: _CaseState, reason: str) -> None:
        st.result.stop_reason = reason
        st.result.contention = case_contention([ln.samples for ln in st.launches], self._host_start,
                                               self.host(), st.case.benchmark.ops_per_invoke, self.job.overhead)
        if self._duet is not None:  # both sides measured at the same moments (judge: contention_reason)
            st.result.contention["duet"] = True
        st.result.launch_cost_s, st.result.iteration_cost_s = st.ledger.costs()
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
        self._done(st)

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
        if isinstance(reply.get("metrics"), dict):  # as the benchmark reported them: not divided
            d.metrics = {str(k): float(v) for k, v in reply["metrics"].items()
                         if isinstance(v, (int, float)) and not isinstance(v, bool)}
        d.rates = rates.parse(reply.get("rates"))  # quantities per op; the rate is per measured mean
        per_op = reply.get("bytes_per_op")  # Go's b.SetBytes: bytes per b.N op, go test's MB/s
        if isinstance(per_op, (int, float)) and not isinstance(per_op, bool) and per_op > 0 and not d.rates:
            d.rates["Throughput"] = {"per_op": float(per_op) / st.case.benchmark.ops_per_invoke, "unit": "B",
                                     "base": 1000, "invert": False}
        return d

    # -- failures -------------------------------------------------------------------------------

    def _guard(self, st: _CaseState, fn, *args) -> None:
        if st.done:
            return
        try:
            fn(*args)
        except BenchmarkError as exc:
            where = f" ({exc.file}:{exc.line})" if exc.file and exc.line else ""
            if exc.kind == "skipped":
                self._skip(st, exc.reason + where)
            else:
                self._fail(st, exc.reason + where, exc.detail)
        except WorkerFailure as exc:
            self._fail(st, exc.reason, exc.detail)
        except ProtocolError as exc:
            self._fail(st, f"protocol error: {exc}", "")

    def _fail(self, st: _CaseState, reason: str, detail: str) -> None:
        st.result.error = reason
        tails = [ln.handle.stderr_tail() for ln in st.live()]
        st.result.error_detail = "\n".join(x for x in [detail, *tails] if x)
        st.result.stop_reason = StopReason.FAILED
        self._close(st)
        self._done(st)

    def _skip(self, st: _CaseState, reason: str) -> None:
        """The benchmark skipped itself (error kind `skipped`: Go's b.Skip): nothing of it is kept as
        measured, and it is no failure."""
        st.result.skipped = reason
        st.result.launches = []
        st.result.stop_reason = StopReason.SKIPPED
        self._close(st)
        self._done(st)

    def _done(self, st: _CaseState) -> None:
        """A case is finished: its time so far goes with it to `on_case_done`, whose log line is
        what `--resume` reads (it carried wall_seconds 0: the group sets it only at its end)."""
        st.done = True
        if st.ledger.spent:
            st.result.wall_seconds = st.ledger.spent
        if self.on_case_done:
            self.on_case_done(st.result)

    def _close(self, st: _CaseState, anywhere: bool = False) -> None:
        """Close the live launches; each close says bye and waits for its process to exit, which the
        reaper does in the background (the next group waits for it in `settle`), side by side. The
        bye is the reaper's too: sent from here, the send woke the worker and this thread lost its
        CPU to it (0.6-1.3 ms of the host's time per case on a loaded 2-CPU machine). Unless nothing
        is measured any more (`anywhere`), they exit off the measuring CPU."""
        for ln in st.live():
            st.result.output_bytes += _output_bytes(ln.handle)
            ln.retired = True
            if anywhere:
                self.placement.unpin(ln.samples.pid)
            else:
                self._move_off(ln.samples.pid)
            self._reap(ln.handle.close)
        self._drop_ahead(st)
        st.result.launches = [ln.samples for ln in st.launches]

    # -- helpers --------------------------------------------------------------------------------

    def _cpu(self, st: _CaseState, launch: _Launch) -> int:
        """The CPU a launch of a duet is pinned to (engine/duet.py cpu_of)."""
        return cpu_of(self._duet, self._side[id(st)], launch.samples.index)

    def _move_off(self, pid: int) -> None:
        """A launch done measuring exits off the measuring CPU; in a duet every CPU measures, and
        sending it to the other side's CPU would slow one side only: it exits anywhere."""
        if self._duet is not None:
            self.placement.unpin(pid)
        else:
            self.placement.move_off(pid)

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
