"""Counting instructions under valgrind's callgrind: how a worker is launched, and how its dumps are read.

A worker in count mode (environment PERFLAB_COUNT=1) runs the timed loop of every `run` request inside
exactly one call of its language's *marker*: a function callgrind can see by name (a C symbol, a Go
function, CPython's `_PyEval_CallTracing` reached through `sys.call_tracing`, …). callgrind collects only
inside the marker (`--collect-atstart=no --toggle-collect=MARKER`) and writes one dump each time the
marker returns (`--dump-after=MARKER`), so dump k holds exactly the events of the k-th `run` request:
process start, the runtime's start-up, loading, setup and the protocol are never counted.

A toolchain says how its language is counted with `count_profile(runtime)` (see toolchains/base.py).
"""
from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ..toolchains.base import LaunchSpec

COUNT_ENV = "PERFLAB_COUNT"
DEBIAN_PACKAGE = "valgrind"
# the events callgrind writes with --cache-sim=yes (without it: Ir only)
CACHE_EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw")


class NotCountable(Exception):
    """This runtime cannot be counted under valgrind; the message says why (shown in its rows)."""


class ValgrindMissing(Exception):
    pass


@dataclass(frozen=True)
class CountProfile:
    """How one runtime is counted.

    marker: the callgrind function pattern the worker's timed loop runs inside (wildcards allowed).
    valgrind_args: extra valgrind options this runtime needs (`--smc-check=all` for a JIT, …).
    env: environment pinned for a repeatable count (PYTHONHASHSEED=0, …); recorded with the results.
    runtime_args: extra arguments for the runtime itself, inserted by the toolchain (fixed JIT
        thresholds, one compiler thread, …); recorded with the results.
    tolerance: two launches agree when their per-op Ir differ by at most this share (0.01 % for
        native code, where a count repeats exactly; an interpreter or a JIT may need more).
    warmup_runs: workload runs discarded before the measured pair (a JIT needs several to settle).
    run_ir: the instructions a measured run should hold at least: the pilot sizes the loop to it, so
        the count's fixed noise (a GC step, a clock read the empty loop does not cancel) weighs
        under the tolerance, while a run stays seconds, not minutes, under valgrind.
    """
    marker: str
    valgrind_args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    runtime_args: tuple[str, ...] = ()
    note: str = ""
    tolerance: float = 1e-4
    warmup_runs: int = 1
    run_ir: int = 2_000_000

    def pinned(self) -> dict[str, str]:
        """What was pinned for a repeatable count, as recorded beside the figures."""
        out = dict(self.env)
        if self.runtime_args:
            out["runtime_args"] = " ".join(self.runtime_args)
        return out


def valgrind_path() -> str:
    path = shutil.which("valgrind")
    if path is None:
        raise ValgrindMissing("--measure instructions needs valgrind: install the Debian package "
                              f"'{DEBIAN_PACKAGE}' (apt-get install {DEBIAN_PACKAGE})")
    return path


def no_aslr_prefix() -> list[str]:
    """`setarch <arch> -R`: the process's addresses, and so hashing by address, the same every launch."""
    setarch = shutil.which("setarch")
    if setarch is None:
        return []
    return [setarch, os.uname().machine, "-R"]


def valgrind_argv(profile: CountProfile, out_dir: Path, cache_sim: bool = True) -> list[str]:
    return [*no_aslr_prefix(), valgrind_path(), "--tool=callgrind", "--quiet",
            "--collect-atstart=no", f"--toggle-collect={profile.marker}",
            f"--dump-after={profile.marker}", "--compress-strings=no", "--compress-pos=no",
            f"--cache-sim={'yes' if cache_sim else 'no'}",
            f"--callgrind-out-file={out_dir / 'callgrind.%p'}", *profile.valgrind_args]


def wrap_launch(spec: LaunchSpec, profile: CountProfile, out_dir: Path, cache_sim: bool = True
                ) -> LaunchSpec:
    """The worker's launch, under valgrind and in count mode. `out_dir` receives the dumps."""
    out_dir.mkdir(parents=True, exist_ok=True)
    env = {**spec.env, **profile.env, COUNT_ENV: "1"}
    return LaunchSpec(argv=[*valgrind_argv(profile, out_dir, cache_sim), *spec.argv], env=env,
                      cwd=spec.cwd, load_paths=list(spec.load_paths), root=spec.root,
                      starts_aside=spec.starts_aside)


_DUMP = re.compile(r"callgrind\.(\d+)\.(\d+)$")


def parse_dump(text: str) -> dict[str, int]:
    """The event totals of one callgrind dump ({"Ir": …, "D1mr": …})."""
    events: list[str] = []
    totals: list[int] | None = None
    for line in text.splitlines():
        if line.startswith("events:"):
            events = line.split(":", 1)[1].split()
        elif line.startswith(("summary:", "totals:")) and totals is None:
            totals = [int(x) for x in line.split(":", 1)[1].split()]
    if not events or totals is None:
        raise ValueError("not a callgrind dump (no events/summary line)")
    totals += [0] * (len(events) - len(totals))  # trailing zero events may be left out
    return dict(zip(events, totals))


def dump_files(out_dir: Path, pid: int | None = None) -> list[Path]:
    """The dumps the marker's returns wrote, in the order they were written (the final dump at exit,
    `callgrind.PID` without a number, is not one of them): those of process `pid`, or with None those
    of whichever process of the launch called the marker — a launcher in front of the worker (Go's
    mux of several packages starts the worker as its child, traced with --trace-children=yes) never
    calls it. Dumps from two processes in one launch folder are a DumpMismatch."""
    found: dict[int, list[tuple[int, Path]]] = {}
    for p in out_dir.iterdir():
        m = _DUMP.match(p.name)
        if m and (pid is None or int(m.group(1)) == pid):
            found.setdefault(int(m.group(1)), []).append((int(m.group(2)), p))
    if len(found) > 1:
        raise DumpMismatch(f"callgrind dumps from {len(found)} processes ({', '.join(map(str, sorted(found)))}): "
                           "the marker must run in one process of a launch", "")
    return [p for _, p in sorted(next(iter(found.values()), []))]


def read_dumps(out_dir: Path, pid: int | None = None) -> list[dict[str, int]]:
    return [parse_dump(p.read_text(errors="replace")) for p in dump_files(out_dir, pid)]


class DumpMismatch(RuntimeError):
    """The marker was not reached exactly once per run; `detail` holds the worker's output tail."""

    def __init__(self, message: str, detail: str = ""):
        super().__init__(message + (f"\n{detail}" if detail else ""))
        self.reason, self.detail = message, detail


class CountSession:
    """One worker launch under callgrind, driven one `run` request at a time: load, set up one
    benchmark, then `run(...)` returns that run's events as soon as its dump is written (the marker
    returns, callgrind dumps, then the worker replies). A pilot can so size the next run on the last."""

    def __init__(self, spec: LaunchSpec, profile: CountProfile, out_dir: Path, benchmark_id: str,
                 params: dict, timeout: float = 600.0, cache_sim: bool = True):
        from ..engine.worker import WorkerProcess  # the engine imports measures, not the other way round

        self.profile, self.out_dir, self.timeout = profile, out_dir, timeout
        self.runs = 0
        self.worker = WorkerProcess(wrap_launch(spec, profile, out_dir, cache_sim), connect_timeout=timeout)
        try:
            self.worker.load(list(spec.load_paths), spec.root, timeout)
            self.worker.setup(benchmark_id, params, timeout)
        except BaseException:
            self.worker.close()
            raise

    def run(self, stage: str, invocations: int, iterations: int) -> dict[str, int]:
        self.worker.run(stage, invocations, iterations, self.timeout)
        self.runs += 1
        dumps = dump_files(self.out_dir)  # the worker's, or its child's behind a launcher
        if len(dumps) != self.runs:
            raise DumpMismatch(f"callgrind wrote {len(dumps)} dump(s) for {self.runs} run(s): the "
                               f"worker's marker {self.profile.marker!r} was not called exactly once per "
                               "run", self.worker.stderr_tail())
        return parse_dump(dumps[-1].read_text(errors="replace"))

    def finish(self) -> None:
        """Tear down and let the worker exit (its final dump at exit is not one of the runs)."""
        try:
            self.worker.teardown(self.timeout)
            self.worker.say_bye()
        finally:
            self.worker.close()

    def close(self) -> None:
        self.worker.close()


def count_runs(spec: LaunchSpec, profile: CountProfile, out_dir: Path, benchmark_id: str,
               params: dict, runs: list[tuple[str, int, int]], timeout: float = 600.0,
               cache_sim: bool = True) -> list[dict[str, int]]:
    """One worker launch under callgrind: load, set up `benchmark_id`, then one `run` request per
    (stage, invocations, iterations) in `runs`; the events of each run, in order.

    The building block of the count executor, and what a language's tests call to check its marker:
    a marker that is not reached, or reached more than once per run, gives the wrong number of dumps."""
    session = CountSession(spec, profile, out_dir, benchmark_id, params, timeout, cache_sim)
    try:
        events = [session.run(*r) for r in runs]
        session.finish()
    finally:
        session.close()
    return events
