"""Readings of the host's load that the engine takes when a group of cases starts and ends: the load
average, the machine's busy and stolen CPU time (/proc/stat) and the CPU time perflab's own processes
used meanwhile. stats/contention.py judges them: the machine's busy time minus perflab's own is the
load *other* work put on the machine while the group was measured.

perflab's own load matters because it is not interference: a worker, a runtime's compiler or GC
threads, a worker started ahead on the other CPU, the host itself. The 1-minute load average counts
all of it; on a quiet 2-CPU machine the main job's own processes pushed it past 1.5 per CPU, and
every case was then flagged as measured under heavy contention.
"""
from __future__ import annotations

import os

from . import proctree


def read_host() -> dict:
    """{"cpus", "loadavg" (1 minute), "ticks_total", "ticks_busy", "ticks_steal", "clk_tck",
    "own_cpu_s"}: the fields it can read here."""
    out: dict = {"cpus": _CPUS}
    try:
        out["loadavg"] = os.getloadavg()[0]
    except (OSError, AttributeError):
        pass
    try:
        # "cpu  user nice system idle iowait irq softirq steal guest guest_nice" (guest is in user)
        fields = _read("/proc/stat", 1024).split("\n", 1)[0].split()  # its first line: the rest is per CPU and IRQ
        ticks = [int(x) for x in fields[1:9]]
        out["ticks_total"], out["ticks_steal"] = sum(ticks), ticks[7] if len(ticks) > 7 else 0
        out["ticks_busy"] = out["ticks_total"] - ticks[3] - ticks[4]  # all but idle and iowait
        if _CLK_TCK is not None:
            out["clk_tck"] = _CLK_TCK
    except (OSError, ValueError, IndexError):
        pass
    own = own_cpu_seconds()
    if own is not None:
        out["own_cpu_s"] = own
    return out


def own_cpu_seconds() -> float | None:
    """CPU seconds perflab's processes have used so far: this process, its children that ended (and
    theirs, as the kernel adds them up on reaping), and its live children with their ended
    descendants — and, for a delegating worker, its live descendants. None where it cannot be read
    (no /proc)."""
    try:
        import resource
        me = resource.getrusage(resource.RUSAGE_SELF)
        ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    except ImportError:
        return None
    if _CLK_TCK is None:
        return None
    tck = _CLK_TCK
    total = me.ru_utime + me.ru_stime + ended.ru_utime + ended.ru_stime
    if not _PROC:
        return None
    # the children the host started (engine/proctree.py), not a walk of every host thread's
    # /proc children file: a dozen files at each of a case's two readings
    for child in proctree.host_children():
        # a delegating worker (Go's multiplexer) measures in its children: theirs count while they
        # live, and in its cutime once it has reaped them (engine/proctree.py)
        for pid in proctree.family(child):
            try:
                fields = _read(f"/proc/{pid}/stat").rsplit(")", 1)[1].split()
                total += sum(int(x) for x in fields[11:15]) / tck  # utime stime cutime cstime
            except (OSError, ValueError, IndexError):
                continue  # ended between the listing and the read: counted by its parent once reaped
    return total


_PROC = os.path.isdir("/proc/self")


def _sysconf_clk_tck() -> int | None:
    try:
        return os.sysconf("SC_CLK_TCK")
    except (AttributeError, OSError, ValueError):
        return None


# fixed for the life of the process: read once, not at each of the engine's two readings per case
_CPUS = os.cpu_count() or 1
_CLK_TCK = _sysconf_clk_tck()


def _read(path: str, limit: int | None = None) -> str:
    """A /proc file's text, by plain os calls: open() builds a text stream around the file (a buffer
    and a decoder), and a reading opens a file per thread of the host and per live child — about
    half a millisecond per reading with a dozen threads, twice per case. `limit`: read no more than
    about that (the caller wants the first line)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while True:
            chunk = os.read(fd, limit or 65536)
            if not chunk:
                break
            chunks.append(chunk)
            if limit is not None:
                break
        return b"".join(chunks).decode("ascii", "replace")
    finally:
        os.close(fd)


def autogroup_on(path: str = "/proc/sys/kernel/sched_autogroup_enabled") -> bool:
    """Whether the kernel shares the CPUs between sessions first (Linux session autogroup): then
    `nice` on work started from another terminal does not yield the CPU to perflab's workers (a
    corpus study's harness waited for a CPU 54-76 % of its wall time beside niced builds with it on,
    docs/measuring.md). False where it cannot be read."""
    try:
        return _read(path, 16).strip() == "1"
    except OSError:
        return False

