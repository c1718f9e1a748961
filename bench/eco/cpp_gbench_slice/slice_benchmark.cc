// The CI slice of bench/eco/cpp_gbench.py: a small Google Benchmark file written for perflab's own
// tests (the corpus's real files are fetched at run time and never committed). It is plain Google
// Benchmark: `g++ slice_benchmark.cc -lbenchmark` builds it natively, perflab runs it unchanged.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

static void BM_accumulate(benchmark::State& state) {
    std::vector<int64_t> v(state.range(0));
    std::iota(v.begin(), v.end(), 0);
    for (auto _ : state) {
        int64_t s = std::accumulate(v.begin(), v.end(), int64_t(0));
        benchmark::DoNotOptimize(s);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_accumulate)->RangeMultiplier(8)->Range(64, 4096);

static void BM_sort_copy(benchmark::State& state) {
    std::vector<uint32_t> base(state.range(0));
    uint32_t x = 12345;
    for (auto& e : base) e = x = x * 1664525u + 1013904223u;
    for (auto _ : state) {
        state.PauseTiming();
        std::vector<uint32_t> v = base;
        state.ResumeTiming();
        std::sort(v.begin(), v.end());
        benchmark::DoNotOptimize(v.data());
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_sort_copy)->Arg(1024)->ArgName("n");

BENCHMARK_MAIN();
