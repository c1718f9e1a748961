// perflab C++ example: `perflab run examples/cpp --runtimes gcc12:-O2,gcc12:-O3`
#include "perflab.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>
#include <vector>

static std::vector<int> keys;
static std::vector<int> sorted_keys;
static std::map<int, int> tree;
static std::unordered_map<int, int> hash;
static size_t cursor = 0;

static void build(perflab::State& s) {
    const int n = static_cast<int>(s.param_int("n"));
    keys.resize(static_cast<size_t>(n));
    std::iota(keys.begin(), keys.end(), 0);
    // a fixed shuffle (no <random> state across compilers)
    for (size_t i = keys.size(); i > 1; --i) std::swap(keys[i - 1], keys[(i * 2654435761u) % i]);
    sorted_keys = keys;
    std::sort(sorted_keys.begin(), sorted_keys.end());
    tree.clear();
    hash.clear();
    for (int k : keys) {
        tree[k] = k * 2;
        hash[k] = k * 2;
    }
    cursor = 0;
}

static int next_key() {
    int k = keys[cursor];
    cursor = cursor + 1 == keys.size() ? 0 : cursor + 1;
    return k;
}

PERFLAB_BENCH(binary_search, perflab::param("n", {100, 100000}), perflab::setup(build), perflab::baseline(),
              perflab::description("std::lower_bound over a sorted vector")) {
    auto it = std::lower_bound(sorted_keys.begin(), sorted_keys.end(), next_key());
    perflab::do_not_optimize(*it);
}

PERFLAB_BENCH(std_map, perflab::param("n", {100, 100000}), perflab::setup(build)) {
    perflab::do_not_optimize(tree.find(next_key())->second);
}

PERFLAB_BENCH(unordered_map, perflab::param("n", {100, 100000}), perflab::setup(build)) {
    perflab::do_not_optimize(hash.find(next_key())->second);
}
