"""Google Benchmark files run unchanged by the C/C++ worker (perflab's workers/cpp/benchmark/benchmark.h):
which files are benchmark files, every registration API as perflab benchmarks with their arguments as
parameters, fixtures, templates, captures, a file with its own main(), throughput and counters in the
diagnostics, unsupported APIs and skipped benchmarks failing alone with one line, a file that does not
compile failing alone with the compiler's file:line (exit 1, the rest measured), and the corpus's CI slice.
Where the clocks run (PauseTiming/ResumeTiming, KeepRunningBatch, Iterations) is checked with fake clocks
in workers/cpp/tests/test_gbench.cpp (workers/cpp/test.sh); nothing here asserts a duration."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

# workerkit before perflab: it puts the source tree on sys.path when perflab is not installed
import workerkit
from workerkit import REPO, T, installed_runtimes, perflab_cli, preferred
from workerkit import private_cache  # noqa: F401 (autouse: builds go to a temporary perflab cache)

from perflab.engine.worker import BenchmarkError
from perflab.toolchains.cpp import CppToolchain, declared_benchmarks, is_bench_file

TC = CppToolchain()
RUNTIMES, pytestmark = installed_runtimes(TC, "no C++ compiler")

ALL_APIS = r'''
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

static void BM_plain(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(state.iterations());
}
BENCHMARK(BM_plain);

static void BM_memcpy(benchmark::State& state) {
    std::vector<char> src(state.range(0), 'x'), dst(state.range(0));
    for (auto _ : state) {
        std::memcpy(dst.data(), src.data(), state.range(0));
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * state.range(0));
    state.SetItemsProcessed(int64_t(state.iterations()));
    state.counters["per_iter"] = benchmark::Counter(2, benchmark::Counter::kAvgIterations);
    state.counters["fixed"] = 7;
    state.SetLabel("copy");
}
BENCHMARK(BM_memcpy)->Arg(8)->RangeMultiplier(4)->Range(16, 64)->Unit(benchmark::kMicrosecond);

static void BM_two(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(state.range(0) * state.range(1));
}
BENCHMARK(BM_two)->Ranges({{1, 8}, {100, 100}})->ArgNames({"x", "y"});
BENCHMARK(BM_two)->ArgsProduct({{3}, {4, 5}})->Name("BM_product")->Repetitions(3)->MinTime(0.1)->UseRealTime();
BENCHMARK(BM_two)->DenseRange(0, 2)->Args({9, 9})->ArgName("k");

static void BM_paused(benchmark::State& state) {
    for (auto _ : state) {
        state.PauseTiming();
        std::string s(64, 'x');
        state.ResumeTiming();
        benchmark::DoNotOptimize(s);
    }
}
BENCHMARK(BM_paused);

static void BM_keep(benchmark::State& state) { while (state.KeepRunning()) benchmark::DoNotOptimize(1); }
BENCHMARK(BM_keep)->Iterations(500);
static void BM_batch(benchmark::State& state) { while (state.KeepRunningBatch(7)) benchmark::DoNotOptimize(1); }
BENCHMARK(BM_batch);

static void BM_threads(benchmark::State& state) { for (auto _ : state) {} }
BENCHMARK(BM_threads)
    ->Threads(4);
static void BM_manual(benchmark::State& state) { for (auto _ : state) state.SetIterationTime(1e-6); }
BENCHMARK(BM_manual)->UseManualTime();
static void BM_one_thread(benchmark::State& state) { for (auto _ : state) {} }
BENCHMARK(BM_one_thread)->Threads(1);

static void BM_error(benchmark::State& state) {
    state.SkipWithError("no input file");
    for (auto _ : state) {}
}
BENCHMARK(BM_error);
static void BM_skip(benchmark::State& state) {
    state.SkipWithMessage("needs AVX-512");
    for (auto _ : state) {}
}
BENCHMARK(BM_skip);

static int fixture_setups = 0;
class Sums : public benchmark::Fixture {
   public:
    void SetUp(const ::benchmark::State& st) override { v.assign(st.range(0), 1), ++fixture_setups; }
    void TearDown(const ::benchmark::State&) override { v.clear(); }
    std::vector<int> v;
};
BENCHMARK_DEFINE_F(Sums, Total)(benchmark::State& st) {
    if (v.size() != size_t(st.range(0))) st.SkipWithError("SetUp did not run");
    for (auto _ : st) {
        long s = 0;
        for (int x : v) s += x;
        benchmark::DoNotOptimize(s);
    }
}
BENCHMARK_REGISTER_F(Sums, Total)->Arg(10)->Arg(20);
class Mutable : public benchmark::Fixture {
   public:
    void SetUp(benchmark::State&) override { ready = true; }
    void TearDown(benchmark::State&) override { ready = false; }
    bool ready = false;
};
BENCHMARK_F(Mutable, Ready)(benchmark::State& st) {
    if (!ready) st.SkipWithError("SetUp(State&) did not run");
    for (auto _ : st) benchmark::DoNotOptimize(ready);
}

template <class T>
void BM_make(benchmark::State& st) {
    for (auto _ : st) {
        T x{};
        benchmark::DoNotOptimize(x);
    }
}
BENCHMARK_TEMPLATE(BM_make, int);
BENCHMARK_TEMPLATE1(BM_make, double);
template <class A, class B>
void BM_pair(benchmark::State& st) {
    for (auto _ : st) benchmark::DoNotOptimize(A() + B());
}
BENCHMARK_TEMPLATE2(BM_pair, int, long);
template <class T>
class Typed : public benchmark::Fixture {
   public:
    T value{};
};
BENCHMARK_TEMPLATE_F(Typed, Add, int)(benchmark::State& st) {
    for (auto _ : st) benchmark::DoNotOptimize(value += 1);
}

template <class... Args>
void BM_captured(benchmark::State& st, Args&&... args) {
    auto t = std::make_tuple(std::move(args)...);
    if (std::get<0>(t) != 42) st.SkipWithError("capture lost");
    for (auto _ : st) benchmark::DoNotOptimize(t);
}
BENCHMARK_CAPTURE(BM_captured, answer, 42, std::string("x"));

static void BM_setup_teardown(benchmark::State& st) { for (auto _ : st) {} }
static void global_setup(const benchmark::State&) {}
BENCHMARK(BM_setup_teardown)->Setup(global_setup)->Teardown(global_setup);

BENCHMARK_MAIN();

// every Counter flag, as Google Benchmark's counter.cc finishes them (last in the file: lines above are asserted)
static void BM_counters(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(state.iterations());
    state.counters["invariant"] = benchmark::Counter(3, benchmark::Counter::kIsIterationInvariant);
    state.counters["calls"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["per_call_rate"] = benchmark::Counter(5, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["avg_rate"] = benchmark::Counter(double(state.iterations()) * 4, benchmark::Counter::kAvgIterationsRate);
    state.counters["inverse"] = benchmark::Counter(double(state.iterations()) * 8,
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["half"] = benchmark::Counter(2, benchmark::Counter::kInvert);
}
BENCHMARK(BM_counters);
'''

OWN_MAIN = r'''
#include "benchmark/benchmark.h"

#include <vector>

static std::vector<int>* table = nullptr;  // built by main(), freed after RunSpecifiedBenchmarks()

static void BM_lookup(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize((*table)[state.range(0)]);
}

int main(int argc, char** argv) {
    table = new std::vector<int>(100, 1);
    benchmark::RegisterBenchmark("BM_lookup", BM_lookup)->Arg(3);
    benchmark::RegisterBenchmark("lambda", [](benchmark::State& st) { for (auto _ : st) {} });
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    delete table;
    return 0;
}
'''

BROKEN = r'''#include <benchmark/benchmark.h>

static void BM_fine(benchmark::State& state) { for (auto _ : state) {} }
BENCHMARK(BM_fine);

static void BM_broken(benchmark::State& state) {
    for (auto _ : state) undefined_thing();
}
BENCHMARK(BM_broken)->Arg(1);
BENCHMARK_MAIN();
'''


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture(scope="module")
def rt():
    return preferred(RUNTIMES, lambda r: r.name.startswith("gcc"))


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    d = tmp_path_factory.mktemp("gbench")
    write(d / "apis_benchmark.cc", ALL_APIS)
    write(d / "own_main.cc", OWN_MAIN)
    write(d / "broken_benchmark.cc", BROKEN)
    write(d / "notes.cc", "int helper() { return 1; }\n")  # neither named nor including benchmark.h
    return d


@pytest.fixture(scope="module")
def loaded(rt, suite):
    spec = TC.prepare(rt, TC.find_sources(suite), suite)
    with workerkit.worker(spec) as w:
        reply = w.request("load", T, paths=spec.load_paths, root=spec.root)
    return spec, reply


def by_id(reply):
    return {b["id"]: b for b in reply["benchmarks"]}


def run(w, bid, params=None, stage="workload", invocations=8, iterations=2):
    w.request("setup", T, benchmark=bid, params=params or {})
    return w.request("run", T, stage=stage, invocations=invocations, iterations=iterations)


# -- which files -----------------------------------------------------------------------------

def test_google_benchmark_files_are_found_by_name_or_include(tmp_path):
    assert is_bench_file(write(tmp_path / "hash_benchmark.cc", "int x;\n"))
    assert is_bench_file(write(tmp_path / "hash_benchmarks.cpp", "int x;\n"))
    assert is_bench_file(write(tmp_path / "whatever.cc", '#include "benchmark/benchmark.h"\n'))
    assert is_bench_file(write(tmp_path / "bench.cpp", "  #  include <benchmark/benchmark.h>\n"))
    assert not is_bench_file(write(tmp_path / "helper.cc", "int y;\n"))
    assert not is_bench_file(write(tmp_path / "x.h", '#include "benchmark/benchmark.h"\n'))


def test_registrations_are_read_from_a_file_that_does_not_compile():
    found = declared_benchmarks(textwrap.dedent('''
        BENCHMARK(BM_a)->Arg(1);
        // BENCHMARK(BM_commented_out);
        BENCHMARK_CAPTURE(BM_b, small, 1, f(2));
        BENCHMARK_TEMPLATE(BM_c, int, double);
        BENCHMARK_F(Fix, Run)(benchmark::State& st) {}
        BENCHMARK_REGISTER_F(Fix, Other);
        PERFLAB_BENCH(native) {}
        #define BENCHMARK(x) nothing
    '''), "g")
    assert [(b["name"], b["line"]) for b in found] == [
        ("BM_a", 2), ("BM_b/small", 4), ("BM_c<int,double>", 5), ("Fix/Run", 6), ("Fix/Other", 7), ("native", 8)]
    assert found[0]["id"] == "g.BM_a"


# -- registrations as perflab benchmarks -----------------------------------------------------------

def test_every_registration_is_a_benchmark_with_its_arguments_as_parameters(loaded, suite):
    spec, reply = loaded
    assert str(suite / "notes.cc") not in spec.load_paths
    b = by_id(reply)
    memcpy = [k for k in b if k.startswith("apis_benchmark.BM_memcpy/")]
    assert memcpy == ["apis_benchmark.BM_memcpy/8", "apis_benchmark.BM_memcpy/16", "apis_benchmark.BM_memcpy/64"]
    m = b["apis_benchmark.BM_memcpy/16"]
    assert m["name"] == "BM_memcpy" and m["group"] == "apis_benchmark"
    assert m["params"] == [{"name": "arg0", "values": ["16"]}]
    assert m["file"] == str(suite / "apis_benchmark.cc") and m["line"] == 26
    # Ranges with ArgNames, ArgsProduct renamed with Name(), DenseRange then Args with ArgName
    assert b["apis_benchmark.BM_two/x:8/y:100"]["params"] == [{"name": "x", "values": ["8"]},
                                                              {"name": "y", "values": ["100"]}]
    assert {"apis_benchmark.BM_two/x:1/y:100", "apis_benchmark.BM_product/3/4", "apis_benchmark.BM_product/3/5",
            "apis_benchmark.BM_two/k:0", "apis_benchmark.BM_two/k:2", "apis_benchmark.BM_two/k:9/9"} <= set(b)
    assert b["apis_benchmark.BM_product/3/5"]["name"] == "BM_product"
    # Iterations(n): one call of n iterations is one invocation of n operations
    keep = b["apis_benchmark.BM_keep/iterations:500"]
    assert keep["ops_per_invoke"] == 500 and keep["iteration_setup"] is True
    # fixtures, templates, captures, Threads(1)
    assert {"apis_benchmark.Sums/Total/10", "apis_benchmark.Sums/Total/20", "apis_benchmark.Mutable/Ready",
            "apis_benchmark.BM_make<int>", "apis_benchmark.BM_make<double>", "apis_benchmark.BM_pair<int,long>",
            "apis_benchmark.Typed<int>/Add", "apis_benchmark.BM_captured/answer",
            "apis_benchmark.BM_one_thread", "apis_benchmark.BM_setup_teardown"} <= set(b)
    # a file with its own main(): what it registers belongs to it
    assert {"own_main.BM_lookup/3", "own_main.lambda"} <= set(b)


def test_unsupported_apis_fail_their_benchmark_alone_naming_the_api_and_line(loaded, suite):
    _, reply = loaded
    errs = {e["benchmark"]["id"]: e for e in reply["errors"] if isinstance(e.get("benchmark"), dict)}
    t = errs["apis_benchmark.BM_threads"]
    assert t["file"] == str(suite / "apis_benchmark.cc") and t["line"] == 52
    assert t["message"] == "Threads(4) is not supported: perflab runs a benchmark on one thread"
    assert errs["apis_benchmark.BM_manual"]["message"].startswith("UseManualTime() is not supported")
    assert "apis_benchmark.BM_threads" not in by_id(reply)


def test_a_file_that_does_not_compile_fails_alone_with_the_compilers_line(loaded, suite):
    _, reply = loaded
    broken = [e for e in reply["errors"] if e["file"] == str(suite / "broken_benchmark.cc")]
    assert [e["benchmark"]["id"] for e in broken] == ["broken_benchmark.BM_fine", "broken_benchmark.BM_broken"]
    for e in broken:
        assert e["line"] == 7 and e["kind"] == "load"
        assert e["message"].startswith("does not compile with gcc")
        assert "broken_benchmark.cc:7:" in e["message"] and "undefined_thing" in e["message"]
    assert not [k for k in by_id(reply) if k.startswith("broken_benchmark.")]


# -- running ----------------------------------------------------------------------------------------

def test_benchmarks_run_and_report_throughput_and_counters(loaded):
    spec, _ = loaded
    with workerkit.worker(spec, load=True) as w:
        for bid in ("apis_benchmark.BM_plain", "apis_benchmark.BM_paused", "apis_benchmark.BM_batch",
                    "apis_benchmark.Sums/Total/20", "apis_benchmark.Mutable/Ready", "apis_benchmark.BM_make<int>",
                    "apis_benchmark.BM_pair<int,long>", "apis_benchmark.Typed<int>/Add",
                    "apis_benchmark.BM_captured/answer", "apis_benchmark.BM_setup_teardown",
                    "apis_benchmark.BM_product/3/5", "own_main.BM_lookup/3", "own_main.lambda"):
            s = run(w, bid, {p: 0 for p in _params(w, bid)})
            assert len(s["ns"]) == 2 and len(s["cpu_ns"]) == 2, bid
            w.request("teardown", T)
        over = run(w, "apis_benchmark.BM_plain", stage="overhead")
        assert len(over["ns"]) == 2
        w.request("teardown", T)
        s = run(w, "apis_benchmark.BM_keep/iterations:500", invocations=1, iterations=3)
        assert len(s["ns"]) == 3
        w.request("teardown", T)
        d = run(w, "apis_benchmark.BM_memcpy/64", {"arg0": 0}, stage="diagnose", invocations=10, iterations=1)
        # rates are quantities per op (the host divides by its mean); other counters as Google
        # Benchmark finishes them (counter.cc), over the last run's 10 iterations
        assert d["rates"]["bytes_per_second"] == {"per_op": 64, "unit": "B", "base": 1024, "invert": False}
        assert d["rates"]["items_per_second"] == {"per_op": 1, "unit": "", "base": 1000, "invert": False}
        assert d["metrics"] == {"per_iter": pytest.approx(2 / 10), "fixed": 7}
        assert isinstance(d["code_size"], int) and d["code_size"] > 0
        w.request("teardown", T)
        d = run(w, "apis_benchmark.BM_counters", stage="diagnose", invocations=10, iterations=1)
        assert d["rates"]["calls"]["per_op"] == 1
        assert d["rates"]["per_call_rate"]["per_op"] == 5   # kIsIterationInvariantRate: 5 per iteration
        assert d["rates"]["avg_rate"]["per_op"] == pytest.approx(4 / 10)  # 40 / 10 iterations / 10 iterations
        assert d["rates"]["inverse"] == {"per_op": 8, "unit": "", "base": 1000, "invert": True}
        assert d["metrics"] == {"invariant": 30, "half": 0.5}


def _params(w, bid):
    return {"apis_benchmark.BM_product/3/5": ["arg0", "arg1"], "own_main.BM_lookup/3": ["arg0"],
            "apis_benchmark.Sums/Total/20": ["arg0"]}.get(bid, [])


def test_skip_with_error_and_message_fail_the_case_with_their_message(loaded, suite):
    spec, _ = loaded
    with workerkit.worker(spec, load=True) as w:
        with pytest.raises(BenchmarkError) as e:
            run(w, "apis_benchmark.BM_error")
        assert str(e.value) == "SkipWithError: no input file" and e.value.file == str(suite / "apis_benchmark.cc")
        w.request("teardown", T)
        with pytest.raises(BenchmarkError) as e:
            run(w, "apis_benchmark.BM_skip")
        assert str(e.value) == "skipped (SkipWithMessage): needs AVX-512"
        w.request("teardown", T)
        assert len(run(w, "apis_benchmark.BM_plain")["ns"]) == 2  # the worker stays usable


def test_a_run_measures_the_rest_and_exits_1(rt, suite, loaded, tmp_path):
    out = subprocess.run([*perflab_cli(), "run", str(suite), "--runtimes", rt.name, "--filter", "*BM_[fbpt]*",
                          "--job", "dry", "--store", "none", "--out", str(tmp_path), "-e", "json"],
                         capture_output=True, text=True, timeout=1200)
    assert out.returncode == 1, out.stderr
    cases = json.loads(next(tmp_path.glob("*.json")).read_text())["cases"]
    status = {c["benchmark"]["id"]: c for c in cases}
    assert status["apis_benchmark.BM_plain"]["status"] == "ok"
    broken = status["broken_benchmark.BM_broken"]
    assert broken["status"] != "ok" and "broken_benchmark.cc:7:" in broken["error"]
    assert status["apis_benchmark.BM_threads"]["status"] != "ok"
    assert "Threads(4) is not supported" in status["apis_benchmark.BM_threads"]["error"]


def test_the_ecosystem_slice_runs_unchanged(tmp_path):
    out = subprocess.run([sys.executable, str(REPO / "bench" / "ecosystems.py"), "--ecosystems", "cpp-gbench",
                          "--slice", "--job", "dry", "--no-native", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "run unchanged 4/4 (100 %); failed alone 0; protocol errors 0" in out.stdout


def test_the_study_names_a_between_process_cause_only_when_the_processes_show_it():
    """bench/eco/cpp_gbench.process_cause: Google Benchmark's own processes (≥ 3) must span perflab's
    mean; processes that agree with each other (one 5 % above perflab, say) never name it."""
    sys.path.insert(0, str(REPO / "bench"))
    from eco.cpp_gbench import _native_figures, process_cause
    assert process_cause(10.0, [9.0, 11.0, 10.5]).startswith("between processes: Google Benchmark's own 3")
    assert process_cause(10.0, [10.4, 12.0, 12.5]) == ""
    assert process_cause(10.0, [10.51, 10.52, 10.52]) == ""
    assert process_cause(10.0, [12.0, 12.1, 12.2]) == ""
    assert process_cause(10.0, [9.0, 11.0]) == ""  # two processes say too little
    run = lambda t: json.dumps({"benchmarks": [{"run_type": "iteration", "run_name": "BM", "real_time": t,  # noqa: E731
                                                "cpu_time": t, "time_unit": "ns"}] * 2})
    fig = _native_figures([run(10.0), run(20.0), run(30.0)])["BM"]
    assert fig["cpu"][0] == 10.0 and fig["cpu_by_process"] == [10.0, 20.0, 30.0]  # compared: the first process
