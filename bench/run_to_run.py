"""Run to run, under the three conditions: two separate `perflab run`s of the same comparison (a planted
10 % slowdown, bench/aa_power.py's workload), then `perflab compare FIRST SECOND` on their results
files. Nothing changed between the runs, so compare should call no case different (target 0 of 20),
and the two runs' intervals of the comparison's ratio should overlap (target ≥ 19 of 20).

    .venv/bin/python bench/run_to_run.py [--repeat 20] [--conditions quiet,busy,stress] [--job default] [--quick]
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
from _common import (NO_RATIO, compared_case, inconclusive, perflab_compare, perflab_run, ratio_of,  # noqa: E402
                     write_bench)
from aa_power import SOURCE  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    _conditions.add_arguments(ap, repeat=20, quick=2)
    ap.add_argument("--job", default="default")
    ap.add_argument("--factor", type=float, default=1.10, help="the planted ratio of the comparison")
    args = ap.parse_args()
    study = _conditions.Study("run_to_run", args)
    path = write_bench(study.folder, "bench_run_to_run.py", SOURCE)
    py = sys.executable
    runtimes = f"{py}:PERFLAB_SLOWDOWN=1.00,{py}:PERFLAB_SLOWDOWN={args.factor:.2f}"
    study.estimate(study.repeat, *(2 * s for s in _conditions.perflab_seconds(args.job)))
    rows: dict[str, list[dict]] = {c: [] for c in study.conditions}
    for rep, cond in study.schedule():
        with study.trial(cond, rep, "pair") as out:
            docs, walls = [], []
            for side in ("first", "second"):
                doc, wall = perflab_run(path, "--runtimes", runtimes, "--job", args.job, "--store", "none",
                                        out=out / side)
                docs.append(doc)
                walls.append(wall)
        [first, second] = (next((out / side).glob("perflab-*.json")) for side in ("first", "second"))
        verdicts = perflab_compare(first, second)
        (out / "compare.json").write_text(json.dumps(verdicts, indent=1))
        r1, r2 = (ratio_of(compared_case(d)) or NO_RATIO for d in docs)
        row = {"different": [v["runtime"] for v in verdicts if v["verdict"] in ("slower", "faster")],
               "overlap": r1.overlaps(r2), "ratios": [r1.value, r2.value],
               "inconclusive": any(inconclusive(compared_case(d)) for d in docs), "wall": sum(walls)}
        rows[cond].append(row)
        print(f"{cond:6} rep {rep + 1}: ratios {r1.value:.4f} [{r1.low:.4f}, {r1.high:.4f}] and "
              f"{r2.value:.4f} [{r2.low:.4f}, {r2.high:.4f}] {'overlap' if row['overlap'] else 'DO NOT OVERLAP'}; "
              f"compare: {', '.join(v['runtime'] + ' ' + v['verdict'] for v in verdicts)}; {row['wall']:.1f} s",
              flush=True)
    (study.folder / "rows.json").write_text(json.dumps(rows, indent=1))

    def cell(row: str, cond: str, col: str) -> str:
        rs = rows[cond]
        if not rs:
            return "–"
        if col == "compare called different":
            return f"{sum(bool(r['different']) for r in rs)}/{len(rs)}"
        if col == "intervals overlap":
            return f"{sum(r['overlap'] for r in rs)}/{len(rs)}"
        if col == "a run inconclusive":
            return f"{sum(r['inconclusive'] for r in rs)}/{len(rs)}"
        if col == "ratio change max":
            return f"{100 * max(abs(r['ratios'][1] / r['ratios'][0] - 1) for r in rs):.2f} %"
        return f"{statistics.median(r['wall'] for r in rs):.1f}"

    study.table(f"Run to run (job {args.job}, a planted {args.factor:.2f} comparison run twice): pairs with a "
                "case called different by `perflab compare`, and pairs whose ratio intervals overlap",
                ["perflab"], ["compare called different", "intervals overlap", "a run inconclusive",
                              "ratio change max", "median s (both runs)"], cell)


if __name__ == "__main__":
    main()
