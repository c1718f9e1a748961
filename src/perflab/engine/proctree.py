"""The processes that make up one worker: usually the process perflab started, but a *delegating*
worker (Go's multiplexer, perflab-go-mux) measures in its children — one Go test binary per package.

Two readings must follow the whole family, or they see the wrong process:
- the host's own CPU time (engine/host.py): a live grandchild's CPU time is in no field of the
  host's children until it exits and is reaped; its work then counted as *other* work, and a quiet
  main job flagged every Go case as measured under heavy contention ("other work used 1.3 of 2
  CPUs");
- the pinning probe and the pin (engine/affinity.py): the multiplexer itself barely runs, so it
  looked single-threaded and was pinned, while the test binary that measured ran on every CPU.

Walking every worker's threads for children at each reading costs about 0.14 ms per worker, twice
per case; so only the workers that say they delegate (LaunchSpec.delegates) are walked.

The host's own children are the processes it started and registered here (`started`): workers, and
the processes lifeline.run runs. Listing them by walking the host's threads' /proc children files
cost a file per host thread (a dozen: pools, output drains) at every reading.
"""
from __future__ import annotations

import os

_DELEGATING: set[int] = set()  # pids of live delegating workers (registered by engine/worker.py)
# the host's children not reaped yet, in the order started (a dict: adding and removing are O(1),
# and a reading iterates a snapshot while pool threads start and reap others)
_STARTED: dict[int, None] = {}
MAX_PROCESSES = 64  # a walk stops here: a benchmark that forks without bound is not followed


def started(pid: int, delegating: bool = False) -> None:
    """The host started `pid` (a worker, or a process lifeline.run runs); `delegating`: it measures
    in its children, follow them."""
    _STARTED[pid] = None
    if delegating:
        _DELEGATING.add(pid)


def delegate(pid: int) -> None:
    """`pid` measures in its children: follow them."""
    _DELEGATING.add(pid)


def forget(pid: int) -> None:
    """`pid` has exited and been reaped (its pid may be reused)."""
    _DELEGATING.discard(pid)
    _STARTED.pop(pid, None)


def host_children() -> list[int]:
    """The processes the host started that are not reaped yet."""
    return list(_STARTED)


def delegates(pid: int) -> bool:
    return pid in _DELEGATING


def children(pid: int) -> list[int]:
    """The live children of `pid` (each thread's /proc children file: a child belongs to the thread
    that forked it)."""
    out: list[int] = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            fd = os.open(f"/proc/{pid}/task/{tid}/children", os.O_RDONLY)
        except OSError:
            continue  # a thread that just ended, or a kernel without the children file
        try:
            out.extend(int(p) for p in os.read(fd, 65536).split())
        except (OSError, ValueError):
            pass
        finally:
            os.close(fd)
    return out


def family(pid: int) -> list[int]:
    """`pid`, and — when it delegates — its live descendants (at most MAX_PROCESSES in all)."""
    if pid not in _DELEGATING:
        return [pid]
    found, queue = [pid], [pid]
    while queue and len(found) < MAX_PROCESSES:
        for child in children(queue.pop(0)):
            if child not in found and len(found) < MAX_PROCESSES:
                found.append(child)
                queue.append(child)
    return found
