"""How long a launch's measuring thread waited for a CPU during each round iteration, read by the host.

The kernel keeps, per thread, the time it spent runnable but waiting for a CPU:
/proc/<pid>/task/<tid>/schedstat's second field. The host reads it for the launch's threads just
before it sends a round's request and just after the reply, so no worker changes. Off-CPU time that
this wait explains is contention — the thread wanted the CPU — not the code's own blocking (I/O, a
lock, a peer thread), during which the thread sleeps and the field does not grow. stats/clean.py
reads it to tell a CPU-bound case under heavy load (its CPU share low because it queued) from one
that waits by nature.

The window the host sees is wider than the timed iteration: it holds the request's delivery, the
worker's reply and the host's own wake-up. A wait in that margin is not the iteration's, so what is
recorded is a lower bound of the iteration's own wait: the window's wait minus the whole margin
(`in_iteration`). It can only understate the wait, so a case that blocks by nature is never taken
for a contended CPU-bound one.

The measuring thread is the one of the launch's threads (its live descendants' too, see
engine/proctree.py) that ran the most during the window; once known, only its file is read.
"""
from __future__ import annotations

import os
from typing import Callable

from . import proctree

# (pid, tid) of a thread → (ns on a CPU, ns runnable and waiting for one)
Threads = dict[tuple[int, int], tuple[int, int]]


def _read(path: str) -> tuple[int, int] | None:
    try:
        with open(path) as f:
            run_ns, wait_ns = f.read().split()[:2]
        return int(run_ns), int(wait_ns)
    except (OSError, ValueError):
        return None


def read_threads(pid: int) -> Threads | None:
    """Every live thread of `pid` and its live descendants, None when the process is gone."""
    out: Threads = {}
    for member in proctree.family(pid):
        try:
            tids = os.listdir(f"/proc/{member}/task")
        except OSError:
            continue
        for tid in tids:
            got = _read(f"/proc/{member}/task/{tid}/schedstat")
            if got is not None:
                out[(member, int(tid))] = got
    return out or None


def read_thread(pid: int, tid: int) -> tuple[int, int] | None:
    return _read(f"/proc/{pid}/task/{tid}/schedstat")


def in_iteration(wait_ns: int, window_ns: float, timed_ns: float) -> int:
    """The iteration's own run-queue wait, at least: the window's wait less the window's margin
    around the timed iteration (what the host saw beyond the worker's timer), never below 0."""
    return int(max(0.0, wait_ns - max(0.0, window_ns - timed_ns)))


class RunQueueWatch:
    """One launch's reader: `mark()` before and after a request; `waited()` of the two."""

    def __init__(self, pid: int, read_all: Callable[[int], Threads | None] = read_threads,
                 read_one: Callable[[int, int], tuple[int, int] | None] = read_thread):
        self.pid = pid
        self.read_all, self.read_one = read_all, read_one
        self.thread: tuple[int, int] | None = None  # the measuring thread, once found

    def mark(self) -> Threads | None:
        if self.thread is not None:
            got = self.read_one(*self.thread)
            if got is not None:
                return {self.thread: got}
            self.thread = None  # it ended (a delegating worker's child): look again
        return self.read_all(self.pid)

    def waited(self, before: Threads | None, after: Threads | None, window_ns: float,
               timed_ns: float, cpu_ns: float | None = None) -> int:
        """The measuring thread's wait within the timed iteration (a lower bound, see
        `in_iteration`); 0 when it cannot be read, which leaves the case's reading as without it.
        `cpu_ns`: the CPU time the worker timed. A thread read alone that ran less than half of it
        is not the measuring one any more (a Go benchmark's goroutine is locked to its thread for
        one run only): 0, and the next reading looks at every thread again."""
        if not before or not after:
            return 0
        common = [k for k in after if k in before]
        if not common:
            return 0
        busiest = max(common, key=lambda k: after[k][0] - before[k][0])
        if len(common) == 1 and cpu_ns and after[busiest][0] - before[busiest][0] < cpu_ns / 2:
            self.thread = None
            return 0
        self.thread = busiest
        return in_iteration(after[busiest][1] - before[busiest][1], window_ns, timed_ns)
