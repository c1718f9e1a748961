"""The C/C++ worker (workers/cpp/perflab.hpp) driven over protocol v2 by the host: conformance vectors per
compiler, the toolchain (compilers as runtimes, flags, compile errors, missing compilers), faults that must
fail alone (throw, abort, segfault, endless loop, printing), C benchmarks, the dead-code trap and code size."""
from __future__ import annotations

import dataclasses
import functools
import json
import statistics
import subprocess

import pytest

# workerkit before perflab: it puts the source tree on sys.path when perflab is not installed
import workerkit
from workerkit import (REPO, T, builds_before_and_after_editing, case_runner, installed_runtimes, perflab_cli,
                       preferred, prepare_file)
from workerkit import private_cache  # noqa: F401 (autouse: builds go to a temporary perflab cache)

from perflab.conformance import VECTORS, run_vector
from perflab.engine.worker import BenchmarkError
from perflab.errors import PrepareError, WorkerFailure
from perflab.model import Runtime
from perflab.toolchains.cpp import CppToolchain, is_bench_name

FIXTURE = REPO / "protocol" / "fixtures" / "cpp"
EXAMPLES = REPO / "examples" / "cpp"

TC = CppToolchain()
RUNTIMES, pytestmark = installed_runtimes(TC, "no C++ compiler")

FAULTS = r'''#include "perflab.hpp"
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

PERFLAB_BENCH(fine) { perflab::do_not_optimize(42); }
PERFLAB_BENCH(throws) { throw std::invalid_argument("bad input"); }
PERFLAB_BENCH(throws_int) { throw 7; }
PERFLAB_BENCH(setup_throws, perflab::setup([](perflab::State&) { throw std::runtime_error("no fixture"); })) {}
PERFLAB_BENCH(aborts) { std::abort(); }
static int* volatile nowhere = nullptr;
PERFLAB_BENCH(segfaults) { *nowhere = 1; }
static volatile bool forever = true;
PERFLAB_BENCH(loops) { while (forever) perflab::clobber_memory(); }
PERFLAB_BENCH(prints) { std::printf("{\"v\":1,\"id\":99,\"type\":\"samples\"}\n"); std::fflush(stdout); }
static long long trap_n = 2000;
PERFLAB_BENCH(trap) {
    unsigned long long s = 0;
    for (long long i = 0; i < trap_n; ++i) s += (unsigned long long)(i * i) ^ (s >> 3);
    perflab::do_not_optimize(s);
}
PERFLAB_BENCH(noop) {}
'''


@pytest.fixture(scope="module")
def rt() -> Runtime:
    return preferred(RUNTIMES, lambda r: r.name.startswith("gcc"))


@pytest.fixture(scope="module")
def faults(rt, tmp_path_factory):
    return prepare_file(TC, rt, tmp_path_factory.mktemp("faults") / "faults_bench.cpp", FAULTS)


worker = functools.partial(workerkit.worker, load=True)
run_case = case_runner("faults_bench")


# -- conformance -----------------------------------------------------------------------------

@pytest.fixture(scope="module", params=[r.name for r in RUNTIMES])
def fixture_spec(request, tmp_path_factory):
    runtime = next(r for r in RUNTIMES if r.name == request.param)
    return TC.prepare(runtime, TC.find_sources(FIXTURE), tmp_path_factory.mktemp("work"))


@pytest.mark.parametrize("vector", sorted(VECTORS.glob("*.json")), ids=lambda p: p.stem)
def test_conformance_vectors(fixture_spec, vector):
    run_vector(fixture_spec, json.loads(vector.read_text()))


def test_diagnose_reports_allocations_and_code_size(rt, tmp_path):
    spec = TC.prepare(rt, TC.find_sources(FIXTURE), tmp_path)
    with worker(spec) as w:
        assert w.hello.language == "cpp" and {"alloc", "allocs", "codesize"} <= set(w.hello.capabilities)
        w.request("setup", T, benchmark="conformance_bench.sized", params={"n": 2})
        d = w.request("run", T, stage="diagnose", invocations=10, iterations=2)
        assert d["allocs"] == 20 and d["alloc_bytes"] == 20 * 100 * 8
        assert isinstance(d["code_size"], int) and d["code_size"] > 0
        w.request("teardown", T)
        w.request("setup", T, benchmark="conformance_bench.noop", params={})
        d = w.request("run", T, stage="diagnose", invocations=10, iterations=1)
        assert d["allocs"] == 0 and 0 < d["code_size"] <= 16


# -- faults ----------------------------------------------------------------------------------

def test_exceptions_fail_alone_with_type_and_message(faults):
    f, spec = faults
    with worker(spec) as w:
        with pytest.raises(BenchmarkError) as e:
            run_case(w, "throws")
        assert e.value.kind == "exception" and str(e.value) == "std::invalid_argument: bad input"
        assert e.value.file == str(f) and e.value.line == 7
        with pytest.raises(BenchmarkError) as e:
            run_case(w, "throws_int")
        assert e.value.kind == "exception" and "int" in str(e.value)
        with pytest.raises(BenchmarkError) as e:
            w.request("setup", T, benchmark="faults_bench.setup_throws", params={})
        assert e.value.kind == "exception" and "no fixture" in str(e.value)
        assert len(run_case(w, "fine")["ns"]) == 2


@pytest.mark.parametrize("name,signal", [("aborts", "SIGABRT"), ("segfaults", "SIGSEGV")])
def test_crash_fails_the_case_with_the_signal(faults, name, signal):
    _, spec = faults
    with worker(spec) as w:
        with pytest.raises(WorkerFailure) as e:
            run_case(w, name)
        assert signal in str(e.value)


def test_endless_loop_times_out_on_the_host(faults):
    _, spec = faults
    with worker(spec) as w:
        with pytest.raises(WorkerFailure) as e:
            run_case(w, "loops", timeout=2)
        assert "timed out" in str(e.value)


def test_printing_cannot_corrupt_the_protocol(faults):
    _, spec = faults
    with worker(spec) as w:
        assert len(run_case(w, "prints", invocations=3)["ns"]) == 2
        assert len(run_case(w, "fine")["ns"]) == 2


def test_dead_code_trap_is_measured(faults):
    _, spec = faults
    with worker(spec) as w:
        work = run_case(w, "trap", invocations=200, iterations=5)["ns"]
        over = w.request("run", T, stage="overhead", invocations=200, iterations=5)["ns"]
        assert statistics.median(work) > 20 * statistics.median(over)


def test_cli_run_faults_fail_alone(faults, rt, tmp_path):
    f, _ = faults
    out = subprocess.run([*perflab_cli(), "run", str(f), "--runtimes", f"{rt.name}:-O2", "--job", "dry",
                          "--timeout", "5", "--store", "none", "--out", str(tmp_path), "-e", "json"],
                         capture_output=True, text=True, timeout=600)
    files = list(tmp_path.glob("*.json"))
    assert files, out.stdout[-3000:] + out.stderr[-3000:]
    status = {c["benchmark"]["name"]: c["status"] for c in json.loads(files[0].read_text())["cases"]}
    for name in ("throws", "throws_int", "setup_throws", "aborts", "segfaults", "loops"):
        assert status[name] != "ok", status
    for name in ("fine", "prints", "trap", "noop"):
        assert status[name] == "ok", status


# -- toolchain -------------------------------------------------------------------------------

def test_bench_file_names():
    assert is_bench_name("x_bench.cpp") and is_bench_name("bench_x.c") and is_bench_name("bench_y.cc")
    assert not is_bench_name("x.cpp") and not is_bench_name("bench.cpp") and not is_bench_name("x_bench.h")


def test_runtimes_are_compilers():
    for r in RUNTIMES:
        assert r.name.startswith(("gcc", "clang")) and r.name[-1].isdigit() and r.version[0].isdigit()


def test_c_benchmarks_and_examples(rt, tmp_path):
    before = sorted(p.relative_to(EXAMPLES) for p in EXAMPLES.rglob("*"))
    spec = TC.prepare(dataclasses.replace(rt, flags=("-O1",)), TC.find_sources(EXAMPLES), tmp_path)
    assert sorted(p.relative_to(EXAMPLES) for p in EXAMPLES.rglob("*")) == before
    with worker(spec) as w:
        assert len(run_case(w, "fnv1a", group="bench_checksum")["ns"]) == 2
        d = w.request("run", T, stage="diagnose", invocations=2, iterations=1)
        assert d["code_size"] > 0


def test_flags_build_separate_binaries(rt, tmp_path):
    sources = TC.find_sources(FIXTURE)
    a = TC.prepare(dataclasses.replace(rt, flags=("-O2",)), sources, tmp_path)
    b = TC.prepare(dataclasses.replace(rt, flags=("-O0", "-g")), sources, tmp_path)
    assert a.argv != b.argv


def test_compile_error_names_file_and_line(rt, tmp_path):
    """A file that does not compile fails alone: its benchmarks (read from its text) each fail with the
    compiler's first error, at its line."""
    bad = tmp_path / "bad_bench.cpp"
    bad.write_text('#include "perflab.hpp"\n\nPERFLAB_BENCH(x) {\n    undefined_thing();\n}\n')
    spec = TC.prepare(rt, [bad], tmp_path)
    with worker(spec) as w:
        reply = w.request("load", T, paths=spec.load_paths, root=spec.root)
    assert reply["benchmarks"] == []
    [err] = reply["errors"]
    assert err["benchmark"]["id"] == "bad_bench.x" and err["file"] == str(bad) and err["line"] == 4
    assert "bad_bench.cpp:4:" in err["message"] and "undefined_thing" in err["message"]


def test_missing_compiler_is_a_clear_error(tmp_path):
    ghost = Runtime(name="gcc99", language="cpp", version="99.1", executable="/nonexistent/g++-99")
    with pytest.raises(PrepareError) as e:
        TC.prepare(ghost, TC.find_sources(FIXTURE), tmp_path)
    assert "gcc99" in str(e.value) and "not installed" in str(e.value)


def test_c_driver_beside_each_cxx_driver(tmp_path):
    from perflab.runtimes.cpp import c_compiler
    for cxx, cc in [("g++-12", "gcc-12"), ("clang++-14", "clang-14"), ("clang++", "clang"), ("g++", "gcc")]:
        (tmp_path / cc).write_text("")
        assert c_compiler(str(tmp_path / cxx)) == str(tmp_path / cc)


def test_a_runtime_that_fails_to_build_fails_alone(rt, tmp_path):
    out = subprocess.run([*perflab_cli(), "run", str(FIXTURE), "--runtimes", f"{rt.name}:-O2,{rt.name}:-fno-such-flag",
                          "--filter", "*add", "--job", "dry", "--store", "none", "--out", str(tmp_path), "-e", "json"],
                         capture_output=True, text=True, timeout=600)
    cases = json.loads(next(tmp_path.glob("*.json")).read_text())["cases"]
    status = {c["runtime"]["label"]: c for c in cases}
    assert status[f"{rt.name}:-O2"]["status"] == "ok"
    bad = status[f"{rt.name}:-fno-such-flag"]
    assert bad["status"] != "ok" and "no-such-flag" in (bad["error"] or "") + bad.get("error_detail", ""), out.stderr


def test_a_shared_header_included_by_relative_path_rebuilds_when_it_changes(rt, tmp_path):
    """suites/seeds/common/cpp/seed_executor.hpp is included by benchmarks in other folders: editing it
    must give a new build, not the cached binary."""
    first, second = builds_before_and_after_editing(
        TC, rt, tmp_path, ("helper.hpp", "inline int helper() { return 1; }\n",
                           "inline int helper() { return 2; }  // changed\n"),
        ("bench_shared.cpp", '#include <perflab.hpp>\n#include "../common/helper.hpp"\n'
                             "PERFLAB_BENCH(uses_helper) { perflab::do_not_optimize(helper()); }\n"))
    assert first != second
