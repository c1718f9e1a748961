#!/usr/bin/env bash
# Native tests of perflab.hpp with every C++ compiler found (g++, clang++): a plain test binary that drives
# the worker over a socketpair, the Google Benchmark stand-in (benchmark/benchmark.h) with fake clocks,
# plus a C translation unit that includes the header. Builds go to a
# temporary directory, never into the repository.
set -euo pipefail
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
compilers=()
for c in g++ g++-12 g++-13 g++-14 clang++ clang++-14 clang++-15 clang++-16 clang++-17 clang++-18 clang++-19; do
  command -v "$c" >/dev/null 2>&1 && compilers+=("$c")
done
if [ ${#compilers[@]} -eq 0 ]; then
  echo "workers/cpp/test.sh: no C++ compiler found" >&2
  exit 1
fi
seen=""
for cxx in "${compilers[@]}"; do
  real=$(readlink -f "$(command -v "$cxx")")
  case " $seen " in *" $real "*) continue ;; esac
  seen="$seen $real"
  for opt in -O0 -O2; do
    "$cxx" -std=c++17 $opt -Wall -Wextra -Werror -pthread -I. tests/test_header.cpp -o "$out/test_header"
    "$out/test_header"
    # perflab's Google Benchmark stand-in, with deterministic clocks
    "$cxx" -std=c++17 $opt -Wall -Wextra -Werror -pthread -I. tests/test_gbench.cpp -o "$out/test_gbench"
    "$out/test_gbench"
  done
  cc=$(echo "$cxx" | sed -e 's/clang++/clang/' -e 's/g++/gcc/')
  if command -v "$cc" >/dev/null 2>&1; then
    printf '#include "perflab.hpp"\nstatic void f(void) { int x = 1; PERFLAB_DO_NOT_OPTIMIZE(x); }\nPERFLAB_C_BENCH(f)\n' > "$out/c_bench.c"
    "$cc" -std=c11 -Wall -Wextra -Werror -I. -c "$out/c_bench.c" -o "$out/c_bench.o"
  fi
  echo "  $cxx: ok"
done
echo "workers/cpp: ok"
