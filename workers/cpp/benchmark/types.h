// benchmark/types.h: newer Google Benchmark splits benchmark.h into parts; perflab's stand-in is one header.
#include "benchmark.h"
