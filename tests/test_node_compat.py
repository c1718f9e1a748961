"""Benchmark files written for tinybench, mitata and Benchmark.js run unchanged under perflab (the Node
worker's compatibility layers, workers/node/compat/); an API perflab cannot honour fails that benchmark
alone; a Node file that does not load (syntax error, failing import, throw at top level) fails alone
with file:line while the rest is measured; and the js slice of bench/ecosystems.py runs."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from perflab.toolchains.node import NodeToolchain

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures" / "node_compat"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="no node on PATH")


def perflab(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "perflab.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def cases_of(out: Path) -> dict[str, dict]:
    [path] = out.glob("perflab-*.json")
    return {f"{c['benchmark']['id']}{json.dumps(c['params']) if c['params'] else ''}": c
            for c in json.loads(path.read_text())["cases"]}


def test_compat_files_are_found_by_folder_or_name_and_import():
    found = {p.relative_to(FIX).as_posix() for p in NodeToolchain().find_sources(FIX)}
    assert {"bench/tinybench_api.mjs", "bench/tinybench_cjs.cjs", "bench/mitata_v1.mjs", "bench/mitata_v01.mjs",
            "bench/benchmarkjs_api.js", "bench/benchmarkjs_esm.mjs", "broken/bench/throws_cjs.js"} <= found
    assert "bench/helper.js" not in found        # in bench/, but imports no benchmark library
    assert "lib/not_a_bench.js" not in found     # imports tinybench, but is not in a bench folder


def test_tinybench_mitata_benchmarkjs_files_run_unchanged(tmp_path):
    r = perflab("run", str(FIX / "bench"), "-j", "dry", "-o", str(tmp_path), "--store", "none", "--quiet")
    assert r.returncode == 1, r.stderr  # the unsupported APIs below fail alone; everything else ran
    cases = cases_of(tmp_path)
    failed = {k: c["error"] for k, c in cases.items() if c["status"] != "ok"}
    assert set(failed) == {"tinybench_api.concurrent.overlapping", "benchmarkjs_api.json.no function",
                           "mitata_v01.bad yield"}, failed
    assert re.search(r"tinybench_api\.mjs:31: .*tinybench Bench option concurrency 'task' is not supported",
                     failed["tinybench_api.concurrent.overlapping"])
    assert "benchmarkjs_api.js:20: " in failed["benchmarkjs_api.json.no function"]
    assert "mitata_v01.mjs:13" in failed["mitata_v01.bad yield"]
    ok = {k for k, c in cases.items() if c["status"] == "ok"}
    assert {"tinybench_api.hooks", "tinybench_api.async", "tinybench_cjs.promise", "mitata_v1.math.add",
            "mitata_v1.sort fresh", "mitata_v01.strings.join", "benchmarkjs_api.json.shared setup",
            "benchmarkjs_api.json.by reference", "benchmarkjs_api.json.deferred", "benchmarkjs_api.solo",
            "benchmarkjs_esm.esm"} <= ok
    sized = {k for k in ok if k.startswith("mitata_v1.sum $n")}
    assert sized == {f'mitata_v1.sum $n{{"n": "{n}"}}' for n in (1, 8, 64)}
    assert cases["mitata_v1.math.add"]["benchmark"]["group"] == "math"
    assert cases["tinybench_api.hooks"]["benchmark"]["iteration_setup"] is True


def test_a_node_file_that_does_not_load_fails_alone(tmp_path):
    r = perflab("run", str(FIX / "broken"), "-j", "dry", "-o", str(tmp_path), "--store", "none", "--quiet")
    assert r.returncode == 1, r.stderr
    cases = cases_of(tmp_path)
    assert cases["good.fine"]["status"] == "ok"
    reasons = {k: c["error"] for k, c in cases.items() if c["status"] != "ok"}
    assert set(reasons) == {"syntax.bench.mjs", "missing.bench.mjs", "throws.bench.mjs", "throws_cjs.js"}
    assert re.search(r"syntax\.bench\.mjs:3: SyntaxError", reasons["syntax.bench.mjs"])
    assert re.search(r"missing\.bench\.mjs:2: .*Cannot find module", reasons["missing.bench.mjs"])
    assert re.search(r"throws\.bench\.mjs:4: Error: boom at top level", reasons["throws.bench.mjs"])
    assert re.search(r"throws_cjs\.js:4: ReferenceError: undefinedFunction", reasons["throws_cjs.js"])


def test_a_lone_file_that_does_not_load_is_still_bad_input(tmp_path):
    r = perflab("run", str(FIX / "broken" / "syntax.bench.mjs"), "-j", "dry", "-o", str(tmp_path),
                "--store", "none", "--quiet")
    assert r.returncode == 2
    [line] = r.stderr.strip().splitlines()
    assert "syntax.bench.mjs:3: SyntaxError" in line


def test_ecosystems_js_slice_runs_unchanged(tmp_path):
    """The CI slice of the real-world corpus: one npm package, fetched and checked by sha256, its own
    Benchmark.js files run under perflab with the dry job (no native run)."""
    if shutil.which("npm") is None:
        pytest.skip("no npm client on PATH")
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "ecosystems.py"), "--ecosystems", "js", "--slice",
                        "--job", "dry", "--no-native", "--out", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"run unchanged (\d+)/(\d+).*protocol errors (\d+)", r.stdout)
    assert m, r.stdout
    ran, found, proto = map(int, m.groups())
    assert found > 0 and ran == found and proto == 0, r.stdout


def test_a_typescript_file_with_tinybench_and_mitata_runs(tmp_path):
    """TypeScript works as for perflab's own files (types stripped by Node, or compiled on older Nodes)."""
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "typed.ts").write_text(
        "import { Bench } from 'tinybench';\nimport { bench as mbench, run } from 'mitata';\n\n"
        "interface Point { x: number; y: number }\n"
        "const pts: Point[] = Array.from({ length: 10 }, (_, i) => ({ x: i, y: 2 * i }));\n"
        "const b: Bench = new Bench({ time: 100 });\n"
        "b.add('sum x', (): number => pts.reduce((s, p) => s + p.x, 0));\nawait b.run();\n"
        "mbench('sum y', () => pts.reduce((s: number, p: Point) => s + p.y, 0));\nawait run();\n")
    out = tmp_path / "out"
    r = perflab("run", str(bench), "-j", "dry", "-o", str(out), "--store", "none", "--quiet")
    assert r.returncode == 0, r.stderr
    assert {k: c["status"] for k, c in cases_of(out).items()} == {"typed.sum x": "ok", "typed.sum y": "ok"}
