"""perflab's C++ worker versus Google Benchmark on one trivial workload, A/A style.

Each tool measures two *identical* benchmarks, A and B (same source, separate functions), in a fresh
process, `--reps` times, compiled by the same compiler with the same flags. We report, per tool:

- time to verdict: wall-clock seconds from the command's start to results (compilation included for
  Google Benchmark, whose binary is rebuilt each time like perflab's cache-miss-free second run is not);
- the A/A ratio B/A: a good harness says ~1.00, and its interval should contain 1;
- the spread of A's mean across processes (max/min), i.e. how reproducible one run is.

Google Benchmark comes from the distribution (`apt-get install libbenchmark-dev`); it runs with
`--benchmark_repetitions=10`, and its interval is mean ± 2 standard errors of the repetitions.

    .venv/bin/python bench/cpp_vs_gbench.py [--reps 3] [--runtime gcc12] [--flags=-O2] [--job short]
"""
from __future__ import annotations

import json
import math
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _compare import aa_args, aa_report, aa_rows, perflab_aa, runtime_named, timed  # noqa: E402
from perflab.toolchains.cpp import CppToolchain  # noqa: E402

WORKLOAD = """
static double data[100];
static struct Init { Init() { for (int i = 0; i < 100; ++i) data[i] = i * 0.5; } } init_;
__attribute__((noinline)) static double sumA() { double s = 0; for (int i = 0; i < 100; ++i) s += data[i]; return s; }
__attribute__((noinline)) static double sumB() { double s = 0; for (int i = 0; i < 100; ++i) s += data[i]; return s; }
"""

PERFLAB_FILE = '#include "perflab.hpp"\n' + WORKLOAD + """
PERFLAB_BENCH(A, perflab::baseline()) { perflab::do_not_optimize(sumA()); }
PERFLAB_BENCH(B) { perflab::do_not_optimize(sumB()); }
"""

GBENCH_FILE = "#include <benchmark/benchmark.h>\n" + WORKLOAD + """
static void A(benchmark::State& st) { for (auto _ : st) benchmark::DoNotOptimize(sumA()); }
static void B(benchmark::State& st) { for (auto _ : st) benchmark::DoNotOptimize(sumB()); }
BENCHMARK(A);
BENCHMARK(B);
BENCHMARK_MAIN();
"""


def run_perflab(spec: str, work: Path, job: str) -> dict:
    return perflab_aa(work, "aa_bench.cpp", PERFLAB_FILE, spec, job, timeout=1800, extra=("--store", "none"))


def run_gbench(cxx: str, flags: list[str], work: Path) -> dict:
    src = work / "gb.cpp"
    src.write_text(GBENCH_FILE)
    t0 = time.perf_counter()
    timed([cxx, "-std=c++17", *flags, str(src), "-o", str(work / "gb"), "-lbenchmark", "-lpthread"], work,
          timeout=1800)
    _, out = timed([str(work / "gb"), "--benchmark_repetitions=10", "--benchmark_format=json"], work,
                   timeout=1800)
    wall = time.perf_counter() - t0
    doc = json.loads(out)
    reps: dict[str, list[float]] = {"A": [], "B": []}
    for b in doc["benchmarks"]:
        if b.get("run_type") == "iteration" and b["run_name"] in reps:
            reps[b["run_name"]].append(b["real_time"] * {"ns": 1, "us": 1e3, "ms": 1e6}[b["time_unit"]])
    a, b = statistics.mean(reps["A"]), statistics.mean(reps["B"])
    sea = statistics.stdev(reps["A"]) / math.sqrt(len(reps["A"]))
    seb = statistics.stdev(reps["B"]) / math.sqrt(len(reps["B"]))
    lo, hi = (b - 2 * seb) / (a + 2 * sea), (b + 2 * seb) / max(a - 2 * sea, 1e-12)
    return {"wall": wall, "A": a, "B": b, "ratio": b / a, "contains_1": lo <= 1 <= hi}


def main() -> int:
    args = aa_args(__doc__, "gcc12", extra=(("--flags", "-O2"),))
    rt = runtime_named(CppToolchain(), args.runtime, "compiler runtime")
    flags = args.flags.split()
    rows = aa_rows(args.reps, {"perflab": lambda work: run_perflab(f"{args.runtime}:{args.flags}", work, args.job),
                               "gbench": lambda work: run_gbench(rt.executable, flags, work)})
    aa_report(f"A/A on {rt.name} {args.flags} ({rt.version}), {args.reps} processes per tool; perflab job '{args.job}'",
              rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
