"""Where launches run: one quiet CPU for the measured processes, the rest for everyone else.

On a shared machine the worst noise is not a slower CPU but a CPU taken away: a worker that sleeps
between its iterations (it waits for its turn in the round) wakes up wherever the scheduler puts it,
often behind another busy process, and then shares that CPU in time slices — whole iterations come out
1.5–2× slower. We measured it on this project's 2-core machine with the other core kept busy: within a
round, the launches of one case differed by 30–45 %; with the measured processes pinned to one CPU,
2–4 %, and a planted 3 % slowdown was told apart in 6 s instead of not at all in 20 s.

So, on Linux, `auto` picks the idlest CPU when the run starts, keeps perflab's own process off it while
measuring, and pins a launch to it once Placement.probe_s of its measured time (from the start of warmup) show it
uses one CPU at a time: its CPU time over that window is at most Placement.cpu_share_limit × the time its
iterations took. Pinning a benchmark that runs threads in parallel would change what it measures, so
such a launch is left alone. A runtime that is still compiling on other threads (a JVM just after
warmup) looks the same, so a launch is watched again, up to Placement.probe_tries windows, before it is left alone.
A case's later launches follow its first (engine/runner.py `_left_alone`): pinned or left alone, all
of a case's processes measure the same thing. The pin happens after the
process has started, so the runtime still sees every CPU (Go's GOMAXPROCS, the JVM's GC and
thread-pool sizes, `available_parallelism` are as without perflab); only where its threads run is fixed.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import NamedTuple

from ..errors import UsageError
from ..policy import DEFAULT
from . import proctree

# when a launch is pinned, each number with why it is what it is (the hand-off rates measured per
# language): perflab.policy.Placement
RULES = DEFAULT.placement
TICK_S = 1 / os.sysconf("SC_CLK_TCK")  # USER_HZ: the resolution of /proc/<pid>/stat's CPU times


def parse_cpu(mode: str, cpus: set[int]) -> int:
    """A CPU number given to --affinity, checked against the CPUs this process may use."""
    try:
        cpu = int(mode)
    except ValueError:
        cpu = -1
    if cpu not in cpus:
        raise UsageError(f"--affinity: '{mode}' is not 'auto', 'off' or one of this machine's usable CPUs "
                         f"({', '.join(map(str, sorted(cpus)))})")
    return cpu


def check_mode(mode: str) -> None:
    """Reject a bad --affinity before anything runs."""
    if mode in ("auto", "off"):
        return
    if not supported():
        raise UsageError(f"--affinity: pinning to a CPU needs Linux; use 'auto' or 'off', not '{mode}'")
    parse_cpu(mode, allowed_cpus())


def supported() -> bool:
    return hasattr(os, "sched_setaffinity") and os.path.isdir("/proc/self/task")


def allowed_cpus() -> set[int]:
    return set(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else set()


def idle_times() -> tuple[float, dict[int, int]]:
    """(now, idle + iowait ticks per CPU) from /proc/stat: the start of a window for `idlest_cpu`."""
    out = {}
    try:
        with open("/proc/stat") as f:
            for line in f:
                if line.startswith("cpu") and line[3].isdigit():
                    parts = line.split()
                    out[int(parts[0][3:])] = int(parts[4]) + int(parts[5])
    except OSError:
        pass
    return time.monotonic(), out


def idlest_cpu(cpus: set[int], window_s: float = 0.1, since: tuple[float, dict[int, int]] | None = None) -> int:
    """The CPU of `cpus` with the most idle time over a window of at least `window_s`, from `since`
    (an `idle_times()` taken earlier, so the window can pass while the run gets ready) or from now."""
    started, before = since or idle_times()
    time.sleep(max(0.0, window_s - (time.monotonic() - started)))
    _, after = idle_times()
    return max(sorted(cpus), key=lambda c: after.get(c, 0) - before.get(c, 0))


def cpu_seconds(pid: int) -> tuple[float, float, dict[int, tuple[int, int]]] | None:
    """CPU time of `pid` so far (with the live descendants of a delegating worker, see
    engine/proctree.py), two ways, in seconds: summed over live threads (nanosecond resolution,
    from schedstat — but a thread that ended takes its time with it), and for the whole process
    including ended threads (from /proc/<pid>/stat, in clock ticks); and per live thread (by id) how
    many times it has been scheduled in (schedstat's third field: its wake-ups) and its CPU
    nanoseconds."""
    live = ticks = 0.0
    wakes: dict[int, tuple[int, int]] = {}
    for i, member in enumerate(proctree.family(pid)):
        got = _process_cpu_seconds(member, wakes)
        if got is None:
            if i == 0:
                return None  # the worker itself is gone
            continue  # a child that just ended: its parent counts it once reaped
        live += got[0]
        ticks += got[1]
    return live, ticks, wakes


def _process_cpu_seconds(pid: int, wakes: dict[int, tuple[int, int]]) -> tuple[float, float] | None:
    live = 0
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = (int(fields[11]) + int(fields[12])) * TICK_S  # utime + stime
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    run_ns, _, slices = f.read().split()[:3]
                live += int(run_ns)
                wakes[int(tid)] = (int(slices), int(run_ns))
            except (OSError, ValueError, IndexError):
                continue  # a thread that just ended
    except (OSError, ValueError, IndexError):
        return None
    return live / 1e9, ticks


def cpu_share(before: tuple[float, float], after: tuple[float, float], busy_s: float) -> float:
    """CPU seconds per second of `busy_s`: the larger of the two readings. The whole-process one is
    exact CPU time truncated to ticks, so a difference of two readings is less than a tick too high."""
    live = (after[0] - before[0]) / busy_s
    whole = max(0.0, after[1] - before[1] - TICK_S) / busy_s
    return max(live, whole)


def handoff_rate(before: tuple, after: tuple, busy_s: float) -> float | None:
    """How often the second most woken of the threads that did a real part of the work (RULES.handoff_cpu)
    was scheduled in, per second of `busy_s`, between two `cpu_seconds` readings (None: they do not
    count wake-ups). Two threads woken thousands of times a second hand work to each other."""
    if len(before) < 3 or len(after) < 3 or busy_s <= 0:
        return None
    rates = sorted(((n - before[2][tid][0]) / busy_s for tid, (n, ns) in after[2].items()
                    if tid in before[2] and (ns - before[2][tid][1]) / 1e9 / busy_s >= RULES.handoff_cpu),
                   reverse=True)
    return rates[1] if len(rates) > 1 else 0.0


class Decision(NamedTuple):
    """A probe window's outcome: the CPU the launch was pinned to (None: left on every CPU), its CPU
    share and hand-off rate over the window (None: not read)."""
    cpu: int | None
    share: float | None
    handoff: float | None = None


def pin_process(pid: int, cpus: set[int]) -> bool:
    """Restrict every thread of `pid` to `cpus` (threads it starts later inherit it)."""
    try:
        tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return False
    ok = False
    for tid in tids:
        try:
            os.sched_setaffinity(tid, cpus)
            ok = True
        except OSError:
            continue
    return ok


def pin_launch(pid: int, cpus: set[int]) -> bool:
    """Restrict a launch to `cpus`: its process, and a delegating worker's live descendants (where
    it measures, engine/proctree.py)."""
    ok = pin_process(pid, cpus)
    for member in proctree.family(pid)[1:]:
        pin_process(member, cpus)
    return ok


@dataclass
class Placement:
    """The measuring CPU of a run (None: launches are not pinned), and the CPUs the run may use, read
    once when it is chosen. Not re-read later: `sched_getaffinity(0)` is the calling thread's set, and
    while the host is held (`hold_host`) that is the host's CPU alone. Read then, "every CPU" for a
    launch left alone was the host's one CPU: a ping-pong's later launches ran both threads there
    (Rust's and C++'s 80-110 ms a call against 140-155 ms for the first launch and for
    `--affinity off`), so one case's launches measured two things."""
    cpu: int | None = None
    saved_host: set[int] | None = None
    cpus: frozenset[int] = field(default_factory=lambda: frozenset(allowed_cpus()))

    @classmethod
    def choose(cls, mode: str, since: tuple[float, dict[int, int]] | None = None) -> "Placement":
        """`mode`: 'auto' (the idlest CPU, when there are at least two, over a window from `since`),
        'off', or a CPU number."""
        if mode == "off" or not supported():
            return cls()
        cpus = allowed_cpus()
        if mode == "auto":
            return cls(idlest_cpu(cpus, since=since), cpus=frozenset(cpus)) if len(cpus) >= 2 else cls()
        return cls(parse_cpu(mode, cpus), cpus=frozenset(cpus))

    def probe(self, pid: int):
        """Start of a probe window for `pid` (its CPU times), or None when not pinning."""
        if self.cpu is None or pid <= 0:
            return None
        return cpu_seconds(pid)

    def pin_if_single(self, pid: int, start, busy_s: float, cpu: int | None = None) -> Decision:
        """Pin `pid` to the measuring CPU (or `cpu`: a duet's side, engine/duet.py) if, since `start`
        (from `probe`), it used at most one CPU during the `busy_s` seconds its iterations took, and
        its threads did not hand work to each other (RULES.handoff_rate)."""
        if self.cpu is None or start is None or busy_s <= 0:
            return Decision(None, None)
        after = cpu_seconds(pid)
        if after is None:
            return Decision(None, None)
        share = cpu_share(start, after, busy_s)
        handoff = handoff_rate(start, after, busy_s)
        if share > RULES.cpu_share_limit or (handoff is not None and handoff >= RULES.handoff_rate):
            return Decision(None, share, handoff)
        target = self.cpu if cpu is None else cpu
        return Decision(target if pin_launch(pid, {target}) else None, share, handoff)

    def can_start_aside(self) -> bool:
        """Whether a process can start while others are measured without running beside them:
        launches are pinned and another CPU is left (the host's: a child inherits the affinity of the
        thread starting it)."""
        return self.cpu is not None and bool(self.cpus - {self.cpu})

    def join(self, pid: int, single: bool, cpu: int | None = None) -> None:
        """A process started aside joins the launches: on the measuring CPU (or `cpu`: a duet's
        side) if its case is known to use one CPU at a time (its first launch was pinned), else with
        every CPU, as one started the ordinary way (its probe decides after its warmup)."""
        if single and self.cpu is not None and pid > 0:
            pin_launch(pid, {self.cpu if cpu is None else cpu})
        else:
            self.unpin(pid)

    def move_off(self, pid: int) -> None:
        """Move a launch that is done measuring off the measuring CPU: its exit (the runtime's
        shutdown, freeing its memory) must not run beside the launches still measured there."""
        if self.cpu is not None and pid > 0:
            others = set(self.cpus - {self.cpu})
            if others:
                pin_launch(pid, others)

    def unpin(self, pid: int) -> None:
        """Let a launch run on every CPU again (its exit, once nothing is measured)."""
        if self.cpu is not None and pid > 0:
            pin_launch(pid, set(self.cpus))

    def hold_host(self) -> None:
        """While measuring, perflab's own threads stay off the measuring CPU."""
        if self.cpu is not None and self.saved_host is None:
            others = set(self.cpus - {self.cpu})
            if others:
                self.saved_host = set(self.cpus)
                pin_process(os.getpid(), others)

    def release_host(self) -> None:
        """Give perflab back every CPU — before starting workers too: a child inherits its parent's
        affinity at start, and a runtime sizes itself (GOMAXPROCS, GC threads) by the CPUs it sees."""
        if self.saved_host:
            pin_process(os.getpid(), self.saved_host)
            self.saved_host = None
