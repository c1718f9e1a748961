"""perflab's CPython figures against a plain timer and pyperf, interleaved (issue 38, item 3).

Each round: one `perflab run` of two files — a class whose baseline method adds 3,000 ints and whose
other method adds 6,000 (`s += i`: an int object made and freed per step), and a 200-element `sum` —
then the same functions timed plainly in K fresh processes (`for _ in range(n): f()` between two reads
of the thread's CPU clock, both methods interleaved, 100 samples after 20), then (with --pyperf
PYTHON, an interpreter with pyperf installed) pyperf's `bench_func --fast` of the same functions. It
prints per round the load average, perflab's means and the spread of its processes' means, the plain
timer's CPU-time means, pyperf's wall-clock mean and the median of its calibration loops under 1 ms,
and both ratios 6000/3000.

The plain timer reads thread CPU time, as perflab does for a CPU-bound case: on a shared machine the
wall clock of either mostly measures the run queue. It includes the loop and the call (~35-40 ns
here), which perflab subtracts: for a 1 µs call that is 4 % of the difference.

    .venv/bin/python bench/python_agreement.py [--rounds 3] [--processes 5] [--runtime PYTHON] [--pyperf PYTHON] [-- perflab run flags]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

ALLOC = """
    import perflab

    class Alloc:
        @perflab.benchmark(baseline=True)
        def sum3000(self):
            s = 0
            for i in range(3000):
                s += i
            return s

        @perflab.benchmark
        def sum6000(self):
            s = 0
            for i in range(6000):
                s += i
            return s
"""
SUM = """
    import perflab
    DATA = list(range(200))

    @perflab.benchmark
    def sum200():
        return sum(DATA)
"""
# argv: file, calls per sample; prints "name cpu_mean_ns" per benchmark, one a line
PLAIN = """
import importlib.util, statistics, sys, time, types
stand_in = types.ModuleType("perflab")
stand_in.benchmark = lambda *a, **k: a[0] if a and callable(a[0]) else (lambda f: f)
sys.modules["perflab"] = stand_in
spec = importlib.util.spec_from_file_location("b", sys.argv[1]); b = importlib.util.module_from_spec(spec)
spec.loader.exec_module(b)
fns = []
for name, v in vars(b).items():
    if isinstance(v, type) and v.__module__ == "b":
        inst = v()
        fns += [(n, getattr(inst, n)) for n in vars(v) if not n.startswith("_")]
    elif callable(v) and name.startswith("sum"):
        fns.append((name, v))
n = int(sys.argv[2])
def loop(f, n, cpu=time.thread_time_ns):
    c = cpu()
    for _ in range(n): f()
    return cpu() - c
for _, f in fns:
    for _ in range(20): loop(f, n)
res = {k: [] for k, _ in fns}
for _ in range(100):
    for k, f in fns:
        res[k].append(loop(f, n) / n)
for k, v in res.items():
    print(k, statistics.mean(v))
"""
PYPERF = """
import importlib.util, sys, types, pyperf
stand_in = types.ModuleType("perflab")
stand_in.benchmark = lambda *a, **k: a[0] if a and callable(a[0]) else (lambda f: f)
sys.modules["perflab"] = stand_in
def load(path):
    spec = importlib.util.spec_from_file_location(path.rsplit("/", 1)[-1][:-3], path)
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m
# the files are written into this script: pyperf starts its workers with the script's own command
# line and a cleaned environment
alloc, total = load(ALLOC_PATH), load(SUM_PATH)
r = pyperf.Runner()
inst = alloc.Alloc()
r.bench_func("sum3000", inst.sum3000)
r.bench_func("sum6000", inst.sum6000)
r.bench_func("sum200", total.sum200)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--processes", type=int, default=5, help="fresh processes of the plain timer per round")
    ap.add_argument("--runtime", default=sys.executable, help="the CPython measured")
    ap.add_argument("--pyperf", help="an interpreter of the same version with pyperf installed")
    ap.add_argument("perflab_args", nargs="*", help="more `perflab run` flags (after --)")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="perflab-python-agreement-"))
    alloc, total = folder / "bench_alloc.py", folder / "bench_sum.py"
    alloc.write_text(textwrap.dedent(ALLOC))
    total.write_text(textwrap.dedent(SUM))
    print(f"files and raw outputs in {folder}", flush=True)
    for rnd in range(args.rounds):
        load0 = os.getloadavg()[0]
        out = folder / f"perflab-{rnd}"
        subprocess.run([sys.executable, "-m", "perflab.cli", "run", str(alloc), str(total), "--runtimes", args.runtime,
                        "--store", "none", "-o", str(out), "-q", *args.perflab_args], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(REPO / "src")})
        doc = json.loads(next(out.glob("*.json")).read_text())
        pl = {c["benchmark"]["name"]: c["estimate"] for c in doc["cases"] if c.get("estimate")}
        plain: dict[str, list[float]] = {}
        for _ in range(args.processes):
            for path, n in ((alloc, 20), (total, 2000)):
                text = subprocess.run([args.runtime, "-c", PLAIN, str(path), str(n)], capture_output=True, text=True,
                                      check=True).stdout
                for line in text.splitlines():
                    name, value = line.split()
                    plain.setdefault(name, []).append(float(value))
        pp = {}
        if args.pyperf:
            target = folder / f"pyperf-{rnd}.json"
            script = folder / "pyperf_bench.py"
            script.write_text(f"ALLOC_PATH = {str(alloc)!r}\nSUM_PATH = {str(total)!r}\n" + PYPERF)
            subprocess.run([args.pyperf, str(script), "--fast", "-q", "-o", str(target)], capture_output=True,
                           check=True)
            for b in json.loads(target.read_text())["benchmarks"]:
                values = [v for r in b["runs"] for v in r.get("values", [])]
                short = [v for r in b["runs"] if not r.get("values") for loops, v in r.get("warmups") or []
                         if loops * v < 1e-3]
                pp[b["metadata"]["name"]] = (statistics.mean(values) * 1e9,
                                             statistics.median(short) * 1e9 if short else None)
        print(f"round {rnd + 1}, load average {load0:.1f}-{os.getloadavg()[0]:.1f}:")
        for name in ("sum3000", "sum6000", "sum200"):
            e = pl.get(name)
            if not e:
                print(f"  {name}: perflab gave no estimate")
                continue
            spread = max(e["launch_means"]) / min(e["launch_means"]) - 1
            mine = statistics.mean(plain[name])
            extra = ""
            if name in pp:
                extra = (f"; pyperf {pp[name][0]:.5g} ns by the wall clock, its loops under 1 ms "
                         + (f"{pp[name][1]:.5g} ns" if pp[name][1] else "none"))
            print(f"  {name}: perflab {e['mean']:.5g} ns (with the empty call {e['gross_mean']:.5g}; its "
                  f"{e['launches']} processes' means spread {100 * spread:.0f} %), plain timer {mine:.5g} ns "
                  f"({min(plain[name]):.5g}-{max(plain[name]):.5g} over {len(plain[name])} processes): "
                  f"perflab/plain {pl[name]['mean'] / mine:.3f}{extra}")
        if "sum3000" in pl and "sum6000" in pl:
            ratio_plain = statistics.mean(b / a for a, b in zip(plain["sum3000"], plain["sum6000"]))
            print(f"  ratio 6000/3000: perflab {pl['sum6000']['mean'] / pl['sum3000']['mean']:.3f}, "
                  f"plain timer {ratio_plain:.3f}", flush=True)


if __name__ == "__main__":
    main()
