"""(a) Time to verdict, under the three conditions: wall time for a trivial benchmark (a dictionary
lookup) to reach perflab's default precision target (99.9% CI half-width ≤ 2% of the mean), against
pyperf's default run of the same workload, in the same script run on the same interpreter and under
the same load. A trial during which the machine's own speed drifted (the empty loop's per-process
times differ by more than ×1.2, perflab.stats.drift) is counted; the median of the other trials is
printed beside the median of all.

    .venv/bin/python bench/time_to_verdict.py [--repeat 10] [--runtime python3.12]
        [--conditions quiet,busy,stress] [--pyperf 2] [--equal-precision] [--quick]

`--quick`: 3 trials per condition, 1 of them with pyperf.

The first `--pyperf` trials of each condition also time pyperf's default run; with
`--equal-precision`, each of those is followed by a perflab run asked for the precision pyperf's own
samples supported.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _conditions
from _common import RUN_TIMEOUT_S, perflab_run, write_bench

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


def pyperf_precision(doc: dict) -> tuple[float, float, int]:
    """pyperf prints mean ± standard deviation, not an interval. Its 20 processes × 3 values, judged
    the way perflab judges its own samples (random effects over processes, 99.9 %): mean and
    half-width of that interval, in ns, and the number of processes."""
    from perflab.model import LaunchSamples
    from perflab.stats import estimate
    launches = []
    for i, run in enumerate(r for r in doc["benchmarks"][0]["runs"] if r.get("values")):
        # values are seconds per loop iteration; scale to integer ns totals of 1e6 "invocations"
        launches.append(LaunchSamples(index=i, invocations=1_000_000,
                                      workload=[int(round(v * 1e15)) for v in run["values"]]))
    est = estimate(launches, 1, 0.999, subtract_overhead=False)
    return est.mean, est.error, len(launches)


def floor_line(case: dict) -> str:
    """The least measuring that could have reached the target, knowing this run's variance components
    and what a process and an iteration cost it (engine/allocation.cheapest_run): how much of the
    run's time was the machine's noise and the runtime's start, and how much the engine's choices."""
    from perflab.engine.allocation import cheapest_run
    from perflab.jobs import get_job
    est = case["estimate"]
    c_l, c_i = case.get("launch_cost_s", 0.0), case.get("iteration_cost_s", 0.0)
    sd_b, sd_w = (100 * v ** 0.5 / est["mean"] for v in (est["var_between"], est["var_within"]))
    known = (f"processes {sd_b:.1f} % apart, iterations {sd_w:.1f} %; a process cost {1000 * c_l:.0f} ms, "
             f"a round iteration {1000 * c_i:.1f} ms")
    best = cheapest_run(est["var_between"], est["var_within"], est["mean"], c_l, c_i, get_job("default"))
    if best is None:
        return f"{known}: no run within the job's processes reaches ±2 %"
    launches, n, seconds = best
    return (f"{known}: the cheapest run that reaches ±2 % measures {seconds:.2f} s "
            f"({launches} processes, {n} iterations)")


def machine_drift(case: dict) -> tuple[float, float] | None:
    """Whether the machine's own speed moved during the trial, as the empty loop of every process
    saw it (perflab.stats.drift): a VM's speed can change by half within seconds with nothing in the
    guest showing it, and then no tool reaches ±2 % on an absolute time quickly."""
    from perflab.results import launches_from_json
    from perflab.stats.drift import speed_drift
    return speed_drift(launches_from_json(case))


def run_pyperf(strings: bool, folder: Path | None = None) -> tuple[float, float, float, dict]:
    out = (folder or Path(tempfile.mkdtemp())) / "pyperf.json"
    setup, stmt = (('TABLE = {"key%d" % i: i for i in range(100)}', 'TABLE["key42"]') if strings
                   else ("TABLE = {i: i for i in range(100)}", "TABLE[42]"))
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pyperf", "timeit", "--quiet", "-o", str(out),
                    "-s", setup, stmt], check=True, capture_output=True, timeout=RUN_TIMEOUT_S)
    wall = time.perf_counter() - t0
    doc = json.loads(out.read_text())
    values = [v for run in doc["benchmarks"][0]["runs"] for v in run.get("values", [])]
    return wall, statistics.mean(values) * 1e9, statistics.stdev(values) * 1e9, doc


def perflab_line(label: str, case: dict, wall: float) -> str:
    est = case["estimate"]
    return (f"{label}: command {wall:5.2f} s, measuring {case['wall_seconds']:5.2f} s, "
            f"mean {est['mean']:.2f} ns ± {est['error']:.2f} ns ({100 * est['error'] / est['mean']:.2f}%), "
            f"net of {est['overhead_per_op']:.1f} ns call overhead; stop: {case['stop_reason']}; "
            f"{est['n']} iterations in {est['launches']} processes")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    _conditions.add_arguments(ap, repeat=10, quick=3)
    ap.add_argument("--strings", action="store_true", help="string keys (hash randomisation)")
    ap.add_argument("--runtime", default=sys.executable,
                    help="runtime for perflab's runs (default: this interpreter); pyperf, which runs "
                    "in this interpreter, is compared only when it is the same")
    ap.add_argument("--pyperf", type=int, default=None,
                    help="pyperf runs per condition (default 2, --quick 1; 0: none)")
    ap.add_argument("--equal-precision", action="store_true",
                    help="after each pyperf run, a perflab run asked for pyperf's precision")
    args = ap.parse_args()
    if args.pyperf is None:
        args.pyperf = 1 if args.quick else 2
    study = _conditions.Study("time_to_verdict", args)
    path = write_bench(study.folder, "bench_lookup.py", SOURCE_STRINGS if args.strings else SOURCE)
    with_pyperf = args.pyperf if args.runtime == sys.executable else 0
    print(f"interpreter: {sys.executable} ({sys.version.split()[0]}); perflab runs on {args.runtime}"
          + ("" if with_pyperf or not args.pyperf else "; pyperf not compared: it runs in this interpreter, "
             "perflab on another"))
    typical = 5 + 16 * min(with_pyperf, study.repeat) / study.repeat
    study.estimate(study.repeat, typical, 12 + 20 * min(with_pyperf, study.repeat) / study.repeat)
    runs: dict[str, list[tuple]] = {c: [] for c in study.conditions}
    pyperf_rows: dict[str, list[tuple]] = {c: [] for c in study.conditions}
    for rep, cond in study.schedule():
        with study.trial(cond, rep, "lookup") as out:
            doc, wall = perflab_run(path, "--runtimes", args.runtime, "--job", "default", "--store", "none",
                                    out=out / "perflab")
            [case] = doc["cases"]
            est = case["estimate"]
            print(perflab_line(f"{cond:6} perflab default #{rep + 1}", case, wall))
            print("    " + floor_line(case))
            drift = machine_drift(case)
            if drift:
                print(f"    the machine's own speed drifted: the empty loop took {drift[0]:.1f}–{drift[1]:.1f} ns "
                      f"a call across processes (×{drift[1] / drift[0]:.2f})")
            runs[cond].append((wall, case["wall_seconds"], case["stop_reason"] == "target reached",
                               est["error"] / abs(est["mean"]) if est["mean"] else float("inf"), bool(drift)))
            if rep < with_pyperf:
                pwall, mean, sd, pdoc = run_pyperf(args.strings, out)
                pm, perr, nproc = pyperf_precision(pdoc)
                pyperf_rows[cond].append((pwall, perr / pm))
                print(f"{cond:6} pyperf timeit default #{rep + 1}: {pwall:5.2f} s, mean {mean:.2f} ns ± {sd:.2f} ns "
                      f"(std dev); as a 99.9% interval over its {nproc} processes: ±{perr:.2f} ns "
                      f"({100 * perr / pm:.1f}%, loop overhead not subtracted)")
                if args.equal_precision:
                    # Equal precision: perflab asked for the relative precision pyperf's own samples
                    # support. perflab's figure is net of the call overhead, so the same relative width
                    # is a narrower absolute interval.
                    doc, wall = perflab_run(path, "--runtimes", args.runtime, "--job", "default",
                                            "--target", f"{perr / pm:.4f}", "--store", "none", out=out / "equal")
                    print(perflab_line(f"{cond:6} perflab at pyperf's precision (±{100 * perr / pm:.1f}%)",
                                       doc["cases"][0], wall))
    (study.folder / "rows.json").write_text(json.dumps({"perflab": runs, "pyperf": pyperf_rows}, indent=1))

    def cell(row: str, cond: str, col: str) -> str:
        if row == "pyperf timeit default":
            rs = pyperf_rows[cond]
            if not rs:
                return "–"
            return {"reached ±2 %": "n/a", "median s": f"{statistics.median(r[0] for r in rs):.1f}",
                    "machine drifted": "n/a", "median s, steady machine": "n/a",
                    "≤ 3 s / ≤ 5 s": f"{sum(r[0] <= 3 for r in rs)} / {sum(r[0] <= 5 for r in rs)}",
                    "worst precision": f"±{100 * max(r[1] for r in rs):.1f} %"}[col]
        rs = runs[cond]
        if not rs:
            return "–"
        walls = [r[0] for r in rs]
        steady = [r[0] for r in rs if not r[4]]
        return {"reached ±2 %": f"{sum(r[2] for r in rs)}/{len(rs)}",
                "machine drifted": f"{len(rs) - len(steady)}/{len(rs)}",
                "median s, steady machine": (f"{statistics.median(steady):.2f} (n={len(steady)})" if steady else "–"),
                "median s": f"{statistics.median(walls):.2f} ({min(walls):.1f}–{max(walls):.1f})",
                "≤ 3 s / ≤ 5 s": f"{sum(w <= 3 for w in walls)} / {sum(w <= 5 for w in walls)}",
                "worst precision": f"±{100 * max(r[3] for r in rs):.2f} %"}[col]

    study.table(f"Time to verdict: a dict lookup to ±2 % (99.9 %), job default, on {args.runtime}; "
                "command wall seconds", ["perflab default"] + (["pyperf timeit default"] if with_pyperf else []),
                ["reached ±2 %", "median s", "≤ 3 s / ≤ 5 s", "worst precision", "machine drifted",
                 "median s, steady machine"], cell)


if __name__ == "__main__":
    main()
