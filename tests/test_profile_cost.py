"""What a profile costs beside its case's figures: reading a native profile never waits minutes for
perf to name inlined functions, a long profiled run is awaited long enough, and under --rev the
benchmark's frames are told by the file the worker loaded. Deterministic fakes only."""
from __future__ import annotations

import subprocess
from types import SimpleNamespace

from fakes import make_case
from perflab.engine import profile as engine_profile
from perflab.measures.profile import Frame, ProfileHow
from perflab.model import Runtime
from perflab.toolchains import profiling
from perflab.toolchains.base import LaunchSpec


class _FakeWorker:
    """A worker whose calls cost 1 ms each in the pilot and 3 ms in the profiled run."""
    stages: list = []

    def __init__(self, spec, connect_timeout):
        self.proc = SimpleNamespace(wait=lambda timeout: 0)

    def load(self, paths, root, timeout):
        pass

    def setup(self, bench_id, params, timeout):
        pass

    timeouts: list = []

    def run(self, stage, invocations, iterations, timeout):
        self.stages.append((stage, invocations))
        self.timeouts.append(timeout)
        per_call = 3e6 if stage == "workload" else 1e6
        return SimpleNamespace(ns=[invocations * per_call] * iterations)

    def teardown(self, timeout):
        pass

    def request(self, what, timeout):
        pass

    def close(self):
        pass


PERF_SCRIPT = """perflab-bench 100 \n\t    55d0 hot_helper+0x10 (/tmp/perflab-bench)\n\t    55e0 Planted+0x20 (/tmp/perflab-bench)\n\n"""


def _native_how(tmp_path, monkeypatch, runs):
    monkeypatch.setattr(profiling, "perf_usable", lambda: "")
    monkeypatch.setattr(profiling.subprocess, "run", runs)
    rt = Runtime(name="gcc12", language="cpp", version="12", executable="/usr/bin/g++")
    how = profiling.native_how(rt, LaunchSpec(argv=["/tmp/perflab-bench"]), tmp_path)
    (tmp_path / "perf.data").write_bytes(b"x")
    return how


def test_perf_script_that_takes_too_long_naming_inlined_functions_runs_again_without(tmp_path, monkeypatch):
    calls = []

    def runs(argv, **kw):
        calls.append((argv, kw.get("timeout")))
        if "--no-inline" not in argv:
            raise subprocess.TimeoutExpired(argv, kw["timeout"])
        return SimpleNamespace(returncode=0, stdout=PERF_SCRIPT, stderr="")

    how = _native_how(tmp_path, monkeypatch, runs)
    raw, stacks = how.read(tmp_path)
    assert [a[-1] for a, _ in calls] == ["comm,tid,ip,sym,dso", "--no-inline"]
    assert calls[0][1] == profiling.PERF_INLINE_TIMEOUT_S
    assert [f.name for f in stacks[0][0]][-2:] == ["Planted", "hot_helper"]
    assert "Inlined functions are not shown" in how.note


def test_perf_script_in_time_keeps_inlined_functions_and_no_note(tmp_path, monkeypatch):
    how = _native_how(tmp_path, monkeypatch,
                      lambda argv, **kw: SimpleNamespace(returncode=0, stdout=PERF_SCRIPT, stderr=""))
    how.read(tmp_path)
    assert how.note == ""


def test_a_profiler_output_that_cannot_be_read_in_time_is_no_profile_not_a_crash(tmp_path, monkeypatch):
    monkeypatch.setattr(engine_profile, "WorkerProcess", _FakeWorker)
    case = make_case("b")

    def read(d):
        raise subprocess.TimeoutExpired(["perf", "script"], 600)

    how = ProfileHow(spec=SimpleNamespace(load_paths=[], root=tmp_path), tool="perf", read=read,
                     harness=lambda f: False)
    prep = SimpleNamespace(runtime=case.runtime, toolchain=SimpleNamespace(profile_how=lambda rt, spec, d: how),
                           spec=None)
    rec = engine_profile.Profiler({case.runtime.label: prep}, 30, None, seconds=0.1).profile(case)
    assert rec == {"error": "no profile: reading perf's output took more than 600 s"}


def test_under_rev_the_frames_of_the_file_the_worker_loaded_are_the_benchmarks(tmp_path, monkeypatch):
    """`run --rev` names a benchmark's file by its path in the user's tree, while the worker loads
    the revision's copy: the profile's frames name that copy, and every stack was folded into
    [perflab harness] (the planted helper of bench/profiles.py was invisible in Python, Node, Go)."""
    import dataclasses
    monkeypatch.setattr(engine_profile, "WorkerProcess", _FakeWorker)
    home, there = tmp_path / "repo", tmp_path / "scratch" / "rev-b"
    base = make_case("planted")
    case = dataclasses.replace(base, benchmark=dataclasses.replace(base.benchmark, file=str(home / "bench_p.py")))
    loaded = str(there / "bench_p.py")
    stack = (Frame("loop", "/perflab/worker.py"), Frame("bench_planted", loaded), Frame("hot_helper", loaded))
    raw = tmp_path / "raw.txt"
    raw.write_text("")
    how = ProfileHow(spec=SimpleNamespace(load_paths=[loaded], root=there), tool="fake",
                     read=lambda d: (raw, [(stack, 7)]), harness=lambda f: f.file.startswith("/perflab/"))
    prep = SimpleNamespace(runtime=case.runtime, toolchain=SimpleNamespace(profile_how=lambda rt, spec, d: how),
                           spec=None, revision_tree=(home, there))
    rec = engine_profile.Profiler({case.runtime.label: prep}, 30, None, seconds=0.1).profile(case)
    assert rec["stacks"] == [["bench_planted (bench_p.py);hot_helper (bench_p.py)", 7]]
    assert engine_profile.in_revision(SimpleNamespace(), str(home / "x.py")) == ""


def test_a_long_profiled_run_is_awaited_longer_than_the_jobs_reply_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(engine_profile, "WorkerProcess", _FakeWorker)
    _FakeWorker.stages, _FakeWorker.timeouts = [], []
    case = make_case("b")
    raw = tmp_path / "raw.txt"
    raw.write_text("")
    how = ProfileHow(spec=SimpleNamespace(load_paths=[], root=tmp_path), tool="fake",
                     read=lambda d: (raw, [((Frame("b", "/x/b.py"),), 5)]), harness=lambda f: False)
    prep = SimpleNamespace(runtime=case.runtime, toolchain=SimpleNamespace(profile_how=lambda rt, spec, d: how),
                           spec=None)
    engine_profile.Profiler({case.runtime.label: prep}, 60, None, seconds=30.0).profile(case)
    assert _FakeWorker.timeouts[:-1] == [60, 60, 60] and _FakeWorker.timeouts[-1] == 300.0
