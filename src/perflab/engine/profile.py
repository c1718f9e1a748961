"""Profiling one case (`run --profile`, `perflab profile`): one more launch, outside the timed ones.

The launch is the runtime's worker as the toolchain's `profile_how` prepares it (under its sampling
profiler, or with the worker's own sampler switched on). It loads the case's file, sets the case up,
then runs a pilot — 1 call, then ×10 until a run lasts Profile.pilot_min_s — and one `workload` run of the
fixed number of calls that should last Profile.seconds at the pilot's pace. Then it tears down and
says bye (a profiler that writes at exit, as V8's and JFR's do, gets its exit), and the profiler's
file is read and reduced (measures/profile.py). No figure of the case comes from this launch.
"""
from __future__ import annotations

import math
import re
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable

from ..errors import ProtocolError, WorkerFailure
from ..measures import profile as prof
from ..model import Case
from .worker import WorkerProcess
from ..policy import DEFAULT


def case_slug(case: Case) -> str:
    """A file name for the case's profile: its key with anything unsafe replaced."""
    return re.sub(r"[^A-Za-z0-9._@=-]+", "_", case.key).strip("_")[:150] or "case"


def in_revision(prep, file: str) -> str:
    """Where a benchmark file named by its path in the user's tree lies in the revision's tree that
    `run --rev` laid out (revisions.as_revision), '' when the run has no revisions: the frames name
    the file the worker loaded, and with only the user's path every frame was perflab's harness."""
    tree = getattr(prep, "revision_tree", None)
    if not tree or not file:
        return ""
    home, there = tree
    try:
        return str(Path(there) / Path(file).relative_to(home))
    except ValueError:
        return ""


class Profiler:
    """Profiles cases. `prepared` maps a runtime label to its engine.plan.Prepared; `out_dir` receives
    each case's raw and collapsed profiles (None: a temporary folder, the stacks kept in the record)."""

    def __init__(self, prepared: dict, timeout: float, out_dir: Path | None,
                 seconds: float = DEFAULT.profile.seconds, clock: Callable[[], float] = time.monotonic):
        self.prepared, self.timeout, self.out_dir = prepared, timeout, out_dir
        self.seconds, self.clock = seconds, clock

    def profile(self, case: Case) -> dict:
        """The case's `profile` record: the stacks, or {"error": "no profile: <reason>"}."""
        prep = self.prepared[case.runtime.label]
        started = self.clock()
        with tempfile.TemporaryDirectory(prefix="perflab-profile-") as tmp:
            raw_dir = Path(tmp)
            try:
                how = prep.toolchain.profile_how(prep.runtime, prep.spec, raw_dir)
            except prof.NotProfilable as exc:
                return prof.not_profiled(str(exc))
            try:
                calls = self._launch(case, how.spec)
                raw, stacks = how.read(raw_dir)
            except prof.ProfileFailed as exc:
                return prof.not_profiled(exc.reason)
            except (WorkerFailure, ProtocolError) as exc:
                return prof.not_profiled(f"the profiled launch failed: {getattr(exc, 'reason', None) or exc}")
            except subprocess.TimeoutExpired as exc:
                return prof.not_profiled(f"reading {how.tool}'s output took more than {exc.timeout:g} s")
            except (OSError, ValueError, KeyError, IndexError, subprocess.SubprocessError) as exc:
                return prof.not_profiled(f"{how.tool}'s output could not be read: {exc}")
            files = [case.benchmark.file, *getattr(case.benchmark, "extra_files", [])]
            files += [f for f in map(lambda f: in_revision(prep, f), files) if f]
            name = case.benchmark.name
            is_own = (lambda f: name in f.name or f.name in how.own_names) if how.own_by_name else None
            collapsed, own = prof.reduce(stacks, [f for f in files if f], how.harness, how.in_run, is_own)
            if not collapsed:
                return prof.not_profiled(f"{how.tool} took no sample in {calls} call(s)")
            kept_raw = kept_collapsed = None
            if self.out_dir is not None:
                self.out_dir.mkdir(parents=True, exist_ok=True)
                slug = case_slug(case)
                kept_raw = self.out_dir / f"{slug}.raw{raw.suffix or '.txt'}"
                kept_raw.write_bytes(raw.read_bytes())
                kept_collapsed = self.out_dir / f"{slug}.collapsed"
                kept_collapsed.write_text(prof.to_collapsed(collapsed))
            return prof.record(how.tool, calls, collapsed, own, kept_raw, kept_collapsed,
                               self.clock() - started, how.note)

    def _launch(self, case: Case, spec) -> int:
        """Load, set up, pilot, the profiled run, teardown, bye; the number of calls profiled."""
        paths = [case.benchmark.file] if case.benchmark.file in spec.load_paths else list(spec.load_paths)
        per_iteration = bool(case.benchmark.iteration_setup)  # one call per iteration then
        shape = (lambda n: (1, n)) if per_iteration else (lambda n: (n, 1))
        worker = WorkerProcess(spec, connect_timeout=max(self.timeout, 30.0))
        try:
            worker.load(paths, spec.root, self.timeout)
            worker.setup(case.benchmark.id, case.param_indices, self.timeout)
            n = 1
            for _ in range(DEFAULT.profile.pilot_steps_max):
                t = worker.run("pilot", *shape(n), self.timeout)
                took = sum(t.ns) / 1e9
                if took >= DEFAULT.profile.pilot_min_s:
                    break
                n *= 10
            calls = max(1, math.ceil(n * self.seconds / max(took, 1e-9)))
            # sized to last `seconds` at the pilot's pace: a loaded machine may stretch it several
            # times (a 30-second Node profile timed out at the job's 60-second reply limit)
            worker.run("workload", *shape(calls), max(self.timeout, DEFAULT.profile.run_timeout_factor * self.seconds))
            worker.teardown(self.timeout)
            worker.request("bye", self.timeout)
            worker.proc.wait(timeout=self.timeout)  # a profiler that writes at exit has written
        finally:
            worker.close()
        return calls
