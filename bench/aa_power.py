"""A/A and power study of perflab's verdicts, with the other core kept busy by a background process.

Each trial is one `perflab run` of the same benchmark under two runtime labels on the same interpreter,
measured the way perflab compares anything (interleaved rounds, paired ratio). The second label sets
PERFLAB_SLOWDOWN, which makes the benchmark do exactly that much more work (1.00 = A/A, 1.03, 1.10).

Verdict rule (the same as `perflab compare`): "different" when the ratio's 99.9% interval excludes
1.00 and the ratio is more than the 2% noise threshold away from 1.00.

    .venv/bin/python bench/aa_power.py [--aa 50] [--power 20] [--job default] [--target 0.01]

The conditions are interleaved (A/A, 3 %, 10 %, A/A, …) and the tallies are printed after every
trial, so a study stopped early is still balanced and its figures can be read.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import called_different, perflab_run, write_bench

SOURCE = """
    import os
    import perflab

    FACTOR = float(os.environ.get("PERFLAB_SLOWDOWN", "1"))
    STEPS = int(round(2000 * FACTOR))  # the work scales exactly with the planted slowdown
    # Small ints only (XOR of values below 64 stays below 64), iterated from a list: the work
    # allocates nothing. (Summing past 256 and counting with range allocated an int per step, and
    # the measured ratio then followed the process's heap state: the same 1.10 read 1.085 or 1.103
    # depending only on which modules perflab's worker had imported.)
    DATA = [i & 63 for i in range(STEPS)]

    @perflab.benchmark
    def work():
        total = 0
        for x in DATA:
            total ^= x
        return total
"""
def trial(path: Path, factor: float, job: str, extra: list[str]
          ) -> tuple[bool, float, tuple[float, float], float]:
    py = sys.executable
    doc, wall = perflab_run(path, "--runtimes", f"{py}:PERFLAB_AA=A PERFLAB_SLOWDOWN=1.00,{py}:PERFLAB_AA=B PERFLAB_SLOWDOWN={factor:.2f}",
                         "--job", job, "--store", "none", *extra)
    case = next(c for c in doc["cases"] if not c["is_runtime_baseline"])
    r = case["runtime_ratio"]  # two runtimes: "Ratio vs A" (perflab.ratios)
    different = called_different(r["value"], r["ci_low"], r["ci_high"])
    return different, r["value"], (r["ci_low"], r["ci_high"]), wall


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--aa", type=int, default=50)
    ap.add_argument("--power", type=int, default=20)
    ap.add_argument("--job", default="default")
    ap.add_argument("--target", help="precision target passed to perflab run (overrides the job's)")
    ap.add_argument("--budget", help="seconds per case passed to perflab run (overrides the job's)")
    args = ap.parse_args()
    extra = (["--target", args.target] if args.target else []) + (["--budget", args.budget] if args.budget else [])
    path = write_bench(Path(tempfile.mkdtemp()), "bench_aa_power.py", SOURCE)
    # the schedule interleaves the conditions, so that machine phases hit all of them alike
    todo = {1.00: args.aa, 1.03: args.power, 1.10: args.power}
    schedule = []
    while any(todo.values()):
        for factor in (1.00, 1.03, 1.00, 1.10):
            if todo[factor]:
                todo[factor] -= 1
                schedule.append(factor)
    hits = {f: 0 for f in (1.00, 1.03, 1.10)}
    ratios: dict[float, list[float]] = {f: [] for f in hits}
    walls: dict[float, list[float]] = {f: [] for f in hits}
    # keep the other core busy for the whole study
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    t0 = time.time()
    try:
        for i, factor in enumerate(schedule, 1):
            different, value, ci, wall = trial(path, factor, args.job, extra)
            hits[factor] += different
            ratios[factor].append(value)
            walls[factor].append(wall)
            print(f"trial {i}/{len(schedule)} factor {factor:.2f}: ratio {value:.4f} [{ci[0]:.4f}, {ci[1]:.4f}] "
                  f"{'DIFFERENT' if different else 'same'}; this comparison {wall:.1f} s; "
                  f"{time.time() - t0:.0f} s in all", flush=True)
    finally:
        hog.kill()
    for factor in (1.00, 1.03, 1.10):
        rs = sorted(ratios[factor])
        n = len(rs)
        if not n:
            continue
        label = "A/A false alarms" if factor == 1.0 else f"detected {factor - 1:.0%} slowdown"
        ws = sorted(walls[factor])
        print(f"{label}: {hits[factor]}/{n}; ratios median {rs[n // 2]:.4f}, range {rs[0]:.4f}–{rs[-1]:.4f}; "
              f"wall per comparison median {ws[n // 2]:.1f} s, max {ws[-1]:.1f} s")
    print(f"study took {time.time() - t0:.0f} s with the other core busy (job {args.job}"
          + (f", {' '.join(extra)}" if extra else "") + ")")


if __name__ == "__main__":
    main()
