"""Is an empty benchmark's estimate unbiased? (issue #38, item 4)

Runs each language's empty benchmark (the conformance fixtures' `noop`: an empty body in perflab's
timed loop, the same loop over the empty function subtracted) `--runs` times with the short job and
prints, per run, the mean and its 99.9 % interval (net of the empty loop) and the machine's load
average before it. An unbiased estimate has its interval hold 0 in (nearly) every run and means of
both signs; a biased one (the overhead second of its request in half its rounds: the CPython noop read
-0.16 to -0.26 ns in 4 of 4 runs before the engine paired both orders alike) has means of one sign.

    nice -n 19 .venv/bin/python bench/empty_bias.py --runs 4 [--languages python,go]

`--against DIR` (a `src` folder of another perflab checkout, e.g. `git archive` of an older commit)
alternates that perflab and this one run by run, in the same stretch: the bias is a fraction of a
nanosecond, and the machine's load moves more than that between two stretches. Each run also prints
the median over processes of (overhead − workload) CPU time a call in the rounds' pairs: an empty
benchmark's two sides differ only by where they ran, so an unbiased engine has it near 0 with
either sign.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import perflab_run  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "protocol" / "fixtures"
LANGUAGES = ("python", "node", "go", "java", "rust", "cpp", "csharp")


def cpu_gap(case: dict) -> float:
    """Median over processes of (overhead − workload) CPU time a call, over the pairs measured in the
    rounds (nan when no process has CPU times)."""
    gaps = []
    for ln in case["launches"]:
        inv = max(1, ln["invocations"])
        over = [c for c, r in zip(ln["overhead_cpu"], ln["overhead_rounds"]) if r > 0]
        work = ln["workload_cpu"]
        if over and work:
            gaps.append((statistics.mean(over) - statistics.mean(work)) / inv)
    return statistics.median(gaps) if gaps else float("nan")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--languages", default=",".join(LANGUAGES))
    ap.add_argument("--job", default="short")
    ap.add_argument("--against", type=Path, help="another perflab's src folder, run alternately")
    args = ap.parse_args()
    sides = [("this", None)] + ([("against", args.against.resolve())] if args.against else [])
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"{'language':8} {'perflab':7} {'run':>3} {'load (1/5/15 min)':>18} {'mean':>10} "
          f"{'99.9% interval':>24} {'holds 0':>7} {'O-W cpu':>9}  call (overhead)")
    summary = {}
    for lang in args.languages.split(","):
        for run in range(1, args.runs + 1):
            for side, src in sides:
                held, pos, n, gaps = summary.setdefault((lang, side), [0, 0, 0, []])
                before = load()
                env = dict(os.environ, PYTHONPATH=str(src)) if src else None
                doc, _ = perflab_run(FIXTURES / lang, "--filter", "*noop*", "--job", args.job, "--store",
                                     "none", env=env)
                [case] = [c for c in doc["cases"] if "noop" in c["benchmark"]["name"]]
                est = case.get("estimate")
                if case["status"] != "ok" or not est:
                    print(f"{lang:8} {side:7} {run:>3} {before:>18} {'-':>10} {case.get('error') or 'no estimate'}")
                    continue
                holds = est["ci_low"] <= 0 <= est["ci_high"]
                gap = cpu_gap(case)
                summary[(lang, side)] = [held + holds, pos + (est["mean"] > 0), n + 1, gaps + [gap]]
                print(f"{lang:8} {side:7} {run:>3} {before:>18} {est['mean']:>8.4f}ns "
                      f"[{est['ci_low']:>9.4f}, {est['ci_high']:>9.4f}] {'yes' if holds else 'NO':>7} "
                      f"{gap:>7.3f}ns  {est['overhead_per_op']:.3f} ns")
    print()
    for (lang, side), (held, pos, n, gaps) in summary.items():
        print(f"{lang} ({side}): interval holds 0 in {held}/{n}; mean > 0 in {pos}/{n}; "
              f"O-W CPU a call > 0 in {sum(g > 0 for g in gaps)}/{len(gaps)}, median "
              f"{statistics.median(gaps) if gaps else float('nan'):.3f} ns")
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
