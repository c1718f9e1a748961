"""npm packages whose published tarball ships tinybench, mitata or Benchmark.js benchmark files, run
unchanged under perflab (through the Node worker's compatibility layers, workers/node/compat/) and
natively with the real library from npm, in the same stretch.

A study, like a user would: unpack the tarball (pinned by the sha256 of the .tgz npm served), `npm
install` the package's own dependencies (devDependencies included: the benchmark library and the
libraries a benchmark compares against) in a scratch copy, then for each benchmark file perflab found:
`perflab run FILE` and `node --require js_capture.cjs FILE` (the real harness; js_capture.cjs only
records what the harness itself measured). Compared per benchmark in ns/op: perflab's mean and its
99.9 % interval against the harness's mean and its own interval (Benchmark.js: mean ± moe, 95 %;
tinybench: the latency's mean ± moe; mitata: its avg ± 1.96 sd/sqrt(n) of its own samples). See docs/coming-from-tinybench-mitata-benchmarkjs.md.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from .common import Comparison, Package, PackageResult, check_sha256, round_level_cause

ECOSYSTEM = "js"
HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CAPTURE = HERE / "js_capture.cjs"

MANIFEST = [
    Package("secure-json-parse", "2.7.0", "ed045bfc5f64fcf42a15e210df2a71463a48e3de9bddea2b88a0df11ee8134ed",
            "npm", "benchmarks/*.js: Benchmark.js suites (benchmarks/ has its own package.json)"),
    Package("fast-json-stable-stringify", "2.1.0",
            "1e2df822c43e0a2b448e5df79bf8e6d3e085c86e30456cd383a2f96215fd1687",
            "npm", "benchmark/index.js: Benchmark.js, against three other stable stringifiers"),
    Package("fast-safe-stringify", "2.1.1", "a7c9e08f2e56821eb1c1c023440dba6e8e1fb3b116670831939307e3c3b22409",
            "npm", "benchmark.js: Benchmark.js, against json-stringify-safe and util.inspect"),
    Package("fast-content-type-parse", "1.1.0",
            "419c758229f357dd2a47538c24e0b13e80646b9b15807447d32286c9aaf68b19",
            "npm", "benchmarks/*.js: one Benchmark.js suite built by benchmarks/suite.js"),
    Package("fastest-levenshtein", "1.0.16", "650310ac51ee96ae0f900751d47b2846f038b80fd3380f35533605f3704c5b5f",
            "npm", "bench.js: Benchmark.js (compiled from TypeScript), against five other levenshteins"),
    Package("light-my-request", "5.13.0", "5b2547a9a7aeb98193112b2caa8d53bb21d539265e7f061b3108a89c0c237f31",
            "npm", "benchmark/benchmark.js: tinybench (v2, require), sync and async tasks"),
    Package("slow-redact", "0.3.2", "82d59f7e6920cd0aad4c6a4d9752087d9a42ea62f6aa24af79cdae2638a61e47",
            "npm", "benchmarks/basic.js: mitata (v1, require), groups, against fast-redact"),
    Package("@pinojs/redact", "0.4.0", "d66004def64efb6c13629b0740639344e0775fe537373674571711a2bb2fc704",
            "npm", "benchmarks/basic.js: mitata (v1, require), groups, against fast-redact"),
]
SLICE = "secure-json-parse"


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("the npm client is not on PATH")
    return npm


def fetch(pkg: Package, cache: Path) -> Path:
    """`npm pack NAME@VERSION` into the cache, checked against the pinned sha256, unpacked once."""
    cache.mkdir(parents=True, exist_ok=True)
    tgz = cache / f"{pkg.name.replace('/', '-').lstrip('@')}-{pkg.version}.tgz"
    src = cache / f"{pkg.name.replace('/', '-').lstrip('@')}-{pkg.version}"
    if not tgz.is_file():
        out = subprocess.run([_npm(), "pack", f"{pkg.name}@{pkg.version}", "--json", "--pack-destination",
                              str(cache)], capture_output=True, text=True, timeout=300)
        if out.returncode != 0:
            raise RuntimeError(f"npm pack {pkg.name}@{pkg.version} failed: {out.stderr.strip()[-300:]}")
        served = cache / json.loads(out.stdout)[0]["filename"]
        if served != tgz:
            served.rename(tgz)
    check_sha256(tgz, pkg)
    if not (src / "package" / "package.json").is_file():
        shutil.rmtree(src, ignore_errors=True)
        with tarfile.open(tgz) as tf:
            tf.extractall(src, filter="data") if sys.version_info >= (3, 12) else tf.extractall(src)
    return src / "package"


def _install(folder: Path, *extra: str) -> None:
    out = subprocess.run([_npm(), "install", "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock",
                          "--loglevel=error", *extra], cwd=folder, capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        raise RuntimeError(f"npm install in {folder.name} failed: {out.stderr.strip()[-400:]}")


def prepare(src: Path, files: list[Path], scratch: Path) -> None:
    """Install what the benchmark files need, as their author's instructions would: in the folder of the
    nearest package.json (the package's own, with its devDependencies; or a benchmarks/ folder's own,
    and then the package's runtime dependencies alone). Once per scratch copy."""
    marker = scratch / ".perflab-installed"
    if marker.is_file():
        return
    folders = set()
    for f in files:
        d = f.parent
        while d != scratch and not (d / "package.json").is_file():
            d = d.parent
        folders.add(d)
    for d in sorted(folders):
        _install(d)
    if scratch not in folders:
        _install(scratch, "--omit=dev")
    marker.write_text("ok\n")


def _perflab(files: list[Path], job: str, out: Path, cwd: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([sys.executable, "-c", "import sys; from perflab.cli import main; sys.exit(main())", "run", *map(str, files), "--job", job, "--out", str(out),
                        "--store", "none", "--quiet"], cwd=cwd, capture_output=True, text=True, timeout=3600,
                       env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    docs = sorted(out.glob("perflab-*.json"))
    if not docs:
        raise RuntimeError(f"perflab wrote no results (status {r.returncode}): {r.stderr.strip()[-400:]}")
    return {"status": r.returncode, "stderr": r.stderr, "doc": json.loads(docs[-1].read_text())}


def _native(file: Path, out: Path) -> None:
    """The file under node with the real library, recording what the harness measured into
    out/native-<stem>.jsonl."""
    capture = out / f"native-{file.stem}.jsonl"
    capture.unlink(missing_ok=True)
    node = shutil.which("node") or "node"
    r = subprocess.run([node, "--require", str(CAPTURE), str(file)], cwd=file.parent, capture_output=True,
                       text=True, timeout=1800, env={**os.environ, "PERFLAB_CAPTURE": str(capture)})
    (out / f"native-{file.stem}.log").write_text(r.stdout + r.stderr)


def study(pkg: Package, src: Path, *, job: str, out: Path, native: bool) -> PackageResult:
    from perflab.toolchains.node import NodeToolchain

    result = PackageResult(pkg.name, pkg.version)
    scratch = src.parent / "scratch"
    if not scratch.is_dir():
        shutil.copytree(src, scratch, symlinks=True)
    files = [f for f in NodeToolchain().find_sources(scratch) if "node_modules" not in f.parts]
    result.files_found = len(files)
    if not files:
        result.error = "no tinybench, mitata or Benchmark.js file found in the tarball"
        return result
    prepare(src, files, scratch)
    out.mkdir(parents=True, exist_ok=True)
    # perflab on every file of the package (one plan), then each file natively: the same stretch
    run = _perflab(files, job, out / "perflab", scratch)
    if "protocol" in run["stderr"].lower() and "error" in run["stderr"].lower():
        result.protocol_errors += 1
    if native:
        for file in files:
            _native(file, out)
    return collect(pkg, scratch, out, files, native, result)


def collect(pkg: Package, scratch: Path, out: Path, files: list[Path], native: bool,
            result: PackageResult | None = None) -> PackageResult:
    """What perflab's results (out/perflab) and the native records (out/native-*.jsonl) say."""
    result = result or PackageResult(pkg.name, pkg.version, files_found=len(files))
    [doc] = sorted((out / "perflab").glob("perflab-*.json"))[-1:]
    cases = json.loads(doc.read_text())["cases"]
    result.benchmarks_found = len(cases)
    for c in cases:
        b = c["benchmark"]
        label = f"{Path(b['file']).relative_to(scratch) if b['file'] else '?'}:{b['name']}"
        if c["status"] == "ok":
            result.ran_unchanged += 1
        else:
            result.failed_alone.append((label, (c.get("error") or "failed").splitlines()[0][:300]))
    if not native:
        return result
    for file in files:
        capture = out / f"native-{file.stem}.jsonl"
        records = [json.loads(line) for line in (capture.read_text().splitlines() if capture.is_file() else [])
                   if line.strip()]
        for c in cases:
            if c["benchmark"]["file"] != str(file):
                continue
            m = native_record(records, c["benchmark"], file)
            est = c.get("estimate") or {}
            if c["status"] != "ok" or m is None or not est.get("mean") or not (m.get("mean_ns") or 0) > 0:
                continue
            ours = (c.get("runtime") or {}).get("version")
            if m.get("node") and m["node"] != ours:  # an unfair comparison is none: the study is broken
                result.error = f"not compared: perflab ran Node {ours}, the original harness Node {m['node']}"
                continue
            moe = _finite(m.get("moe_ns"))
            cause = (CAUSES.get((pkg.name, c["benchmark"]["name"]), "") or contention_cause(c, m)
                     or timer_overhead_cause(est, m) or round_level_cause(c, m["mean_ns"]))
            result.comparisons.append(Comparison(
                benchmark=f"{pkg.name}/{file.relative_to(scratch)}:{c['benchmark']['name']}",
                perflab_mean=est["mean"], perflab_low=_informative(est, "ci_low"),
                perflab_high=_informative(est, "ci_high"),
                native_mean=m["mean_ns"],
                native_low=m["mean_ns"] - moe if moe is not None else None,
                native_high=m["mean_ns"] + moe if moe is not None else None,
                cause=cause))
    return result


def native_record(records: list[dict], bench: dict, file: Path) -> dict | None:
    """The harness's record of the benchmark perflab measured: same name in the same group (the
    suite's, Bench's or mitata group's name; perflab's group is the file's stem when the harness has
    none). Two groups of one file often reuse a name (slow-redact's 'basic paths'), so a name alone
    matches only when it is unique. The last record wins: a standalone benchmark's final one."""
    name, group = bench["name"], bench.get("group") or ""
    same = [r for r in records if r.get("name") == name]
    exact = [r for r in same if (r.get("group") or file.stem) == group]
    if exact:
        return exact[-1]
    return same[-1] if len({r.get("group") or "" for r in same}) == 1 and same else None


def contention_cause(case: dict, native: dict) -> str:
    """Both figures are wall-clock means; on a busy machine either can include time its process was
    runnable but waiting for a CPU. Named only when the data of this run shows the waiting, and taking
    it out closes at least half the gap:
      the harness: its main thread's run-queue wait (Linux schedstat, recorded by js_capture.cjs as
        wait_share) was at least 5 % of the benchmark's wall time; without it, mean × (1 − wait);
      perflab: it sets preempted iterations aside by their CPU share against the case's unhindered
        one (the 90th percentile), but below 0.5 it takes a case to wait by nature and sets nothing
        aside. On a machine so busy that every iteration waited, a CPU-bound case looks like that:
        named when nothing was set aside and that percentile was below 0.5; then its CPU time per op
        (process clock, from its own launches)."""
    est = case.get("estimate") or {}
    p, n = est["mean"], native["mean_ns"]
    sides, pc, nc = [], p, n
    wait = _finite(native.get("wait_share"))
    if wait is not None and wait >= 0.05:
        nc = n * max(0.0, 1.0 - wait)
        sides.append(f"the native process waited for a CPU {100 * wait:.0f} % of the benchmark's wall time "
                     f"(run queue), which the harness's wall-clock mean counts: without it {nc:.0f} ns")
    waited = _perflab_waited(case)
    if waited is not None:
        p90, pc = waited
        sides.append(f"perflab's iterations were on a CPU at most {100 * p90:.0f} % of their wall time (90th "
                     f"percentile), under the 50 % at which it takes a case to wait by nature, so it set "
                     f"none aside: by CPU time {pc:.0f} ns")
    elif est.get("preempted"):
        sides.append(f"perflab set {est['preempted']} preempted iteration(s) aside")
    if not (wait is not None and wait >= 0.05) and waited is None:
        return ""
    if abs(pc - nc) > 0.5 * abs(p - n):
        return ""
    return (f"machine contention: {'; '.join(sides)} (perflab {pc:.0f} ns, the harness {nc:.0f} ns, "
            f"both without the waiting)")


def _perflab_waited(case: dict):
    """(90th-percentile CPU share, CPU ns per op) when perflab's figure counts waiting, else None."""
    est = case.get("estimate") or {}
    if est.get("cpu_timed") or est.get("preempted"):
        return None
    shares, cpu, ops = [], 0, 0
    for launch in case.get("launches") or []:
        inv = launch.get("invocations") or 0
        for wall, c in zip(launch.get("workload") or [], launch.get("workload_cpu") or []):
            if wall and wall > 0 and c is not None and inv:
                shares.append(c / wall)
                cpu += c
                ops += inv * case["benchmark"].get("ops_per_invoke", 1)
    if len(shares) < 3 or not ops:
        return None
    shares.sort()
    p90 = shares[min(len(shares) - 1, int(0.9 * (len(shares) - 1) + 0.5))]
    return (p90, cpu / ops) if p90 < 0.5 else None


def timer_overhead_cause(est: dict, native: dict) -> str:
    """tinybench reads its clock around every call (and awaits an async task), and keeps that cost in
    its mean; perflab subtracts its loop's overhead. js_capture.cjs measures tinybench's cost on empty
    sync and async tasks in the same process. Named when perflab is the faster and that cost accounts
    for at least half the gap."""
    ov = native.get("overhead_ns") or {}
    cost = _finite(ov.get("async" if native.get("async") else "sync"))
    if cost is None or est["mean"] >= native["mean_ns"]:
        return ""
    without = native["mean_ns"] - cost
    if abs(est["mean"] - without) > 0.5 * abs(est["mean"] - native["mean_ns"]):
        return ""
    return (f"what is timed: tinybench's mean includes its own per-call clock reads"
            f"{' and await' if native.get('async') else ''}, {cost:.0f} ns measured on an empty task; "
            f"without it {without:.0f} ns against perflab's {est['mean']:.0f} ns")


def _informative(est: dict, key: str):
    """perflab's interval bound, or None when the interval reaches zero or below: from a handful of
    unpreempted iterations (a busy machine) it says nothing, and overlapping with it would count as
    agreement that was never shown."""
    low = _finite(est.get("ci_low"))
    return _finite(est.get(key)) if low is not None and low > 0 else None


def _finite(x):
    return x if isinstance(x, (int, float)) and x == x and abs(x) != float("inf") else None


# Differences found (not guessed) between perflab and the original harness, by (package, benchmark);
# see docs/coming-from-tinybench-mitata-benchmarkjs.md.
CAUSES: dict[tuple[str, str], str] = {}
