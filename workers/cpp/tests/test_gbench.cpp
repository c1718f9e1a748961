// Native test of benchmark/benchmark.h (perflab's Google Benchmark stand-in) with deterministic clocks:
// the wall and CPU clocks run exactly where Google Benchmark's timer runs — from the loop's start to
// its end, stopped by PauseTiming and started by ResumeTiming — and only there; KeepRunning,
// KeepRunningBatch (scaled to the iterations asked), Iterations(n), the registrations' names and
// arguments, and the failures that must stay one line.
#define PERFLAB_GBENCH_TEST_CLOCKS
#define PERFLAB_MAIN
#define PERFLAB_NO_MAIN_FUNCTION
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

// Fake clocks: a read returns the current value; the code "spends" time by advancing them.
static uint64_t fake_wall = 1000000, fake_cpu = 5000000;
namespace benchmark { namespace internal {
uint64_t perflab_test_wall_ns() { return fake_wall; }
uint64_t perflab_test_cpu_ns() { return fake_cpu; }
}}  // namespace benchmark::internal
static void spend(uint64_t ns) { fake_wall += ns, fake_cpu += ns; }

static void BM_timed(benchmark::State& state) {
    spend(1000000);  // before the loop: not timed
    for (auto _ : state) spend(7);
    spend(1000000);  // after the loop: not timed
}
BENCHMARK(BM_timed);

static void BM_paused(benchmark::State& state) {
    for (auto _ : state) {
        state.PauseTiming();
        spend(100000);  // paused: not timed
        state.ResumeTiming();
        spend(3);
    }
}
BENCHMARK(BM_paused);

static void BM_keep_running(benchmark::State& state) {
    while (state.KeepRunning()) spend(5);
}
BENCHMARK(BM_keep_running);

static void BM_batch(benchmark::State& state) {
    while (state.KeepRunningBatch(10)) spend(10 * 2);  // 2 per iteration, in batches of 10
}
BENCHMARK(BM_batch);

static void BM_fixed(benchmark::State& state) {
    for (auto _ : state) spend(1);
}
BENCHMARK(BM_fixed)->Iterations(50);

static void BM_args(benchmark::State& state) {
    for (auto _ : state) spend(uint64_t(state.range(0)));
}
BENCHMARK(BM_args)->RangeMultiplier(2)->Range(8, 32)->Args({100})->ArgName("n");
static void BM_product(benchmark::State& state) {
    for (auto _ : state) spend(1);
}
BENCHMARK(BM_product)->ArgsProduct({{1, 2}, {10, 20}})->ArgNames({"a", ""});
BENCHMARK(BM_product)->DenseRange(0, 4, 2);

static void BM_returns_early(benchmark::State&) {}
BENCHMARK(BM_returns_early);

static int failures = 0;
#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                                    \
        }                                                                                  \
    } while (0)

static const perflab::Def* find(const std::string& id_suffix) {
    for (auto& d : perflab::registry())
        if (d.id_suffix == id_suffix) return &d;
    std::fprintf(stderr, "no benchmark %s\n", id_suffix.c_str());
    return nullptr;
}

static perflab::detail::Timing timed(const std::string& id, uint64_t n, bool overhead = false) {
    const perflab::Def* d = find(id);
    perflab::State st;
    perflab::detail::Timing t{0, 0};
    if (d) d->self.run(d->self.ctx, st, n, overhead, &t.ns, &t.cpu);
    return t;
}

int main() {
    for (auto fn : perflab::late_registrars()) fn();

    // the timer runs from the loop's start to its end: 7 per iteration, nothing of the code around it
    auto t = timed("BM_timed", 100);
    CHECK(t.ns == 700 && t.cpu == 700);
    // PauseTiming/ResumeTiming stop and start both clocks exactly there
    t = timed("BM_paused", 10);
    CHECK(t.ns == 30 && t.cpu == 30);
    t = timed("BM_keep_running", 4);
    CHECK(t.ns == 20 && t.cpu == 20);
    // KeepRunningBatch(10) with 25 asked runs 30: the time is scaled to the 25 asked
    t = timed("BM_batch", 25);
    CHECK(t.ns == 50 && t.cpu == 50);
    // Iterations(50): one call of exactly 50 whatever the host asks; the host divides by ops = 50
    t = timed("BM_fixed/iterations:50", 1);
    CHECK(t.ns == 50);
    const perflab::Def* fixed = find("BM_fixed/iterations:50");
    CHECK(fixed && fixed->ops == 50 && fixed->one_invocation);
    // the overhead stage: the empty loop, through the same timer (no clock advances in it here)
    t = timed("BM_timed", 100, true);
    CHECK(t.ns == 0 && t.cpu == 0);

    // Range(8, 32) with multiplier 2 → 8 16 32, then Args({100}); ArgName names the parameter
    for (const char* id : {"BM_args/n:8", "BM_args/n:16", "BM_args/n:32", "BM_args/n:100"}) CHECK(find(id) != nullptr);
    const perflab::Def* a = find("BM_args/n:16");
    CHECK(a && a->name == "BM_args" && a->params.size() == 1 && a->params[0].first == "n" && a->params[0].second[0] == "16");
    CHECK(timed("BM_args/n:16", 3).ns == 48);
    // ArgsProduct: the last list varies fastest; an empty ArgNames entry is arg<i>
    for (const char* id : {"BM_product/a:1/10", "BM_product/a:1/20", "BM_product/a:2/10", "BM_product/a:2/20"})
        CHECK(find(id) != nullptr);
    const perflab::Def* p = find("BM_product/a:2/20");
    CHECK(p && p->params.size() == 2 && p->params[0].first == "a" && p->params[1].first == "arg1");
    // a second registration of the same function: DenseRange(0, 4, 2) → 0 2 4
    for (const char* id : {"BM_product/0", "BM_product/2", "BM_product/4"}) CHECK(find(id) != nullptr);

    // a function that never enters the loop fails with Google Benchmark's own words
    try {
        timed("BM_returns_early", 5);
        CHECK(false);
    } catch (const perflab::Failure& f) {
        CHECK(std::string(f.what()) == "Benchmark returned before State::KeepRunning() returned false!");
        CHECK(f.file == __FILE__);
    }
    if (failures) {
        std::fprintf(stderr, "test_gbench: %d failure(s)\n", failures);
        return 1;
    }
    std::printf("test_gbench: ok\n");
    return 0;
}
