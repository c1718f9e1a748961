"""testing.B as it is really written, run unchanged by the Go worker: StopTimer/StartTimer inside the
loop (the CPU clock stops where the wall clock does), ReportMetric (kept in the results), RunParallel and
SetParallelism, a TestMain that calls m.Run, Skip/Fatal/Error failing their benchmark alone, b.N-sized
setup, nested b.Run; and the README's Go example under `perflab run --job short` with no failure.

Timing assertions are relations (CPU ≤ wall, what a stopped timer excludes stays out of both), never a
duration inside a fixed window."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from workerkit import REPO, worker, write
from workerkit import private_cache  # noqa: F401 (autouse: builds go to a temporary perflab cache)

from perflab.engine.worker import BenchmarkError
from perflab.toolchains.go import GoToolchain

pytestmark = pytest.mark.skipif(shutil.which("go") is None, reason="no go on PATH")

TC = GoToolchain()
T = 120


def runtimes():
    """The newest installed Go, and go1.21 when it is installed too (.ci/run brings it)."""
    rts = [r for r in TC.discover_runtimes() if r.installed and r.executable]
    picked = rts[-1:] + [r for r in rts if r.name == "go1.21" and r is not rts[-1]]
    return picked


REAL = {
    "go.mod": "module example.com/realb\n\ngo 1.21\n",
    "real.go": "package realb\n\nvar SetUp bool\n",
    "main_test.go": """
        package realb

        import (
            "os"
            "testing"
        )

        // TestMain does its own setup and calls m.Run, as packages with fixtures do.
        func TestMain(m *testing.M) {
            SetUp = true
            os.Exit(m.Run())
        }
    """,
    "loop_test.go": """
        //go:build go1.24

        package realb

        import "testing"

        // BenchmarkLoopStopStart: the b.Loop form (Go >= 1.24) with the timer stopped in every turn.
        func BenchmarkLoopStopStart(b *testing.B) {
            for b.Loop() {
                b.StopTimer()
                sink++
                b.StartTimer()
                sink++
            }
        }
    """,
    "real_test.go": """
        package realb

        import (
            "runtime"
            "sync/atomic"
            "testing"
            "time"
        )

        var sink int

        func spin(d time.Duration) {
            for t0 := time.Now(); time.Since(t0) < d; {
                sink++
            }
        }

        // BenchmarkStopStart: the timer stops and starts around tiny work in every iteration.
        func BenchmarkStopStart(b *testing.B) {
            for i := 0; i < b.N; i++ {
                b.StopTimer()
                b.StartTimer()
                sink++
            }
        }

        // BenchmarkBusyWhileStopped burns CPU with the timer stopped, in every iteration.
        func BenchmarkBusyWhileStopped(b *testing.B) {
            for i := 0; i < b.N; i++ {
                b.StopTimer()
                spin(2 * time.Millisecond)
                b.StartTimer()
                sink++
            }
        }

        func BenchmarkMetric(b *testing.B) {
            n := 0
            for i := 0; i < b.N; i++ {
                n += 3
            }
            sink = n
            b.ReportMetric(float64(n)/float64(b.N), "widgets/op")
        }

        func BenchmarkParallel(b *testing.B) {
            b.SetParallelism(2)
            var total atomic.Int64
            b.RunParallel(func(pb *testing.PB) {
                x := 0
                for pb.Next() {
                    x++
                }
                total.Add(int64(x))
            })
            if total.Load() != int64(b.N) {
                b.Fatalf("RunParallel ran %d of b.N=%d", total.Load(), b.N)
            }
        }

        func BenchmarkNeedsTestMain(b *testing.B) {
            if !SetUp {
                b.Fatal("TestMain did not run")
            }
            for i := 0; i < b.N; i++ {
                sink++
            }
        }

        // BenchmarkSizedByN allocates b.N-sized input before ResetTimer.
        func BenchmarkSizedByN(b *testing.B) {
            data := make([]int, b.N)
            for i := range data {
                data[i] = i
            }
            b.ResetTimer()
            for i := 0; i < b.N; i++ {
                sink += data[i]
            }
        }

        func BenchmarkSkipped(b *testing.B) { b.Skip("needs a database") }

        func BenchmarkFatal(b *testing.B) { b.Fatal("fixture missing") }

        func BenchmarkErrors(b *testing.B) {
            for i := 0; i < b.N; i++ {
                sink++
            }
            b.Errorf("checksum %d is wrong", 7)
        }

        var parentRuns, parentReturns int

        // BenchmarkParentSetup makes its sub-benchmarks' input before b.Run, as xxhash's BenchmarkSum64
        // does; go test runs this body once however many rounds a sub-benchmark has.
        func BenchmarkParentSetup(b *testing.B) {
            parentRuns++
            in := make([]int, 1000)
            for _, name := range []string{"first", "second"} {
                b.Run(name, func(b *testing.B) {
                    for i := 0; i < b.N; i++ {
                        sink += in[i%len(in)]
                    }
                })
            }
            parentReturns++
        }

        // BenchmarkParentFailsAfter checks something after its sub-benchmark ran, and fails.
        func BenchmarkParentFailsAfter(b *testing.B) {
            b.Run("only", func(b *testing.B) {
                for i := 0; i < b.N; i++ {
                    sink++
                }
            })
            b.Fatal("checked after the sub-benchmark")
        }

        var garbage []byte

        // BenchmarkGarbageBeforeReset makes 64 MB of garbage (collections) before ResetTimer, none after.
        func BenchmarkGarbageBeforeReset(b *testing.B) {
            for i := 0; i < 64; i++ {
                garbage = make([]byte, 1<<20)
            }
            runtime.GC() // no cycle of the setup's still runs when the timer starts
            b.ResetTimer()
            for i := 0; i < b.N; i++ {
                sink++
            }
        }

        // BenchmarkGarbageInLoop makes 1 MB of garbage per op, with the timer running.
        func BenchmarkGarbageInLoop(b *testing.B) {
            for i := 0; i < b.N; i++ {
                garbage = make([]byte, 1<<20)
            }
        }

        // BenchmarkParentCounts reports how often BenchmarkParentSetup's body started and returned.
        func BenchmarkParentCounts(b *testing.B) {
            for i := 0; i < b.N; i++ {
            }
            b.ReportMetric(float64(parentRuns), "runs")
            b.ReportMetric(float64(parentReturns), "returns")
        }

        func BenchmarkNested(b *testing.B) {
            for _, codec := range []string{"json", "gob"} {
                b.Run("codec="+codec, func(b *testing.B) {
                    for _, n := range []string{"1", "10"} {
                        b.Run("n="+n, func(b *testing.B) {
                            for i := 0; i < b.N; i++ {
                                sink += len(codec) + len(n)
                            }
                        })
                    }
                })
            }
        }
    """,
}


@pytest.fixture(scope="module", params=runtimes(), ids=lambda r: r.name)
def real(request, tmp_path_factory):
    root = tmp_path_factory.mktemp("realb") / "realb"
    for name, text in REAL.items():
        write(root / name, text)
    spec = TC.prepare(request.param, TC.find_sources(root), root)
    with worker(spec) as w:
        loaded = w.request("load", T, paths=spec.load_paths, root=spec.root)
        assert loaded["errors"] == []
        yield w, {b["name"]: b for b in loaded["benchmarks"]}


def case(w, benches, name, params=None, stage="workload", invocations=100, iterations=3):
    w.request("setup", T, benchmark=benches[name]["id"], params=params or {})
    try:
        return w.request("run", T, stage=stage, invocations=invocations, iterations=iterations)
    finally:
        w.request("teardown", T)


def test_stop_start_in_the_loop_reports_no_more_cpu_than_wall(real):
    """The bug users hit first (examples/go Sort): each StopTimer/StartTimer pair read the thread's
    CPU clock outside the wall interval, and 20 000 pairs around tiny work reported several times
    more CPU time than wall time (a protocol error). Now every iteration's CPU time is at most its
    wall time, whatever the machine's load."""
    w, benches = real
    r = case(w, benches, "StopStart", invocations=20_000, iterations=3)
    assert all(0 <= c <= n for n, c in zip(r["ns"], r["cpu_ns"])), r


def test_b_loop_with_stop_start_reports_no_more_cpu_than_wall(real):
    """The same with b.Loop, on the toolchains that have it (the file says //go:build go1.24)."""
    w, benches = real
    minor = int(w.hello.runtime["version"].split(".")[1])
    assert ("LoopStopStart" in benches) == (minor >= 24)
    if minor >= 24:
        r = case(w, benches, "LoopStopStart", invocations=20_000, iterations=3)
        assert all(0 <= c <= n for n, c in zip(r["ns"], r["cpu_ns"])), r


def test_cpu_burnt_while_the_timer_is_stopped_is_not_counted(real):
    """10 × 2 ms of spinning with the timer stopped stays out of the wall time and the CPU time:
    the CPU clock stops exactly where the wall clock does."""
    w, benches = real
    r = case(w, benches, "BusyWhileStopped", invocations=10, iterations=2)
    for n, c in zip(r["ns"], r["cpu_ns"]):
        assert c <= n < 10 * 2_000_000, r  # what was timed is far less than what was spun


def test_report_metric_reaches_the_diagnostics(real):
    w, benches = real
    d = case(w, benches, "Metric", stage="diagnose", invocations=50, iterations=1)
    assert d["metrics"] == {"widgets/op": 3.0}


def test_run_parallel_with_set_parallelism_is_measured(real):
    """RunParallel's goroutines run on other threads; the benchmark's own thread mostly waits for them,
    so its CPU time is at most its wall time (the case is wall-timed by the host)."""
    w, benches = real
    r = case(w, benches, "Parallel", invocations=20_000, iterations=3)
    assert len(r["ns"]) == 3 and all(c <= n + 1_000_000 for n, c in zip(r["ns"], r["cpu_ns"])), r
    d = case(w, benches, "Parallel", stage="diagnose", invocations=1000, iterations=1)
    assert any(n.startswith("RunParallel: ") for n in d["notes"]), d  # says what its CPU time is
    assert not any("RunParallel" in n for n in case(w, benches, "Metric", stage="diagnose")["notes"])


def test_test_main_runs_before_the_benchmarks(real):
    w, benches = real
    assert len(case(w, benches, "NeedsTestMain")["ns"]) == 3


def test_b_n_sized_setup_before_reset_timer(real):
    w, benches = real
    assert len(case(w, benches, "SizedByN", invocations=100_000)["ns"]) == 3


def test_nested_sub_benchmarks_are_axes(real):
    w, benches = real
    nested = benches["Nested"]
    assert nested["params"] == [{"name": "codec", "values": ["json", "gob"]},
                                {"name": "n", "values": ["1", "10"]}]
    assert len(case(w, benches, "Nested", params={"codec": 1, "n": 1})["ns"]) == 3


def test_a_sub_benchmarks_parent_runs_once_per_case_as_under_go_test(real):
    """go test runs a parent's body once, up to the sub-benchmark's b.Run, and measures every round
    of the sub-benchmark inside that call. perflab re-ran the parent for every round: its setup (the
    input it makes before b.Run) was made, and left as garbage, once per round. Now the parent runs
    once per case, whatever the stages and rounds, and returns at teardown."""
    w, benches = real

    def counts():
        return case(w, benches, "ParentCounts", stage="diagnose", invocations=1, iterations=1)["metrics"]

    before = counts()
    w.request("setup", T, benchmark=benches["ParentSetup"]["id"], params={"case": 1})
    try:
        for stage, inv, its in [("pilot", 1, 3), ("warmup", 10, 2), ("overhead", 10, 2), ("workload", 10, 5),
                                ("diagnose", 10, 2)]:
            w.request("run", T, stage=stage, invocations=inv, iterations=its)
    finally:
        w.request("teardown", T)
    # once, though the overhead stage ran another function between its rounds
    assert counts() == {"runs": before["runs"] + 1, "returns": before["returns"] + 1}
    # the next case runs the parent again (once), for its own sub-benchmark
    assert len(case(w, benches, "ParentSetup", params={"case": 0}, iterations=4)["ns"]) == 4
    assert counts() == {"runs": before["runs"] + 2, "returns": before["returns"] + 2}


def test_gc_counts_only_collections_while_the_timer_ran(real):
    """The Gen0 column of a testing.B case counts the collections that ended while the *B's timer
    ran: 64 MB of garbage made before ResetTimer (one GC after another) is the setup's, not the
    timed code's (it read one GC per op for xxhash's 10 MB cases, whose input was re-made per round)."""
    w, benches = real
    assert case(w, benches, "GarbageBeforeReset", stage="diagnose", invocations=10, iterations=2)["gc"] == [0]
    assert case(w, benches, "GarbageInLoop", stage="diagnose", invocations=64, iterations=1)["gc"][0] > 0


def test_a_parent_failing_after_its_sub_benchmark_fails_the_teardown(real):
    """The parents return at teardown (as go test lets them return after the sub-benchmark's rounds):
    what they report then is the case's failure, with its message; the worker goes on."""
    w, benches = real
    w.request("setup", T, benchmark=benches["ParentFailsAfter"]["id"], params={"case": 0})
    assert len(w.request("run", T, stage="workload", invocations=10, iterations=3)["ns"]) == 3
    with pytest.raises(BenchmarkError) as exc:
        w.request("teardown", T)
    assert "after its sub-benchmark ran" in str(exc.value) and "checked after the sub-benchmark" in str(exc.value)
    assert len(case(w, benches, "NeedsTestMain")["ns"]) == 3


@pytest.mark.parametrize("name, words", [("Skipped", "needs a database"),
                                         ("Fatal", "fixture missing"),
                                         ("Errors", "checksum 7 is wrong")])
def test_skip_fatal_error_fail_their_benchmark_alone(real, name, words):
    """b.Fatal and b.Error fail their benchmark (kind exception); b.Skip is kind `skipped`, which the
    host shows as SKIPPED, not failed. Each with the message and the file:line of the call."""
    w, benches = real
    with pytest.raises(BenchmarkError) as exc:
        case(w, benches, name)
    assert words in str(exc.value) and exc.value.file.endswith("real_test.go") and exc.value.line > 0
    assert exc.value.kind == ("skipped" if name == "Skipped" else "exception")
    assert len(case(w, benches, "NeedsTestMain")["ns"]) == 3  # the worker goes on


SKIPS = {
    "go.mod": "module example.com/skips\n\ngo 1.21\n",
    "skip_test.go": """
        package skips

        import "testing"

        var sink int

        func BenchmarkSkip(b *testing.B) { b.Skip("needs a database") }

        func BenchmarkSkipf(b *testing.B) { b.Skipf("needs %d GPUs", 2) }

        func BenchmarkSkipNow(b *testing.B) { b.SkipNow() }

        func BenchmarkSizes(b *testing.B) {
            for _, n := range []int{1, 2} {
                b.Run("n="+string(rune('0'+n)), func(b *testing.B) {
                    if n == 2 {
                        b.Skip("too large here")
                    }
                    for i := 0; i < b.N; i++ {
                        sink += n
                    }
                })
            }
        }

        func BenchmarkMeasured(b *testing.B) {
            for i := 0; i < b.N; i++ {
                sink++
            }
        }
    """,
}


def test_skipped_benchmarks_show_as_skipped_not_failed(tmp_path):
    """go test prints `--- SKIP` and passes: b.Skip, b.Skipf and b.SkipNow (also in a sub-benchmark)
    are SKIPPED with their message in the table, status "skipped" in the results, and the run's exit
    status is 0; the other cases are measured."""
    root = tmp_path / "skips"
    for name, text in SKIPS.items():
        write(root / name, text)
    out = tmp_path / "out"
    proc = perflab_run(root, out, "--job", "dry")
    assert proc.returncode == 0, proc.stderr[-2000:]
    [doc] = [json.loads(p.read_text()) for p in out.glob("perflab-*.json")]
    by_name = {(c["benchmark"]["name"], tuple((c["params"] or {}).values())): c for c in doc["cases"]}
    status = {k: (c["status"], c.get("skipped"), c.get("error")) for k, c in by_name.items()}
    skipped = {k: c["skipped"] for k, c in by_name.items() if c["status"] == "skipped"}
    assert set(skipped) == {("Skip", ()), ("Skipf", ()), ("SkipNow", ()), ("Sizes", ("2",))}, status
    assert skipped[("Skip", ())] == "needs a database (skip_test.go:7)"
    assert "needs 2 GPUs" in skipped[("Skipf", ())]
    assert "too large here" in skipped[("Sizes", ("2",))]
    assert all(c["error"] is None and c.get("estimate") is None and not any(ln["workload"] for ln in c["launches"])
               for c in by_name.values() if c["status"] == "skipped")
    assert by_name[("Measured", ())]["status"] == "ok" and by_name[("Sizes", ("1",))]["status"] == "ok"
    table = proc.stdout + proc.stderr
    assert "SKIPPED: " in table and "needs a database" in table and "FAILED" not in table


def perflab_run(path: Path, out: Path, *args: str, timeout: float = 1800):
    import subprocess
    import sys
    out.mkdir(parents=True, exist_ok=True)
    return subprocess.run([sys.executable, "-m", "perflab.cli", "run", str(path), *args, "-o", str(out)],
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PERFLAB_STORE": f"sqlite:///{out}/h.db"})


def test_readme_go_example_runs_short_job_without_failures(tmp_path):
    """README's `perflab run examples/go --job short`, in a scratch copy: every case measured (the
    Sort benchmark with StopTimer/StartTimer in its loop failed every run before), the exit status 0,
    and CountVowels's b.ReportMetric in the results and the table."""
    src = tmp_path / "go"
    shutil.copytree(REPO / "examples" / "go", src)
    out = tmp_path / "out"
    proc = perflab_run(src, out, "--job", "short")
    [doc] = [json.loads(p.read_text()) for p in out.glob("perflab-*.json")]
    failed = {c["key"]: c["error"] for c in doc["cases"] if c["status"] != "ok"}
    assert failed == {}, (failed, proc.stderr[-2000:])
    assert proc.returncode == 0, proc.stderr[-2000:]
    names = {c["benchmark"]["name"] for c in doc["cases"]}
    assert {"Sort", "CountVowels", "JoinPlus", "JoinBuilder", "FNV", "DJB2"} <= names
    vowels = next(c for c in doc["cases"] if c["benchmark"]["name"] == "CountVowels")
    assert vowels["diagnostics"]["metrics"]["vowels/op"] > 0
    md = next(out.glob("perflab-*.md")).read_text()
    assert "vowels/op" in md
