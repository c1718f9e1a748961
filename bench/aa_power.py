"""Power (and its A/A control) under the three conditions: a planted 10 % change must be found in
≥ 90 % of trials and a 3 % one in ≥ 50 %, within the default job's budget, with the same code not
called different.

Each trial is one `perflab run` of the same benchmark under two runtime labels on the same interpreter,
measured the way perflab compares anything (interleaved rounds, paired ratio). The second label sets
PERFLAB_SLOWDOWN, which makes the benchmark do exactly that much more work (1.00 = A/A, 1.03, 1.10).

Verdict rule (the same as `perflab compare`): "different" when the ratio's 99.9% interval excludes
1.00 and the ratio is more than the 2% noise threshold away from 1.00; a planted change is found when
it is called different the right way round (slower), and the wrong way round is counted apart.

    .venv/bin/python bench/aa_power.py [--repeat 20] [--aa N] [--power N] [--job default] [--target 0.01]
        [--conditions quiet,busy,stress] [--quick]

`--repeat N` sets the trials per condition of each factor (A/A, 3 %, 10 %); `--aa` and `--power`
override it for the A/A and the planted ones. The factors are interleaved (A/A, 3 %, A/A, 10 %, …)
within each condition's turn, and the conditions are interleaved too, so a study stopped early is
still balanced.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _conditions  # noqa: E402
from _common import NO_RATIO, compared_case, inconclusive, perflab_run, ratio_of, write_bench  # noqa: E402

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



def trial(path: Path, factor: float, job: str, extra: list[str], out: Path) -> dict:
    py = sys.executable
    doc, wall = perflab_run(path, "--runtimes", f"{py}:PERFLAB_AA=A PERFLAB_SLOWDOWN=1.00,"
                            f"{py}:PERFLAB_AA=B PERFLAB_SLOWDOWN={factor:.2f}",
                            "--job", job, "--store", "none", *extra, out=out)
    case = compared_case(doc)
    r = ratio_of(case) or NO_RATIO
    return {"factor": factor, "different": r.different, "ratio": r.value, "low": r.low, "high": r.high,
            "inconclusive": inconclusive(case, doc), "wall": wall}


def factor_order(counts: dict[float, int]) -> list[float]:
    """The factors interleaved (A/A, 3 %, A/A, 10 %, …) until each has its count."""
    todo = dict(counts)
    order = []
    while any(todo.values()):
        for factor in (1.00, 1.03, 1.00, 1.10):
            if todo[factor]:
                todo[factor] -= 1
                order.append(factor)
    return order


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    _conditions.add_arguments(ap, repeat=20, quick=2)
    ap.add_argument("--aa", type=int, default=None, help="A/A trials per condition (default: --repeat)")
    ap.add_argument("--power", type=int, default=None, help="trials per condition of each planted change")
    ap.add_argument("--job", default="default")
    ap.add_argument("--target", help="precision target passed to perflab run (overrides the job's)")
    ap.add_argument("--budget", help="seconds per case passed to perflab run (overrides the job's)")
    ap.add_argument("--duet", choices=("on", "off"), help="perflab run --duet (default: the job's)")
    args = ap.parse_args()
    extra = ((["--target", args.target] if args.target else []) + (["--budget", args.budget] if args.budget else [])
             + (["--duet", args.duet] if args.duet else []))
    study = _conditions.Study("aa_power", args)
    counts = {1.00: study.repeat if args.aa is None else args.aa,
              1.03: study.repeat if args.power is None else args.power}
    counts[1.10] = counts[1.03]
    order = factor_order(counts)
    path = write_bench(study.folder, "bench_aa_power.py", SOURCE)
    study.estimate(len(order), *_conditions.perflab_seconds(args.job))
    rows: dict[tuple[float, str], list[dict]] = {}
    # the schedule's "rep" is the position in the factor order: each condition runs every factor in turn
    for i, cond in study.schedule(len(order)):
        factor = order[i]
        with study.trial(cond, i, f"x{factor:.2f}") as out:
            r = trial(path, factor, args.job, extra, out)
        rows.setdefault((factor, cond), []).append(r)
        print(f"{cond:6} trial {i + 1}/{len(order)} factor {factor:.2f}: ratio {r['ratio']:.4f} "
              f"[{r['low']:.4f}, {r['high']:.4f}] {'DIFFERENT' if r['different'] else 'same'}"
              f"{' (inconclusive)' if r['inconclusive'] else ''}; {r['wall']:.1f} s", flush=True)
    (study.folder / "rows.json").write_text(json.dumps({f"{f:.2f}|{c}": v for (f, c), v in rows.items()}, indent=1))
    labels = {"A/A (called different)": 1.00, "planted 3 % (found)": 1.03, "planted 10 % (found)": 1.10}

    def cell(row: str, cond: str, col: str) -> str:
        rs = rows.get((labels[row], cond), [])
        if not rs:
            return "–"
        if col == "different":  # a planted change is found only the right way round (slower)
            right = [r for r in rs if r["different"] and (labels[row] == 1.00 or r["ratio"] > 1)]
            return f"{len(right)}/{len(rs)}"
        if col == "different the wrong way":
            return "n/a" if labels[row] == 1.00 else f"{sum(r['different'] and r['ratio'] < 1 for r in rs)}/{len(rs)}"
        if col == "inconclusive":
            return f"{sum(r['inconclusive'] for r in rs)}/{len(rs)}"
        if col == "ratio median (range)":
            v = sorted(r["ratio"] for r in rs)
            return f"{statistics.median(v):.4f} ({v[0]:.3f}–{v[-1]:.3f})"
        return f"{statistics.median(r['wall'] for r in rs):.1f}"

    study.table(f"Power and A/A (job {args.job}{', ' + ' '.join(extra) if extra else ''}): trials called "
                "different (interval without 1.00 and over 2 % away)", list(labels),
                ["different", "different the wrong way", "inconclusive", "ratio median (range)", "median s"], cell)


if __name__ == "__main__":
    main()
