"""(a) Time to verdict: wall time for a trivial benchmark (a dictionary lookup) to reach perflab's default
precision target (99.9% CI half-width ≤ 2% of the mean), against pyperf's default run of the same
workload, in the same script run on the same interpreter.

    .venv/bin/python bench/time_to_verdict.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import perflab_run, write_bench

# Integer keys: their hashes are the same in every process. With string keys, hash randomisation gives
# every process its own collision pattern and the lookup's cost really differs between processes (we
# measured launch means 4-9% apart); perflab then reports "processes disagree" and needs many more
# launches for the same precision — run with --strings to see it.
SOURCE = """
    import perflab
    TABLE = {i: i for i in range(100)}

    @perflab.benchmark
    def lookup():
        return TABLE[42]
"""
SOURCE_STRINGS = SOURCE.replace("{i: i for i in range(100)}", '{"key%d" % i: i for i in range(100)}'
                                ).replace("TABLE[42]", 'TABLE["key42"]')


def run_pyperf(strings: bool) -> tuple[float, float, float]:
    out = Path(tempfile.mkdtemp()) / "pyperf.json"
    setup, stmt = (('TABLE = {"key%d" % i: i for i in range(100)}', 'TABLE["key42"]') if strings
                   else ("TABLE = {i: i for i in range(100)}", "TABLE[42]"))
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pyperf", "timeit", "--quiet", "-o", str(out),
                    "-s", setup, stmt], check=True, capture_output=True)
    wall = time.perf_counter() - t0
    import statistics
    doc = json.loads(out.read_text())
    values = [v for run in doc["benchmarks"][0]["runs"] for v in run.get("values", [])]
    return wall, statistics.mean(values) * 1e9, statistics.stdev(values) * 1e9


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--strings", action="store_true", help="string keys (hash randomisation)")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp())
    path = write_bench(folder, "bench_lookup.py", SOURCE_STRINGS if args.strings else SOURCE)
    print(f"interpreter: {sys.executable} ({sys.version.split()[0]})")
    for i in range(args.repeat):
        doc, wall = perflab_run(path, "--runtimes", sys.executable, "--job", "default",
                                "--store", "none")
        [case] = doc["cases"]
        est = case["estimate"]
        measured = case["wall_seconds"]
        print(f"perflab default #{i + 1}: command {wall:5.2f} s, measuring {measured:5.2f} s, "
              f"mean {est['mean']:.2f} ns ± {est['error']:.2f} ns ({100 * est['error'] / est['mean']:.2f}%), "
              f"net of {est['overhead_per_op']:.1f} ns call overhead; stop: {case['stop_reason']}; "
              f"{est['n']} iterations in {est['launches']} processes")
    for i in range(min(args.repeat, 2)):
        wall, mean, sd = run_pyperf(args.strings)
        print(f"pyperf timeit default #{i + 1}: {wall:5.2f} s, mean {mean:.2f} ns ± {sd:.2f} ns (std dev)")


if __name__ == "__main__":
    main()
