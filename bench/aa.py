"""A/A under the three conditions (quiet, one busy loop, stress at 2× oversubscription): the same code
compared with itself must not be called different. perflab beside the usual tool of the language, on
the same workload under the same load:

- Python: a string join. perflab: one `perflab run` with the interpreter under two runtime labels
  (they differ only by an unused environment variable), judged by the ratio's 99.9 % interval and the
  2 % threshold (as `perflab compare`). pyperf: two `pyperf timeit` runs, then `pyperf compare_to`
  (its t-test at 95 %).
- Go: AB_SIZE=100 xor-shift steps (bench/go_vs_benchstat.py's module). perflab: one run with
  `go:AB_SIZE=100` and `go:AB_SIZE=100 GOGC=100` (GOGC=100 is Go's default). benchstat: two
  `go test -bench -count 10` runs, then benchstat (a delta instead of `~` at its α = 0.05).

    .venv/bin/python bench/aa.py [--repeat 50] [--conditions quiet,busy,stress] [--job default]
        [--tools perflab-python,pyperf,perflab-go,benchstat] [--quick]

`--quick`: 2 trials per condition, pyperf `--fast`, go test `-count 6 -benchtime 200ms`.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _conditions  # noqa: E402
from _common import (NO_RATIO, RUN_TIMEOUT_S, compared_case, inconclusive, perflab_run, ratio_of,  # noqa: E402
                     write_bench)

WORDS = '["alpha", "beta", "gamma", "delta"] * 25'
SOURCE = f"""
    import perflab
    WORDS = {WORDS}

    @perflab.benchmark
    def join():
        return ",".join(WORDS)
"""
TOOLS = ("perflab-python", "pyperf", "perflab-go", "benchstat")


def perflab_trial(path: Path, spec_a: str, spec_b: str, job: str, out: Path) -> dict:
    doc, wall = perflab_run(path, "--runtimes", f"{spec_a},{spec_b}", "--job", job, "--store", "none", out=out)
    case = compared_case(doc)
    r = ratio_of(case) or NO_RATIO
    return {"ratio": r.value, "different": r.different, "inconclusive": inconclusive(case, doc), "wall": wall,
            "detail": f"[{r.low:.4f}, {r.high:.4f}]"}


def pyperf_trial(out: Path, fast: bool) -> dict:
    t0 = time.perf_counter()
    means = []
    for side in ("a", "b"):
        f = out / f"pyperf-{side}.json"
        subprocess.run([sys.executable, "-m", "pyperf", "timeit", "--quiet", *(["--fast"] if fast else []),
                        "-o", str(f), "-s", f"WORDS = {WORDS}", '",".join(WORDS)'], check=True, capture_output=True,
                       timeout=RUN_TIMEOUT_S)
        doc = json.loads(f.read_text())
        means.append(statistics.mean(v for run in doc["benchmarks"][0]["runs"] for v in run.get("values", [])))
    cmp = subprocess.run([sys.executable, "-m", "pyperf", "compare_to", str(out / "pyperf-a.json"),
                          str(out / "pyperf-b.json")], check=True, capture_output=True, text=True).stdout
    (out / "pyperf-compare.txt").write_text(cmp)
    return {"ratio": means[1] / means[0], "different": "not significant" not in cmp.lower(), "inconclusive": False,
            "wall": time.perf_counter() - t0, "detail": cmp.strip().splitlines()[-1]}


def benchstat_trial(go: str, benchstat: str, root: Path, out: Path, count: int, benchtime: str) -> dict:
    from go_vs_benchstat import benchstat_verdict, median_ns_per_op
    t0 = time.perf_counter()
    texts = []
    for side in ("old", "new"):
        env = dict(os.environ, GOTOOLCHAIN="local", GOWORK="off", AB_SIZE="100")
        text = subprocess.run([go, "test", "-run", "^$", "-bench", "^BenchmarkWork$", "-count", str(count),
                               "-benchtime", benchtime], cwd=root, env=env, capture_output=True, text=True,
                              check=True, timeout=RUN_TIMEOUT_S).stdout
        (out / f"gotest-{side}.txt").write_text(text)
        texts.append(text)
    ratio, significant, p = benchstat_verdict(benchstat, *texts)
    if ratio is None:
        ratio = median_ns_per_op(texts[1]) / median_ns_per_op(texts[0])
    return {"ratio": ratio, "different": significant, "inconclusive": False, "wall": time.perf_counter() - t0,
            "detail": f"p={p}"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    _conditions.add_arguments(ap, repeat=50, quick=2)
    ap.add_argument("--job", default="default")
    ap.add_argument("--tools", default=",".join(TOOLS), help="any of " + ", ".join(TOOLS))
    args = ap.parse_args()
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    if bad := [t for t in tools if t not in TOOLS]:
        sys.exit(f"--tools: unknown {', '.join(bad)}; choose from {', '.join(TOOLS)}")
    study = _conditions.Study("aa", args)
    py = sys.executable
    path = write_bench(study.folder, "bench_aa.py", SOURCE)
    runners = {}
    if "perflab-python" in tools:
        runners["perflab-python"] = lambda out: perflab_trial(path, f"{py}:PERFLAB_AA=A", f"{py}:PERFLAB_AA=B",
                                                               args.job, out)
    if "pyperf" in tools:
        runners["pyperf"] = lambda out: pyperf_trial(out, fast=args.quick)
    if {"perflab-go", "benchstat"} & set(tools):
        add_go(runners, tools, study, args)
    perflab_s = _conditions.perflab_seconds(args.job)
    per_trial = {"perflab-python": perflab_s, "pyperf": (30 if not args.quick else 10, 40),
                 "perflab-go": (perflab_s[0] + 2, perflab_s[1] + 5), "benchstat": (25 if not args.quick else 5, 40)}
    study.estimate(study.repeat, sum(per_trial[t][0] for t in runners), sum(per_trial[t][1] for t in runners))
    rows: dict[tuple[str, str], list[dict]] = {}
    for rep, cond in study.schedule():
        with study.trial(cond, rep, "aa") as out:
            for tool, run in runners.items():  # the tools take turns under the same load
                (out / tool).mkdir()
                r = run(out / tool)
                rows.setdefault((tool, cond), []).append(r)
                print(f"{cond:6} rep {rep + 1} {tool:15} ratio {r['ratio']:.4f} "
                      f"{'DIFFERENT' if r['different'] else 'same':9} {r['wall']:6.1f} s  {r['detail']}", flush=True)
    (study.folder / "rows.json").write_text(json.dumps({f"{t}|{c}": v for (t, c), v in rows.items()}, indent=1))

    def cell(tool: str, cond: str, col: str) -> str:
        rs = rows.get((tool, cond), [])
        if not rs:
            return "–"
        if col == "called different":
            return f"{sum(r['different'] for r in rs)}/{len(rs)}"
        if col == "inconclusive":
            return f"{sum(r['inconclusive'] for r in rs)}/{len(rs)}" if tool.startswith("perflab") else "n/a"
        if col == "|ratio − 1| max":
            return f"{100 * max(abs(r['ratio'] - 1) for r in rs):.2f} %"
        return f"{statistics.median(r['wall'] for r in rs):.1f}"

    study.table(f"A/A: the same code called different (perflab job {args.job}; pyperf and benchstat at "
                f"their defaults{', quick settings' if args.quick else ''})",
                list(runners), ["called different", "inconclusive", "|ratio − 1| max", "median s"], cell)


def add_go(runners: dict, tools: list[str], study, args) -> None:
    """The Go workload's runners, or a note saying why there are none."""
    from go_vs_benchstat import find_benchstat, make_module
    from perflab.toolchains.go import GoToolchain
    installed = [r for r in GoToolchain().discover_runtimes() if r.installed and r.executable]
    if not installed:
        print("Go not installed: perflab-go and benchstat are left out", flush=True)
        return
    rt = installed[-1]
    root = make_module()
    if "perflab-go" in tools:
        perflab_run(root, "-r", f"{rt.name}:AB_SIZE=100,{rt.name}:AB_SIZE=100 GOGC=100", "-j", "dry",
                    "--store", "none")  # build once, outside the trials
        runners["perflab-go"] = lambda out: perflab_trial(root, f"{rt.name}:AB_SIZE=100",
                                                          f"{rt.name}:AB_SIZE=100 GOGC=100", args.job, out)
    if "benchstat" in tools:
        benchstat = find_benchstat()
        count, benchtime = (6, "200ms") if args.quick else (10, "1s")
        runners["benchstat"] = lambda out: benchstat_trial(rt.executable, benchstat, root, out, count, benchtime)


if __name__ == "__main__":
    main()
