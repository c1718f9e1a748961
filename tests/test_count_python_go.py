"""Python and Go counted under real valgrind (`--measure instructions`): each worker's marker gives exactly
one callgrind dump per `run`, the net count per operation doubles with the work, two launches of the
same case give the same count, and a benchmark that fails under the count still says why.

Each language's launches are shared by its tests (module fixtures): one launch per case costs seconds
under valgrind. The per-op net count is the host's: (Ir(workload) - Ir(overhead)) / invocations."""
from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

# workerkit before perflab: it puts the source tree on sys.path when perflab is not installed
from workerkit import REPO
from workerkit import private_cache  # noqa: F401 (autouse: builds go to a temporary perflab cache)

from perflab.engine.worker import BenchmarkError
from perflab.measures.callgrind import NotCountable, count_runs
from perflab.model import Runtime
from perflab.runtimes.python import describe
from perflab.toolchains.go import GoToolchain
from perflab.toolchains.python import PythonToolchain

# the benchmarks counted: work(n) with n = [N, 2N], and one that fails
WORKLOADS = REPO / "bench" / "workloads" / "count"
INVOCATIONS = 16
# one warmup (CPython 3.11+ specialises its bytecode on the first run), then overhead and workload
RUNS = [("warmup", INVOCATIONS, 1), ("overhead", INVOCATIONS, 1), ("workload", INVOCATIONS, 1)]


def per_op(dumps: list[dict[str, int]]) -> float:
    assert len(dumps) == len(RUNS)
    overhead, workload = dumps[1]["Ir"], dumps[2]["Ir"]
    return (workload - overhead) / INVOCATIONS


# ------------------------------------------------------------------------------------------------
# Python
# ------------------------------------------------------------------------------------------------



def python_runtime():
    """python3 on PATH (or this interpreter), with the reason it cannot be counted if so."""
    rt = describe(shutil.which("python3") or sys.executable)
    if rt is None:
        return None, "no Python 3.8+ runtime"
    try:
        return rt, PythonToolchain().count_profile(rt)
    except NotCountable as exc:
        return rt, str(exc)


def python_counted(tmp: Path) -> "Counted":
    rt, profile = python_runtime()
    if isinstance(profile, str):
        pytest.skip(profile)
    src = WORKLOADS / "python" / "bench_count.py"
    tc = PythonToolchain()
    spec = tc.count_spec(tc.prepare(rt, [src], tmp), rt, profile)  # as the host launches it
    return Counted(spec, profile, tmp, "bench_count.bench_work", "bench_count.bench_fails")


def test_a_stripped_interpreter_is_not_countable_and_says_why(tmp_path):
    exe = tmp_path / "bin" / "python3.11"
    exe.parent.mkdir()
    exe.write_bytes(b"\x7fELF" + b"\0PyObject_Call\0" * 100)  # exported names only
    rt = Runtime(name="python3.11", language="python", version="3.11.2", executable=str(exe),
                 implementation="CPython")
    with pytest.raises(NotCountable, match="python3.11 .* is stripped.*_PyEval_CallTracing"):
        PythonToolchain().count_profile(rt)
    # its libpython (pyenv's layout) holds the marker: countable
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "libpython3.11.so.1.0").write_bytes(b"x\0_PyEval_CallTracing\0y")
    assert PythonToolchain().count_profile(rt).marker == "_PyEval_CallTracing"


def test_pypy_is_not_countable_and_says_why():
    pypy = shutil.which("pypy3")
    rt = describe(pypy) if pypy else None
    if rt is None:
        pytest.skip("no PyPy installed")
    with pytest.raises(NotCountable, match="PyPy cannot be counted: .*stripped"):
        PythonToolchain().count_profile(rt)


# ------------------------------------------------------------------------------------------------
# Go
# ------------------------------------------------------------------------------------------------

def go_counted(tmp: Path) -> "Counted":
    tc = GoToolchain()
    runtimes = [r for r in tc.discover_runtimes() if r.installed and r.executable]
    if not runtimes:
        pytest.skip("no Go toolchain installed")
    rt = runtimes[-1]
    profile = tc.count_profile(rt)
    spec = tc.count_spec(tc.prepare(rt, tc.find_sources(WORKLOADS / "go" / "work"), tmp), rt, profile)
    return Counted(spec, profile, tmp, "example.com/countwork/work.BenchmarkWork",
                   "example.com/countwork/work.BenchmarkFails")


# ------------------------------------------------------------------------------------------------
# Both: the same checks, each language's own bounds
# ------------------------------------------------------------------------------------------------

@dataclass
class Counted:
    spec: object
    profile: object
    tmp: Path
    work: str   # a benchmark with n = [N, 2N]
    fails: str  # a benchmark that raises / panics
    runs: dict = field(default_factory=dict)
    language: str = ""


LANGUAGES = {
    # language: (how to set it up, the marker, empty loop at most this share of the workload's count,
    #            two launches agree within)
    "python": (python_counted, "_PyEval_CallTracing", 1 / 20, 0.001),
    "go": (go_counted, "perflab.dev/go/perflab.measuredRegion", 1 / 1000, 0.0001),
}


@pytest.fixture(scope="module", params=sorted(LANGUAGES))
def counted(request, tmp_path_factory):
    """One launch per case (N, 2N, N again) of the language's work benchmark."""
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed (Debian package 'valgrind')")
    setup = LANGUAGES[request.param][0]
    c = setup(tmp_path_factory.mktemp(f"count-{request.param}"))
    c.runs = {name: count_runs(c.spec, c.profile, c.tmp / name, c.work, params, RUNS)
              for name, params in {"n": {"n": 0}, "2n": {"n": 1}, "n again": {"n": 0}}.items()}
    c.language = request.param
    return c


def test_marker_gives_one_dump_per_run_and_counts_only_the_loop(counted):
    _, marker, empty_share, _ = LANGUAGES[counted.language]
    assert counted.profile.marker == marker
    dumps = counted.runs["n"]
    assert len(dumps) == len(RUNS)
    # the empty loop is a small fraction of the workload: start-up, loading, setup (and Go's
    # runtime.GC() before each round) are not counted
    assert 0 < dumps[1]["Ir"] < dumps[2]["Ir"] * empty_share


def test_twice_the_work_counts_twice(counted):
    ratio = per_op(counted.runs["2n"]) / per_op(counted.runs["n"])
    assert ratio == pytest.approx(2.0, rel=0.005)


def test_two_launches_count_the_same(counted):
    agree = LANGUAGES[counted.language][3]
    assert per_op(counted.runs["n again"]) == pytest.approx(per_op(counted.runs["n"]), rel=agree)


def test_benchmark_that_fails_under_the_count_says_why(counted):
    with pytest.raises(BenchmarkError, match="boom under the count"):
        count_runs(counted.spec, counted.profile, counted.tmp / "fails", counted.fails, {}, RUNS)


def test_pinned_environment(counted):
    env = counted.profile.env
    if counted.language == "python":
        assert env["PYTHONHASHSEED"] == "0"
    else:
        assert "asyncpreemptoff=1" in env["GODEBUG"] and env["GOMAXPROCS"] == "1"
        assert env["GOGC"] == "off"


@pytest.mark.parametrize("counted", ["go"], indirect=True)
def test_go_native_api_is_counted_like_testing_b(counted):
    native = count_runs(counted.spec, counted.profile, counted.tmp / "native",
                        "example.com/countwork/work.NativeWork", {"n": 0}, RUNS)
    # the same loop as BenchmarkWork/n=1000: the same count per operation, within its loop's shape
    assert per_op(native) == pytest.approx(per_op(counted.runs["n"]), rel=0.01)
