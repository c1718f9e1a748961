""""Far too fast": a case measured faster than the work it declares can take on this machine, so the
runtime may have removed part of it (dead code: a result nobody reads, a loop the compiler folded).

perflab sinks what its own API's benchmarks return (each worker's black hole, as JMH's Blackhole,
Google Benchmark's DoNotOptimize and criterion's black_box do), but it cannot sink what a benchmark
computes and throws away inside its own body (a `testing.B` loop that discards its result: issue #38,
261 ns against 932 ns for the same loop sunk, no warning). What the data can show is a time below a
bound the machine sets, from what the benchmark itself declares:

- **bytes** (criterion `Throughput::Bytes`, Google Benchmark `SetBytesProcessed`, Go `b.SetBytes`): a
  core reads at most LOADS_PER_CYCLE vector loads a cycle, each as wide as its widest vector register
  (64 B with AVX-512, 32 with AVX/AVX2, 16 otherwise), at the highest clock rate it may run at. A
  rate above that means the declared bytes were not all read;
- **a call**: net of the empty loop, a call that costs less than one cycle, its whole interval below
  it and clear of zero, adds at most a few instructions that overlap the loop's own: anything more
  was removed (an empty call is the other warning, "indistinguishable from an empty benchmark");
- **instructions** (`--measure instructions`): fewer instructions per op than it takes to load the
  declared bytes with the widest vector valgrind decodes (32 B: it has no AVX-512).

Each is a diagnostic note with the bound and why, never a verdict (those are perflab.judge's). The
bounds are generous on purpose (a clock rate with turbo headroom, every load port busy): a note is
wrong only if the machine can do more than its best case.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .policy import DEFAULT
from .units import format_time

LOADS_PER_CYCLE = DEFAULT.diagnosis.loads_per_cycle
TURBO_HEADROOM = DEFAULT.diagnosis.turbo_headroom
VALGRIND_VECTOR_BYTES = 32  # the widest vector valgrind's VEX decodes (AVX2; no AVX-512)


@dataclass(frozen=True)
class MachineSpeed:
    ghz: float  # the highest clock rate the core may run at (headroom included)
    source: str  # where `ghz` came from, as a note quotes it
    vector_bytes: int  # the widest vector register

    @property
    def cycle_ns(self) -> float:
        return 1.0 / self.ghz

    @property
    def bytes_per_ns(self) -> float:
        """The most bytes a core can load a nanosecond."""
        return self.ghz * LOADS_PER_CYCLE * self.vector_bytes


def read_machine(cpuinfo: str | None = None, max_khz: str | None = None) -> MachineSpeed | None:
    """This machine's speed from sysfs (`cpuinfo_max_freq`: the turbo clock) or /proc/cpuinfo ("cpu
    MHz", or the model name's "@ 2.60GHz": nominal, so TURBO_HEADROOM is added); None when neither
    says (the checks that need it are then not made)."""
    if cpuinfo is None:
        cpuinfo = _read("/proc/cpuinfo")
    if max_khz is None:
        max_khz = _read("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
    found = re.search(r"^(?:flags|Features)\s*:(.*)$", cpuinfo, re.M)
    flags = set(found.group(1).split()) if found else set()
    vector = 64 if "avx512f" in flags else 32 if {"avx", "avx2"} & flags else 16
    try:
        khz = float(max_khz.strip()) if max_khz and max_khz.strip() else 0.0
    except ValueError:
        khz = 0.0
    if khz > 0:
        return MachineSpeed(khz / 1e6, "cpuinfo_max_freq", vector)
    mhz = [float(m) for m in re.findall(r"^cpu MHz\s*:\s*([0-9.]+)", cpuinfo, re.M)]
    named = re.search(r"^model name\s*:.*@\s*([0-9.]+)\s*GHz", cpuinfo, re.M)
    nominal = max(mhz + ([float(named.group(1)) * 1000] if named else []), default=0.0)
    if nominal <= 0:
        return None
    return MachineSpeed(nominal / 1000 * TURBO_HEADROOM,
                        f"{nominal / 1000:.2f} GHz nominal ×{TURBO_HEADROOM} for turbo", vector)


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


@lru_cache(maxsize=1)
def this_machine() -> MachineSpeed | None:
    return read_machine()


def declared_bytes(rates: dict[str, dict] | None) -> float | None:
    """Bytes per op the benchmark declares (a rate whose unit is bytes, not inverted); None if none."""
    found = [r["per_op"] for r in (rates or {}).values()
             if r.get("unit") == "B" and not r.get("invert") and r.get("per_op", 0) > 0]
    return max(found) if found else None


def time_notes(speed: MachineSpeed | None, mean_ns: float, ci_low: float, ci_high: float,
               ops_per_invoke: int, bytes_per_op: float | None, empty: bool, net: bool = True) -> list[str]:
    """Notes for a timed case (per op; `net`: of the empty loop, as perflab measures by default):
    declared bytes read faster than the machine can load them; a call below one cycle (net only:
    with the loop in, the time is the loop's)."""
    if speed is None or empty or mean_ns <= 0:
        return []
    notes = []
    if bytes_per_op and ci_high > 0:
        rate = bytes_per_op / ci_high  # the slowest the interval allows: bytes a nanosecond
        if rate > speed.bytes_per_ns:
            notes.append(
                f"far too fast: {bytes_per_op:,.0f} declared bytes an op in {format_time(mean_ns)} is at "
                f"least {rate:,.0f} B/ns, above the {speed.bytes_per_ns:,.0f} B/ns this machine can load "
                f"({LOADS_PER_CYCLE} loads of {speed.vector_bytes} B a cycle at {speed.ghz:.2f} GHz, "
                f"{speed.source}): the runtime may have removed part of the work (a result never read), "
                "or the benchmark does not read the bytes it declares")
    per_call_high = ci_high * max(1, ops_per_invoke)
    if net and 0 < ci_low and per_call_high < speed.cycle_ns:
        notes.append(
            f"far too fast: a call costs {format_time(mean_ns * max(1, ops_per_invoke))} beyond the empty "
            f"loop, its whole interval under one CPU cycle ({format_time(speed.cycle_ns)} at "
            f"{speed.ghz:.2f} GHz, {speed.source}): it adds a few instructions at most, overlapping the "
            "loop's own; if it should do more, the runtime removed it (sink what it computes)")
    return notes


def count_notes(instructions_per_op: float | None, bytes_per_op: float | None) -> list[str]:
    """Notes for a counted case: fewer instructions per op than loading its declared bytes takes."""
    if instructions_per_op is None or not bytes_per_op:
        return []
    needed = bytes_per_op / VALGRIND_VECTOR_BYTES
    if instructions_per_op >= needed:
        return []
    return [f"far too fast: {instructions_per_op:,.1f} instructions an op for {bytes_per_op:,.0f} declared "
            f"bytes, fewer than the {needed:,.1f} it takes to load them {VALGRIND_VECTOR_BYTES} B at a time "
            "(the widest vector valgrind runs): the runtime may have removed part of the work, or the "
            "benchmark does not read the bytes it declares"]
