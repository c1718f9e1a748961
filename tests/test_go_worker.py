"""The Go worker driven over protocol v2 by the host's WorkerProcess: the conformance fixture, ordinary
testing.B benchmarks (timers, sub-benchmarks, b.Loop), the native API, faults and the toolchain."""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

# workerkit before perflab: it puts the source tree on sys.path when perflab is not installed
from workerkit import REPO, worker, write
from workerkit import private_cache  # noqa: F401 (autouse: builds go to a temporary perflab cache)

from perflab.conformance import VECTORS, run_vector
from perflab.engine.worker import BenchmarkError
from perflab.errors import PrepareError, WorkerFailure
from perflab.model import Runtime
from perflab.toolchains.go import GoToolchain

FIXTURE = REPO / "protocol" / "fixtures" / "go"
EXAMPLES = REPO / "examples" / "go"

pytestmark = pytest.mark.skipif(shutil.which("go") is None, reason="no go on PATH")

TC = GoToolchain()


def path_runtime() -> Runtime:
    """The newest installed Go, or the one named by PERFLAB_GO_TEST_RUNTIME (e.g. go1.21)."""
    rts = [r for r in TC.discover_runtimes() if r.installed and r.executable]
    assert rts, "no installed Go runtime"
    wanted = os.environ.get("PERFLAB_GO_TEST_RUNTIME")
    if wanted:
        named = [r for r in TC.discover_runtimes() if r.name == wanted]
        assert named, f"unknown Go runtime {wanted}"
        return named[0] if named[0].installed else TC.provision(named[0])
    return rts[-1]


def go_minor(rt: Runtime) -> int:
    return int(rt.version.split(".")[1])


@pytest.fixture(scope="module")
def rt() -> Runtime:
    return path_runtime()


@pytest.fixture(scope="module")
def fixture_spec(rt, tmp_path_factory):
    return TC.prepare(rt, TC.find_sources(FIXTURE), tmp_path_factory.mktemp("work"))


def load(w, spec) -> dict[str, dict]:
    loaded = w.request("load", 120, paths=spec.load_paths, root=spec.root)
    assert loaded["errors"] == []
    return {b["id"]: b for b in loaded["benchmarks"]}


def by_name(benches: dict[str, dict], name: str) -> dict:
    found = [b for b in benches.values() if b["name"] == name]
    assert len(found) == 1, (name, list(benches))
    return found[0]


def run(w, stage="workload", invocations=100, iterations=3, timeout=60):
    return w.request("run", timeout, stage=stage, invocations=invocations, iterations=iterations)


def perflab_run(path: Path, out: Path, *args: str, timeout: float = 900):
    """`perflab run PATH ARGS` as a user runs it, writing its results to `out` (its history to a
    store in `out`, not the repository's)."""
    import subprocess
    import sys
    out.mkdir(parents=True, exist_ok=True)
    return subprocess.run([sys.executable, "-m", "perflab.cli", "run", str(path), *args, "-o", str(out)],
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PERFLAB_STORE": f"sqlite:///{out}/h.db"})


def make_module(root: Path, files: dict[str, str], module="example.com/perflabtest") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "go.mod").write_text(f"module {module}\n\ngo 1.21\n")
    for name, text in files.items():
        write(root / name, text)
    return root


# ---------------------------------------------------------------------------------------------
# conformance fixture
# ---------------------------------------------------------------------------------------------

def test_hello(fixture_spec, rt):
    with worker(fixture_spec) as w:
        h = w.hello
        assert h.language == "go"
        assert h.runtime["version"] == "go" + rt.version
        assert {"alloc", "allocs", "gc"} <= set(h.capabilities)
        assert h.unroll == 1
        assert h.clock_resolution_ns > 0


@pytest.mark.parametrize("vector", sorted(VECTORS.glob("*.json")), ids=lambda p: p.stem)
def test_conformance_vectors(fixture_spec, vector):
    run_vector(fixture_spec, json.loads(vector.read_text()))


def test_fixture_loads_the_five_benchmarks(fixture_spec):
    with worker(fixture_spec) as w:
        benches = load(w, fixture_spec)
    names = sorted(b["name"] for b in benches.values())
    assert names == ["add", "base", "boom", "noop", "sized"]
    for b in benches.values():
        assert b["id"].endswith(b["name"])
        assert b["group"] == "fixture"
        assert b["file"].endswith("fixture_test.go") and b["line"] > 0
    sized = by_name(benches, "sized")
    assert sized["params"] == [{"name": "n", "values": ["1", "10", "100"]}]
    base = by_name(benches, "base")
    assert base["baseline"] is True and base["ops_per_invoke"] == 4
    assert by_name(benches, "noop")["baseline"] is False


def test_fixture_stages(fixture_spec):
    with worker(fixture_spec) as w:
        benches = load(w, fixture_spec)
        for name in ("noop", "add", "base"):
            b = by_name(benches, name)
            assert w.request("setup", 30, benchmark=b["id"], params={})["type"] == "ready"
            for stage in ("pilot", "warmup", "overhead", "workload"):
                r = run(w, stage, invocations=1000, iterations=4)
                assert r["stage"] == stage and r["invocations"] == 1000 and len(r["ns"]) == 4
                assert all(isinstance(x, int) and x >= 0 for x in r["ns"])
            d = run(w, "diagnose", invocations=1000, iterations=2)
            # nothing but, rarely, a burst of stray runtime allocations (finalizers after runN's GC)
            assert d["type"] == "diagnostics" and d["allocs"] <= 16
            assert isinstance(d["gc"], list)
            assert w.request("teardown", 30)["type"] == "done"


def test_sized_parameters_select_the_sub_benchmark(fixture_spec):
    with worker(fixture_spec) as w:
        sized = by_name(load(w, fixture_spec), "sized")
        per_op = {}
        for idx, n in enumerate((1, 10, 100)):
            w.request("setup", 30, benchmark=sized["id"], params={"n": idx})
            d = run(w, "diagnose", invocations=200, iterations=1)
            # one make([]int, n) per op (the counters are process-wide, as for -benchmem: allow a
            # stray runtime allocation)
            assert 200 <= d["allocs"] <= 215
            assert d["alloc_bytes"] >= 200 * 8 * n
            per_op[n] = min(run(w, invocations=2000, iterations=5)["ns"]) / 2000
            w.request("teardown", 30)
    assert per_op[100] > per_op[1]


def test_boom_fails_alone_and_worker_stays_usable(fixture_spec):
    with worker(fixture_spec) as w:
        benches = load(w, fixture_spec)
        w.request("setup", 30, benchmark=by_name(benches, "boom")["id"], params={})
        with pytest.raises(BenchmarkError) as exc:
            run(w)
        assert exc.value.kind == "exception"
        assert "boom" in exc.value.reason
        assert exc.value.file.endswith("fixture_test.go") and exc.value.line > 0
        assert "goroutine" in exc.value.detail  # the stack trace
        w.request("teardown", 30)
        w.request("setup", 30, benchmark=by_name(benches, "add")["id"], params={})
        assert len(run(w)["ns"]) == 3


def test_protocol_errors(fixture_spec):
    with worker(fixture_spec) as w:
        benches = load(w, fixture_spec)
        with pytest.raises(BenchmarkError) as exc:
            run(w)
        assert exc.value.kind == "state"
        with pytest.raises(BenchmarkError) as exc:
            w.request("setup", 30, benchmark="nope", params={})
        assert exc.value.kind == "not_found"
        with pytest.raises(BenchmarkError) as exc:
            w.request("setup", 30, benchmark=by_name(benches, "sized")["id"], params={"n": 3})
        assert exc.value.kind == "not_found"
        with pytest.raises(BenchmarkError) as exc:
            w.request("setup", 30, benchmark=by_name(benches, "sized")["id"], params={})
        assert exc.value.kind == "not_found"
        w.request("setup", 30, benchmark=by_name(benches, "noop")["id"], params={})
        with pytest.raises(BenchmarkError) as exc:
            w.request("run", 30, stage="sprint", invocations=1, iterations=1)
        assert exc.value.kind == "protocol"
        with pytest.raises(BenchmarkError) as exc:
            w.request("run", 30, stage="workload", invocations=0, iterations=1)
        assert exc.value.kind == "protocol"
        assert len(run(w)["ns"]) == 3  # still usable
        assert w.request("bye", 10)["type"] == "done"
        assert w.proc.wait(timeout=10) == 0


def test_iteration_count_is_the_hosts(fixture_spec):
    """Time grows with invocations: the host's count is b.N, not go test's ramp-up."""
    with worker(fixture_spec) as w:
        sized = by_name(load(w, fixture_spec), "sized")
        w.request("setup", 30, benchmark=sized["id"], params={"n": 2})
        small = min(run(w, invocations=100, iterations=5)["ns"])
        large = min(run(w, invocations=10000, iterations=5)["ns"])
    assert large > 20 * small


# ---------------------------------------------------------------------------------------------
# ordinary testing.B benchmarks: timers, sub-benchmarks, b.Loop, metrics
# ---------------------------------------------------------------------------------------------

TIMERS = {
    "timers.go": "package timers\n",
    "timers_test.go": """
        package timers

        import (
            "testing"
            "time"
        )

        var sink int

        func BenchmarkResetTimer(b *testing.B) {
            time.Sleep(30 * time.Millisecond) // setup: excluded by ResetTimer
            b.ResetTimer()
            for i := 0; i < b.N; i++ {
                sink += i
            }
        }

        func BenchmarkStopTimer(b *testing.B) {
            for i := 0; i < b.N; i++ {
                b.StopTimer()
                time.Sleep(2 * time.Millisecond) // excluded
                b.StartTimer()
                sink += i
            }
        }

        func BenchmarkSleep(b *testing.B) {
            for i := 0; i < b.N; i++ {
                time.Sleep(time.Millisecond)
            }
        }

        func BenchmarkNested(b *testing.B) {
            for _, size := range []string{"small", "large"} {
                b.Run("size="+size, func(b *testing.B) {
                    for _, algo := range []string{"a", "b", "c"} {
                        b.Run("algo="+algo, func(b *testing.B) {
                            for i := 0; i < b.N; i++ {
                                sink += len(size) + len(algo)
                            }
                        })
                    }
                })
            }
        }

        func runSizes(b *testing.B) {
            for _, s := range []string{"x", "y"} {
                b.Run("s="+s, func(b *testing.B) {})
            }
        }

        func BenchmarkHelper(b *testing.B) {
            runSizes(b)
        }

        func BenchmarkIrregular(b *testing.B) {
            b.Run("first", func(b *testing.B) {})
            b.Run("second thing", func(b *testing.B) {
                b.Run("deep", func(b *testing.B) {})
            })
        }

        func BenchmarkParallel(b *testing.B) {
            b.RunParallel(func(pb *testing.PB) {
                x := 0
                for pb.Next() {
                    x++
                }
                _ = x
            })
        }

        func BenchmarkMetrics(b *testing.B) {
            b.SetBytes(1024)
            b.ReportAllocs()
            for i := 0; i < b.N; i++ {
                sink += len(make([]byte, 64+sink%2))
            }
            b.ReportMetric(42, "answers/op")
        }
    """,
}


@pytest.fixture(scope="module")
def timers_spec(rt, tmp_path_factory):
    root = make_module(tmp_path_factory.mktemp("timers") / "timers", TIMERS)
    return TC.prepare(rt, TC.find_sources(root), root)


def test_reset_and_stop_timer_are_honoured(timers_spec):
    with worker(timers_spec) as w:
        benches = load(w, timers_spec)
        w.request("setup", 30, benchmark=by_name(benches, "ResetTimer")["id"], params={})
        assert max(run(w, invocations=10, iterations=3)["ns"]) < 10_000_000  # the 30ms sleep is excluded
        w.request("teardown", 30)
        w.request("setup", 30, benchmark=by_name(benches, "StopTimer")["id"], params={})
        assert max(run(w, invocations=5, iterations=3)["ns"]) < 5_000_000  # 5 x 2ms excluded
        w.request("teardown", 30)
        w.request("setup", 30, benchmark=by_name(benches, "Sleep")["id"], params={})
        assert min(run(w, invocations=5, iterations=2)["ns"]) >= 5_000_000  # measured when not excluded


def test_sub_benchmark_axes(timers_spec):
    with worker(timers_spec) as w:
        benches = load(w, timers_spec)
        nested = by_name(benches, "Nested")
        assert nested["params"] == [{"name": "size", "values": ["small", "large"]},
                                    {"name": "algo", "values": ["a", "b", "c"]}]
        irregular = by_name(benches, "Irregular")
        assert irregular["params"] == [{"name": "case", "values": ["first", "second_thing/deep"]}]
        assert by_name(benches, "Helper")["params"] == [{"name": "s", "values": ["x", "y"]}]
        w.request("setup", 30, benchmark=nested["id"], params={"size": 1, "algo": 2})
        assert len(run(w)["ns"]) == 3
        w.request("teardown", 30)
        w.request("setup", 30, benchmark=irregular["id"], params={"case": 1})
        assert len(run(w)["ns"]) == 3


def test_run_parallel(timers_spec):
    with worker(timers_spec) as w:
        benches = load(w, timers_spec)
        w.request("setup", 30, benchmark=by_name(benches, "Parallel")["id"], params={})
        assert len(run(w, invocations=10000, iterations=3)["ns"]) == 3


def test_metrics_and_allocs(timers_spec):
    with worker(timers_spec) as w:
        benches = load(w, timers_spec)
        w.request("setup", 30, benchmark=by_name(benches, "Metrics")["id"], params={})
        d = run(w, "diagnose", invocations=500, iterations=2)
    assert 1000 <= d["allocs"] <= 1030  # process-wide counters, as for -benchmem: a few strays
    assert d["alloc_bytes"] >= 1000 * 64
    assert d["bytes_per_op"] == 1024
    assert d["metrics"] == {"answers/op": 42}


def test_examples_module_untouched(rt, tmp_path):
    pkg = EXAMPLES / "textproc"
    before = {p.name: p.stat().st_mtime_ns for p in EXAMPLES.rglob("*")}
    spec = TC.prepare(rt, TC.find_sources(EXAMPLES), tmp_path)
    after = {p.name: p.stat().st_mtime_ns for p in EXAMPLES.rglob("*")}
    assert before == after  # nothing generated into the user's module
    with worker(spec) as w:
        benches = load(w, spec)
        names = {b["name"] for b in benches.values()}
        assert {"JoinPlus", "JoinBuilder", "Sort", "CountVowels", "FNV", "DJB2"} <= names
        assert by_name(benches, "FNV")["group"] == "hashing"  # external test package
        assert by_name(benches, "JoinBuilder")["baseline"] is True
        assert by_name(benches, "Sort")["params"] == [{"name": "n", "values": ["10", "100", "1000"]}]
        if go_minor(rt) >= 24:
            loop = by_name(benches, "JoinBuilderLoop")
            w.request("setup", 30, benchmark=loop["id"], params={})
            work = min(run(w, invocations=200, iterations=3)["ns"])
            over = min(run(w, "overhead", invocations=200, iterations=3)["ns"])
            assert work > over
            w.request("teardown", 30)
        plus = by_name(benches, "JoinPlus")
        w.request("setup", 30, benchmark=plus["id"], params={})
        d = run(w, "diagnose", invocations=10, iterations=1)
        assert d["allocs"] > 10 * 100
        w.request("teardown", 30)
        # the other package's binary, behind the same multiplexed worker
        fnv = by_name(benches, "FNV")
        assert fnv["baseline"] is True
        w.request("setup", 30, benchmark=fnv["id"], params={})
        assert len(run(w)["ns"]) == 3
        assert w.request("bye", 10)["type"] == "done"
        assert w.proc.wait(timeout=10) == 0
    assert "perflab-go-mux" in spec.argv[0] or "mux" in spec.argv[0]
    assert spec.cwd == str(EXAMPLES)
    assert sorted(spec.load_paths) == sorted(str(p) for p in TC.find_sources(EXAMPLES))
    assert {str(Path(p).parent) for p in spec.load_paths} == {str(EXAMPLES / "hashing"), str(pkg)}


def _children(pid: int) -> set[int]:
    out = set()
    for tid in os.listdir(f"/proc/{pid}/task"):
        out.update(int(x) for x in Path(f"/proc/{pid}/task/{tid}/children").read_text().split())
    return out


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc")
def test_the_mux_reaps_its_package_binaries_before_it_exits(rt, tmp_path):
    """A package binary still exiting when the mux exits is reparented to init: its CPU time (the
    benchmark's) never reached the host's count of its own processes, which read it as other work
    (0.4-0.6 CPUs "foreign" on Go cases of quiet main jobs). After `bye` the mux reaps them first."""
    spec = TC.prepare(rt, TC.find_sources(EXAMPLES), tmp_path)
    with worker(spec) as w:
        load(w, spec)
        kids = _children(w.proc.pid)
        assert len(kids) == 2  # one binary per package
        assert w.request("bye", 10)["type"] == "done"
        assert w.proc.wait(timeout=10) == 0
        # reaped by the mux (gone), not orphans that init or the lifeline cleans up later
        assert [k for k in kids if Path(f"/proc/{k}").exists()] == []


def test_load_one_file_discovers_only_its_benchmarks(timers_spec):
    """The host relaunches a case loading only its file; other files' benchmarks are not run."""
    with worker(timers_spec) as w:
        one = [p for p in timers_spec.load_paths if p.endswith("timers_test.go")]
        loaded = w.request("load", 60, paths=one, root=timers_spec.root)
        assert {b["name"] for b in loaded["benchmarks"]} >= {"Nested", "ResetTimer"}
        loaded = w.request("load", 60, paths=["/nonexistent/x_test.go"], root=timers_spec.root)
        assert loaded["benchmarks"] == []


def test_build_is_cached(rt, fixture_spec, tmp_path):
    again = TC.prepare(rt, TC.find_sources(FIXTURE), tmp_path)
    assert again.argv == fixture_spec.argv


# ---------------------------------------------------------------------------------------------
# dead code: the native API keeps results alive
# ---------------------------------------------------------------------------------------------

TRAP = {
    "trap.go": "package trap\n",
    "trap_test.go": """
        package trap

        import "perflab.dev/go/perflab"

        var seed uint64 = 12345

        // mix is pure arithmetic the compiler would delete if its result were unused.
        func mix(x uint64) uint64 {
            for i := 0; i < 200; i++ {
                x ^= x << 13
                x ^= x >> 7
                x ^= x << 17
            }
            return x
        }

        func init() {
            perflab.Func("func_form", func() uint64 { return mix(seed) })
            perflab.Bench("sink_form", func(n int) {
                var r uint64
                for i := 0; i < n; i++ {
                    r = mix(seed + uint64(i))
                }
                perflab.Sink(r)
            })
        }
    """,
}


def test_dead_code_trap_is_measured(rt, tmp_path):
    root = make_module(tmp_path / "trap", TRAP)
    gomod = root / "go.mod"
    gomod.write_text(gomod.read_text() + f"\nrequire perflab.dev/go v0.0.0\n\nreplace perflab.dev/go => "
                     f"{REPO / 'workers' / 'go'}\n")
    spec = TC.prepare(rt, TC.find_sources(root), tmp_path)
    with worker(spec) as w:
        benches = load(w, spec)
        for name in ("func_form", "sink_form"):
            w.request("setup", 30, benchmark=by_name(benches, name)["id"], params={})
            per_op = min(run(w, invocations=2000, iterations=5)["ns"]) / 2000
            # 600 dependent xor-shifts cannot take less than ~100ns; an eliminated body would be ~1ns.
            assert per_op > 50, (name, per_op)
            w.request("teardown", 30)


# ---------------------------------------------------------------------------------------------
# faults
# ---------------------------------------------------------------------------------------------

FAULTS = {
    "faults.go": "package faults\n",
    "faults_test.go": """
        package faults

        import (
            "fmt"
            "os"
            "sync"
            "testing"
        )

        func BenchmarkPanics(b *testing.B) {
            var m map[string]int
            m["x"] = 1
        }

        func BenchmarkSubPanics(b *testing.B) {
            b.Run("ok", func(b *testing.B) {})
            b.Run("bad", func(b *testing.B) { panic(fmt.Errorf("sub-benchmark %s", "exploded")) })
        }

        func BenchmarkExits(b *testing.B) {
            os.Exit(7)
        }

        func BenchmarkExitsBeforeSubs(b *testing.B) {
            if len(os.Args) > 0 {
                os.Exit(9)
            }
            b.Run("never", func(b *testing.B) {})
        }

        func BenchmarkDeadlocks(b *testing.B) {
            var mu sync.Mutex
            mu.Lock()
            mu.Lock()
        }

        func BenchmarkPrints(b *testing.B) {
            for i := 0; i < b.N; i++ {
                fmt.Println("hello from the benchmark")
            }
        }

        func BenchmarkFatal(b *testing.B) {
            b.Fatalf("cannot run: %d", 42)
        }

        func BenchmarkFine(b *testing.B) {
            for i := 0; i < b.N; i++ {
            }
        }
    """,
}


@pytest.fixture(scope="module")
def faults_spec(rt, tmp_path_factory):
    root = make_module(tmp_path_factory.mktemp("faults") / "faults", FAULTS)
    return TC.prepare(rt, TC.find_sources(root), root)


def run_case(spec, name, params=None, timeout=20):
    with worker(spec) as w:
        b = by_name(load(w, spec), name)
        w.request("setup", 30, benchmark=b["id"], params=params or {})
        try:
            return run(w, invocations=3, iterations=2, timeout=timeout), w.output_bytes()
        finally:
            pass


def test_panic_fails_alone(faults_spec):
    with pytest.raises(BenchmarkError) as exc:
        run_case(faults_spec, "Panics")
    assert "assignment to entry in nil map" in exc.value.reason
    assert exc.value.file.endswith("faults_test.go") and exc.value.line == 12


def test_sub_benchmark_panic_fails_alone(faults_spec):
    with worker(faults_spec) as w:
        b = by_name(load(w, faults_spec), "SubPanics")
        assert b["params"] == [{"name": "case", "values": ["ok", "bad"]}]
        w.request("setup", 30, benchmark=b["id"], params={"case": 1})
        with pytest.raises(BenchmarkError) as exc:
            run(w)
        assert "sub-benchmark exploded" in exc.value.reason
        w.request("teardown", 30)
        w.request("setup", 30, benchmark=b["id"], params={"case": 0})
        assert len(run(w)["ns"]) == 3


def test_os_exit_fails_the_case(faults_spec):
    with pytest.raises(WorkerFailure) as exc:
        run_case(faults_spec, "Exits")
    assert "exited with status 7" in exc.value.reason


def test_exit_during_discovery_fails_alone(faults_spec):
    """Sub-benchmarks are discovered at build time, one process per function: an os.Exit there loses
    only that benchmark's parameters, and the load (which runs no user code) is unaffected."""
    with worker(faults_spec) as w:
        benches = load(w, faults_spec)
        b = by_name(benches, "ExitsBeforeSubs")
        assert b["params"] == [] and "exit status 9" in b["meta"]["discovery"]
        assert by_name(benches, "SubPanics")["params"] == [{"name": "case", "values": ["ok", "bad"]}]
        w.request("setup", 30, benchmark=by_name(benches, "Fine")["id"], params={})
        assert len(run(w)["ns"]) == 3
    with pytest.raises(WorkerFailure) as exc:
        run_case(faults_spec, "ExitsBeforeSubs")
    assert "exited with status 9" in exc.value.reason


def test_deadlock_fails_the_case(faults_spec):
    with pytest.raises(WorkerFailure) as exc:
        run_case(faults_spec, "Deadlocks", timeout=15)
    assert "deadlock" in exc.value.detail or "timed out" in exc.value.reason


def test_prints_do_not_corrupt_the_protocol(faults_spec):
    reply, out = run_case(faults_spec, "Prints")
    assert len(reply["ns"]) == 2
    assert out >= len("hello from the benchmark\n") * 6


def test_fatal_reports_its_message(faults_spec):
    with pytest.raises(BenchmarkError) as exc:
        run_case(faults_spec, "Fatal")
    assert "cannot run: 42" in exc.value.reason
    assert exc.value.file == "faults_test.go" and exc.value.line > 0


def test_other_cases_still_run(faults_spec):
    reply, _ = run_case(faults_spec, "Fine")
    assert len(reply["ns"]) == 2


def test_crash_behind_the_multiplexer(rt, faults_spec, tmp_path):
    other = make_module(tmp_path / "other", {"o.go": "package other\n", "o_test.go": """
        package other

        import "testing"

        func BenchmarkOther(b *testing.B) {}
    """})
    spec = TC.prepare(rt, TC.find_sources(Path(faults_spec.root)) + TC.find_sources(other), tmp_path)
    assert len({Path(p).parent for p in spec.load_paths}) == 2
    with pytest.raises(WorkerFailure) as exc:
        run_case(spec, "Exits")
    assert "exited with status 7" in exc.value.reason
    reply, _ = run_case(spec, "Other")
    assert len(reply["ns"]) == 2


BROKEN_TEST = """
    package broken

    import "testing"

    func BenchmarkBroken(b *testing.B) {
        undefinedThing()
    }

    func BenchmarkAlsoBroken(b *testing.B) {}
"""


def test_compile_error_names_file_and_line(rt, tmp_path):
    """A package that does not compile, alone: its worker loads nothing but one error per benchmark,
    each naming that benchmark and the compiler's file:line:col."""
    root = make_module(tmp_path / "broken", {"broken.go": "package broken\n", "broken_test.go": BROKEN_TEST})
    spec = TC.prepare(rt, TC.find_sources(root), tmp_path)
    with worker(spec) as w:
        loaded = w.request("load", 60, paths=spec.load_paths, root=spec.root)
    assert loaded["benchmarks"] == []
    errors = {e["benchmark"]["name"]: e for e in loaded["errors"]}
    assert set(errors) == {"Broken", "AlsoBroken"}
    for e in errors.values():
        assert e["kind"] == "load" and e["file"] == str(root / "broken_test.go")
        assert re.search(r"broken_test\.go:6:\d+: undefined: undefinedThing", e["message"]), e
        assert str(root) in e["message"]
    assert errors["Broken"]["line"] == 5 and errors["Broken"]["benchmark"]["id"] == \
        "example.com/perflabtest.BenchmarkBroken"


def test_package_that_does_not_compile_fails_alone(rt, tmp_path):
    """perflab run over two packages, one of which does not compile: that one's benchmarks fail with
    the compiler's file:line in the table, the other is measured, exit status 1."""
    root = make_module(tmp_path / "mod", {
        "good/good.go": "package good\n",
        "good/good_test.go": """
            package good

            import "testing"

            var sink int

            func BenchmarkGood(b *testing.B) {
                for i := 0; i < b.N; i++ {
                    sink += i
                }
            }
        """,
        "broken/broken.go": "package broken\n",
        "broken/broken_test.go": BROKEN_TEST,
    })
    out = tmp_path / "out"
    assert perflab_run(root, out, "-r", rt.name, "-j", "dry").returncode == 1
    doc = json.loads(next(out.glob("perflab-*.json")).read_text())
    status = {c["benchmark"]["name"]: c for c in doc["cases"]}
    assert set(status) == {"Good", "Broken", "AlsoBroken"}
    assert status["Good"]["status"] == "ok"
    for name in ("Broken", "AlsoBroken"):
        assert status[name]["status"] != "ok"
        assert re.search(r"broken_test\.go:6:\d+: undefined: undefinedThing", status[name]["error"])
    md = next(out.glob("perflab-*.md")).read_text()
    assert re.search(r"broken\\?_test\.go:6:\d+: undefined", md)  # Markdown escapes the _


def test_unobtainable_toolchain(monkeypatch, tmp_path):
    monkeypatch.setenv("GOPROXY", "off")
    missing = Runtime(name="go1.99", language="go", version="1.99.0", executable="", installed=False)
    with pytest.raises(PrepareError) as exc:
        TC.provision(missing)
    assert "cannot obtain go1.99" in str(exc.value)


# ---------------------------------------------------------------------------------------------
# runtimes
# ---------------------------------------------------------------------------------------------

def test_runtimes_are_named_by_minor_version():
    rts = {r.name: r for r in TC.discover_runtimes()}
    for minor in range(21, 27):
        assert f"go1.{minor}" in rts
    path_rt = path_runtime()
    assert path_rt.installed and re.fullmatch(r"go1\.\d+", path_rt.name)
    for r in rts.values():
        assert r.installed == bool(r.executable)


def test_explicit_goroot(rt):
    goroot = Path(rt.executable).parent.parent
    described = TC.resolve_path(str(goroot))
    assert described is not None and described.name == rt.name and described.version == rt.version


def test_runtime_env_reaches_worker_and_build_key(rt, tmp_path):
    import dataclasses
    with_env = dataclasses.replace(rt, env=(("GOGC", "50"),))
    spec = TC.prepare(with_env, TC.find_sources(FIXTURE), tmp_path)
    assert spec.env.get("GOGC") == "50"
    plain = TC.prepare(rt, TC.find_sources(FIXTURE), tmp_path)
    assert spec.argv[0] != plain.argv[0]  # env is part of the build's cache key (GOAMD64 matters)


def test_runtime_flags_are_build_flags(rt, tmp_path):
    import dataclasses
    root = make_module(tmp_path / "tagged", {
        "t.go": "package tagged\n",
        "plain_test.go": """
            package tagged

            import "testing"

            func BenchmarkPlain(b *testing.B) {}
        """,
        "tagged_test.go": """
            //go:build perflabtag

            package tagged

            import "testing"

            func BenchmarkTagged(b *testing.B) {}
        """,
        "testdata/ignored_test.go": "package ignored\n\nimport \"testing\"\n\nfunc BenchmarkNo(b *testing.B) {}\n",
    })
    sources = TC.find_sources(root)
    assert all("testdata" not in str(s) for s in sources)
    for flags, expected in (((), {"Plain"}), (("-tags=perflabtag",), {"Plain", "Tagged"})):
        spec = TC.prepare(dataclasses.replace(rt, flags=flags), sources, tmp_path)
        with worker(spec) as w:
            assert {b["name"] for b in load(w, spec).values()} == expected


def test_perflab_run_end_to_end(rt, tmp_path):
    """`perflab run` on the fixture: every case measured except boom, which fails alone."""
    import json
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "perflab.cli", "run", str(FIXTURE), "-r", rt.name, "-j", "dry",
                          "-e", "json", "-o", str(tmp_path)], capture_output=True, text=True, timeout=600,
                         env={**os.environ, "PERFLAB_STORE": f"sqlite:///{tmp_path}/h.db"})
    [doc] = [json.loads(p.read_text()) for p in tmp_path.glob("perflab-*.json")]
    status = {c["key"].split("@")[0]: (c["status"], c["error"]) for c in doc["cases"]}
    assert len(status) == 7, (status, out.stderr[-2000:])
    failed = {k: v for k, v in status.items() if v[0] != "ok"}
    assert list(failed) == ["fixture.boom[]"], status
    assert "boom" in failed["fixture.boom[]"][1]


CPU_TIME = {
    "cpu.go": "package cpu\n",
    "cpu_test.go": """
        package cpu

        import (
            "testing"
            "time"
        )

        var sink int

        func spin(d time.Duration) {
            for t0 := time.Now(); time.Since(t0) < d; {
                sink++
            }
        }

        func BenchmarkBusySetup(b *testing.B) {
            spin(20 * time.Millisecond) // excluded by ResetTimer: its CPU time too
            b.ResetTimer()
            for i := 0; i < b.N; i++ {
                sink += i
            }
        }

        func BenchmarkBusyStopped(b *testing.B) {
            for i := 0; i < b.N; i++ {
                b.StopTimer()
                spin(3 * time.Millisecond) // excluded: its CPU time too
                b.StartTimer()
                sink += i
            }
        }

        func BenchmarkSleepy(b *testing.B) {
            for i := 0; i < b.N; i++ {
                time.Sleep(2 * time.Millisecond)
            }
        }
    """,
}


def test_testing_b_cpu_time_follows_the_b_timer(rt, tmp_path):
    """Protocol v2 through testing.B: CPU time accrues only while the *B's timer runs (busy work
    behind ResetTimer/StopTimer is excluded from both), and sleeping shows wall ≫ CPU."""
    root = make_module(tmp_path / "cpu", CPU_TIME)
    spec = TC.prepare(rt, TC.find_sources(root), root)
    with worker(spec) as w:
        assert w.hello.cpu_clock is not None and w.hello.cpu_clock.scope == "thread"
        benches = load(w, spec)
        for name in ("BusySetup", "BusyStopped"):
            w.request("setup", 30, benchmark=by_name(benches, name)["id"], params={})
            r = run(w, invocations=3, iterations=3)
            assert len(r["cpu_ns"]) == 3 and max(r["cpu_ns"]) < 2_000_000, (name, r)  # not the 20 / 9 ms spin
            w.request("teardown", 30)
        w.request("setup", 30, benchmark=by_name(benches, "Sleepy")["id"], params={})
        r = w.request("run", 60, stage="workload", invocations=3, iterations=2, with_overhead=True)
        assert all(c < n / 2 for n, c in zip(r["ns"], r["cpu_ns"])), r  # asleep: wall ≫ CPU
        assert len(r["overhead_cpu_ns"]) == 2
