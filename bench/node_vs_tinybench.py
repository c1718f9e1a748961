"""perflab's Node worker versus tinybench and mitata (from npm) on one trivial workload, A/A style.

Each tool measures two *identical* benchmarks, A and A' (same source, separate functions), in a fresh
process, `--reps` times. We report, per tool:

- time to verdict: wall-clock seconds from process start to results;
- the A/A ratio A'/A: a good harness says ~1.00, and its interval should contain 1;
- the spread of A's mean across processes (max/min), i.e. how reproducible one run is.

tinybench and mitata are installed with npm into <perflab cache>/compare-node (nothing else is fetched).

    python bench/node_vs_tinybench.py [--reps 3] [--runtime node20] [--job short]
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from perflab.cache import cache_dir  # noqa: E402
from perflab.toolchains.node import NodeToolchain  # noqa: E402

WORKLOAD = """
const data = Array.from({ length: 100 }, (_, i) => i * 0.5);
function sumA() { let s = 0; for (let i = 0; i < data.length; i++) s += data[i]; return s; }
function sumB() { let s = 0; for (let i = 0; i < data.length; i++) s += data[i]; return s; }
"""

PERFLAB_FILE = "import { bench } from 'perflab';\n" + WORKLOAD + """
bench('A', sumA, { baseline: true });
bench('B', sumB);
"""

TINYBENCH_FILE = "import { Bench } from 'tinybench';\n" + WORKLOAD + """
const bench = new Bench();
bench.add('A', sumA).add('B', sumB);
await bench.run();
const out = {};
for (const t of bench.tasks) {
  const l = t.result.latency;
  out[t.name] = { mean_ns: l.mean * 1e6, rme: l.rme };
}
console.log(JSON.stringify(out));
"""

MITATA_FILE = "import { bench, run } from 'mitata';\n" + WORKLOAD + """
bench('A', sumA);
bench('B', sumB);
const r = await run({ format: 'quiet' });
const out = {};
for (const b of r.benchmarks) out[b.alias] = { mean_ns: b.runs[0].stats.avg };
console.log(JSON.stringify(out));
"""


def ensure_packages() -> Path:
    target = cache_dir() / "compare-node"
    if not (target / "node_modules" / "tinybench").is_dir() or not (target / "node_modules" / "mitata").is_dir():
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run([shutil.which("npm") or "npm", "install", "--prefix", str(target), "--no-audit",
                        "--no-fund", "--no-package-lock", "tinybench", "mitata"], check=True,
                       capture_output=True)
    return target


def timed(argv: list[str], cwd: Path) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=900)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed: {out.stderr[-800:]}")
    return wall, out.stdout


def run_perflab(node: str, work: Path, job: str) -> dict:
    f = work / "aa.bench.mjs"
    f.write_text(PERFLAB_FILE)
    outdir = work / "out"
    shutil.rmtree(outdir, ignore_errors=True)
    exe = shutil.which("perflab") or str(REPO / ".venv" / "bin" / "perflab")
    wall, _ = timed([exe, "run", str(f), "-r", node, "--job", job, "-e", "json", "-o", str(outdir)], work)
    doc = json.loads(next(outdir.glob("*.json")).read_text())
    means = {c["benchmark"]["name"]: c["estimate"]["mean"] for c in doc["cases"]}
    b = next(c for c in doc["cases"] if c["benchmark"]["name"] == "B")
    r = b.get("ratio") or {}
    return {"wall": wall, "A": means["A"], "B": means["B"], "ratio": r.get("value"),
            "contains_1": r.get("ci_low", 0) <= 1 <= r.get("ci_high", 0)}


def run_js(node_exe: str, source: str, work: Path, packages: Path) -> dict:
    f = packages / f"aa-{abs(hash(source))}.mjs"  # beside node_modules so the imports resolve
    f.write_text(source)
    wall, out = timed([node_exe, str(f)], work)
    res = json.loads(out.strip().splitlines()[-1])
    a, b = res["A"]["mean_ns"], res["B"]["mean_ns"]
    row = {"wall": wall, "A": a, "B": b, "ratio": b / a}
    if "rme" in res["A"]:  # tinybench: relative margin of error (%) of each mean
        lo = (b * (1 - res["B"]["rme"] / 100)) / (a * (1 + res["A"]["rme"] / 100))
        hi = (b * (1 + res["B"]["rme"] / 100)) / (a * (1 - res["A"]["rme"] / 100))
        row["contains_1"] = lo <= 1 <= hi
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--runtime", default="node20")
    ap.add_argument("--job", default="short", help="perflab job (dry, short, default, long)")
    args = ap.parse_args()
    tc = NodeToolchain()
    rt = next((r for r in tc.discover_runtimes() if r.name == args.runtime), None)
    if rt is None:
        sys.exit(f"unknown runtime {args.runtime}")
    if not rt.installed:
        rt = tc.provision(rt)
    packages = ensure_packages()
    rows: dict[str, list[dict]] = {"perflab": [], "tinybench": [], "mitata": []}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for _ in range(args.reps):  # interleave tools so machine drift hits them alike
            rows["perflab"].append(run_perflab(args.runtime, work, args.job))
            rows["tinybench"].append(run_js(rt.executable, TINYBENCH_FILE, work, packages))
            rows["mitata"].append(run_js(rt.executable, MITATA_FILE, work, packages))
    print(f"A/A on {rt.name} ({rt.version}), {args.reps} processes per tool; perflab job '{args.job}'")
    print(f"{'tool':10} {'verdict s':>10} {'A ns':>9} {'A spread':>9} {'A/A ratios':>24} {'CI has 1':>9}")
    for tool, rs in rows.items():
        walls = statistics.median(r["wall"] for r in rs)
        a = [r["A"] for r in rs]
        spread = max(a) / min(a)
        ratios = " ".join(f"{r['ratio']:.3f}" if r["ratio"] else "-" for r in rs)
        has1 = [r.get("contains_1") for r in rs]
        has1s = f"{sum(bool(x) for x in has1)}/{len(rs)}" if None not in has1 else "n/a"
        print(f"{tool:10} {walls:10.1f} {statistics.median(a):9.2f} {spread:9.3f} {ratios:>24} {has1s:>9}")
    for f in packages.glob("aa-*.mjs"):
        f.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
