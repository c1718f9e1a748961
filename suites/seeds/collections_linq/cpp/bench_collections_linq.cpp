// Collections and LINQ experiments of seeds 000 (".NET 6": Collections and LINQ) and 003
// (".NET Core 3.0": Collections, LINQ), ported to C++17's containers and <algorithm>/<numeric>.
#include "perflab.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <mutex>
#include <numeric>
#include <queue>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#define SEED_META(seed, section) perflab::meta("seed", seed), perflab::meta("section", section)

namespace {

// Dictionary<string,int>(100 entries) ↔ std::unordered_map<std::string, int>.
const std::unordered_map<std::string, int> DICT = [] {
    std::unordered_map<std::string, int> d;
    for (int i = 0; i < 100; ++i) d.emplace(std::to_string(i), i);
    return d;
}();

struct Linq {
    std::vector<std::string> strings;
    std::vector<int> e1, e2;
    std::vector<std::chrono::milliseconds> spans;  // TimeSpan ↔ std::chrono::duration
};
Linq L;

void setup_linq(perflab::State&) {
    L.strings.clear();
    for (int i = 0; i < 100000; ++i) L.strings.push_back(std::to_string(i));
    L.e1.resize(1000000);
    std::iota(L.e1.begin(), L.e1.end(), 0);
    L.e2 = L.e1;
    L.spans.clear();
    for (int i = 0; i < 1000000; ++i) L.spans.emplace_back(i);
}
void teardown_linq(perflab::State&) { L = Linq(); }

#define LINQ_FIXTURE perflab::setup(setup_linq), perflab::teardown(teardown_linq)

std::vector<double> s_items;
std::vector<int> s_takelast(1000);
std::unordered_map<int, int> s_counts;  // AddNew's dictionary
std::deque<int> s_queue;
std::mutex s_queue_lock;

}  // namespace

// The copy constructor new Dictionary<string,int>(d) ↔ the unordered_map copy constructor.
PERFLAB_BENCH(Clone, perflab::category("collections"), perflab::category("quick"),
              SEED_META("000", "Collections and LINQ"), perflab::meta("fidelity", "faithful")) {
    std::unordered_map<std::string, int> copy(DICT);
    perflab::do_not_optimize(copy);
}

// The seed's counting loop: ++counts[i] for keys 0..9999 (operator[] is one lookup that adds a missing key, as
// GetValueRefOrAddDefault) on one map that lives as long as the case (the seed's `_counts` field).
PERFLAB_BENCH(AddNew, perflab::category("collections"), SEED_META("000", "Collections and LINQ"),
              perflab::meta("fidelity", "faithful"), perflab::setup([](perflab::State&) { s_counts.clear(); })) {
    for (int i = 0; i < 10000; ++i) ++s_counts[i];
    perflab::do_not_optimize(s_counts);
}

// Distinct().Count() over 100 000 strings ↔ the size of an unordered_set built from them.
PERFLAB_BENCH(DistinctCount, perflab::category("collections"), SEED_META("000", "Collections and LINQ"), LINQ_FIXTURE,
              perflab::meta("fidelity", "faithful")) {
    std::unordered_set<std::string> distinct(L.strings.begin(), L.strings.end());
    perflab::do_not_optimize(distinct.size());
}

// Two equal 1 000 000-int sequences ↔ std::equal.
PERFLAB_BENCH(SequenceEqual, perflab::category("collections"), SEED_META("000", "Collections and LINQ"), LINQ_FIXTURE,
              perflab::meta("fidelity", "faithful")) {
    bool eq = std::equal(L.e1.begin(), L.e1.end(), L.e2.begin(), L.e2.end());
    perflab::do_not_optimize(eq);
}

// Max()/Min() of 1 000 000 TimeSpans ↔ std::max_element/std::min_element of std::chrono::milliseconds.
PERFLAB_BENCH(Max, perflab::category("collections"), SEED_META("000", "Collections and LINQ"), LINQ_FIXTURE,
              perflab::meta("fidelity", "faithful")) {
    auto m = *std::max_element(L.spans.begin(), L.spans.end());
    perflab::do_not_optimize(m);
}
PERFLAB_BENCH(Min, perflab::category("collections"), SEED_META("000", "Collections and LINQ"), LINQ_FIXTURE,
              perflab::meta("fidelity", "faithful")) {
    auto m = *std::min_element(L.spans.begin(), L.spans.end());
    perflab::do_not_optimize(m);
}

// Enumerable.Range(0, 100).Select(i => i * 2).ToArray() ↔ a vector filled by std::transform-like loop.
PERFLAB_BENCH(RangeSelectToArray, perflab::category("collections"), SEED_META("003", "LINQ"),
              perflab::meta("fidelity", "partial: C++17 has no LINQ-like ranges; a loop into a vector of 100")) {
    std::vector<int> out(100);
    int n = 0;
    std::generate(out.begin(), out.end(), [&n] { return 2 * n++; });
    perflab::do_not_optimize(out.data());
    perflab::clobber_memory();
}

// TakeLast(10).Sum() over 1000 ints ↔ std::accumulate over the last 10.
PERFLAB_BENCH(SumLast10, perflab::category("collections"), SEED_META("003", "LINQ"),
              perflab::meta("fidelity", "partial: C++17 has no lazy ranges; std::accumulate over a vector's last 10, where the seed's TakeLast goes through a lazy Select"),
              perflab::setup([](perflab::State&) { std::iota(s_takelast.begin(), s_takelast.end(), 0); })) {
    perflab::do_not_optimize(s_takelast.data());
    long long sum = std::accumulate(s_takelast.end() - 10, s_takelast.end(), 0LL);
    perflab::do_not_optimize(sum);
}

// PriorityQueue<TElement,TPriority> (new in .NET 6) ↔ std::priority_queue: enqueue n, then dequeue all.
PERFLAB_BENCH(EnqueueDequeue, perflab::param("n", {1000}), perflab::category("collections"),
              perflab::meta("extra", true), perflab::meta("related", "000 · Collections and LINQ"), perflab::setup([](perflab::State& s) {
                  std::mt19937 rnd(42);
                  std::uniform_real_distribution<double> u(0.0, 1.0);
                  s_items.clear();
                  for (long long i = 0; i < s.range(0); ++i) s_items.push_back(u(rnd));
              })) {
    std::priority_queue<double, std::vector<double>, std::greater<double>> q;  // min-heap, as .NET's
    for (double x : s_items) q.push(x);
    while (!q.empty()) q.pop();
    perflab::clobber_memory();
}

// ConcurrentQueue Enqueue/Count/Dequeue ↔ a std::deque under a std::mutex (std has no concurrent queue),
// holding 100 items (the seed's GlobalSetup).
PERFLAB_BENCH(EnqueueCountDequeue, perflab::category("collections"), SEED_META("003", "Collections"),
              perflab::meta("fidelity", "partial: C++ std has no concurrent queue; a std::deque holding 100 under a std::mutex, locked for each operation"),
              perflab::setup([](perflab::State&) {
                  s_queue.clear();
                  for (int i = 0; i < 100; ++i) s_queue.push_back(i);
              })) {
    size_t n;
    {
        std::lock_guard<std::mutex> lock(s_queue_lock);
        s_queue.push_back(42);
    }
    {
        std::lock_guard<std::mutex> lock(s_queue_lock);
        n = s_queue.size();
    }
    {
        std::lock_guard<std::mutex> lock(s_queue_lock);
        s_queue.pop_front();
    }
    perflab::do_not_optimize(n);
}
