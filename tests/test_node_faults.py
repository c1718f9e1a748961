"""Faults in Node.js benchmarks fail alone, with their reason, and the worker or the host survives:
throws, rejections, promises that never settle, process.exit, printing, heap exhaustion, syntax errors
and import-time failures (driven over protocol v2, as the host would)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

# workerkit before perflab: it puts the source tree on sys.path when perflab is not installed
from workerkit import T, case_runner, installed_runtimes

from perflab.engine.worker import BenchmarkError, WorkerProcess
from perflab.errors import WorkerFailure
from perflab.toolchains.node import NodeToolchain

TOOLCHAIN = NodeToolchain()
RUNTIMES, pytestmark = installed_runtimes(TOOLCHAIN, "no Node.js runtime")

FAULTS = """import { bench } from 'perflab';
bench('throws', () => { throw new TypeError('bad input'); });
bench('rejects', async () => { throw new RangeError('async boom'); });
bench('hangs', () => new Promise(() => {}));
bench('exits', () => { process.exit(3); });
bench('prints', () => { console.log('hello from the benchmark'); return 1; });
bench('oom', () => { const keep = []; for (;;) keep.push(new Array(1e5).fill(1.5)); });
let armed = true;
bench('stray', () => { if (armed) { armed = false; setTimeout(() => { throw new Error('late failure'); }, 0); } });
bench('setupFails', () => 1, { setup: () => { throw new Error('no fixture'); } });
bench('fine', () => 42);
"""


def launch(files, tmp_path, runtime=None) -> WorkerProcess:
    spec = TOOLCHAIN.prepare(runtime or RUNTIMES[0], [Path(f) for f in files], tmp_path)
    return WorkerProcess(spec)


@pytest.fixture
def faults(tmp_path):
    f = tmp_path / "faults.bench.mjs"
    f.write_text(FAULTS)
    return f


def start(faults, tmp_path, runtime=None) -> WorkerProcess:
    w = launch([faults], tmp_path, runtime)
    loaded = w.request("load", T, paths=[str(faults)], root=str(tmp_path))
    assert loaded["errors"] == [] and len(loaded["benchmarks"]) == 9
    return w


run_case = case_runner("faults")


def assert_still_works(w):
    assert len(run_case(w, "fine")["ns"]) == 2


def test_throw_and_reject_fail_alone(faults, tmp_path):
    w = start(faults, tmp_path)
    try:
        with pytest.raises(BenchmarkError) as e:
            run_case(w, "throws")
        assert e.value.kind == "exception" and str(e.value) == "TypeError: bad input"
        assert e.value.file == str(faults) and e.value.line == 2
        with pytest.raises(BenchmarkError) as e:
            run_case(w, "rejects")
        assert e.value.kind == "exception" and str(e.value) == "RangeError: async boom"
        assert e.value.line == 3
        with pytest.raises(BenchmarkError) as e:
            w.request("setup", T, benchmark="faults.setupFails", params={})
        assert "setup failed" in str(e.value) and "no fixture" in str(e.value)
        assert_still_works(w)
    finally:
        w.close()


def test_process_exit_is_an_error_not_an_exit(faults, tmp_path):
    w = start(faults, tmp_path)
    try:
        with pytest.raises(BenchmarkError) as e:
            run_case(w, "exits")
        assert "process.exit(3)" in str(e.value) and e.value.line == 5
        assert w.proc.poll() is None
        assert_still_works(w)
    finally:
        w.close()


def test_printing_cannot_corrupt_the_protocol(faults, tmp_path):
    w = start(faults, tmp_path)
    try:
        assert len(run_case(w, "prints", invocations=160)["ns"]) == 2
        assert w.output_bytes() > 160 * len("hello from the benchmark")
        assert_still_works(w)
    finally:
        w.close()


def test_stray_exception_is_charged_to_the_request(faults, tmp_path):
    w = start(faults, tmp_path)
    try:
        with pytest.raises(BenchmarkError) as e:
            run_case(w, "stray", invocations=1)
            run_case(w, "fine")  # the timer may fire only once the event loop turns
        assert "late failure" in str(e.value)
        assert_still_works(w)
    finally:
        w.close()


def test_never_settling_promise_times_out_on_the_host(faults, tmp_path):
    w = start(faults, tmp_path)
    try:
        with pytest.raises(WorkerFailure) as e:
            run_case(w, "hangs", timeout=2)
        assert "timed out" in str(e.value)
        assert w.proc.poll() is not None  # the host killed it
    finally:
        w.close()
    w = start(faults, tmp_path)  # the next launch is unaffected
    try:
        assert_still_works(w)
    finally:
        w.close()


def test_heap_exhaustion_fails_the_case_with_its_reason(faults, tmp_path):
    small = dataclasses.replace(RUNTIMES[0], flags=("--max-old-space-size=48",))
    w = start(faults, tmp_path, small)
    try:
        with pytest.raises(WorkerFailure) as e:
            run_case(w, "oom", invocations=1, timeout=120)
        # Node prints the reason, then a native backtrace that pushes it out of the stderr tail:
        # the host finds the fatal line anywhere in stderr and puts it in the reason itself
        assert "heap out of memory" in e.value.reason
    finally:
        w.close()
    w = start(faults, tmp_path, small)
    try:
        assert_still_works(w)
    finally:
        w.close()


def test_bad_files_fail_alone_with_file_and_line(tmp_path):
    good = tmp_path / "good.bench.mjs"
    good.write_text("import { bench } from 'perflab';\nbench('ok', () => 1);\n")
    syntax = tmp_path / "syntax.bench.mjs"
    syntax.write_text("import { bench } from 'perflab';\n\nbench('x', () => { return 1 +; });\n")
    throws = tmp_path / "throws.bench.js"
    throws.write_text("import { bench } from 'perflab';\nbench('y', () => 1);\nundefinedThing.call();\n")
    missing = tmp_path / "missing.bench.mjs"
    missing.write_text("import { nope } from 'not-a-package';\n")
    badparams = tmp_path / "badparams.bench.mjs"
    badparams.write_text("import { bench } from 'perflab';\nbench('z', () => 1, { params: { n: [] } });\n")
    files = [syntax, good, throws, missing, badparams]
    w = launch(files, tmp_path)
    try:
        loaded = w.request("load", T, paths=[str(f) for f in files], root=str(tmp_path))
        assert [b["id"] for b in loaded["benchmarks"]] == ["good.ok"]
        errors = {Path(e["file"]).name: e for e in loaded["errors"]}
        assert set(errors) == {"syntax.bench.mjs", "throws.bench.js", "missing.bench.mjs", "badparams.bench.mjs"}
        assert errors["syntax.bench.mjs"]["line"] == 3 and "SyntaxError" in errors["syntax.bench.mjs"]["message"]
        assert errors["throws.bench.js"]["line"] == 3 and "ReferenceError" in errors["throws.bench.js"]["message"]
        assert "not-a-package" in errors["missing.bench.mjs"]["message"]
        assert errors["badparams.bench.mjs"]["line"] == 2
        assert all(e["kind"] == "load" for e in loaded["errors"])
        w.request("setup", T, benchmark="good.ok", params={})
        assert len(w.request("run", T, stage="workload", invocations=16, iterations=1)["ns"]) == 1
    finally:
        w.close()


@pytest.mark.parametrize("rt", RUNTIMES, ids=[r.name for r in RUNTIMES])
def test_typescript_syntax_error_has_file_and_line(tmp_path, rt):
    bad = tmp_path / "bad.bench.ts"
    bad.write_text("import { bench } from 'perflab';\nconst n: number = 1;\nbench('x', () => n +);\n")
    good = tmp_path / "good.bench.ts"
    good.write_text("import { bench } from 'perflab';\nconst n: number = 2;\nbench('ok', (): number => n * 2);\n")
    w = launch([bad, good], tmp_path, rt)
    try:
        loaded = w.request("load", T, paths=[str(bad), str(good)], root=str(tmp_path))
        assert [b["id"] for b in loaded["benchmarks"]] == ["good.ok"]
        [err] = loaded["errors"]
        assert err["file"] == str(bad) and err["line"] == 3, err
    finally:
        w.close()
