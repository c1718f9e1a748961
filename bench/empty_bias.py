"""Is an empty benchmark's estimate unbiased? (issue #38, item 4)

Runs each language's empty benchmark (the conformance fixtures' `noop`: an empty body in perflab's
timed loop, the same loop over the empty function subtracted) `--runs` times with the short job and
prints, per run, the mean and its 99.9 % interval (net of the empty loop) and the machine's load
average before it. An unbiased estimate has its interval hold 0 in (nearly) every run and means of
both signs; a biased one (the overhead second of its request in half its rounds: the CPython noop read
-0.16 to -0.26 ns in 4 of 4 runs before the engine paired both orders alike) has means of one sign.

    nice -n 19 .venv/bin/python bench/empty_bias.py --runs 4 [--languages python,go]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import perflab_run  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "protocol" / "fixtures"
LANGUAGES = ("python", "node", "go", "java", "rust", "cpp", "csharp")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--languages", default=",".join(LANGUAGES))
    ap.add_argument("--job", default="short")
    args = ap.parse_args()
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"{'language':8} {'run':>3} {'load (1/5/15 min)':>18} {'mean':>10} {'99.9% interval':>24} "
          f"{'holds 0':>7}  call (overhead)")
    summary = {}
    for lang in args.languages.split(","):
        held = signs = 0
        for run in range(1, args.runs + 1):
            before = load()
            doc, _ = perflab_run(FIXTURES / lang, "--filter", "*noop*", "--job", args.job, "--store", "none")
            [case] = [c for c in doc["cases"] if "noop" in c["benchmark"]["name"]]
            est = case.get("estimate")
            if case["status"] != "ok" or not est:
                print(f"{lang:8} {run:>3} {before:>18} {'-':>10} {case.get('error') or 'no estimate'}")
                continue
            holds = est["ci_low"] <= 0 <= est["ci_high"]
            held += holds
            signs += est["mean"] > 0
            print(f"{lang:8} {run:>3} {before:>18} {est['mean']:>8.4f}ns "
                  f"[{est['ci_low']:>9.4f}, {est['ci_high']:>9.4f}] {'yes' if holds else 'NO':>7}  "
                  f"{est['overhead_per_op']:.3f} ns")
        summary[lang] = (held, signs, args.runs)
    print()
    for lang, (held, pos, n) in summary.items():
        print(f"{lang}: interval holds 0 in {held}/{n}; mean > 0 in {pos}/{n}")
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
