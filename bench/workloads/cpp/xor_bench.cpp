// AB_SIZE x 10 dependent xor-shift steps per call.
#include "perflab.hpp"

#include <cstdint>
#include <cstdlib>

static const int STEPS = [] {
    const char* s = std::getenv("AB_SIZE");
    int n = s ? std::atoi(s) : 0;
    return 10 * (n > 0 ? n : 100);
}();

__attribute__((noinline)) static std::uint64_t work(std::uint64_t x, int steps) {
    for (int j = 0; j < steps; ++j) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

PERFLAB_BENCH(work) { perflab::do_not_optimize(work(88172645463325252ull, STEPS)); }
