"""perflab's Rust worker versus Criterion.rs on one trivial workload, A/A style.

Each tool measures two *identical* benchmarks, A and B (same source, separate functions), in a fresh
process, `--reps` times, built by the same toolchain in release mode. We report, per tool:

- time to verdict: wall-clock seconds of the command that produces results (builds are done beforehand);
- the A/A ratio B/A: a good harness says ~1.00, and its interval should contain 1;
- the spread of A's mean across processes (max/min), i.e. how reproducible one run is.

Criterion (0.5, default features off) is fetched by cargo from crates.io into a project under
<perflab cache>/compare-rust; its interval for B/A is built from the two means' 95% bootstrap intervals
(target/criterion/<name>/new/estimates.json).

    .venv/bin/python bench/rust_vs_criterion.py [--reps 3] [--runtime rust-stable] [--job short]
"""
from __future__ import annotations

import argparse
import json
import os
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
from perflab.runtimes.rust import cargo_for  # noqa: E402
from perflab.toolchains.rust import RustToolchain  # noqa: E402

WORKLOAD = """
#[inline(never)]
fn sum_a(data: &[f64]) -> f64 { let mut s = 0.0; for x in data { s += *x; } s }
#[inline(never)]
fn sum_b(data: &[f64]) -> f64 { let mut s = 0.0; for x in data { s += *x; } s }
fn data() -> Vec<f64> { (0..100).map(|i| i as f64 * 0.5).collect() }
"""

PERFLAB_FILE = "use perflab::{black_box, Registry};\n" + WORKLOAD + """
pub fn register(r: &mut Registry) {
    r.bench("A", |b| { let d = data(); b.iter(move || sum_a(black_box(&d))) }).baseline();
    r.bench("B", |b| { let d = data(); b.iter(move || sum_b(black_box(&d))) });
}
"""

CRITERION_FILE = "use criterion::{black_box, criterion_group, criterion_main, Criterion};\n" + WORKLOAD + """
fn benches(c: &mut Criterion) {
    let d = data();
    c.bench_function("A", |b| b.iter(|| sum_a(black_box(&d))));
    c.bench_function("B", |b| b.iter(|| sum_b(black_box(&d))));
}
criterion_group!(aa, benches);
criterion_main!(aa);
"""

CARGO_TOML = """[package]
name = "compare-criterion"
version = "0.0.0"
edition = "2021"
publish = false

[dev-dependencies]
criterion = { version = "0.5", default-features = false }

[[bench]]
name = "aa"
harness = false

[workspace]
"""


def timed(argv: list[str], cwd: Path, env: dict | None = None) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=3600, env=env)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed: {out.stderr[-1500:]}")
    return wall, out.stdout


def run_perflab(runtime: str, work: Path, job: str) -> dict:
    f = work / "aa.rs"
    f.write_text(PERFLAB_FILE)
    outdir = work / "out"
    shutil.rmtree(outdir, ignore_errors=True)
    exe = shutil.which("perflab") or str(REPO / ".venv" / "bin" / "perflab")
    wall, _ = timed([exe, "run", str(f), "-r", runtime, "--job", job, "-e", "json", "-o", str(outdir),
                     "--store", "none"], work)
    doc = json.loads(next(outdir.glob("*.json")).read_text())
    means = {c["benchmark"]["name"]: c["estimate"]["mean"] for c in doc["cases"]}
    b = next(c for c in doc["cases"] if c["benchmark"]["name"] == "B")
    r = b.get("ratio") or {}
    return {"wall": wall, "A": means["A"], "B": means["B"], "ratio": r.get("value"),
            "contains_1": r.get("ci_low", 0) <= 1 <= r.get("ci_high", 0)}


def criterion_project(cargo: str, env: dict) -> Path:
    proj = cache_dir() / "compare-rust"
    (proj / "benches").mkdir(parents=True, exist_ok=True)
    (proj / "src").mkdir(exist_ok=True)
    (proj / "src" / "lib.rs").write_text("")
    (proj / "Cargo.toml").write_text(CARGO_TOML)
    (proj / "benches" / "aa.rs").write_text(CRITERION_FILE)
    timed([cargo, "bench", "--bench", "aa", "--no-run", "-j", os.environ.get("PERFLAB_BUILD_JOBS", "1")],
          proj, env)
    return proj


def run_criterion(cargo: str, proj: Path, env: dict) -> dict:
    shutil.rmtree(proj / "target" / "criterion", ignore_errors=True)
    wall, _ = timed([cargo, "bench", "--bench", "aa", "--", "--noplot"], proj, env)
    est = {}
    for name in ("A", "B"):
        doc = json.loads((proj / "target" / "criterion" / name / "new" / "estimates.json").read_text())
        m = doc["mean"]
        est[name] = (m["point_estimate"], m["confidence_interval"]["lower_bound"],
                     m["confidence_interval"]["upper_bound"])
    (a, alo, ahi), (b, blo, bhi) = est["A"], est["B"]
    return {"wall": wall, "A": a, "B": b, "ratio": b / a, "contains_1": blo / ahi <= 1 <= bhi / alo}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--runtime", default="rust-stable")
    ap.add_argument("--job", default="short", help="perflab job (dry, short, default, long)")
    args = ap.parse_args()
    rt = next((r for r in RustToolchain().discover_runtimes() if r.name == args.runtime), None)
    if rt is None:
        sys.exit(f"unknown Rust runtime {args.runtime}")
    cargo = cargo_for(rt)
    env = dict(os.environ, RUSTC=rt.executable, CARGO_TERM_COLOR="never")
    proj = criterion_project(cargo, env)
    rows: dict[str, list[dict]] = {"perflab": [], "criterion": []}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for _ in range(args.reps):  # interleave tools so machine drift hits them alike
            rows["perflab"].append(run_perflab(args.runtime, work, args.job))
            rows["criterion"].append(run_criterion(cargo, proj, env))
    print(f"A/A on {rt.name} ({rt.version}), {args.reps} processes per tool; perflab job '{args.job}'")
    print(f"{'tool':10} {'verdict s':>10} {'A ns':>9} {'A spread':>9} {'A/A ratios':>24} {'CI has 1':>9}")
    for tool, rs in rows.items():
        walls = statistics.median(r["wall"] for r in rs)
        a = [r["A"] for r in rs]
        ratios = " ".join(f"{r['ratio']:.3f}" if r["ratio"] else "-" for r in rs)
        has1 = f"{sum(bool(r.get('contains_1')) for r in rs)}/{len(rs)}"
        print(f"{tool:10} {walls:10.1f} {statistics.median(a):9.2f} {max(a) / min(a):9.3f} {ratios:>24} {has1:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
