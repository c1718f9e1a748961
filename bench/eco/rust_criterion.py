"""Crates from crates.io whose published .crate ships criterion benches (`benches/*.rs`, harness = false):
run unchanged by `perflab run <crate>` on its criterion compatibility layer, and (when native) by
`cargo bench` with the crate's own criterion dev-dependency, in the same stretch.

Fetched with cargo: a throwaway project that depends on `name = "=version"`, `cargo fetch`; the .crate
cargo downloaded is checked against the pinned sha256 (the registry's checksum, as in a Cargo.lock) and
unpacked into the cache. Nothing of it is committed.

The native run builds with `cargo bench --no-run` and runs each bench executable as `cargo bench` would
(`--bench`, in the package's folder), with criterion's own options for a shorter run (`--warm-up-time 1
--measurement-time 2 --noplot`); it reads `target/criterion/**/new/{benchmark,estimates}.json` (the
mean and its interval) and, from /proc, the CPU share of criterion's process over each benchmark's
sampling phase (to name contention only where it is measured).
"""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from eco.common import Comparison, Package, PackageResult, check_sha256

ECOSYSTEM = "rust-criterion"

MANIFEST = [
    Package("itoa", "1.0.19", "3bd1574e617a9a6c1f8f8181bd7e841e1f20e4277607ef28945765188d6284d4", "crates",
            "benches/bench.rs: integer formatting, criterion 0.8"),
    Package("half", "2.7.1", "6ea2d84b969582b4b1864a92dc5d27cd2b77b622a8d79306834f1be5ba20d84b", "crates", "benches/convert.rs: f16/bf16 conversions, criterion 0.5"),
    Package("anes", "0.1.6", "4b46cbb362ab8752921c97e041f5e366ee6297bd428a31275b9fcf1e380f7299", "crates", "benches/bench_main.rs + benchmarks/: ANSI parser, criterion 0.3"),
    Package("tinytemplate", "1.2.1", "be4d6b5f19ff7664e8c98d03e2139cb510db9b0a60b55f8e8709b689d939b6bc", "crates", "benches/benchmarks.rs: template rendering, criterion 0.3"),
    Package("itertools", "0.10.5", "b0fd2260e829bddf4cb6ea802289de2f86d6a7a690192fbe91b3f46e0f2c8473", "crates", "benches/*.rs: 9 files of iterator adaptors, criterion 0.3"),
    Package("zmij", "1.0.23", "29666d0abbfad1e3dc4dcf6144730dd3a3ab225bbbdac83319345b1b44ccfc1b", "crates", "benches/bench.rs: float formatting, criterion 0.8"),
]
SLICE = "itoa"

# Files that fail under perflab and were checked to fail under cargo as well (not perflab's defect):
# (crate, bench file) → what the check found. Appended to the failure in the study's output.
FAILS_UNDER_CARGO_TOO = {
    ("itertools", "bench1.rs"): "cargo bench fails on it too: rustc 1.95's deny-by-default lint "
    "dangerous_implicit_autorefs in the crate's own benches/extra/zipslices.rs:171, which cargo does not cap "
    "for a package's own targets (checked with cargo bench --no-run, docs/coming-from-criterion.md)",
}

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def _cargo() -> str:
    return shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")


def cargo_home() -> Path:
    return Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))


def fetch(pkg: Package, cache: Path) -> Path:
    """The unpacked crate: fetched by cargo (a throwaway project, `cargo fetch`), sha256 checked."""
    src = cache / "src" / f"{pkg.name}-{pkg.version}"
    archive = cache / "crates" / f"{pkg.name}-{pkg.version}.crate"
    if not archive.is_file():
        proj = cache / "fetch" / f"{pkg.name}-{pkg.version}"
        (proj / "src").mkdir(parents=True, exist_ok=True)
        (proj / "src" / "lib.rs").write_text("")
        (proj / "Cargo.toml").write_text(
            f'[package]\nname = "eco-fetch"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n'
            f'[dependencies]\n{pkg.name} = "={pkg.version}"\n\n[workspace]\n')
        subprocess.run([_cargo(), "fetch"], cwd=proj, check=True, capture_output=True, text=True, timeout=600)
        found = glob.glob(str(cargo_home() / "registry" / "cache" / "*" / f"{pkg.name}-{pkg.version}.crate"))
        if not found:
            raise RuntimeError(f"cargo fetch did not leave {pkg.name}-{pkg.version}.crate in {cargo_home()}")
        archive.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(found[0], archive)
    check_sha256(archive, pkg)
    if not (src / "Cargo.toml").is_file():
        src.parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archive) as tar:
            tar.extractall(src.parent, filter="data") if sys.version_info >= (3, 12) else tar.extractall(src.parent)
    return src


def _required_features(src: Path) -> list[str]:
    sys.path.insert(0, str(REPO / "src"))
    from perflab.toolchains.rust_crate import read_crate
    crate = read_crate(src, src)
    return sorted({f for feats in crate.bench_features.values() for f in feats})


def run_perflab(src: Path, job: str, out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.json"):
        old.unlink()
    exe = Path(sys.executable).parent / "perflab"  # the venv's perflab, or the source tree's
    cli = [str(exe)] if exe.is_file() else [sys.executable, "-c", "from perflab.cli import main; main()"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([*cli, "run", str(src), "--job", job, "--store", "none", "--out", str(out), "-e", "json"],
                          capture_output=True, text=True, timeout=7200, env=env)
    (out / "perflab.log").write_text(proc.stdout + proc.stderr)
    results = sorted(out.glob("*.json"))
    if not results:
        raise RuntimeError(f"perflab run gave no results (exit {proc.returncode}): {(proc.stderr or proc.stdout)[-800:]}")
    return json.loads(results[-1].read_text())


def run_native(src: Path, out: Path) -> tuple[dict[str, tuple[float, float, float]], dict[str, float]]:
    """criterion's own run: full id → (mean, low, high) in ns per iteration, and full id → the share of
    its sampling phase's wall time its process was on a CPU (from /proc/<pid>/stat, read at the
    "Collecting" and "Analyzing" lines criterion prints): criterion's means are wall-clock, and on a
    busy machine they include the time the process waited for a CPU. The build folder is shared by
    the packages (next to their sources in the cache), so a criterion version is built once.

    Built with `cargo bench --no-run` (cargo's own build, lint levels included), then each bench
    executable is run as `cargo bench` runs it: `--bench` and criterion's options, in the package's
    folder, with cargo's CARGO_* variables."""
    target = src.parent.parent / "native-target"
    shutil.rmtree(target / "criterion", ignore_errors=True)
    env = dict(os.environ, CARGO_TARGET_DIR=str(target), CARGO_TERM_COLOR="never")
    # each [[bench]] target by name: `--benches` would also build the library's libtest harness
    import tomllib
    manifest = tomllib.loads((src / "Cargo.toml").read_text())
    benches = [b["name"] for b in manifest.get("bench", []) if "name" in b]
    argv = [_cargo(), "bench", "-j", os.environ.get("PERFLAB_BUILD_JOBS", "2"), "--no-run", "--message-format=json"]
    for name in benches:
        argv += ["--bench", name]
    feats = _required_features(src)
    if feats:
        argv += ["--features", ",".join(feats)]
    build = subprocess.run(argv, cwd=src, env=env, capture_output=True, text=True, timeout=7200)
    log = [build.stderr]
    exes = []
    for line in build.stdout.splitlines():
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue
        if msg.get("reason") == "compiler-artifact" and "bench" in msg.get("target", {}).get("kind", []) \
                and msg.get("executable"):
            exes.append(msg["executable"])
    shares: dict[str, float] = {}
    pkg = manifest.get("package", {})
    run_env = dict(env, CARGO_MANIFEST_DIR=str(src), CARGO_PKG_NAME=str(pkg.get("name", "")),
                   CARGO_PKG_VERSION=str(pkg.get("version", "")), CRITERION_HOME=str(target / "criterion"))
    for exe in exes:
        log.append(_run_sampling_cpu(exe, src, run_env, shares))
    (out / "native.log").write_text("\n".join(log))
    found = {}
    for est in (target / "criterion").glob("**/new/estimates.json"):
        meta = json.loads((est.parent / "benchmark.json").read_text())
        m = json.loads(est.read_text())["mean"]
        found[meta["full_id"]] = (m["point_estimate"], m["confidence_interval"]["lower_bound"],
                                  m["confidence_interval"]["upper_bound"])
    return found, shares


_PHASE = re.compile(r"^Benchmarking (.+): (Collecting|Analyzing)")


def _cpu_ticks(pid: int) -> int | None:
    """utime + stime of process `pid` (all its threads), in clock ticks."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


def _run_sampling_cpu(exe: str, src: Path, env: dict, shares: dict[str, float]) -> str:
    """Runs one criterion executable, noting each benchmark's CPU share over its sampling phase."""
    hz = os.sysconf("SC_CLK_TCK")
    proc = subprocess.Popen([exe, "--bench", "--noplot", "--warm-up-time", "1", "--measurement-time", "2"],
                            cwd=src, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines, started = [], {}
    for line in proc.stdout:
        now, ticks = time.monotonic(), _cpu_ticks(proc.pid)
        lines.append(line)
        m = _PHASE.match(line.strip())
        if not m or ticks is None:
            continue
        bid, phase = m.groups()
        if phase == "Collecting":
            started[bid] = (now, ticks)
        elif bid in started:
            t0, c0 = started.pop(bid)
            if now - t0 > 0.5:  # a window long enough for 10 ms ticks to say something
                shares[bid] = (ticks - c0) / hz / (now - t0)
    proc.wait(timeout=7200)
    return "".join(lines) + f"\n[exit {proc.returncode}]\n"


def criterion_ids(case: dict) -> list[str]:
    """The ids criterion gives the benchmark of a perflab case (see docs/coming-from-criterion.md):
    `group/function/parameter`, `function/parameter` (a top-level benchmark, whose perflab group is the
    file), `group/parameter` (BenchmarkId::from_parameter, whose perflab name is the group)."""
    b = case["benchmark"]
    param = next(iter(case.get("params", {}).values()), None)
    group, name = b["group"], b["name"]
    ids = ["/".join(x for x in (group, name, param) if x), "/".join(x for x in (name, param) if x)]
    if name == group:
        ids.append("/".join(x for x in (group, param) if x))
    return ids


def study(pkg: Package, src: Path, *, job: str, out: Path, native: bool) -> PackageResult:
    sys.path.insert(0, str(REPO / "src"))
    from perflab.toolchains.rust import RustToolchain
    r = PackageResult(pkg.name, pkg.version)
    r.files_found = len(RustToolchain().find_sources(src))
    doc = run_perflab(src, job, out / "perflab")
    cases = [c for c in doc["cases"] if not c.get("absent")]
    r.benchmarks_found = len(cases)
    for c in cases:
        label = c["benchmark"]["id"] + "".join(f"[{v}]" for v in c.get("params", {}).values())
        if c["status"] == "ok":
            r.ran_unchanged += 1
        else:
            why = (c.get("error") or c["status"]).splitlines()[0]
            also = FAILS_UNDER_CARGO_TOO.get((pkg.name, Path(c["benchmark"].get("file") or "").name))
            r.failed_alone.append((label, f"{why} [{also}]" if also else why))
            if "protocol" in why.lower():
                r.protocol_errors += 1
    if not native:
        return r
    crit, shares = run_native(src, out)
    for c in cases:
        if c["status"] != "ok":
            continue
        cid = next((i for i in criterion_ids(c) if i in crit), None)
        if cid is None:
            continue
        hit = crit[cid]
        e = c["estimate"]
        lo, hi = e.get("ci_low"), e.get("ci_high")
        finite = lambda v: v if isinstance(v, (int, float)) and abs(v) != float("inf") else None  # noqa: E731
        label = c["benchmark"]["id"] + "".join(f"[{v}]" for v in c.get("params", {}).values())
        comp = Comparison(label, e["mean"], finite(lo), finite(hi), hit[0], hit[1], hit[2])
        if not comp.agrees:
            comp.cause = cause_of(comp, e, shares.get(cid))
        r.comparisons.append(comp)
    return r


def cause_of(comp: Comparison, estimate: dict, native_cpu_share: float | None) -> str:
    """A measured cause for a disagreement, or "" when none is found.

    - contention: criterion's mean is wall-clock; perflab's, on a busy machine, is timed by the thread's
      CPU clock (`cpu_timed`). Named only when the data shows it: criterion's process was on a CPU for
      less than 90 % of its sampling phase, and its interval scaled by that share meets perflab's mean
      within 5 % or overlaps perflab's interval.
    - loop overhead: perflab subtracts the cost of its timed loop's empty call (`overhead_per_op`);
      criterion's mean keeps its loop's cost in. Named when perflab's mean before that subtraction
      (`gross_mean`) is within 5 % of criterion's."""
    share = native_cpu_share
    if share is not None and share < 0.9 and estimate.get("cpu_timed"):
        scaled = Comparison(comp.benchmark, comp.perflab_mean, comp.perflab_low, comp.perflab_high,
                            comp.native_mean * share,
                            comp.native_low * share if comp.native_low is not None else None,
                            comp.native_high * share if comp.native_high is not None else None)
        if scaled.agrees:
            return (f"contention: criterion's process was on a CPU {100 * share:.0f} % of its sampling time "
                    f"(/proc/pid/stat) and its wall-clock mean counts the waiting; scaled by that share it is "
                    f"{scaled.native_mean:.2f} ns, perflab/that {scaled.ratio:.3f} (perflab timed by CPU time)")
    gross, over = estimate.get("gross_mean"), estimate.get("overhead_per_op") or 0.0
    if gross and over > 0 and abs(gross / comp.native_mean - 1) <= 0.05:
        return (f"loop overhead: perflab subtracts its empty call's {over:.2f} ns/op; its mean before that, "
                f"{gross:.2f} ns, is within 5 % of criterion's {comp.native_mean:.2f} ns")
    return ""
