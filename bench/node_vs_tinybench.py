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

import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _compare import aa_args, aa_report, aa_rows, perflab_aa, runtime_named, timed  # noqa: E402
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


def run_perflab(node: str, work: Path, job: str) -> dict:
    return perflab_aa(work, "aa.bench.mjs", PERFLAB_FILE, node, job, timeout=900)


def run_js(node_exe: str, source: str, work: Path, packages: Path) -> dict:
    f = packages / f"aa-{abs(hash(source))}.mjs"  # beside node_modules so the imports resolve
    f.write_text(source)
    wall, out = timed([node_exe, str(f)], work, timeout=900)
    res = json.loads(out.strip().splitlines()[-1])
    a, b = res["A"]["mean_ns"], res["B"]["mean_ns"]
    row = {"wall": wall, "A": a, "B": b, "ratio": b / a}
    if "rme" in res["A"]:  # tinybench: relative margin of error (%) of each mean
        lo = (b * (1 - res["B"]["rme"] / 100)) / (a * (1 + res["A"]["rme"] / 100))
        hi = (b * (1 + res["B"]["rme"] / 100)) / (a * (1 - res["A"]["rme"] / 100))
        row["contains_1"] = lo <= 1 <= hi
    return row


def main() -> int:
    args = aa_args(__doc__, "node20")
    tc = NodeToolchain()
    rt = runtime_named(tc, args.runtime, "runtime")
    if not rt.installed:
        rt = tc.provision(rt)
    packages = ensure_packages()
    rows = aa_rows(args.reps, {"perflab": lambda work: run_perflab(args.runtime, work, args.job),
                               "tinybench": lambda work: run_js(rt.executable, TINYBENCH_FILE, work, packages),
                               "mitata": lambda work: run_js(rt.executable, MITATA_FILE, work, packages)})
    aa_report(f"A/A on {rt.name} ({rt.version}), {args.reps} processes per tool; perflab job '{args.job}'", rows)
    for f in packages.glob("aa-*.mjs"):
        f.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
