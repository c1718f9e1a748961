"""Deterministic stand-ins for the engine's collaborators: a clock that only moves when the fake
worker 'spends' time, and a worker whose timings come from a seeded model, not from a machine."""
from __future__ import annotations

import random
from concurrent.futures import Executor, Future

from perflab.engine.worker import BenchmarkError, CpuClock, Hello, Timings
from perflab.errors import WorkerFailure
from perflab.model import Benchmark, Case, ParamAxis, Runtime


class FakeClock:
    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class FakeWorker:
    """Per-call cost `per_call_ns` (+ `launch_offset_ns` for this process) with multiplicative gaussian
    noise; the first `slow_warmup` iterations start `warmup_factor` times slower and speed up steadily
    (a JIT warming up).

    CPU time: each iteration reports cpu = wall (the thread ran throughout), except the iterations
    numbered in `preempted` (counting every timed iteration of every stage from 0), which were
    preempted for `preempted_ns` more wall time: wall grows by it, cpu does not. `cpu_clock=False`
    plays a runtime that cannot read CPU time.

    Order effect: with `second_penalty_ns`, the iteration measured second of a round's pair (workload
    and overhead, one iteration each, in one `run_with_overhead` request or in two requests in a row)
    costs that much more wall time per call: a pair's second iteration is the one the scheduler
    preempted on a loaded machine (CPython 3.11, empty benchmark: overhead 3-4x its own workload).
    With `second_penalty_cpu` the thread's CPU time grows too (an order effect the CPU time cannot
    tell from the code's own time, as a cache another stage filled).

    Position in a request: with `later_penalty_ns`, an iteration that is not the first of its request
    costs that much more per call (wall time; CPU time too with `later_penalty_cpu`): a worker woken
    by a request runs its first iteration on a fresh scheduler slice, and the next one in the same
    request is the one a loaded machine preempts. `with_overhead` offers one request per round's pair;
    `overhead_first=False` plays a worker that offers it only with the overhead second."""

    def __init__(self, clock: FakeClock, per_call_ns: float, *, overhead_ns: float = 0.0,
                 noise: float = 0.0, seed: int = 0, launch_offset_ns: float = 0.0,
                 slow_warmup: int = 0, warmup_factor: float = 1.0, warmup_plateau: bool = False, fail_stage: str | None = None,
                 resolution_ns: float = 1.0, alloc_per_call: int = 0, crash_stage: str | None = None,
                 drift=None, with_overhead: bool = False, hit_share: float = 0.0,
                 hit_factor: tuple[float, float] = (2.0, 3.0), cpu_clock: bool = True,
                 preempted: tuple[int, ...] = (), preempted_ns: float = 1e6,
                 second_penalty_ns: float = 0.0, second_penalty_cpu: bool = False,
                 overhead_first: bool = True, later_penalty_ns: float = 0.0, later_penalty_cpu: bool = False):
        self.clock = clock
        self.per_call = per_call_ns + launch_offset_ns
        self.overhead = overhead_ns
        self.noise = noise
        self.rng = random.Random(seed)
        self.slow_left = self.slow_total = slow_warmup
        self.warmup_factor = warmup_factor
        self.warmup_plateau = warmup_plateau
        self.fail_stage = fail_stage
        self.crash_stage = crash_stage
        self.alloc = alloc_per_call
        self.drift = drift  # machine-wide slowdown factor as a function of (fake) time, shared by all
        # interference: this share of the measured iterations (warmup, workload) is slowed by a factor
        # drawn from hit_factor, as when another process takes the CPU for part of an iteration
        self.hit_share, self.hit_factor = hit_share, hit_factor
        self.hello = Hello(language="fake", runtime={"name": "fake"}, clock_resolution_ns=resolution_ns,
                           capabilities=["alloc", "gc"] + (["with_overhead"] if with_overhead else [])
                           + (["overhead_first"] if with_overhead and overhead_first else []),
                           unroll=1, pid=4242,
                           cpu_clock=CpuClock("fake", "thread") if cpu_clock else None)
        self.preempted, self.preempted_ns = set(preempted), preempted_ns
        self.iteration = 0  # timed iterations so far, all stages
        self.second_penalty, self.second_penalty_cpu = second_penalty_ns, second_penalty_cpu
        self._paired = 0  # single workload/overhead iterations so far: the odd ones come second of a pair
        self.later_penalty, self.later_penalty_cpu = later_penalty_ns, later_penalty_cpu
        self.calls: list[tuple] = []
        self.closed = False

    def setup(self, benchmark_id, params, timeout):
        self.calls.append(("setup", benchmark_id, dict(params)))

    def run(self, stage, invocations, iterations, timeout):
        self.calls.append(("run", stage, invocations, iterations))
        second = False
        if stage in ("workload", "overhead") and iterations == 1:
            second = self._paired % 2 == 1
            self._paired += 1
        return self._samples(stage, invocations, iterations, second)

    def _samples(self, stage, invocations, iterations, second=False, later=False):
        if stage == self.fail_stage:
            raise BenchmarkError("exception", "ValueError: planted failure", "Traceback…")
        if stage == self.crash_stage:
            raise WorkerFailure("worker crashed (SIGSEGV)")
        out = Timings([], [])
        for k in range(iterations):
            cost = self.overhead if stage == "overhead" else self.per_call + self.overhead
            factor = 1.0
            if stage != "overhead" and self.slow_left > 0:
                factor = (self.warmup_factor if self.warmup_plateau  # a JIT starved of CPU: flat, then fast
                          else 1 + (self.warmup_factor - 1) * self.slow_left / self.slow_total)
                self.slow_left -= 1
            if self.drift is not None:
                factor *= self.drift(self.clock.t)
            if stage in ("warmup", "workload") and self.hit_share and self.rng.random() < self.hit_share:
                factor *= self.rng.uniform(*self.hit_factor)
            ns = cost * invocations * factor * max(0.01, 1 + self.rng.gauss(0, self.noise))
            ns = max(ns, self.hello.clock_resolution_ns)
            cpu = ns
            if second:
                ns += self.second_penalty * invocations
                cpu += self.second_penalty * invocations if self.second_penalty_cpu else 0.0
            if (later or k > 0) and stage in ("workload", "overhead"):  # not the first of its request
                ns += self.later_penalty * invocations
                cpu += self.later_penalty * invocations if self.later_penalty_cpu else 0.0
            if self.iteration in self.preempted:
                ns += self.preempted_ns
            self.iteration += 1
            self.clock.t += ns / 1e9 + 50e-6  # plus a little messaging time
            out.ns.append(int(round(ns)))
            if self.hello.cpu_clock is not None:
                out.cpu.append(int(round(cpu)))
        return out

    def run_with_overhead(self, invocations, iterations, timeout, overhead_first=False):
        assert "with_overhead" in self.hello.capabilities, "asked a worker without the capability"
        assert not overhead_first or "overhead_first" in self.hello.capabilities, "asked for an order it lacks"
        self.calls.append(("run_with_overhead", invocations, iterations) + (("overhead_first",) if overhead_first
                                                                             else ()))
        work, over = Timings([], []), Timings([], [])
        for k in range(iterations):
            pair = [(work, "workload"), (over, "overhead")]
            for j, (into, stage) in enumerate(pair[::-1] if overhead_first else pair):
                timed = self._samples(stage, invocations, 1, second=j == 1, later=k > 0 or j == 1)
                into.ns += timed.ns
                into.cpu += timed.cpu
        return work, over

    def diagnose(self, invocations, iterations, timeout):
        self.calls.append(("diagnose", invocations, iterations))
        calls = invocations * iterations
        return {"type": "diagnostics", "invocations": invocations, "iterations": iterations,
                "alloc_bytes": self.alloc * calls, "gc": [calls // 1000, 0, 0]}

    def teardown(self, timeout):
        self.calls.append(("teardown",))

    def say_bye(self):
        self.calls.append(("bye",))

    def close(self):
        self.closed = True

    def output_bytes(self):
        return 0

    def stderr_tail(self):
        return ""


class InlineExecutor(Executor):
    """Runs what is submitted at once, in the caller's thread: background work (processes started
    ahead, closed in the background) happens at a fixed point of a fake-clock test."""

    def __init__(self, max_workers: int = 1):
        self.submitted = 0

    def submit(self, fn, /, *args, **kwargs):
        self.submitted += 1
        fut = Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except Exception as exc:
            fut.set_exception(exc)
        return fut


def make_case(name="b", runtime="rt1", params=(), baseline=False, ops=1, iteration_setup=False,
              group="g") -> Case:
    bench = Benchmark(id=f"{group}.{name}", name=name, group=group, language="fake",
                      baseline=baseline, ops_per_invoke=ops, iteration_setup=iteration_setup,
                      params=tuple(ParamAxis(n, tuple(v)) for n, v in params))
    rt = Runtime(name=runtime, language="fake", version="1", executable="/bin/true")
    combo = bench.expand()[0] if bench.params else {}
    return Case(bench, tuple(combo.items()), rt)
