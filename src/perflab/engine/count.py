"""Counting one case's instructions under callgrind (`--measure instructions`): plan, launches, stop rule.

Per launch (a fresh worker under valgrind, see measures/callgrind.py), the same sequence of `run`
requests, so every launch reaches the measured pair in the same state (a JIT's tiers, a cache's
contents):

1. the pilot's runs: 1 call, then as many as the last run's count says reach the profile's `run_ir`
   instructions (at most ×1000 a step, Pilot.steps_max steps) — the first launch chooses them, later
   launches replay them;
2. `warmup_runs` workload runs at the planned size, discarded;
3. the overhead loop (the empty function in a loop of its own) put through the same runs, in the
   same sizes, discarded;
4. the overhead, workload, workload and overhead runs, same size.

Step 3 gives both loops the same history, and its last run, at the measured size, gives the count's
resolution: two runs of the same loop at the same size still differ by a few hundred Ir on CPython
(the allocator's and the collector's state alternate from run to run, the same in every launch), and
that, divided by the operations, is the smallest per-op figure the count can tell from 0. Without it the overhead loop was measured with fewer runs
behind it, and a runtime that adapts its code to what it has run charged the overhead run more: on
CPython 3.12, the quickening of a cold loop (1,114 Ir) and, with one run of warm-up, specialisation
attempts that a count of past failures spaces out (`_Py_Specialize_Call`, `_LoadGlobal`: 658 Ir).
Divided by the operations, that fixed difference was a per-op offset: an empty Python benchmark
counted −0.26 Ir/op.

The measured runs are four, overhead, workload, workload, overhead, and per-op events =
(mean of the two workload runs − mean of the two overhead runs) / ops. On CPython the fixed part of
a run moves run after run: on 3.11 it drifts (each run about 100–125 Ir cheaper than the one before,
at every size), on 3.12 it alternates (±300 Ir). With one overhead run and then one workload run, the
workload run was charged one step of that: an empty benchmark counted −130 Ir a run (−0.03 Ir/op,
outside its resolution) on 3.11 and +84 Ir a run on 3.12. Both pairs of O W W O are centred on the
same point, so a steady drift cancels, and each pair holds one run of either phase of an alternation,
so that cancels too (native code: the runs are equal, nothing changes). Launches go on until two agree within the profile's
tolerance (measures/counts.agreeing_pair), at most Counts.max_launches; past that the count is kept and
flagged as not agreed, with its spread. A failure (valgrind kills the worker, the marker is not
reached, the benchmark throws) is a CountFailed with the reason and valgrind's own message.
"""
from __future__ import annotations

import functools
import math
import re
import subprocess
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from ..errors import ProtocolError, WorkerFailure
from ..measures import counts as arith
from ..measures.callgrind import CountProfile, CountSession, no_aslr_prefix, valgrind_path
from ..measures.callgrind_functions import parse_functions, per_op_table
from ..model import Case
from ..policy import DEFAULT


class CountFailed(Exception):
    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason, self.detail = reason, detail


@functools.lru_cache(maxsize=1)
def tool_version() -> str:
    try:
        out = subprocess.run([valgrind_path(), "--version"], capture_output=True, text=True, timeout=30)
        return f"callgrind ({out.stdout.strip() or 'valgrind'})"
    except (OSError, subprocess.SubprocessError):
        return "callgrind"


_VALGRIND_LINE = re.compile(r"^==\d+==\s?(.*)$", re.M)


def valgrind_message(stderr: str) -> str:
    """What valgrind itself said (its `==PID==` lines), the most telling line first: why the process
    was terminated, else the last thing it said."""
    lines = [m.group(1).strip() for m in _VALGRIND_LINE.finditer(stderr) if m.group(1).strip()]
    for i, ln in enumerate(lines):
        if ln.startswith("Process terminating"):
            return "; ".join(lines[i:i + 2])[:300]
    return lines[-1][:300] if lines else ""


def plan_size(ir_last: int, size_last: int, run_ir: int) -> int | None:
    """The next pilot size, or None when a run of `size_last` calls already holds enough
    instructions (at least half of `run_ir`: the pilot overestimates a call's cost — its runs
    carry the loop's fixed cost — so a planned run lands at or above half)."""
    if ir_last * 2 >= run_ir:
        return None
    per_call = max(ir_last, 1) / size_last
    return min(size_last * DEFAULT.pilot.growth_max, max(size_last * 2, math.ceil(run_ir / per_call)))


class Counter:
    """Counts cases. `prepared` maps a runtime label to its engine.plan.Prepared (spec, toolchain)."""

    def __init__(self, prepared: dict, timeout: float, clock: Callable[[], float] = time.monotonic,
                 session=CountSession, max_launches: int = DEFAULT.counts.max_launches):
        self.prepared, self.timeout, self.clock = prepared, timeout, clock
        self.session, self.max_launches = session, max_launches

    def profile(self, case: Case) -> CountProfile:
        """The case's runtime's count profile; NotCountable when it has none."""
        prep = self.prepared[case.runtime.label]
        return prep.toolchain.count_profile(prep.runtime)

    def count(self, case: Case) -> dict[str, Any]:
        """The `counts` record of `case` (CountFailed when it cannot be counted; NotCountable
        when its runtime cannot be)."""
        profile = self.profile(case)
        prep = self.prepared[case.runtime.label]
        spec = prep.toolchain.count_spec(prep.spec, prep.runtime, profile)
        if case.benchmark.file in spec.load_paths:  # only its file, as the engine's launches do
            spec = replace(spec, load_paths=[case.benchmark.file])
        started = self.clock()
        # The first two launches run side by side: the second starts (valgrind, the runtime, setup)
        # while the first plans the pilot, then replays it; on 2 cores a case costs about one launch
        # instead of two. Counts do not depend on what else runs. Later launches run one by one.
        pilot: Future = Future()
        with ThreadPoolExecutor(max_workers=1) as pool:
            second = pool.submit(self._launch, case, spec, profile, pilot) if self.max_launches > 1 else None
            try:
                launches = [self._launch(case, spec, profile, None, planned=pilot)]
            except BaseException as exc:
                if not pilot.done():
                    pilot.set_exception(exc)  # the second launch stops waiting for it
                raise
            if second is not None:
                launches.append(second.result())
        while (len(launches) < self.max_launches
               and not arith.agreeing_pair([ln["per_op"]["Ir"] for ln in launches], profile.tolerance,
                                           [ln.get("resolution", 0.0) for ln in launches])):
            launches.append(self._launch(case, spec, profile, pilot))
        rec = arith.record(tool=tool_version(), marker=profile.marker,
                           pinned={**profile.pinned(), "aslr": "off" if no_aslr_prefix() else "on (setarch not found)"}, launches=launches,
                           tolerance=profile.tolerance, wall_s=self.clock() - started, note=profile.note)
        if not rec["agreed"]:
            rec["note"] = "; ".join(x for x in [rec["note"], _disagreement(rec)] if x)
        # where the first launch's workload run spent its instructions: [[function, self, inclusive]]
        # per op (measures/callgrind_functions.py); a dump that cannot be read leaves it out
        table = next((ln.pop("functions") for ln in launches if "functions" in ln), None)
        if table:
            rec["functions"] = table
        return rec

    def _launch(self, case: Case, spec, profile: CountProfile, pilot: Future | None,
                planned: Future | None = None) -> dict[str, Any]:
        """One launch: the pilot (planned here when `pilot` is None, and handed to `planned`; else
        replayed from `pilot`, once the first launch has planned it), warmup, then the overhead and
        workload runs at the pilot's last size. Its record."""
        # a benchmark with per-iteration setup runs one call per iteration: it grows by iterations
        shape = (lambda n: (1, n)) if case.benchmark.iteration_setup else (lambda n: (n, 1))
        with tempfile.TemporaryDirectory(prefix="perflab-count-") as tmp:
            try:
                s = self.session(spec, profile, Path(tmp), case.benchmark.id, case.param_indices,
                                 self.timeout)
            except (WorkerFailure, ProtocolError) as exc:
                raise _failure(exc) from None
            try:
                if pilot is None:
                    runs = self._pilot(s, shape, profile.run_ir)
                    if planned is not None:
                        planned.set_result(runs)
                else:
                    runs = pilot.result()
                    for r in runs:
                        s.run(*r)
                size = runs[-1][1:]
                for _ in range(profile.warmup_runs):
                    s.run("warmup", *size)
                # the overhead loop gets the workload loop's history (step 3 of the module doc)
                for _, *shape_of_run in [*runs, *[("warmup", *size)] * profile.warmup_runs]:
                    previous = s.run("overhead", *shape_of_run)  # the last one is at `size`
                # O W W O: the pair of each is centred on the same point, so a fixed part that
                # drifts run after run, or alternates, cancels (arith.pair_mean; module doc)
                before = s.run("overhead", *size)
                first = s.run("workload", *size)
                second = s.run("workload", *size)
                # per function, from the last dump so far (the second workload run), the first launch's
                functions = _functions(s) if pilot is None else None
                workload = arith.pair_mean(first, second)
                overhead = arith.pair_mean(before, s.run("overhead", *size))
                s.finish()
            except (WorkerFailure, ProtocolError, RuntimeError) as exc:
                raise _failure(exc, s) from None
            finally:
                s.close()
        ops = size[0] * size[1] * case.benchmark.ops_per_invoke
        extra = {"functions": per_op_table(functions, ops)} if functions else {}
        return {**extra, "invocations": size[0], "iterations": size[1], "workload": workload,
                "overhead": overhead, "per_op": arith.per_op(workload, overhead, ops),
                "resolution": arith.resolution(previous, before, ops)}

    @staticmethod
    def _pilot(s, shape, run_ir: int) -> list[tuple[str, int, int]]:
        """Grow the run until it holds enough instructions; the runs it made, the last one the size
        to measure at."""
        runs, n = [], 1
        for _ in range(DEFAULT.pilot.steps_max):
            ir = s.run("pilot", *shape(n)).get("Ir", 0)
            runs.append(("pilot", *shape(n)))
            nxt = plan_size(ir, n, run_ir)
            if nxt is None:
                break
            n = nxt
        else:
            runs.append(("pilot", *shape(n)))  # the size the last step asked for, reached once
            s.run(*runs[-1])
        return runs


def _functions(session) -> dict | None:
    """Self and inclusive Ir per function of the session's last dump (its workload run)."""
    from ..measures.callgrind import dump_files
    try:
        dumps = dump_files(session.out_dir)
        return parse_functions(dumps[-1].read_text(errors="replace")) if dumps else None
    except (OSError, ValueError, IndexError, AttributeError, TypeError):
        return None


def _failure(exc: BaseException, session=None) -> CountFailed:
    detail = getattr(exc, "detail", "") or (session.worker.stderr_tail() if session else "")
    said = valgrind_message(detail)
    reason = getattr(exc, "reason", None) or str(exc)
    return CountFailed(f"under valgrind: {reason}" + (f" (valgrind: {said})" if said else ""), detail)


def _disagreement(rec: dict[str, Any]) -> str:
    irs = ", ".join(f"{ln['per_op']['Ir']:.6g}" for ln in rec["launches"])
    return (f"no two of {len(rec['launches'])} launches agreed within {rec['tolerance']:.2%} "
            f"(Ir per op: {irs}; spread {rec['spread']:.3%}): the count is the median")
