"""Go modules' own `func BenchmarkX(b *testing.B)` benchmarks, unchanged, under perflab and under
`go test -bench` in the same stretch.

Each module is fetched from the Go module proxy with `go mod download -json MOD@VER` into a module cache
of its own under the study's cache (the zip's sha256 and the go.sum `h1:` hash are both checked against
the pins below), then copied to a writable scratch folder (the module cache is read-only, and perflab
builds in the package folder). Modules with dozens of benchmarks are cut down to the pinned subset in
SUBSETS, to keep the study within minutes; every subset is listed there, by package and function.

Native: `go test -run '^$' -bench '^BenchmarkA$' -count 10 -benchtime 300ms -benchmem` (the binary
`go test -c` builds, one process per function, its CPU time taken from rusage), parsed; per
benchmark (sub-benchmark leaf) the mean of the 10 runs' ns/op with a 99.9 % Student-t interval (the
confidence of perflab's own intervals). perflab: `perflab run <package> --job <job> --filter A ...`
with the same toolchain (the `go` on PATH); its JSON's mean and interval per case.
"""
from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .common import Comparison, Package, PackageResult, check_sha256

ECOSYSTEM = "go"
REPO = Path(__file__).resolve().parents[2]

MANIFEST = [
    Package("github.com/google/uuid", "v1.6.0",
            "d0f02f377217f42702e259684e06441edbf5140dddcc34ba9bea56038b38a6ed", "go",
            "Parse/String/New: 9 of its 15 benchmarks"),
    Package("github.com/cespare/xxhash/v2", "v2.3.0",
            "145a26cdc7c49db566017b807c4989ee7f7ddeb569423e9cb99f995fac3621d3", "go",
            "Sum64/Sum64String over 5 sizes (b.Run sub-benchmarks, SetBytes): 2 of its 4 functions"),
    Package("github.com/dustin/go-humanize", "v1.0.1",
            "319404ea84c8a4e2d3d83f30988b006e7dd04976de3e1a1a90484ad94679fa46", "go",
            "number/byte formatting and parsing: 8 of its 13 benchmarks"),
    Package("github.com/tidwall/gjson", "v1.18.0",
            "ab8092b3e42f83f003466757c63ec819a45d1e83caa63c6c131cebbe760f1df2", "go",
            "JSON validation: all 3 benchmarks (needs tidwall/match, tidwall/pretty from the proxy)"),
    Package("golang.org/x/text", "v0.21.0",
            "be3db791651af6f2cb0225aa5d5578c23149b2017246ba8e59586080baadd612", "go",
            "unicode/norm: 8 of its 34 benchmarks"),
]
GOSUM = {  # the go.sum line of each module zip (h1: over its files), checked too
    "github.com/google/uuid": "h1:NIvaJDMOsjHA8n1jAhLSgzrAzy1Hgr+hNrb57e+94F0=",
    "github.com/cespare/xxhash/v2": "h1:UL815xU9SqsFlibzuggzjXhog7bL6oX9BbNZnL2UFvs=",
    "github.com/dustin/go-humanize": "h1:GzkhY7T5VNhEkwH0PVJgjz+fX1rhBrR7pRT3mDkpeCY=",
    "github.com/tidwall/gjson": "h1:FIDeeyB800efLX89e5a8Y0BNH+LOngJyGrIWxG2FKQY=",
    "golang.org/x/text": "h1:zyQAAkrwaneQ066sspRyJaG9VNi/YJ1NfzcGB3hZ/qo=",
}
# package folder (relative to the module root) → the benchmark functions studied there
SUBSETS: dict[str, dict[str, list[str]]] = {
    "github.com/google/uuid": {".": [
        "BenchmarkParse", "BenchmarkParseBytes", "BenchmarkParseBytesUnsafe", "BenchmarkNew",
        "BenchmarkUUID_String", "BenchmarkUUID_URN", "BenchmarkParseBadLength",
        "BenchmarkUUID_MarshalJSON", "BenchmarkUUID_UnmarshalJSON"]},
    "github.com/cespare/xxhash/v2": {".": ["BenchmarkSum64", "BenchmarkSum64String"]},
    "github.com/dustin/go-humanize": {".": [
        "BenchmarkParseBytes", "BenchmarkBytes", "BenchmarkCommas", "BenchmarkCommaf",
        "BenchmarkBigCommas", "BenchmarkFtoaFunc", "BenchmarkStrconvF", "BenchmarkParseSI"]},
    "github.com/tidwall/gjson": {".": ["BenchmarkValid", "BenchmarkValidBytes", "BenchmarkGoStdlibValidBytes"]},
    "golang.org/x/text": {"unicode/norm": [
        "BenchmarkLowerCaseNoChange", "BenchmarkBytesChangeNFC", "BenchmarkAppendLargeNFC",
        "BenchmarkIterLargeNFC", "BenchmarkTransformLargeNFC", "BenchmarkNormalizeAsciiNFC",
        "BenchmarkNormalizeNFD2NFC", "BenchmarkJapanese"]},
}
SLICE = "github.com/google/uuid"
NATIVE_COUNT = 10
# go test's -benchtime for each of the 10 runs: its default 1 s made one function take 46 s of wall
# time on the loaded study machine (the b.N ramp repeats under load); 300 ms bounds the study
NATIVE_BENCHTIME = "300ms"

_T999 = {9: 4.781}  # Student t, two-sided 99.9 %, by degrees of freedom (10 runs → 9)


def _go() -> str:
    go = shutil.which("go")
    if not go:
        raise RuntimeError("no `go` on PATH")
    return go


def fetch(pkg: Package, cache: Path) -> Path:
    """The module's source in a writable folder: `go mod download -json` into the study's own module
    cache, both hashes checked, then copied out (the module cache is read-only)."""
    dest = cache / "src" / f"{pkg.name.replace('/', '_')}@{pkg.version}"
    if (dest / "go.mod").is_file():
        return dest
    modcache = cache / "modcache"
    env = {**os.environ, "GOMODCACHE": str(modcache), "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"}
    res = subprocess.run([_go(), "mod", "download", "-json", f"{pkg.name}@{pkg.version}"],
                         capture_output=True, text=True, env=env, cwd=str(cache.parent if cache.parent.is_dir() else "/"),
                         timeout=600)
    info = json.loads(res.stdout or "{}") if res.stdout.strip() else {}
    if res.returncode != 0 or info.get("Error") or not info.get("Zip"):
        raise RuntimeError(f"go mod download {pkg.name}@{pkg.version}: {info.get('Error') or res.stderr.strip()}")
    check_sha256(Path(info["Zip"]), pkg)
    if info.get("Sum") != GOSUM[pkg.name]:
        raise SystemExit(f"go {pkg.name} {pkg.version}: go.sum hash {info.get('Sum')}, the manifest pins "
                         f"{GOSUM[pkg.name]}; refusing to run it")
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(info["Dir"], tmp)
    for root, dirs, files in os.walk(tmp):
        for n in dirs + files:
            os.chmod(os.path.join(root, n), 0o755 if n in dirs else 0o644)
    os.chmod(tmp, 0o755)
    tmp.rename(dest)
    return dest


# -- native: go test -bench -count 10 ------------------------------------------------------------

_LINE = re.compile(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op")


def native_samples(text: str) -> dict[str, list[float]]:
    """`BenchmarkX/sub-2  123  45.6 ns/op ...` lines → {"X/sub": [ns/op, ...]} (the -GOMAXPROCS suffix
    and the Benchmark prefix dropped)."""
    out: dict[str, list[float]] = {}
    for line in text.splitlines():
        m = _LINE.match(line.strip())
        if m:
            out.setdefault(m.group(1)[len("Benchmark"):], []).append(float(m.group(2)))
    return out


def mean_interval(xs: list[float]) -> tuple[float, float | None, float | None]:
    n = len(xs)
    mean = sum(xs) / n
    if n < 2:
        return mean, None, None
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = _T999.get(n - 1, 3.291) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


@dataclass
class Native:
    samples: dict[str, list[float]]  # leaf → ns/op of each of the 10 runs
    cpu_share: dict[str, float]      # function → CPU seconds of its test process per wall second


def run_native(pkg_dir: Path, funcs: list[str], log: Path) -> Native:
    """`go test -run '^$' -bench '^F$' -count 10 -benchmem`, as `go test` runs it (the test binary
    that `go test -c` builds, started in the package folder), one process per function so that each
    function's CPU share — the process's CPU time (rusage) over its wall time — is known: go test
    times by the wall clock, and on a busy machine that share says how much of it was the code's."""
    env = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod"}
    binary = log.with_suffix(".test")
    built = subprocess.run([_go(), "test", "-c", "-o", str(binary), "."], cwd=str(pkg_dir),
                           capture_output=True, text=True, env=env, timeout=1800)
    if built.returncode != 0:
        raise RuntimeError(f"go test -c in {pkg_dir}: {built.stderr.strip()[-500:]}")
    native = Native({}, {})
    text = []
    for f in funcs:
        t0 = time.monotonic()
        proc = subprocess.Popen([str(binary), "-test.run", "^$", "-test.bench", f"^{f}$", "-test.count",
                                 str(NATIVE_COUNT), "-test.benchtime", NATIVE_BENCHTIME, "-test.benchmem"], cwd=str(pkg_dir), env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - t0
        native.cpu_share[f[len("Benchmark"):]] = (usage.ru_utime + usage.ru_stime) / wall
        text.append(f"# {f}: exit {proc.returncode}, {wall:.1f} s wall, "
                    f"{usage.ru_utime + usage.ru_stime:.1f} s CPU\n{out}")
        for leaf, xs in native_samples(out).items():
            native.samples.setdefault(leaf, []).extend(xs)
    log.write_text("\n".join(text))
    return native


# -- perflab ---------------------------------------------------------------------------------------

def leaf_name(case: dict) -> str:
    """The `go test` name (without Benchmark) of a perflab case: the function's name, then its
    sub-benchmark path rebuilt from the parameters (`n=5`, `level1`/`case` values as they are)."""
    name = case["benchmark"]["name"]
    parts = []
    for axis, value in (case.get("params") or {}).items():
        parts.append(str(value) if axis == "case" or re.fullmatch(r"level\d+", axis) else f"{axis}={value}")
    return "/".join([name] + parts)


def run_perflab(pkg_dir: Path, funcs: list[str], job: str, out: Path) -> list[dict]:
    out.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-c", "import sys; from perflab.cli import main; sys.exit(main())",
            "run", str(pkg_dir), "--job", job, "--out", str(out)]
    for f in funcs:
        argv += ["--filter", f[len("Benchmark"):]]
    res = subprocess.run(argv, capture_output=True, text=True, timeout=3600,
                         env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    (out / "perflab.log").write_text(res.stdout + "\n--- stderr\n" + res.stderr)
    results = sorted(out.glob("perflab-*.json"))
    if not results:
        raise RuntimeError(f"perflab wrote no results (exit {res.returncode}): "
                           + " | ".join((res.stderr or res.stdout).strip().splitlines()[-3:]))
    return json.loads(results[-1].read_text())["cases"]


# go test's process counts as contended when it got less than this many CPU seconds per wall second:
# a Go process alone on the machine gets ~1 (its benchmark thread) or more (GC workers besides)
CONTENDED_SHARE = 0.9


def few_calls_cause(comp: Comparison, invocations: int) -> str:
    """perflab slower on a case it timed with one or two calls per iteration: each timed call is the
    first after the round's runtime.GC() and perflab's own work between rounds, where go test times
    b.N calls back to back. Under go test itself, xxhash's 10 MB hash took 1.9-2.6 ms of thread CPU
    time per op with -benchtime 1x and 1.0-1.5 ms with 64x (2026-11-28, load 14)."""
    if comp.agrees or invocations > 2 or comp.perflab_mean <= comp.native_mean:
        return ""
    return (f"what is timed: perflab timed {invocations} call(s) per iteration, each right after the "
            f"round's runtime.GC(); go test times b.N calls back to back (under go test, a 10 MB hash "
            f"alone took ~2x its time in a loop of 64)")


def cause_of(comp: Comparison, estimate: dict, share: float | None) -> str:
    """Why perflab and go test differ, from what was measured: go test times by the wall clock, and
    when its process had a fraction of a CPU (other work had the rest) while perflab timed the
    CPU-bound case by its thread's CPU time, the native mean scaled by that share is what to compare.
    Named only when the data shows it: the share clearly below one CPU, and perflab the faster (waiting
    only inflates go test's figure); otherwise "" (no cause found from the share)."""
    if comp.agrees or share is None or share >= CONTENDED_SHARE or comp.perflab_mean >= comp.native_mean:
        return ""
    scaled = comp.native_mean * min(share, 1.0)
    timing = "timed by thread CPU time" if estimate.get("cpu_timed") else "timed by the wall clock"
    return (f"go test's process had {share:.2f} CPU s per wall s (machine load; go test times by the wall "
            f"clock); perflab {timing}; native × share = {scaled:.4g} ns, perflab/that = "
            f"{comp.perflab_mean / scaled:.3f}")


def informative_interval(estimate: dict) -> tuple[float | None, float | None]:
    """perflab's interval, or (None, None) when it reaches zero or below: from a few unpreempted
    iterations on a busy machine it says nothing, and overlapping with it would count as agreement
    that was never shown (x/text BytesChangeNFC's [-18 080, 30 353] ns "agreed" with go test)."""
    low, high = estimate.get("ci_low"), estimate.get("ci_high")
    if low is None or high is None or not low > 0:
        return None, None
    return low, high


def study(pkg: Package, src: Path, *, job: str, out: Path, native: bool) -> PackageResult:
    r = PackageResult(pkg.name, pkg.version)
    out.mkdir(parents=True, exist_ok=True)
    for rel, funcs in SUBSETS[pkg.name].items():
        pkg_dir = (src / rel).resolve()
        r.files_found += len({p for p in pkg_dir.glob("*_test.go")
                              if any(re.search(rf"^func {f}\(", p.read_text(errors="replace"), re.M) for f in funcs)})
        # the same stretch: the original harness, then perflab, back to back
        nat = (run_native(pkg_dir, funcs, out / f"native-{rel.replace('/', '_')}.txt") if native
               else Native({}, {}))
        cases = run_perflab(pkg_dir, funcs, job, out / f"perflab-{rel.replace('/', '_')}")
        for c in cases:
            leaf = leaf_name(c)
            r.benchmarks_found += 1
            if c.get("status") == "ok":
                r.ran_unchanged += 1
            elif c.get("error"):
                r.failed_alone.append((leaf, c["error"].splitlines()[0]))
                if "protocol error" in c["error"]:
                    r.protocol_errors += 1
            e = c.get("estimate")
            if native and e and nat.samples.get(leaf):
                m, lo, hi = mean_interval(nat.samples[leaf])
                low, high = informative_interval(e)
                comp = Comparison(f"{pkg.name}/{rel}.{leaf}" if rel != "." else f"{pkg.name}.{leaf}",
                                  e["mean"], low, high, m, lo, hi)
                invocations = max((ln.get("invocations") or 0 for ln in c.get("launches") or []), default=0)
                comp.cause = (few_calls_cause(comp, invocations)
                              or cause_of(comp, e, nat.cpu_share.get(c["benchmark"]["name"])))
                r.comparisons.append(comp)
    return r
