"""Does perflab's mean depend on how long its iterations are? Against a plain timer, by --iteration-time.

perflab measures one iteration of a launch per round (the job's iteration time, 2 ms by default),
interleaved with the other launches; a native harness runs its loop continuously for hundreds of
milliseconds. This study times the same functions under both, in the same stretch:

- perflab with each `--iteration-time` given (default 0.002 and 0.05 s), the short job;
- a plain timer in K fresh processes: back-to-back 5 ms batches of the same calls (after a warm-up),
  timed by CPU time (CPython: the thread's; Node: the process's, as perflab's worker reads it), the
  mean of each process's batches (GC pauses count, as in perflab's mean), the median over processes.

Workloads that allocate and ones that do not, in CPython and Node, under the three conditions
(bench/_conditions.py). Each trial runs every iteration time and the plain timer under one load; it
prints perflab/plain per trial, then a table: per workload and iteration time, the median of
perflab/plain over the trials of each condition (and their range).

    .venv/bin/python bench/iteration_length.py [--repeat 3] [--conditions quiet,busy,stress] [--processes 3] [--iteration-times 0.002,0.05] [--languages python,node]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _conditions  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

PY_BENCH = '''
import perflab

@perflab.benchmark
def alloc_ints():           # an int object made and freed per step
    s = 0
    for i in range(3000):
        s += i
    return s

@perflab.benchmark
def alloc_dicts():          # 100 small dicts a call
    return [{"i": i, "s": "x"} for i in range(100)]

DATA = list(range(200))

@perflab.benchmark
def sum200():               # no allocation
    return sum(DATA)
'''
PY_PLAIN = '''
import importlib.util, statistics, sys, time
sys.path.insert(0, sys.argv[2])  # perflab's worker module, for the file's `import perflab`
spec = importlib.util.spec_from_file_location("w", sys.argv[1]); m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
out = {}
for name in ("alloc_ints", "alloc_dicts", "sum200"):
    f = getattr(m, name)
    t = time.perf_counter_ns(); n = 0
    while time.perf_counter_ns() - t < 5e6: f(); n += 1
    per = []
    for _ in range(60):
        t0 = time.thread_time_ns()
        for _ in range(n): f()
        per.append((time.thread_time_ns() - t0) / n)
    out[name] = statistics.fmean(per[10:])  # a mean, like perflab's: GC pauses count
print(__import__("json").dumps(out))
'''
JS_WORK = '''
export const DATA = Float64Array.from({ length: 1000 }, (_, i) => i * 0.5);
export function allocObjects() { const a = []; for (let i = 0; i < 100; i++) a.push({ i, s: 'x' + i }); return a; }
export function allocStrings() { let s = ''; for (let i = 0; i < 100; i++) s += String.fromCharCode(65 + (i % 26)); return s.split(''); }
export function sumFloats() { let s = 0; for (let i = 0; i < DATA.length; i++) s += DATA[i]; return s; }
'''
JS_BENCH = '''
import { bench } from 'perflab';
import { allocObjects, allocStrings, sumFloats } from './workload.mjs';
bench('allocObjects', allocObjects);
bench('allocStrings', allocStrings);
bench('sumFloats', sumFloats);
'''
JS_PLAIN = '''
const url = require('node:url');
(async () => {
  const m = await import(url.pathToFileURL(process.argv[2]).href);
  const out = {}; const sink = [];
  for (const name of ['allocObjects', 'allocStrings', 'sumFloats']) {
    const f = m[name];
    let n = 0; const t = process.hrtime.bigint();
    while (process.hrtime.bigint() - t < 5_000_000n) { sink[n & 15] = f(); n++; }
    const per = [];
    for (let k = 0; k < 60; k++) {
      const t0 = process.cpuUsage();  // the process's CPU time, as perflab's Node worker reads it
      for (let i = 0; i < n; i++) sink[i & 15] = f();
      const d = process.cpuUsage(t0);
      per.push((d.user + d.system) * 1000 / n);
    }
    per.splice(0, 10);
    out[name] = per.reduce((a, b) => a + b, 0) / per.length;  // a mean, like perflab's: GC pauses count
  }
  console.log(JSON.stringify(out));
})();
'''


def perflab_means(path: Path, iteration_s: float, out: Path, runtimes: list[str]) -> dict[str, float]:
    out.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([sys.executable, "-m", "perflab.cli", "run", str(path), "--job", "short", "--iteration-time", str(iteration_s),
                    *runtimes, "--store", "none", "--quiet", "--out", str(out), "--exporters", "json"],
                   capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    docs = sorted(out.glob("perflab-*.json"))  # exit 1 when a case failed: the others still count
    if not docs:
        raise SystemExit(f"perflab wrote no results for {path.name}: {r.stderr.strip()[-400:]}")
    doc = json.loads(docs[-1].read_text())
    return {c["benchmark"]["name"]: c["estimate"]["mean"] for c in doc["cases"] if c["status"] == "ok"}


def plain_means(cmd: list[str], k: int) -> dict[str, float]:
    runs = [json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout) for _ in range(k)]
    return {name: statistics.median(r[name] for r in runs) for name in runs[0]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    _conditions.add_arguments(ap, repeat=3, quick=1)
    ap.add_argument("--processes", type=int, default=3, help="fresh processes of the plain timer a trial")
    ap.add_argument("--iteration-times", default="0.002,0.05", help="perflab's --iteration-time values, seconds")
    ap.add_argument("--languages", default="python,node")
    ap.add_argument("--python", default=sys.executable, help="the CPython measured (perflab's runtime too)")
    args = ap.parse_args(argv)
    shares = [float(x) for x in args.iteration_times.split(",")]
    study = _conditions.Study("iteration_length", args)
    work = study.folder
    setups = []
    if "python" in args.languages:
        f = work / "bench_lengths.py"
        f.write_text(textwrap.dedent(PY_BENCH))
        (work / "plain.py").write_text(PY_PLAIN)
        setups.append(("python", f, [args.python, str(work / "plain.py"), str(f), str(REPO / "workers" / "python")]))
    if "node" in args.languages:
        f = work / "lengths.bench.mjs"
        f.write_text(JS_BENCH)
        (work / "workload.mjs").write_text(JS_WORK)
        (work / "plain.cjs").write_text(JS_PLAIN)
        setups.append(("node", f, ["node", str(work / "plain.cjs"), str(work / "workload.mjs")]))
    study.estimate(study.repeat, 25.0 * len(setups) * (len(shares) + 1), 40.0 * len(setups) * (len(shares) + 1))
    ratios: dict[tuple[str, str, float, str], list[float]] = {}
    for rep, cond in study.schedule():
        with study.trial(cond, rep, "lengths") as out:
            for lang, path, plain_cmd in setups:
                order = list(shares) if rep % 2 == 0 else list(reversed(shares))  # neither always first
                runtimes = ["--runtimes", args.python] if lang == "python" else []
                ours = {s: perflab_means(path, s, out / f"{lang}-{s:g}", runtimes) for s in order}
                plain = plain_means(plain_cmd, args.processes)
                (out / f"{lang}-plain.json").write_text(json.dumps(plain))
                for name, p in plain.items():
                    cells = []
                    for s in shares:
                        m = ours[s].get(name)
                        if m:
                            ratios.setdefault((lang, name, s, cond), []).append(m / p)
                            cells.append(f"{s * 1e3:g} ms: {m / p:.3f}")
                    print(f"  {cond} rep {rep + 1} {lang} {name}: plain {p:.1f} ns; perflab/plain "
                          + ", ".join(cells), flush=True)
    rows = [f"{lang} {name} {s:g}" for lang, _, cmd in setups
            for name in sorted({k[1] for k in ratios if k[0] == lang}) for s in shares]

    def cell(row: str, cond: str, col: str) -> str:
        lang, name, s = row.split(" ")
        rs = ratios.get((lang, name, float(s), cond), [])
        if not rs:
            return "–"
        return f"{statistics.median(rs):.3f} ({min(rs):.3f}–{max(rs):.3f})"

    study.table("perflab/plain timer (CPU time, fresh processes): median (range) over the trials, by perflab's "
                "--iteration-time (s)",
                rows, ["perflab/plain"], cell)
    return 0


if __name__ == "__main__":
    sys.exit(main())
