"""A worker's memory limit (`--memory-limit SIZE`, `memory_limit` in [tool.perflab]): a benchmark that
exceeds it fails alone, "out of memory (limit X)", in every language; the other cases are measured.

Why no RLIMIT_AS: the JVM, Go, Node (V8) and Mono reserve far more address space than they use (a
JVM reserves its whole heap and class space up front, Go its arenas, V8 its cage): an address-space
limit breaks them at start, not when a benchmark leaks. Why no cgroup: a cgroup v2 memory
controller is writable only where the host delegates one (not on this project's VMs, which have
cgroup v1 with the memory controller owned by the container), and the OOM killer it would call
kills without telling which limit. So the limit has two parts:

- **the host watches** each worker's resident memory — its own and its descendants' (a benchmark's
  child processes, Go's test binaries), summed from /proc every Memory.watch_interval_s — and kills the
  worker's process group the moment the sum passes the limit (`Watch`). Resident memory is what
  the machine runs out of; reservations never count. Between two readings a benchmark can allocate
  more: at a few GB/s that is up to a few hundred MB beyond the limit before the kill.
- **the runtime's own heap flag**, where one exists, set to Memory.heap_share of the limit so the runtime
  fails first with its own error, which the worker reports as a benchmark error: `-Xmx` for Java,
  `--max-old-space-size` for Node, `MONO_GC_PARAMS=max-heap-size` for Mono. A flag the runtime spec
  gives (`jdk25:-Xmx8g`) comes later on the line and wins. Go's GOMEMLIMIT is not set: it is soft
  (the GC works harder and harder near it rather than failing), so it would slow the very benchmark
  it should stop; the watch stops Go.

A failure is called out of memory when the watch killed the worker, or when the runtime said so
(`looks_out_of_memory`: MemoryError, OutOfMemoryError/Exception, V8's heap out of memory, Go's
"runtime: out of memory", Rust's "memory allocation of N bytes failed", std::bad_alloc).

The default limit: half the machine's memory shared among its CPUs (MemTotal / (2 × CPUs)), at least
Memory.default_min_bytes. A run keeps about one measuring process per CPU alive, plus the ones starting ahead and
the host, so half the memory per CPU leaves the other half to them and to the system.
"""
from __future__ import annotations

import dataclasses
import os
import re
import signal
import threading
import time
from typing import Callable

from ..errors import UsageError
from . import proctree
from ..policy import DEFAULT

OUT_OF_MEMORY = "out of memory"
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
          "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tb": 1 << 40,
          "tib": 1 << 40}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")


def parse_size(text, where: str = "--memory-limit") -> int:
    """`512m`, `2G`, `1.5GiB`, `1073741824` → bytes (units are powers of 1024). Bad input is a
    one-line UsageError naming `where`."""
    m = _SIZE.match(str(text))
    unit = m.group(2).lower() if m else ""
    if m is None or unit not in _UNITS:
        raise UsageError(f"{where}: '{text}' is not a size; write e.g. 512m, 2g or 1.5GiB")
    size = int(float(m.group(1)) * _UNITS[unit])
    if size < (16 << 20):
        raise UsageError(f"{where}: {text} is below 16 MiB, too little for any runtime to start")
    return size


def format_size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            value = n / scale
            return f"{value:.0f} {unit}" if value == int(value) or value >= 100 else f"{value:.1f} {unit}"
    return f"{n} B"


def machine_memory() -> int:
    """MemTotal in bytes (0 when /proc/meminfo cannot be read)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def default_limit() -> int:
    """MemTotal / (2 × CPUs), at least Memory.default_min_bytes (see the module's doc)."""
    total = machine_memory()
    if not total:
        return 4 * DEFAULT.memory.default_min_bytes
    return max(DEFAULT.memory.default_min_bytes, total // (2 * (os.cpu_count() or 1)))


def reason(limit: int) -> str:
    return f"{OUT_OF_MEMORY} (limit {format_size(limit)})"


# what a runtime says when it runs out of memory (in an error reply, or on stderr as it dies)
_OOM_WORDS = re.compile(r"MemoryError|OutOfMemoryError|OutOfMemoryException|heap out of memory|"
                        r"runtime: out of memory|memory allocation of \d+ bytes failed|std::bad_alloc|"
                        r"Cannot allocate memory|out of memory", re.I)


def looks_out_of_memory(text: str) -> bool:
    return bool(_OOM_WORDS.search(text or ""))


def heap_mb(limit: int) -> int:
    return max(16, int(limit * DEFAULT.memory.heap_share) >> 20)


def heap_flags(language: str, limit: int) -> tuple[list[str], dict[str, str]]:
    """(arguments right after the executable, environment) that make `language`'s runtime fail with
    its own out-of-memory error below `limit`."""
    mb = heap_mb(limit)
    if language == "java":
        return [f"-Xmx{mb}m"], {}
    if language == "node":
        return [f"--max-old-space-size={mb}"], {}
    if language == "csharp":
        return [], {"MONO_GC_PARAMS": f"max-heap-size={mb}m"}
    return [], {}


def limit_spec(spec, language: str, limit: int):
    """`spec` with the memory limit: the host's watch (LaunchSpec.memory_limit) and the runtime's own
    heap flag. The user's runtime flags come later on the line and win; an environment variable the
    runtime spec already sets is kept."""
    args, env = heap_flags(language, limit)
    argv = [spec.argv[0], *args, *spec.argv[1:]] if args else list(spec.argv)
    merged = {**env, **spec.env}
    return dataclasses.replace(spec, argv=argv, env=merged, memory_limit=limit,
                               heap_limit=heap_mb(limit) << 20 if args or env else 0)


def _statm_rss(pid: int) -> int:
    try:
        fd = os.open(f"/proc/{pid}/statm", os.O_RDONLY)
    except OSError:
        return 0
    try:
        return int(os.read(fd, 256).split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0
    finally:
        os.close(fd)


def tree_rss(pid: int) -> int:
    """Resident bytes of `pid` and its live descendants (at most proctree.MAX_PROCESSES of them)."""
    total, queue, seen = 0, [pid], {pid}
    while queue and len(seen) <= proctree.MAX_PROCESSES:
        p = queue.pop(0)
        total += _statm_rss(p)
        for child in proctree.children(p):
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return total


class Watch:
    """One thread that reads every watched worker's resident memory and calls its `exceeded`
    callback (once) when it passes the worker's limit."""

    def __init__(self, interval_s: float = DEFAULT.memory.watch_interval_s, rss: Callable[[int], int] = tree_rss):
        self.interval_s, self._rss = interval_s, rss
        self._watched: dict[int, tuple[int, Callable[[int], None]]] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, pid: int, limit: int, exceeded: Callable[[int], None]) -> None:
        with self._lock:
            self._watched[pid] = (limit, exceeded)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="perflab-memory-watch",
                                                daemon=True)
                self._thread.start()

    def remove(self, pid: int) -> None:
        with self._lock:
            self._watched.pop(pid, None)

    def check(self) -> None:
        """One reading of every watched worker."""
        with self._lock:
            watched = list(self._watched.items())
        for pid, (limit, exceeded) in watched:
            used = self._rss(pid)
            if used > limit:
                self.remove(pid)
                exceeded(used)

    def _loop(self) -> None:
        while True:
            time.sleep(self.interval_s)
            with self._lock:
                if not self._watched:
                    self._thread = None
                    return
            self.check()


WATCH = Watch()


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
