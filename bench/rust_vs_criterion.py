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

import json
import os
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _compare import aa_args, aa_report, aa_rows, perflab_aa, runtime_named, timed  # noqa: E402
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


def run_perflab(runtime: str, work: Path, job: str) -> dict:
    return perflab_aa(work, "aa.rs", PERFLAB_FILE, runtime, job, timeout=3600, tail=1500, extra=("--store", "none"))


def criterion_project(cargo: str, env: dict) -> Path:
    proj = cache_dir() / "compare-rust"
    (proj / "benches").mkdir(parents=True, exist_ok=True)
    (proj / "src").mkdir(exist_ok=True)
    (proj / "src" / "lib.rs").write_text("")
    (proj / "Cargo.toml").write_text(CARGO_TOML)
    (proj / "benches" / "aa.rs").write_text(CRITERION_FILE)
    timed([cargo, "bench", "--bench", "aa", "--no-run", "-j", os.environ.get("PERFLAB_BUILD_JOBS", "1")],
          proj, timeout=3600, tail=1500, env=env)
    return proj


def run_criterion(cargo: str, proj: Path, env: dict) -> dict:
    shutil.rmtree(proj / "target" / "criterion", ignore_errors=True)
    wall, _ = timed([cargo, "bench", "--bench", "aa", "--", "--noplot"], proj, timeout=3600, tail=1500, env=env)
    est = {}
    for name in ("A", "B"):
        doc = json.loads((proj / "target" / "criterion" / name / "new" / "estimates.json").read_text())
        m = doc["mean"]
        est[name] = (m["point_estimate"], m["confidence_interval"]["lower_bound"],
                     m["confidence_interval"]["upper_bound"])
    (a, alo, ahi), (b, blo, bhi) = est["A"], est["B"]
    return {"wall": wall, "A": a, "B": b, "ratio": b / a, "contains_1": blo / ahi <= 1 <= bhi / alo}


def main() -> int:
    args = aa_args(__doc__, "rust-stable")
    rt = runtime_named(RustToolchain(), args.runtime, "Rust runtime")
    cargo = cargo_for(rt)
    env = dict(os.environ, RUSTC=rt.executable, CARGO_TERM_COLOR="never")
    proj = criterion_project(cargo, env)
    rows = aa_rows(args.reps, {"perflab": lambda work: run_perflab(args.runtime, work, args.job),
                               "criterion": lambda work: run_criterion(cargo, proj, env)})
    aa_report(f"A/A on {rt.name} ({rt.version}), {args.reps} processes per tool; perflab job '{args.job}'", rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
