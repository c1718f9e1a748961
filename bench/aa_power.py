"""A/A and power study of perflab's verdicts, with the other core kept busy by a background process.

Each trial is one `perflab run` of the same benchmark under two runtime labels on the same interpreter,
measured the way perflab compares anything (interleaved rounds, paired ratio). The second label sets
PERFLAB_SLOWDOWN, which makes the benchmark do exactly that much more work (1.00 = A/A, 1.03, 1.10).

Verdict rule (the same as `perflab compare`): "different" when the ratio's 99.9% interval excludes
1.00 and the ratio is more than the 2% noise threshold away from 1.00.

    .venv/bin/python bench/aa_power.py [--aa 50] [--power 20] [--job short]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import perflab_run, write_bench

SOURCE = """
    import os
    import perflab

    FACTOR = float(os.environ.get("PERFLAB_SLOWDOWN", "1"))
    STEPS = int(round(2000 * FACTOR))  # the work scales exactly with the planted slowdown
    DATA = list(range(64))

    @perflab.benchmark
    def work():
        total = 0
        for i in range(STEPS):
            total += DATA[i & 63]
        return total
"""
THRESHOLD = 0.02


def trial(path: Path, factor: float, job: str) -> tuple[bool, float, tuple[float, float]]:
    py = sys.executable
    doc, _ = perflab_run(path, "--runtimes", f"{py}:PERFLAB_AA=A PERFLAB_SLOWDOWN=1.00,{py}:PERFLAB_AA=B PERFLAB_SLOWDOWN={factor:.2f}",
                         "--job", job, "--store", "none")
    case = next(c for c in doc["cases"] if not c["is_baseline"])
    r = case["ratio"]
    different = (not (r["ci_low"] <= 1.0 <= r["ci_high"])) and abs(r["value"] - 1) > THRESHOLD
    return different, r["value"], (r["ci_low"], r["ci_high"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--aa", type=int, default=50)
    ap.add_argument("--power", type=int, default=20)
    ap.add_argument("--job", default="short")
    args = ap.parse_args()
    path = write_bench(Path(tempfile.mkdtemp()), "bench_aa_power.py", SOURCE)
    # keep the other core busy for the whole study
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    t0 = time.time()
    try:
        for factor, n in ((1.00, args.aa), (1.03, args.power), (1.10, args.power)):
            if n == 0:
                continue
            hits, ratios = 0, []
            for _ in range(n):
                different, value, ci = trial(path, factor, args.job)
                hits += different
                ratios.append(value)
            label = "A/A false alarms" if factor == 1.0 else f"detected {factor - 1:.0%} slowdown"
            ratios.sort()
            print(f"{label}: {hits}/{n}; ratios median {ratios[n // 2]:.4f}, "
                  f"range {ratios[0]:.4f}–{ratios[-1]:.4f}", flush=True)
    finally:
        hog.kill()
    print(f"study took {time.time() - t0:.0f} s with the other core busy (job {args.job})")


if __name__ == "__main__":
    main()
