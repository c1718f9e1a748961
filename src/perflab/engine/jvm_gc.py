"""What a running JVM's collector is doing, read from outside: its performance-data file
(`/tmp/hsperfdata_<user>/<pid>`, the memory-mapped counters `jstat` reads; HotSpot writes it unless
run with -XX:-UsePerfData). Used when a reply times out (WorkerProcess): a JVM whose heap fills
faster than it frees spends its time in collections near -Xmx, for minutes, before it throws
OutOfMemoryError (G1, the default collector, has no GC overhead limit before JDK 26), and its
resident memory need not reach the heap's size meanwhile (a 1.5 GiB heap thrashed at 1.42 GiB
resident for 30 s: full collections that freed nothing, then OutOfMemoryError after 229 s). Nothing
is added to the JVM's command line: its measurement is unchanged.

The file: a prologue (magic 0xcafec0c0, byte order, entry offset and count), then entries of
(length, name offset, vector length, type, flags, units, variability, data offset); a `J` entry's data
is a 64-bit integer (HotSpot's perfMemory.hpp / perfData.hpp)."""
from __future__ import annotations

import os
import pwd
import struct
import time
from dataclasses import dataclass

from . import proctree
from ..policy import DEFAULT

MAGIC = b"\xca\xfe\xc0\xc0"


def perf_file(pid: int) -> str | None:
    """The performance-data file of `pid`, or of its first descendant that has one (a JVM behind a
    wrapper such as setarch); None when none does."""
    try:
        user = pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return None
    folder = os.path.join(os.environ.get("PERFLAB_HSPERFDATA_TMP", "/tmp"), f"hsperfdata_{user}")
    queue, seen = [pid], {pid}
    while queue and len(seen) <= proctree.MAX_PROCESSES:
        p = queue.pop(0)
        path = os.path.join(folder, str(p))
        if os.path.isfile(path):
            return path
        for child in proctree.children(p):
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return None


def counters(path: str) -> dict[str, int]:
    """The file's integer counters by name ({} when it cannot be read or is not one)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return {}
    if len(data) < 32 or data[:4] != MAGIC:
        return {}
    order = "<" if data[4] == 1 else ">"
    entry, count = struct.unpack_from(order + "ii", data, 24)
    out = {}
    for _ in range(max(0, count)):
        if entry < 0 or entry + 20 > len(data):
            break
        length, name_off, vector, kind, _flags, _units, _var, data_off = struct.unpack_from(
            order + "iiibbbbi", data, entry)
        if length <= 0:
            break
        if kind == ord("J") and vector == 0:
            start = entry + name_off
            end = data.find(b"\0", start, entry + length)
            if end > start and entry + data_off + 8 <= len(data):
                out[data[start:end].decode("ascii", "replace")] = struct.unpack_from(
                    order + "q", data, entry + data_off)[0]
        entry += length
    return out


@dataclass
class Reading:
    gc_s: float       # seconds spent in stop-the-world collections so far, a pause under way included
    used: int         # heap bytes in use (every generation's spaces)
    max_heap: int     # the heap's maximum (-Xmx), bytes
    at: float         # time.monotonic() of the reading


def read(path: str) -> Reading | None:
    c = counters(path)
    freq = c.get("sun.os.hrt.frequency")
    now = c.get("sun.os.hrt.ticks")
    if not freq or now is None:
        return None
    ticks = 0
    for i in range(8):
        key = f"sun.gc.collector.{i}"
        if f"{key}.time" not in c:
            continue
        ticks += c[f"{key}.time"]
        entered, left = c.get(f"{key}.lastEntryTime", 0), c.get(f"{key}.lastExitTime", 0)
        if entered > left:  # a pause under way: its time is counted only when it ends
            ticks += max(0, now - entered)
    used = sum(v for k, v in c.items() if k.startswith("sun.gc.generation.") and k.endswith(".used")
               and ".space." in k)
    # G1 and the other generational collectors: the old generation may grow to the whole heap
    max_heap = max((v for k, v in c.items() if k.startswith("sun.gc.generation.")
                    and k.endswith(".maxCapacity") and k.count(".") == 4), default=0)
    return Reading(ticks / freq, used, max_heap, time.monotonic())


@dataclass
class Thrashing:
    gc_share: float   # of the reading's wall time in collections
    used: int
    max_heap: int
    seconds: float    # the reading's length


def thrashing(pid: int, reading_s: float = DEFAULT.memory.jvm_reading_s, sleep=time.sleep) -> Thrashing | None:
    """Two readings `reading_s` apart: the JVM's share of that time in collections and its heap, when
    it collected at least Memory.jvm_gc_share of the time with at least Memory.jvm_heap_share of its heap in use; else None
    (not a JVM, no performance data, or a JVM running its code)."""
    path = perf_file(pid)
    first = read(path) if path else None
    if first is None:
        return None
    sleep(reading_s)
    second = read(path)
    if second is None or not second.max_heap:
        return None
    wall = max(second.at - first.at, 1e-3)
    share = min(1.0, max(0.0, (second.gc_s - first.gc_s) / wall))
    if share >= DEFAULT.memory.jvm_gc_share and second.used >= DEFAULT.memory.jvm_heap_share * second.max_heap:
        return Thrashing(share, second.used, second.max_heap, wall)
    return None
