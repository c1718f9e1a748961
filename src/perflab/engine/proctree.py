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
"""
from __future__ import annotations

import os

_DELEGATING: set[int] = set()  # pids of live delegating workers (registered by engine/worker.py)
MAX_PROCESSES = 64  # a walk stops here: a benchmark that forks without bound is not followed


def delegate(pid: int) -> None:
    """`pid` measures in its children: follow them."""
    _DELEGATING.add(pid)


def forget(pid: int) -> None:
    """`pid` has exited and been reaped (its pid may be reused)."""
    _DELEGATING.discard(pid)


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
