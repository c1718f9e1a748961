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

import argparse
import json
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

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


def timed(argv: list[str], cwd: Path) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed: {out.stderr[-800:]}")
    return wall, out.stdout


def run_perflab(spec: str, work: Path, job: str) -> dict:
    f = work / "aa_bench.cpp"
    f.write_text(PERFLAB_FILE)
    outdir = work / "out"
    shutil.rmtree(outdir, ignore_errors=True)
    exe = shutil.which("perflab") or str(REPO / ".venv" / "bin" / "perflab")
    wall, _ = timed([exe, "run", str(f), "-r", spec, "--job", job, "-e", "json", "-o", str(outdir),
                     "--store", "none"], work)
    doc = json.loads(next(outdir.glob("*.json")).read_text())
    means = {c["benchmark"]["name"]: c["estimate"]["mean"] for c in doc["cases"]}
    b = next(c for c in doc["cases"] if c["benchmark"]["name"] == "B")
    r = b.get("ratio") or {}
    return {"wall": wall, "A": means["A"], "B": means["B"], "ratio": r.get("value"),
            "contains_1": r.get("ci_low", 0) <= 1 <= r.get("ci_high", 0)}


def run_gbench(cxx: str, flags: list[str], work: Path) -> dict:
    src = work / "gb.cpp"
    src.write_text(GBENCH_FILE)
    t0 = time.perf_counter()
    timed([cxx, "-std=c++17", *flags, str(src), "-o", str(work / "gb"), "-lbenchmark", "-lpthread"], work)
    _, out = timed([str(work / "gb"), "--benchmark_repetitions=10", "--benchmark_format=json"], work)
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
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--runtime", default="gcc12")
    ap.add_argument("--flags", default="-O2")
    ap.add_argument("--job", default="short", help="perflab job (dry, short, default, long)")
    args = ap.parse_args()
    rt = next((r for r in CppToolchain().discover_runtimes() if r.name == args.runtime), None)
    if rt is None:
        sys.exit(f"unknown compiler runtime {args.runtime}")
    flags = args.flags.split()
    rows: dict[str, list[dict]] = {"perflab": [], "gbench": []}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for _ in range(args.reps):  # interleave tools so machine drift hits them alike
            rows["perflab"].append(run_perflab(f"{args.runtime}:{args.flags}", work, args.job))
            rows["gbench"].append(run_gbench(rt.executable, flags, work))
    print(f"A/A on {rt.name} {args.flags} ({rt.version}), {args.reps} processes per tool; perflab job '{args.job}'")
    print(f"{'tool':10} {'verdict s':>10} {'A ns':>9} {'A spread':>9} {'A/A ratios':>24} {'CI has 1':>9}")
    for tool, rs in rows.items():
        walls = statistics.median(r["wall"] for r in rs)
        a = [r["A"] for r in rs]
        ratios = " ".join(f"{r['ratio']:.3f}" if r["ratio"] else "-" for r in rs)
        has1 = f"{sum(bool(r.get('contains_1')) for r in rs)}/{len(rs)}"
        print(f"{tool:10} {walls:10.1f} {statistics.median(a):9.2f} {max(a) / min(a):9.3f} {ratios:>24} {has1:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
