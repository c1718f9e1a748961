"""Google Benchmark files from real C/C++ projects, unchanged, under perflab and under libbenchmark.

No package registry ships Google Benchmark benchmarks, so the corpus is source files of public
repositories, pinned by commit and by each file's sha256 (below), brought to this machine as a git
mirror (PERFLAB_ECO_MIRROR, default /work/.mirror/<owner>+<name>/repo) or cloned from GitHub with git;
nothing of theirs is committed. The CI slice is `cpp_gbench_slice/slice_benchmark.cc`, written here.

perflab: `perflab run FILES --runtimes "gcc12:-O2 -I<the project's include dirs>"`: perflab's
benchmark/benchmark.h stands in for Google Benchmark's. Native: the same compiler and flags, linked
with Debian's libbenchmark-dev (`-lbenchmark`, plus `-lbenchmark_main` for a file without a main),
run with `--benchmark_repetitions=10 --benchmark_format=json` in 3 processes: the first process's mean of
the repetitions (the other processes' means name a between-process cause), and an
interval of mean ± t(0.999, 9) standard errors (perflab's confidence). Each package: perflab first,
then the native binary, in the same stretch.

What is compared: perflab's mean per op against Google Benchmark's `real_time` per iteration; where
perflab timed a case by CPU time (its estimate says `cpu_timed`: the machine was busy, see
docs/measuring.md), against Google Benchmark's `cpu_time`, the same clock.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import io
from pathlib import Path

from .common import Comparison, Package, PackageResult

ECOSYSTEM = "cpp-gbench"
HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
COMPILER = os.environ.get("PERFLAB_ECO_CXX", "g++-12")
RUNTIME = os.environ.get("PERFLAB_ECO_CPP_RUNTIME", "gcc12")
T_999_9 = 4.781  # two-sided 99.9 % Student t on 9 degrees of freedom (10 repetitions)
NATIVE_PROCESSES = int(os.environ.get("PERFLAB_ECO_GBENCH_PROCESSES", "3"))
NATIVE_REPETITIONS = 10

# name -> where it comes from and what is run: GitHub repository, commit, benchmark files (sha256 of each),
# include folders (relative to the checkout) and extra compiler flags
SOURCES: dict[str, dict] = {
    "google-benchmark": {
        "repo": "google/benchmark", "commit": "d572f4777349d43653b21d6c2fc63020ab326db2",  # v1.7.1, as Debian's
        "files": {
            "test/fixture_test.cc": "8097143ccbed243552536f3ad12070924c09d87431faba1859c4e6275328cecd",
            "test/map_test.cc": "aedf7df758920c406d3a2ef6c9754d022fa13a75aeb32426c82577a84453d600",
            "test/templated_fixture_test.cc": "d902e27b7ed285f9a379667eef4eccd379b7a2d6db54fcca5b5e6f9f8846087a",
        },
        "include": [], "flags": [],
    },
    "FXdiv": {
        "repo": "Maratyszcza/FXdiv", "commit": "63058eff77e11aa15bf531df5dd34395ec3017c8",
        "files": {
            "bench/divide.cc": "d48f3f0967fa7a78a354b27562049a4713473ec9d7c5b24e1b69a225e912e255",
            "bench/quotient.cc": "0392553bfc67d1abc5bd9e3c21b3e310ada409137ac3f5e3c73acb25494f3f4a",
        },
        "include": ["include"], "flags": [],
    },
    "FP16": {
        "repo": "Maratyszcza/FP16", "commit": "782eea126dc5c755827be751a099eb01826175cf",
        "files": {
            "bench/ieee-element.cc": "72638657def62034b9ea65111a2196ea8724e25b371ae10133f85fabc05a6535",
            "bench/alt-element.cc": "03bf62b2925de098df92ee07e01aa31c7168dcc4332e85a9911251d71c22ba8e",
        },
        "include": ["include"], "flags": [],
    },
    "frozen": {
        "repo": "serge-sans-paille/frozen", "commit": "61dce5ae18ca59931e27675c468e64118aba8744",
        "files": {
            "benchmarks/bench_int_set.cpp": "3fcf4eccbce36202ac10aef8c81cedac9d4948f7869a9f9221b6a4b2ec1eba0f",
            "benchmarks/bench_str_set.cpp": "1bedd68aaa715c7eb962b0cd3dab3efb213a551efba7be186adb3484cf682fb4",
        },
        "include": ["include"], "flags": [],
    },
    "msvc-stl": {
        "repo": "microsoft/STL", "commit": "2a62bf7b4079f0a3e33ec80d7daf9ea968805b12",
        "files": {
            "benchmarks/src/nth_element.cpp": "f19ab07ed9e93c4651d13bb615e5ad85134162e924c5ed29aa9937181af5f843",
            "benchmarks/src/has_single_bit.cpp": "f527d0966880ca3d44fd2a1039fd53e75fb9a2d9c0916e8a2bd34913a47949ba",
            "benchmarks/src/bitset_to_string.cpp": "641013cbf7e425e084b5a928d73e4868d43102de1be7317b1cd54673f339f2ee",
        },
        "include": ["benchmarks/inc"], "flags": ["-std=c++20"],
    },
    "perflab-slice": {
        "repo": "", "commit": "",  # in this repository: CI never needs GitHub
        "files": {
            "slice_benchmark.cc": "33a6507c6deba71dffaf6616ebe743ee998ca8b7306330a5063a96f4500d1ef4",
        },
        "include": [], "flags": [],
    },
}


def _pin(src: dict) -> str:
    """The package's sha256: over its commit and each file's path and sha256."""
    text = src["commit"] + "\n" + "".join(f"{p} {h}\n" for p, h in sorted(src["files"].items()))
    return hashlib.sha256(text.encode()).hexdigest()


MANIFEST = [Package(name, s["commit"][:12] or "in-repo", _pin(s), "source",
                    f"{s['repo'] or 'bench/eco/cpp_gbench_slice'}: {', '.join(s['files'])}")
            for name, s in SOURCES.items()]
SLICE = "perflab-slice"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch(pkg: Package, cache: Path) -> Path:
    """The checkout of the pinned commit (cached), every benchmark file checked against its sha256."""
    src = SOURCES[pkg.name]
    if not src["repo"]:
        dest = HERE / "cpp_gbench_slice"
    else:
        dest = cache / f"{pkg.name}-{src['commit'][:12]}"
        if not (dest / ".complete").is_file():
            mirror = Path(os.environ.get("PERFLAB_ECO_MIRROR", "/work/.mirror")) / src["repo"].replace("/", "+") / "repo"
            git_dir = mirror
            if not mirror.is_dir():  # no local mirror: the ordinary client, git, from GitHub
                git_dir = cache / f"{pkg.name}.git"
                if not git_dir.is_dir():
                    subprocess.run(["git", "clone", "--bare", "--filter=blob:none",
                                    f"https://github.com/{src['repo']}.git", str(git_dir)], check=True)
            tar = subprocess.run(["git", f"--git-dir={git_dir}", "archive", "--format=tar", src["commit"]],
                                 capture_output=True, check=True).stdout
            shutil.rmtree(dest, ignore_errors=True)
            dest.mkdir(parents=True)
            with tarfile.open(fileobj=io.BytesIO(tar)) as t:
                t.extractall(dest, filter="data") if sys.version_info >= (3, 12) else t.extractall(dest)
            (dest / ".complete").write_text("ok\n")
    for rel, want in src["files"].items():
        got = _sha(dest / rel)
        if got != want:
            raise SystemExit(f"{pkg.name}: {rel} has sha256 {got}, the manifest pins {want}; refusing to run it")
    return dest


def _perflab(files: list[Path], spec: str, job: str, out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    exe = REPO / ".venv" / "bin" / "perflab"
    cmd = [str(exe)] if exe.is_file() else [sys.executable, "-m", "perflab"]
    res = subprocess.run([*cmd, "run", *map(str, files), "--runtimes", spec, "--job", job, "--store", "none",
                          "--out", str(out), "-e", "json"], capture_output=True, text=True, timeout=7200)
    (out / "perflab.log").write_text(res.stdout + "\n" + res.stderr)
    docs = sorted(out.glob("perflab-*.json"))
    if not docs:
        raise RuntimeError(f"perflab wrote no results (exit {res.returncode}): {res.stderr.strip()[-400:]}")
    return json.loads(docs[-1].read_text())


def _has_main(text: str) -> bool:
    return "BENCHMARK_MAIN" in text or bool(re.search(r"^\s*int\s+main\s*\(", text, re.M))


def _native(file: Path, flags: list[str], out: Path) -> dict[str, dict]:
    """Google Benchmark's own run of one file: run name → {mean, low, high} in ns (real and cpu)."""
    binary = (out / (file.stem + ".native")).resolve()  # run from the file's folder: a path that holds there
    libs = ["-lbenchmark", "-lpthread"] if _has_main(file.read_text(errors="replace")) else \
        ["-lbenchmark_main", "-lbenchmark", "-lpthread"]
    build = subprocess.run([COMPILER, "-std=c++17", *flags, str(file), "-o", str(binary), *libs],
                           capture_output=True, text=True, timeout=1800)
    if build.returncode != 0:
        (out / (file.stem + ".native-build.log")).write_text(build.stderr)
        return {}
    # several processes: perflab's interval spans processes (heap layout, code placement differ between
    # them), so Google Benchmark's figures come from as many, each its own JSON
    texts = []
    for k in range(NATIVE_PROCESSES):
        run = subprocess.run([str(binary), f"--benchmark_repetitions={NATIVE_REPETITIONS}", "--benchmark_format=json",
                              "--benchmark_min_time=0.2"], capture_output=True, text=True, timeout=3600, cwd=str(file.parent))
        (out / (file.stem + (".native.json" if k == 0 else f".native.{k}.json"))).write_text(run.stdout)
        texts.append(run.stdout)
    return _native_figures(texts)


def _native_figures(texts: list[str] | str) -> dict[str, dict]:
    """run name → {"real"/"cpu": (mean, low, high) over the first process's repetitions (the compared
    figure), "real_by_process"/"cpu_by_process": [each process's mean] (for `process_cause`)}."""
    if isinstance(texts, str):
        texts = [texts]
    reps: dict[str, dict[str, list[list[float]]]] = {}
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    for p, text in enumerate(texts):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError:
            continue
        for b in doc.get("benchmarks", []):
            if b.get("run_type") != "iteration" or b.get("error_occurred"):
                continue
            r = reps.setdefault(b["run_name"], {"real": [[] for _ in texts], "cpu": [[] for _ in texts]})
            r["real"][p].append(b["real_time"] * scale[b.get("time_unit", "ns")])
            r["cpu"][p].append(b["cpu_time"] * scale[b.get("time_unit", "ns")])
    found = {}
    for name, r in reps.items():
        entry = {}
        for clock, per_process in r.items():
            xs = next((proc for proc in per_process if proc), [])
            if not xs:
                continue
            m = statistics.mean(xs)
            half = _t999(len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else math.inf
            entry[clock] = (m, m - half, m + half)
            entry[clock + "_by_process"] = [statistics.mean(p) for p in per_process if p]
        found[name] = entry
    return found


def _t999(df: int) -> float:
    """Two-sided 99.9 % Student t quantile (perflab's confidence)."""
    try:
        from scipy import stats
        return float(stats.t.ppf(0.9995, df))
    except ImportError:
        return T_999_9 if df <= 9 else 3.66


def _run_name(case: dict) -> str:
    """Google Benchmark's run name of a perflab case: its id after `group.` (perflab's worker keeps it)."""
    bid = case["benchmark"]["id"]
    return bid.split(".", 1)[1] if "." in bid else bid


def study(pkg: Package, src: Path, *, job: str, out: Path, native: bool) -> PackageResult:
    spec_src = SOURCES[pkg.name]
    files = [src / rel for rel in spec_src["files"]]
    flags = ["-O2", *[f"-I{src / d}" for d in spec_src["include"]], *spec_src["flags"]]
    doc = _perflab(files, f"{RUNTIME}:{' '.join(flags)}", job, out / "perflab")
    measured: dict[str, dict] = {}
    if native:
        for f in files:
            measured.update(_native(f, flags, out))
    return assess(pkg, files, doc, measured if native else None)


def reassess(pkg: Package, src: Path, out: Path) -> PackageResult:
    """A study's figures again from what it wrote in `out` (perflab's results, the native JSON)."""
    files = [src / rel for rel in SOURCES[pkg.name]["files"]]
    doc = json.loads(sorted((out / "perflab").glob("perflab-*.json"))[-1].read_text())
    measured: dict[str, dict] = {}
    for f in files:
        texts = [p.read_text() for p in [out / (f.stem + ".native.json"), *sorted(out.glob(f.stem + ".native.*.json"))]
                 if p.is_file()]
        if texts:
            measured.update(_native_figures(texts))
    return assess(pkg, files, doc, measured)


def assess(pkg: Package, files: list[Path], doc: dict, measured: dict[str, dict] | None) -> PackageResult:
    """Counts, failures and comparisons of one package from perflab's results and the native figures."""
    result = PackageResult(pkg.name, pkg.version, files_found=len(files))
    cases = doc.get("cases", [])
    result.benchmarks_found = len(cases)
    for c in cases:
        name = _run_name(c)
        if c.get("status") == "ok":
            result.ran_unchanged += 1
        else:
            why = (c.get("error") or "failed").splitlines()[0]
            result.failed_alone.append((f"{pkg.name}:{name}", why))
            if "protocol" in why.lower():
                result.protocol_errors += 1
    if measured is None:
        return result
    for c in cases:
        est = c.get("estimate") or {}
        name = _run_name(c)
        if c.get("status") != "ok" or name not in measured or not est.get("mean"):
            continue
        clock = "cpu" if est.get("cpu_timed") else "real"
        nm, nlo, nhi = measured[name][clock]
        low, high = est.get("ci_low"), est.get("ci_high")
        finite = all(isinstance(x, (int, float)) and math.isfinite(x) for x in (low, high))
        comp = Comparison(f"{pkg.name}:{name}" + (" [cpu time]" if clock == "cpu" else ""), est["mean"],
                          low if finite else None, high if finite else None,
                          nm, nlo if math.isfinite(nlo) else None, nhi if math.isfinite(nhi) else None)
        if not comp.agrees and max(abs(est["mean"]), abs(nm)) < 0.05:
            comp.cause = (f"nothing left to measure: both under 0.05 ns/op (perflab {est['mean']:.4f}, "
                          f"Google Benchmark {nm:.4f}); the loop body was optimised away")
        over = est.get("overhead_per_op") or 0.0
        gross = est.get("gross_mean")
        if not comp.agrees and over > 0 and gross and abs(gross / nm - 1) <= 0.05:
            # measured, not guessed: perflab's mean is net of its empty loop, Google Benchmark's is not
            comp.cause = (f"loop overhead: perflab subtracts its empty `for (auto _ : state)` loop "
                          f"({over:.2f} ns/op); its gross mean {gross:.2f} ns is within 5 % of Google Benchmark's")
        if not comp.agrees:
            comp.cause = comp.cause or process_cause(est["mean"], measured[name].get(clock + "_by_process", []))
        result.comparisons.append(comp)
    return result


def process_cause(mean: float, by_process: list[float]) -> str:
    """Named when Google Benchmark's own processes (≥ 3) disagree with each other as much as with
    perflab: their means bracket perflab's. What differs is then the process (heap layout, code
    placement), not the harness. Processes that agree with each other never name this cause."""
    if len(by_process) < 3:
        return ""
    lo, hi = min(by_process), max(by_process)
    if lo <= mean <= hi:
        return (f"between processes: Google Benchmark's own {len(by_process)} processes gave means "
                f"{lo:.3g}–{hi:.3g} ns ({100 * (hi / lo - 1):.0f} % apart); perflab's {mean:.3g} ns is inside that range")
    return ""
