"""Python: PyPI sdists that ship pytest-benchmark tests or pyperf scripts, run unchanged by perflab and by
the original harness (docs/coming-from-pytest-benchmark-and-pyperf.md).

Each package gets a scratch venv (CPython from pyenv) with pytest, the package itself at the pinned version
and its benchmarks' own imports, set up as its user would; perflab is pointed at that venv's interpreter
(`--runtimes <venv>/bin/python`). The venv also holds the real pytest-benchmark / pyperf for the native
run; under perflab they are switched off (`-p no:benchmark`) or stood in for (`import pyperf` resolves to
perflab's). The slice (pyperf's own examples) needs no venv without the native side: a pyperf script
needs nothing installed under perflab.
"""
from __future__ import annotations

import json
import math
import os
import resource
import shutil
import statistics
import time
import subprocess
import sys
import tarfile
from pathlib import Path

from .common import Comparison, Package, PackageResult, check_sha256

ECOSYSTEM = "python"
REPO = Path(__file__).resolve().parents[2]

MANIFEST = [
    Package("pyperf", "2.11.0", "e53813a2d97dc5a89760cf660dbd1b6a142558fcb6d32b3529c8a6b2d03dbdf8", "pypi",
            "doc/examples: bench_func, bench_time_func, timeit, bench_async_func (+ loop_factory), bench_command"),
    Package("jsonschema", "4.26.0", "0c26707e2efad8aa1bfc5b7ce170f3fccc2e4918ff85989ba9ffa9facb2be326", "pypi",
            "jsonschema/benchmarks: pyperf scripts (const_vs_enum, contains, nested_schemas)"),
    Package("fastjsonschema", "2.22.3", "8330c91b027dcf941efcb7b1f0998515ff95d177ea15bbabdfe8671965620901", "pypi",
            "tests/benchmarks: pytest-benchmark, parametrize, @benchmark as a decorator, a conftest above"),
    Package("cattrs", "26.2.1", "679132bfdc225c5ee40c024fc42519954767c387f950dc6751946c586bccdc6d", "pypi",
            "bench/test_primitives.py, bench/test_tuples.py: pytest-benchmark with stacked parametrize"),
    Package("pyperformance", "1.14.0", "91f74393997b604375ad5b79bf569a24076d70181c076a53abad5383a238a8aa", "pypi",
            "pyperformance/data-files/benchmarks: bm_nbody, bm_spectral_norm, bm_float run_benchmark.py "
            "(pyperf scripts; bench_time_func and bench_func, add_cmdline_args)"),
]
SLICE = "pyperf"

# what each study runs: the harness, the paths in the sdist, what its benchmarks import (pinned to the
# package's own version), and a selection passed to both sides alike
STUDIES = {
    "pyperf": dict(harness="pyperf", paths=["doc/examples"], install=[]),
    "jsonschema": dict(harness="pyperf", install=["jsonschema==4.26.0"],
                       paths=["jsonschema/benchmarks/const_vs_enum.py", "jsonschema/benchmarks/contains.py",
                              "jsonschema/benchmarks/nested_schemas.py"]),
    "fastjsonschema": dict(harness="pytest", paths=["tests/benchmarks"], install=["fastjsonschema==2.22.3"]),
    "cattrs": dict(harness="pytest", paths=["bench/test_primitives.py", "bench/test_tuples.py"],
                   install=["cattrs==26.2.1"]),
    "pyperformance": dict(harness="pyperf", install=[],
                          paths=[f"pyperformance/data-files/benchmarks/bm_{b}/run_benchmark.py"
                                 for b in ("nbody", "spectral_norm", "float")]),
}
PYTHON = "3.12"  # the pyenv CPython the venvs are made from


def fetch(pkg: Package, cache: Path) -> Path:
    """pip download of the sdist (the package only as source, its build tools as wheels), sha256
    checked, unpacked once."""
    src = cache / "src" / f"{pkg.name}-{pkg.version}"
    if (src / ".unpacked").is_file():
        return _top(src)
    dl = cache / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    archive = next(iter(dl.glob(f"{pkg.name.replace('-', '_')}-{pkg.version}.tar.gz")), None) or \
        next(iter(dl.glob(f"{pkg.name}-{pkg.version}.tar.gz")), None)
    if archive is None:
        subprocess.run([_python(), "-m", "pip", "download", "-q", "--no-deps", "--no-binary", pkg.name,
                        f"{pkg.name}=={pkg.version}", "-d", str(dl)], check=True, timeout=900)
        archive = next(p for p in dl.iterdir() if p.name.lower().replace("_", "-").startswith(
            f"{pkg.name}-{pkg.version}".lower()) and p.name.endswith(".tar.gz"))
    check_sha256(archive, pkg)
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    with tarfile.open(archive) as tar:
        tar.extractall(src, filter="data") if sys.version_info >= (3, 12) else tar.extractall(src)
    (src / ".unpacked").write_text(pkg.sha256)
    return _top(src)


def _top(src: Path) -> Path:
    [top] = [p for p in src.iterdir() if p.is_dir()]
    return top


def _python() -> str:
    """The newest pyenv CPython PYTHON.x."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = sorted(root.glob(PYTHON + ".*"), key=lambda p: [int(x) for x in p.name.split(".") if x.isdigit()])
    if not found:
        raise RuntimeError(f"no pyenv CPython {PYTHON} under {root}")
    return str(found[-1] / "bin" / "python")


def _venv(pkg: Package, cache: Path, harness: str) -> str:
    """A scratch venv with pytest, the native harness and the package's benchmarks' imports."""
    spec = STUDIES[pkg.name]
    wants = ["pytest" if harness == "pytest" else "", "pytest-benchmark" if harness == "pytest" else "pyperf",
             *spec["install"]]
    wants = [w for w in wants if w]
    venv = cache / "venvs" / f"{pkg.name}-{pkg.version}-py{PYTHON}"
    stamp = venv / ".perflab-wants"
    if not (stamp.is_file() and stamp.read_text() == "\n".join(wants)):
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([_python(), "-m", "venv", str(venv)], check=True, timeout=300)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *wants], check=True,
                       timeout=1200)
        stamp.write_text("\n".join(wants))
    return str(venv / "bin" / "python")


def study(pkg: Package, src: Path, *, job: str, out: Path, native: bool) -> PackageResult:
    spec = STUDIES[pkg.name]
    harness = spec["harness"]
    cache = src.parents[2]
    # a pyperf script needs nothing installed under perflab; everything else runs in the user's venv
    python = _venv(pkg, cache, harness) if native or spec["install"] or harness == "pytest" else _python()
    paths = [str(src / p) for p in spec["paths"]]
    out.mkdir(parents=True, exist_ok=True)
    result = PackageResult(pkg.name, pkg.version)
    sys.path.insert(0, str(REPO / "src"))
    from perflab.toolchains.python import PythonToolchain
    tc = PythonToolchain()
    result.files_found = len({f for p in paths for f in tc.find_sources(Path(p))})

    pl_out = out / "perflab"
    if not (REUSE and list(pl_out.glob("perflab-*.json"))):
        _run_perflab(spec, paths, python, job, src, out, pl_out)
    docs = list(pl_out.glob("perflab-*.json"))
    if not docs:
        result.error = f"perflab left no results: {(out / 'perflab.log').read_text()[-400:]}"
        return result
    return _compare(pkg, spec, harness, result, json.loads(docs[0].read_text()), python, src, paths,
                    out, native)


# PERFLAB_ECO_REUSE=1: read a study's outputs again (after a change in how they are compared)
# instead of measuring; a missing output is measured
REUSE = os.environ.get("PERFLAB_ECO_REUSE") == "1"


def _run_perflab(spec, paths, python, job, src, out, pl_out):
    shutil.rmtree(pl_out, ignore_errors=True)
    cmd = [sys.executable, "-m", "perflab.cli", "run", *paths, "--runtimes", python, "--job", job,
           "--store", "none", "-o", str(pl_out), "--quiet"]
    if spec.get("select"):
        cmd += ["--filter", f"*{spec['select']}*"]
    r = subprocess.run(cmd, cwd=src, capture_output=True, text=True, timeout=7200,
                       env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    (out / "perflab.log").write_text(f"exit {r.returncode}\n" + r.stdout + r.stderr)


def _compare(pkg, spec, harness, result, doc, python, src, paths, out, native) -> PackageResult:
    mine = {}
    for case in doc["cases"]:
        b = case["benchmark"]
        result.benchmarks_found += 1
        if case["status"] == "ok":
            result.ran_unchanged += 1
            est = dict(case.get("estimate") or {})
            est["wall_mean"] = _wall_mean(case)
            mine[_key(harness, b)] = est
        else:
            why = (case.get("error") or case["status"]).splitlines()[0]
            result.failed_alone.append((f"{b['id']}", why))
            if "protocol" in why.lower():
                result.protocol_errors += 1
    if not native:
        return result
    theirs = (_native_pytest if harness == "pytest" else _native_pyperf)(python, src, paths, out, spec)
    for name, (mean, low, high) in sorted(theirs.items()):
        est = mine.get(name)
        if not est or not est.get("mean"):
            continue
        low_p, high_p = est.get("ci_low"), est.get("ci_high")
        finite = low_p is not None and high_p is not None and math.isfinite(low_p) and math.isfinite(high_p)
        comp = Comparison(name, est["mean"], low_p if finite else None, high_p if finite else None,
                          mean, low, high, cause=_cause(pkg.name, name))
        rounds_of = ROUND_CALLS.get(name)
        extra = (mean - est.get("gross_mean", 0)) * (rounds_of or 0)
        if abs(comp.ratio - 1) > 0.05 and harness == "pytest" and rounds_of and extra > 0:
            # what each of pytest-benchmark's rounds costs beyond perflab's gross call: constant across
            # a package's benchmarks when it is the round's timer reads
            comp.cause = comp.cause or (
                f"pytest-benchmark's rounds are {rounds_of} call(s) long and each carries its timer "
                f"reads (time.process_time, a system call): (its mean - perflab's mean before the "
                f"empty call is subtracted) x {rounds_of} = {extra / 1000:.2f} us a round; perflab "
                f"reads its clocks once per iteration of many calls and subtracts the empty call "
                f"({est.get('overhead_per_op', 0):.3g} ns)")
        if abs(comp.ratio - 1) > 0.05 and harness == "pyperf" and est.get("cpu_timed"):
            comp.cause = comp.cause or _cause_pyperf(name, est, mean)
        wall = est.get("wall_mean") or 0.0
        if (abs(comp.ratio - 1) > 0.05 and harness == "pyperf" and est.get("cpu_timed")
                and wall - est["mean"] >= 0.5 * (mean - est["mean"]) > 0):
            # named only where perflab's own wall clock went at least half way to pyperf's figure
            # pyperf reads the wall clock only; perflab timed this case by its thread's CPU time.
            # perflab's wall-clock mean of the same iterations says how much was waiting for a CPU
            comp.cause = comp.cause or (
                f"pyperf times wall-clock time, perflab this thread's CPU time; perflab's wall-clock "
                f"mean of the same iterations is {est['wall_mean'] / mean:.2f}x pyperf's "
                f"({est['wall_mean']:.4g} ns): time spent waiting for a CPU on a loaded machine")
        result.comparisons.append(comp)
    return result


def _wall_mean(case: dict) -> float | None:
    """perflab's mean per operation by the wall clock, net of the empty loop, over every launch's
    workload iterations (what a wall-clock harness would have seen of the same iterations)."""
    ops = case["benchmark"].get("ops_per_invoke") or 1
    per_op = []
    for launch in case.get("launches") or []:
        inv, work, over = launch.get("invocations"), launch.get("workload") or [], launch.get("overhead") or []
        if not inv or not work:
            continue
        net = sum(work) / len(work) - (sum(over) / len(over) if over else 0.0)
        per_op.append(net / inv / ops)
    return sum(per_op) / len(per_op) if per_op else None


def _key(harness: str, bench: dict) -> str:
    # pytest: the node id (pytest-benchmark's fullname); pyperf: file stem + benchmark name
    if harness == "pytest":
        return bench["id"]
    return f"{Path(bench['file']).stem}.{bench['name']}"


def _t999(df: int) -> float:
    try:
        from scipy.stats import t
        return float(t.ppf(0.9995, df))
    except ImportError:
        return 3.29


ROUND_CALLS: dict[str, int] = {}  # pytest-benchmark's calls per round, by benchmark


def _native_pytest(python, src, paths, out, spec) -> dict:
    """pytest-benchmark's own run: mean per round, and a 99.9 % t interval over its rounds."""
    path = out / "pytest-benchmark.json"
    if not (REUSE and path.is_file()):
        path.unlink(missing_ok=True)
        _run_pytest_benchmark(python, src, paths, out, spec, path)
    if not path.is_file():
        return {}
    return _read_pytest_benchmark(path)


def _run_pytest_benchmark(python, src, paths, out, spec, path):
    # timed by the process's CPU time, as perflab times a CPU-bound case: on this shared machine
    # (load average ~20 on 2 CPUs during the study) wall-clock rounds mostly measure the queue
    cmd = [python, "-m", "pytest", *paths, "-p", "no:cacheprovider", "-q", "--benchmark-only",
           "--benchmark-timer=time.process_time", f"--benchmark-json={path}"]
    if spec.get("select"):
        cmd += ["-k", spec["select"]]
    r = subprocess.run(cmd, cwd=src, capture_output=True, text=True, timeout=7200)
    (out / "pytest-benchmark.log").write_text(r.stdout + r.stderr)


def _read_pytest_benchmark(path):
    found = {}
    for b in json.loads(path.read_text())["benchmarks"]:
        s = b["stats"]
        n = s["rounds"]
        half = _t999(n - 1) * s["stddev"] / math.sqrt(n) if n > 1 else None
        mean = s["mean"] * 1e9
        ROUND_CALLS[b["fullname"]] = s.get("iterations") or b.get("options", {}).get("iterations") or 0
        found[b["fullname"]] = (mean, mean - half * 1e9 if half is not None else None,
                                mean + half * 1e9 if half is not None else None)
    return found


def _native_pyperf(python, src, paths, out, spec) -> dict:
    """Each script under real pyperf (--fast: 10 processes): the mean of its values, and a 99.9 % t
    interval over the processes' means (pyperf's processes, like perflab's, are the units)."""
    found = {}
    scripts = []
    sys.path.insert(0, str(REPO / "src"))
    from perflab.toolchains.python import PythonToolchain
    for p in paths:
        scripts += PythonToolchain().find_sources(Path(p))
    for script in scripts:
        target = out / f"pyperf-{script.parent.name}-{script.stem}.json"
        if not (REUSE and target.is_file()):
            target.unlink(missing_ok=True)
            _run_pyperf(python, script, target, out)
        if target.is_file():
            found.update(_read_pyperf(target, script))
    return found


def _run_pyperf(python, script, target, out):
    # the CPU time pyperf's process tree used over the run's wall time (its worker processes are
    # waited for, so RUSAGE_CHILDREN counts them): pyperf reads only the wall clock, and on a shared
    # machine a CPU-bound script's wall time is its CPU time / this share
    before, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    r = subprocess.run([python, str(script), "--fast", "-q", "-o", str(target)], cwd=script.parent,
                       capture_output=True, text=True, timeout=3600)
    after, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter() - t0
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    _share_path(target).write_text(json.dumps({"cpu_s": cpu, "wall_s": wall, "share": cpu / wall if wall else None,
                                               "loadavg": os.getloadavg()[0]}))
    (out / f"pyperf-{script.parent.name}-{script.stem}.log").write_text(r.stdout + r.stderr)


def _share_path(target: Path) -> Path:
    return target.with_name(target.stem + ".cpu-share.json")


PYPERF_EVIDENCE: dict[str, dict] = {}  # by benchmark: what pyperf's own file says of its waiting (see _cause_pyperf)
SHORT_ITERATION_S = 1e-3  # a pyperf iteration shorter than this rarely spans a scheduler tick


def _read_pyperf(target, script) -> dict:
    found = {}
    doc = json.loads(target.read_text())
    common = doc.get("metadata", {})
    share = json.loads(_share_path(target).read_text()) if _share_path(target).is_file() else {}
    for b in doc.get("benchmarks", []):
        name = b.get("metadata", {}).get("name") or common.get("name")
        runs = [run["values"] for run in b.get("runs", []) if run.get("values")]
        if not name or not runs:
            continue
        means = [sum(v) / len(v) for v in runs]
        # pyperf's calibration runs time the same code with 1, 2, 4 ... loops: those under a
        # millisecond were rarely preempted, so they read the code's own speed beside the values
        inner = (b.get("metadata") or {}).get("inner_loops") or common.get("inner_loops") or 1
        short = [v for run in b.get("runs", []) if not run.get("values")
                 for loops, v in (run.get("warmups") or []) if loops * inner * v < SHORT_ITERATION_S]
        loads = [run["metadata"]["load_avg_1min"] for run in b.get("runs", [])
                 if isinstance((run.get("metadata") or {}).get("load_avg_1min"), (int, float))]
        PYPERF_EVIDENCE[f"{script.stem}.{name}"] = {
            "short_median": statistics.median(short) * 1e9 if short else None, "short_n": len(short),
            "load": statistics.median(loads) if loads else None, "cpus": common.get("cpu_count"),
            "share": share.get("share")}
        mean = sum(means) / len(means)
        if len(means) > 1:
            sd = math.sqrt(sum((m - mean) ** 2 for m in means) / (len(means) - 1))
            half = _t999(len(means) - 1) * sd / math.sqrt(len(means))
            low, high = (mean - half) * 1e9, (mean + half) * 1e9
        else:
            low = high = None
        found[f"{script.stem}.{name}"] = (mean * 1e9, low, high)
    return found


def _cause_pyperf(name: str, est: dict, native_mean: float) -> str:
    """Why a CPU-timed perflab mean is below pyperf's wall-clock one, when pyperf's own run shows it:
    its short calibration loops (under SHORT_ITERATION_S) agree with perflab's mean with the empty
    call in (pyperf does not subtract its loop) within 15 %, or its values times the CPU share its
    process tree got agree with perflab's mean within 15 %. Else nothing is named."""
    ev = PYPERF_EVIDENCE.get(name) or {}
    gross = est.get("gross_mean") or est["mean"]
    load = f" at a load average of {ev['load']:.1f} on {ev['cpus']} CPUs (pyperf's metadata)" if ev.get("load") else ""
    short = ev.get("short_median")
    if short and abs(gross / short - 1) <= 0.15 and native_mean > 1.15 * short:
        return (f"pyperf times by the wall clock: its own calibration loops shorter than 1 ms "
                f"({ev['short_n']} of them) read {short:.4g} ns, perflab {gross:.4g} ns with the empty call "
                f"in (its CPU time), while pyperf's longer values read {native_mean:.4g} ns{load}: "
                f"they include time spent waiting for a CPU")
    share = ev.get("share")
    if share and share < 0.9 and abs(gross / (native_mean * share) - 1) <= 0.15:
        return (f"pyperf times by the wall clock: its process tree got {share:.0%} of a CPU over its run "
                f"(getrusage / wall time){load}, and its mean x that share is {native_mean * share:.4g} ns, "
                f"perflab {gross:.4g} ns with the empty call in (its CPU time): pyperf's values include "
                f"time spent waiting for a CPU")
    return ""


# Causes found where perflab and the original disagree by more than 5 % with disjoint intervals
# (docs/coming-from-pytest-benchmark-and-pyperf.md, "Where the figures differ"); keyed by package and a
# benchmark-name fragment.
CAUSES: dict[tuple[str, str], str] = {}


def _cause(package: str, name: str) -> str:
    return next((why for (pkg, frag), why in CAUSES.items() if pkg == package and frag in name), "")
