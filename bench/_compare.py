"""Helpers shared by the bench/*_vs_*.py scripts, which set perflab beside another language's usual
benchmark tool. Two shapes of comparison:

- A/B with a known answer (go_vs_benchstat, java_vs_jmh): per scenario and repetition, one result row
  per tool (tool, wall_s, ratio, significant, detail), printed as it comes, then a Markdown summary;
- A/A on a trivial workload (cpp_vs_gbench, rust_vs_criterion, node_vs_tinybench): the tools take turns
  in a scratch folder, each giving a row (wall, A, B, ratio[, contains_1]), then one table per tool.
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
from typing import Callable

from _common import perflab_run

REPO = Path(__file__).resolve().parents[1]


def pick_runtime(installed: list, name: str | None, default: int):
    """The installed runtime called `name`, or installed[default] when no name is given."""
    rt = next((r for r in installed if r.name == name), None) if name else installed[default]
    if rt is None:
        raise SystemExit(f"runtime {name} is not installed")
    return rt


# -- A/B with a known answer -----------------------------------------------------------------------

SCENARIOS = (("A/B (true ratio ~1.10)", (100, 110)), ("A/A (true ratio 1)", (100, 100)))


def ab_rows(reps: int, measure: Callable[[int, int], list[dict]]) -> list[dict]:
    """Every scenario `reps` times; measure(a, b) gives one row per tool, each printed once all ran."""
    rows = []
    for scenario, (a, b) in SCENARIOS:
        for rep in range(reps):
            for r in measure(a, b):
                r.update(scenario=scenario, rep=rep + 1)
                rows.append(r)
                print(f"{scenario:24} rep {rep + 1}  {r['tool']:34} {r['wall_s']:7.1f} s  "
                      f"ratio {r['ratio']:.3f}  {'DIFFERENT' if r['significant'] else 'same     '}  {r['detail']}",
                      flush=True)
    return rows


def ab_report(rows: list[dict], out: str | None) -> None:
    """The Markdown summary per scenario and tool; the rows as JSON to `out` when given."""
    print("\n| scenario | tool | median wall s | ratios | 'different' verdicts |")
    print("|---|---|---|---|---|")
    for scenario in dict.fromkeys(r["scenario"] for r in rows):
        for tool in dict.fromkeys(r["tool"] for r in rows):
            sel = [r for r in rows if r["scenario"] == scenario and r["tool"] == tool]
            walls = sorted(r["wall_s"] for r in sel)
            ratios = ", ".join(f"{r['ratio']:.3f}" for r in sel)
            diff = sum(r["significant"] for r in sel)
            print(f"| {scenario} | {tool} | {walls[len(walls) // 2]:.1f} | {ratios} | {diff}/{len(sel)} |")
    if out:
        Path(out).write_text(json.dumps(rows, indent=1))


def perflab_ab_cases(root: Path, label_a: str, label_b: str, job: str) -> tuple[dict, float, dict]:
    """One `perflab run` with both settings as runtimes: (document, wall seconds, cases by label)."""
    doc, wall = perflab_run(root, "-r", f"{label_a},{label_b}", "-j", job)
    return doc, wall, {c["runtime"]["label"]: c for c in doc["cases"]}


def perflab_ab_row(doc: dict, wall: float, ca: dict, cb: dict, job: str) -> dict:
    """perflab's row from the cases of A and B: the ratio B/A and whether its 99.9% CI excludes 1."""
    # A and B are two runtimes: their ratio is "runtime_ratio" (perflab.ratios)
    if cb.get("runtime_ratio") and not cb.get("is_runtime_baseline"):
        r = cb["runtime_ratio"]
        value, lo, hi = r["value"], r["ci_low"], r["ci_high"]
    elif ca.get("runtime_ratio") and not ca.get("is_runtime_baseline"):  # B was the baseline: invert
        r = ca["runtime_ratio"]
        value, lo, hi = 1 / r["value"], 1 / r["ci_high"], 1 / r["ci_low"] if r["ci_low"] > 0 else float("inf")
    else:
        raise SystemExit(f"perflab gave no ratio: {json.dumps(doc['cases'])[:2000]}")
    significant = not (lo <= 1.0 <= hi)
    return {"tool": f"perflab run -j {job}", "wall_s": wall, "ratio": value, "significant": significant,
            "detail": f"99.9% CI [{lo:.3f}, {hi:.3f}]"}


# -- A/A on a trivial workload ---------------------------------------------------------------------

def aa_args(doc: str, runtime: str, extra: tuple[tuple[str, str], ...] = ()) -> argparse.Namespace:
    """--reps, --runtime (default `runtime`), the `extra` (option, default) pairs, then --job."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--runtime", default=runtime)
    for option, default in extra:
        ap.add_argument(option, default=default)
    ap.add_argument("--job", default="short", help="perflab job (dry, short, default, long)")
    return ap.parse_args()


def runtime_named(toolchain, name: str, what: str):
    """The toolchain's runtime called `name` (installed or not); exits saying `unknown {what} {name}`."""
    rt = next((r for r in toolchain.discover_runtimes() if r.name == name), None)
    if rt is None:
        sys.exit(f"unknown {what} {name}")
    return rt


def timed(argv: list[str], cwd: Path, *, timeout: float, tail: int = 800,
          env: dict | None = None) -> tuple[float, str]:
    """(wall seconds, stdout) of a command that must succeed (else the last `tail` chars of stderr)."""
    t0 = time.perf_counter()
    out = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed: {out.stderr[-tail:]}")
    return wall, out.stdout


def perflab_aa(work: Path, name: str, source: str, runtime: str, job: str, *, timeout: float, tail: int = 800,
               extra: tuple[str, ...] = ()) -> dict:
    """perflab's row: `source` written to work/name, then `perflab run ... -e json` and the `extra` options
    (through timed(): `timeout`, `tail`)."""
    f = work / name
    f.write_text(source)
    outdir = work / "out"
    shutil.rmtree(outdir, ignore_errors=True)
    exe = shutil.which("perflab") or str(REPO / ".venv" / "bin" / "perflab")
    wall, _ = timed([exe, "run", str(f), "-r", runtime, "--job", job, "-e", "json", "-o", str(outdir), *extra],
                    work, timeout=timeout, tail=tail)
    doc = json.loads(next(outdir.glob("*.json")).read_text())
    means = {c["benchmark"]["name"]: c["estimate"]["mean"] for c in doc["cases"]}
    b = next(c for c in doc["cases"] if c["benchmark"]["name"] == "B")
    r = b.get("ratio") or {}
    return {"wall": wall, "A": means["A"], "B": means["B"], "ratio": r.get("value"),
            "contains_1": r.get("ci_low", 0) <= 1 <= r.get("ci_high", 0)}


def aa_rows(reps: int, tools: dict[str, Callable[[Path], dict]]) -> dict[str, list[dict]]:
    """Each tool's rows, `reps` of them, the tools taking turns in one scratch folder."""
    rows: dict[str, list[dict]] = {tool: [] for tool in tools}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for _ in range(reps):  # interleave tools so machine drift hits them alike
            for tool, run in tools.items():
                rows[tool].append(run(work))
    return rows


def aa_report(title: str, rows: dict[str, list[dict]]) -> None:
    """The title, then per tool: median time to verdict, A's median and spread, the ratios, and how
    many intervals contain 1 ("n/a" for a tool that gives none)."""
    print(title)
    print(f"{'tool':10} {'verdict s':>10} {'A ns':>9} {'A spread':>9} {'A/A ratios':>24} {'CI has 1':>9}")
    for tool, rs in rows.items():
        walls = statistics.median(r["wall"] for r in rs)
        a = [r["A"] for r in rs]
        spread = max(a) / min(a)
        ratios = " ".join(f"{r['ratio']:.3f}" if r["ratio"] else "-" for r in rs)
        has1 = [r.get("contains_1") for r in rs]
        has1s = f"{sum(bool(x) for x in has1)}/{len(rs)}" if None not in has1 else "n/a"
        print(f"{tool:10} {walls:10.1f} {statistics.median(a):9.2f} {spread:9.3f} {ratios:>24} {has1s:>9}")
