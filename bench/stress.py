"""Reproducible interference: the load the bench/ studies measure perflab under.

Two shapes:

- `--busy`: one steady busy loop (one CPU's worth, always runnable) — "the other core kept busy";
- `--level L` (default 2): on average L × the CPU count of *runnable* time (on a CPU or waiting for
  one), made of a memory-bandwidth hog (copies halves of a buffer larger than the last-level cache,
  always runnable: one CPU's worth), and bursty processes that busy-loop for `on` and sleep for the
  rest of their period — 3 ms of 10, 50 of 100, 400 of 1000, in turn, with phases drawn from `--seed`
  — until their duties add up to the level; plus a process that keeps forking short-lived children
  (`/bin/true`, 1–5 ms apart), whose churn is not counted in the level.

The schedule is a pure function of (level, seed, CPU count): `plan()`. Bursts run on wall-clock
deadlines and each keeps its own runnable time (on a CPU or waiting for one, /proc/thread-self/schedstat)
on its schedule's, so the level holds however contended the CPUs are; it is checked from outside with
/proc/<pid>/schedstat and printed at exit.

    .venv/bin/python bench/stress.py --level 2 --seed 1 [--duration 60] [--hog-mb 128] [--no-fork]
    .venv/bin/python bench/stress.py --busy

It runs until killed (or `--duration`), and on SIGTERM/SIGINT stops every process it started. From
another script, as a context manager (it starts this file in a new process group, and kills the group
on exit):

    from stress import Stress
    with Stress(level=2, seed=1) as load:
        ...                      # measure under load
    print(load.report)           # the measured level
"""
from __future__ import annotations

import argparse
import ctypes
import math
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# (period, on) of the bursty processes, in seconds, taken in turn
SHAPES = ((0.010, 0.003), (0.100, 0.050), (1.000, 0.400))
FORK_SLEEP = (0.001, 0.005)  # seconds between two children of the forker


@dataclass(frozen=True)
class Component:
    """One process of the load. kind: "spin" (always busy), "memory" (always busy, copying memory),
    "burst" (busy `on` seconds of every `period`, offset by `phase`), "fork" (churn, not counted; its
    `phase` holds the seed of its sleeps)."""
    kind: str
    period: float
    on: float
    phase: float = 0.0

    @property
    def duty(self) -> float:
        return 0.0 if self.kind == "fork" else self.on / self.period

    def describe(self) -> str:
        if self.kind == "burst":
            return (f"burst {1000 * self.on:g} ms on / {1000 * (self.period - self.on):g} ms off, "
                    f"phase {1000 * self.phase:.1f} ms")
        return {"spin": "steady busy loop", "memory": "memory-bandwidth hog",
                "fork": "forker of /bin/true (not counted in the level)"}[self.kind]


def plan(level: float, seed: int, ncpu: int, *, hog: bool = True, fork: bool = True) -> list[Component]:
    """The components whose duties add up to `level` × `ncpu` CPUs of runnable time."""
    if level <= 0:
        raise ValueError(f"--level must be positive, got {level}")
    rng = random.Random(seed)
    demand = level * ncpu
    comps = []
    if hog and demand >= 1.0:
        comps.append(Component("memory", 1.0, 1.0))
        demand -= 1.0
    i = 0
    while demand > 1e-9:
        period, on = SHAPES[i % len(SHAPES)]
        on = min(on, demand * period)  # the last one takes what is left of the level
        comps.append(Component("burst", period, on, rng.uniform(0.0, period)))
        demand -= on / period
        i += 1
    if fork:
        comps.append(Component("fork", 0.0, 0.0, float(rng.randrange(1 << 30))))  # phase: the forker's seed
    return comps


def plan_busy() -> list[Component]:
    return [Component("spin", 1.0, 1.0)]


def claimed_level(comps: list[Component], ncpu: int) -> float:
    return sum(c.duty for c in comps) / ncpu


# -- what the processes do -----------------------------------------------------------------------

def _die_with_parent(parent: int, sig: int = signal.SIGKILL) -> None:
    """Linux: the kernel sends `sig` to this process when `parent` dies, even by SIGKILL."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(sig))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # it died before the line above: no signal will come
        os._exit(0)


def _spin() -> None:
    while True:
        pass


def _memory(mb: int) -> None:
    half = max(1, mb // 2) << 20
    buf = memoryview(bytearray(2 * half))
    while True:  # each copy streams `half` bytes in and out: far more than the last-level cache
        buf[half:] = buf[:half]
        buf[:half] = buf[half:]


def _runnable_self() -> float:
    """Seconds this thread has been on a CPU or waiting for one."""
    with open("/proc/thread-self/schedstat") as f:
        waiting = int(f.read().split()[1])
    return time.thread_time() + waiting / 1e9


def _burst(c: Component, t0: float) -> None:
    """Keep this process's runnable time on the ideal schedule's: busy during [start, start + on) of
    every period. Under contention a process waits for a CPU after waking and after every preemption,
    and that waiting is runnable time too (3 ms bursts measured 6 ms here with the machine loaded): so
    a burst lasts until the runnable time since the start reaches the schedule's, or the period ends,
    and what one period overran the next one gives back."""
    clock = time.monotonic
    begin = clock()
    base = _runnable_self()
    k = math.floor((begin - t0 - c.phase) / c.period)
    ideal = 0.0  # runnable seconds the schedule asks for since `begin`
    while True:
        start = t0 + c.phase + k * c.period
        ideal += max(0.0, start + c.on - max(start, begin))
        k += 1
        used = _runnable_self() - base
        if used >= ideal:
            # ahead of the schedule (waking up costs runnable time too: on a loaded machine a 3 ms
            # burst's wake-up alone waited 5–10 ms): this burst is paid for, skip it without waking
            continue
        ideal = min(ideal, used + c.on)  # a deficit (a late start) is made up over one burst at most
        now = clock()
        if now < start:
            time.sleep(start - now)
        following = start + c.period
        while _runnable_self() - base < ideal and clock() < following:
            pass


def _fork(seed: int) -> None:
    rng = random.Random(seed)
    while True:
        pid = os.fork()
        if pid == 0:
            try:
                os.execv("/bin/true", ["/bin/true"])
            finally:
                os._exit(127)
        os.waitpid(pid, 0)
        time.sleep(rng.uniform(*FORK_SLEEP))


def _child(c: Component, t0: float, hog_mb: int, parent: int) -> None:
    # the supervisor stops its children (after measuring them): a signal to the whole group, or Ctrl-C
    # in a terminal, reaches the supervisor alone; if it dies, the kernel kills them
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(parent)
    if c.kind == "spin":
        _spin()
    elif c.kind == "memory":
        _memory(hog_mb)
    elif c.kind == "burst":
        _burst(c, t0)
    else:
        _fork(int(c.phase))


# -- measuring the load --------------------------------------------------------------------------

def runnable_seconds(pid: int) -> float:
    """Time `pid`'s threads spent on a CPU or waiting for one (/proc/<pid>/task/*/schedstat), or 0.0
    for a process that is gone."""
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                on_cpu, waiting, _ = (task / "schedstat").read_text().split()
            except (OSError, ValueError):
                continue
            total += int(on_cpu) + int(waiting)
    except OSError:
        return 0.0
    return total / 1e9


def group_pids(pgid: int) -> list[int]:
    """Live processes whose process group is `pgid` (from /proc/<pid>/stat; zombies excluded)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        if fields[0] != "Z" and int(fields[2]) == pgid:
            pids.append(int(entry.name))
    return pids


# -- the supervisor (the CLI) --------------------------------------------------------------------

def serve(comps: list[Component], duration: float | None, hog_mb: int, ncpu: int) -> None:
    """Start every component, print what started, run until `duration` or SIGTERM/SIGINT, print the
    measured level, then stop and reap every child."""
    stop = False

    def on_signal(signum, frame):
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    t0 = time.monotonic() + 0.05  # a common origin for the bursts' phases
    children: list[tuple[int, Component]] = []
    me = os.getpid()
    try:
        for c in comps:
            pid = os.fork()
            if pid == 0:
                try:
                    _child(c, t0, hog_mb, me)
                finally:
                    os._exit(0)
            children.append((pid, c))
        for pid, c in children:
            print(f"stress: pid {pid} {c.kind} duty {c.duty:.2f}: {c.describe()}", flush=True)
        counted = [pid for pid, c in children if c.kind != "fork"]
        print(f"stress: ready, pgid {os.getpgrp()}, claimed level {claimed_level(comps, ncpu):.2f} "
              f"× {ncpu} CPUs", flush=True)
        w0, r0 = time.monotonic(), sum(runnable_seconds(p) for p in counted)
        deadline = w0 + duration if duration else math.inf
        while not stop and time.monotonic() < deadline:
            time.sleep(min(0.1, max(0.0, deadline - time.monotonic())))
        wall = time.monotonic() - w0
        runnable = sum(runnable_seconds(p) for p in counted) - r0
        if wall > 0:
            print(f"stress: measured level {runnable / wall / ncpu:.2f} × {ncpu} CPUs "
                  f"({runnable:.1f} runnable CPU-s in {wall:.1f} s)", flush=True)
    finally:
        for pid, _ in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid, _ in children:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        print("stress: stopped", flush=True)


class Stress:
    """The load as a context manager: this file runs as its own process group while the block runs.

    `report` holds the supervisor's closing lines (the measured level) after the block; `pids` the
    started processes by kind."""

    def __init__(self, level: float = 2.0, seed: int = 1, *, busy: bool = False, hog_mb: int = 128,
                 fork: bool = True, ncpu: int | None = None):
        self.argv = [sys.executable, str(Path(__file__).resolve()), "--seed", str(seed), "--hog-mb", str(hog_mb)]
        self.argv += ["--busy"] if busy else ["--level", str(level)]
        self.argv += [] if fork else ["--no-fork"]
        self.argv += ["--ncpu", str(ncpu)] if ncpu else []
        self.argv += ["--parent", str(os.getpid())]  # a study killed outright takes its load with it
        self.proc: subprocess.Popen | None = None
        self.started: list[str] = []
        self.pids: dict[str, list[int]] = {}
        self.report = ""

    @property
    def pgid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def __enter__(self) -> "Stress":
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE, text=True, start_new_session=True)
        for line in self.proc.stdout:
            self.started.append(line.rstrip())
            parts = line.split()
            if parts[1:2] == ["pid"]:
                self.pids.setdefault(parts[3], []).append(int(parts[2]))
            if line.startswith("stress: ready"):
                return self
        self.__exit__(None, None, None)
        raise RuntimeError("stress did not start:\n" + "\n".join(self.started))

    def __exit__(self, *exc) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            proc.send_signal(signal.SIGTERM)  # the supervisor measures, then kills its children
            out, _ = proc.communicate(timeout=10)
        except ProcessLookupError:
            out, _ = proc.communicate()
        except subprocess.TimeoutExpired:
            out = ""
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # anything left of the group
            except ProcessLookupError:
                pass
            proc.wait()
        self.report = (out or "").strip()
        self.proc = proc  # for pgid after the block


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--level", type=float, default=2.0, help="runnable time as a multiple of the CPU count")
    ap.add_argument("--busy", action="store_true", help="one steady busy loop instead")
    ap.add_argument("--seed", type=int, default=1, help="seed of the bursts' phases")
    ap.add_argument("--duration", type=float, default=None, help="seconds to run (default: until killed)")
    ap.add_argument("--hog-mb", type=int, default=128, help="memory hog's buffer, MB (0: no hog)")
    ap.add_argument("--no-fork", action="store_true", help="without the forking process")
    ap.add_argument("--ncpu", type=int, default=None, help="CPUs to load (default: os.cpu_count())")
    ap.add_argument("--parent", type=int, default=None, help="stop when this process dies (Linux)")
    args = ap.parse_args(argv)
    if args.parent:
        _die_with_parent(args.parent, signal.SIGTERM)
    ncpu = args.ncpu or os.cpu_count() or 1
    if args.busy:
        comps = plan_busy()
    else:
        try:
            comps = plan(args.level, args.seed, ncpu, hog=args.hog_mb > 0, fork=not args.no_fork)
        except ValueError as e:
            print(f"stress: {e}", file=sys.stderr)
            return 2
    serve(comps, args.duration, args.hog_mb, ncpu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
