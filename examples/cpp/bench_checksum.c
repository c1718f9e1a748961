/* perflab C example: C benchmarks register with PERFLAB_C_BENCH (or perflab_register_c). */
#include "perflab.hpp"

#include <stddef.h>
#include <stdint.h>

static unsigned char buffer[4096];

__attribute__((constructor)) static void fill(void) {
    for (size_t i = 0; i < sizeof buffer; ++i) buffer[i] = (unsigned char)(i * 31u + 7u);
}

static void adler32(void) {
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < sizeof buffer; ++i) {
        a = (a + buffer[i]) % 65521u;
        b = (b + a) % 65521u;
    }
    uint32_t sum = (b << 16) | a;
    PERFLAB_DO_NOT_OPTIMIZE(sum);
}

static void fnv1a(void) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < sizeof buffer; ++i) {
        h ^= buffer[i];
        h *= 16777619u;
    }
    PERFLAB_DO_NOT_OPTIMIZE(h);
}

PERFLAB_C_BENCH(adler32)
PERFLAB_C_BENCH(fnv1a)
