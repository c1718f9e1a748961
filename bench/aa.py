"""(c) A/A: the same benchmark on the same interpreter under two runtime labels (they differ only by an
unused environment variable), compared as perflab compares runtimes: interleaved rounds, paired ratio.
A trustworthy harness says 1.00 with an interval containing 1.00.

    .venv/bin/python bench/aa.py [--repeat 10] [--job short]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from _common import perflab_run, write_bench

SOURCE = """
    import perflab
    WORDS = ["alpha", "beta", "gamma", "delta"] * 25

    @perflab.benchmark
    def join():
        return ",".join(WORDS)
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--job", default="short")
    args = ap.parse_args()
    path = write_bench(Path(tempfile.mkdtemp()), "bench_aa.py", SOURCE)
    called_different = 0
    worst = 0.0
    walls = []
    for i in range(args.repeat):
        doc, wall = perflab_run(path, "--runtimes", f"{sys.executable}:PERFLAB_AA=A,"
                                f"{sys.executable}:PERFLAB_AA=B", "--job", args.job, "--store", "none")
        walls.append(wall)
        b = next(c for c in doc["cases"] if not c["is_runtime_baseline"])
        r = b["runtime_ratio"]  # two runtimes: "Ratio vs A" (perflab.ratios)
        differs = not (r["ci_low"] <= 1.0 <= r["ci_high"])
        called_different += differs
        worst = max(worst, abs(r["value"] - 1))
        print(f"run {i + 1}: ratio {r['value']:.4f} [{r['ci_low']:.4f}, {r['ci_high']:.4f}] "
              f"{'paired' if r['paired'] else 'unpaired'} {'DIFFERENT' if differs else 'same'}; "
              f"{wall:.1f} s")
    print(f"A/A: {called_different} of {args.repeat} runs called different at 99.9%; "
          f"largest |ratio − 1| = {100 * worst:.2f}%; median command time "
          f"{sorted(walls)[len(walls) // 2]:.1f} s")


if __name__ == "__main__":
    main()
