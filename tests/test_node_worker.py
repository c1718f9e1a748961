"""The Node.js worker driven over protocol v2: hello, load, setup, the run stages, diagnose, teardown, bye,
the structured errors, the black hole, async timing and TypeScript loading.

Runs against every installed Node runtime perflab knows (node20 on PATH; node18/22/24 when provisioned
into the cache); tests that need a particular feature skip when no runtime has it.
"""
from __future__ import annotations

import json
import shutil
import statistics
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
try:
    import perflab  # noqa: F401
except ImportError:  # not installed yet: use the source tree
    sys.path.insert(0, str(REPO / "src"))

from perflab.conformance import VECTORS, run_vector  # noqa: E402
from perflab.engine.worker import BenchmarkError, WorkerProcess  # noqa: E402
from perflab.errors import ProtocolError  # noqa: E402
from perflab.toolchains.node import NodeToolchain, strips_types  # noqa: E402
from perflab.runtimes.node import version_tuple  # noqa: E402

FIXTURE = REPO / "protocol" / "fixtures" / "node" / "conformance.bench.mjs"
EXAMPLES = REPO / "examples" / "node"
T = 60  # generous per-request timeout: the machine is shared

pytestmark = pytest.mark.skipif(shutil.which("node") is None and not list(
    (Path.home() / ".cache" / "perflab" / "node").glob("*/bin/node")), reason="no Node.js runtime")

TOOLCHAIN = NodeToolchain()
RUNTIMES = [r for r in TOOLCHAIN.discover_runtimes() if r.installed]


def launch(files: list[Path], runtime=None, workdir: Path | None = None) -> WorkerProcess:
    runtime = runtime or RUNTIMES[0]
    spec = TOOLCHAIN.prepare(runtime, [Path(f) for f in files], workdir or Path("/tmp"))
    return WorkerProcess(spec)


def write(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.write_text(text)
    return p


def per_call(w: WorkerProcess, stage: str, invocations: int, iterations: int = 7) -> float:
    ns = w.request("run", T, stage=stage, invocations=invocations, iterations=iterations)["ns"]
    return statistics.median(ns) / invocations


@pytest.fixture
def worker():
    w = launch([FIXTURE])
    yield w
    w.close()


def test_hello(worker):
    h = worker.hello
    assert h.language == "node"
    assert h.runtime["name"] == "Node.js" and h.runtime["version"]
    assert h.unroll == 16
    assert set(h.capabilities) == {"alloc", "gc", "with_overhead", "overhead_first"}
    assert 0 < h.clock_resolution_ns < 10_000


@pytest.mark.parametrize("vector", sorted(VECTORS.glob("*.json")), ids=lambda p: p.stem)
def test_conformance_vectors(vector, tmp_path):
    spec = TOOLCHAIN.prepare(RUNTIMES[0], [FIXTURE], tmp_path)
    run_vector(spec, json.loads(vector.read_text()))


def test_load_conformance_fixture(worker):
    loaded = worker.request("load", T, paths=[str(FIXTURE)], root=str(FIXTURE.parent))
    assert loaded["errors"] == []
    by_name = {b["name"]: b for b in loaded["benchmarks"]}
    assert list(by_name) == ["noop", "add", "sized", "boom", "base"]
    assert by_name["noop"]["id"] == "conformance.noop" and by_name["noop"]["group"] == "conformance"
    assert by_name["sized"]["params"] == [{"name": "n", "values": ["1", "10", "100"]}]
    assert by_name["base"]["baseline"] is True and by_name["base"]["ops_per_invoke"] == 4
    assert by_name["add"]["file"] == str(FIXTURE) and by_name["add"]["line"] == 8


def test_full_exchange(worker):
    worker.request("load", T, paths=[str(FIXTURE)], root=str(FIXTURE.parent))
    assert worker.request("setup", T, benchmark="conformance.sized", params={"n": 2})["type"] == "ready"
    for stage in ("pilot", "warmup", "overhead", "workload"):
        r = worker.request("run", T, stage=stage, invocations=64, iterations=3)
        assert r["stage"] == stage and r["invocations"] == 64 and len(r["ns"]) == 3
    # invocations that are not a multiple of the unroll factor still run exactly that many calls
    assert len(worker.request("run", T, stage="workload", invocations=37, iterations=2)["ns"]) == 2
    d = worker.request("run", T, stage="diagnose", invocations=1000, iterations=1)
    assert d["type"] == "diagnostics" and d["invocations"] == 1000 and d["iterations"] == 1
    assert d["alloc_bytes"] / 1000 > 800  # an array of 100 numbers is at least 800 bytes
    assert isinstance(d["gc"], list) and len(d["gc"]) == 2
    assert worker.request("teardown", T)["type"] == "done"
    assert worker.request("bye", T)["type"] == "done"
    worker.proc.wait(timeout=10)
    assert worker.proc.returncode == 0


def test_structured_errors(worker):
    worker.request("load", T, paths=[str(FIXTURE)], root=str(FIXTURE.parent))
    with pytest.raises(BenchmarkError) as e:
        worker.request("run", T, stage="workload", invocations=1, iterations=1)
    assert e.value.kind == "state"
    with pytest.raises(BenchmarkError) as e:
        worker.request("setup", T, benchmark="conformance.nope", params={})
    assert e.value.kind == "not_found"
    with pytest.raises(BenchmarkError) as e:
        worker.request("setup", T, benchmark="conformance.sized", params={"n": 3})
    assert e.value.kind == "not_found"
    worker.request("setup", T, benchmark="conformance.boom", params={})
    with pytest.raises(BenchmarkError) as e:
        worker.request("run", T, stage="workload", invocations=16, iterations=1)
    assert e.value.kind == "exception" and "boom" in str(e.value)
    assert e.value.file == str(FIXTURE) and e.value.line == 16
    with pytest.raises(BenchmarkError) as e:
        worker.request("run", T, stage="bogus", invocations=16, iterations=1)
    assert e.value.kind == "protocol"
    with pytest.raises(BenchmarkError) as e:
        worker.request("setup", T, params={})  # lacks "benchmark"
    assert e.value.kind == "protocol"
    # still usable after all of that
    worker.request("setup", T, benchmark="conformance.noop", params={})
    assert len(worker.request("run", T, stage="workload", invocations=16, iterations=2)["ns"]) == 2


def _raw(w: WorkerProcess, line: bytes) -> dict:
    w.sock.sendall(line)
    return json.loads(w._read_line(T))


def test_protocol_and_version_errors(worker):
    assert _raw(worker, b"[1,2]\n")["error"]["kind"] == "protocol"
    assert _raw(worker, b"{not json\n")["error"]["kind"] == "protocol"
    assert _raw(worker, b'{"v":2,"id":7,"type":"frobnicate"}\n')["error"]["kind"] == "protocol"
    assert _raw(worker, b'{"v":2,"id":9,"type":"constructor"}\n')["error"]["kind"] == "protocol"
    reply = _raw(worker, b'{"v":3,"id":8,"type":"load","paths":[]}\n')
    assert reply["id"] == 8 and reply["error"]["kind"] == "version"
    worker.proc.wait(timeout=10)  # the worker stops after a version error


def test_black_hole_keeps_pure_computation(tmp_path):
    """A pure computation whose result nobody reads must cost clearly more than the empty loop."""
    f = write(tmp_path, "trap.bench.mjs", """
import { bench } from 'perflab';
bench('pure', () => { let s = 0; for (let i = 1; i < 50; i++) s += Math.sqrt(i); return s; });
bench('pureobj', () => ({ x: Math.random() }));
""")
    w = launch([f])
    try:
        w.request("load", T, paths=[str(f)], root=str(tmp_path))
        for bid in ("trap.pure", "trap.pureobj"):
            w.request("setup", T, benchmark=bid, params={})
            w.request("run", T, stage="warmup", invocations=16000, iterations=5)
            overhead = per_call(w, "overhead", 16000)
            work = per_call(w, "workload", 16000)
            assert work > 3 * overhead + 1.0, (bid, work, overhead)
            w.request("teardown", T)
    finally:
        w.close()


def test_async_awaits_every_call(tmp_path):
    f = write(tmp_path, "asy.bench.mjs", """
import { bench } from 'perflab';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
bench('sleep2', async () => { await sleep(2); });
bench('thenable', () => sleep(2));           // not declared async: detected from its result
let calls = 0, before = 0;
const seen = [];
bench('count', async () => { await null; calls++; }, {
  iterationSetup: () => { before = calls; },
  iterationTeardown: () => { seen.push(calls - before); },
  teardown: () => { if (seen.join() !== '1,10,10,10') throw new Error('calls per iteration: ' + seen.join()); },
});
""")
    w = launch([f])
    try:
        w.request("load", T, paths=[str(f)], root=str(tmp_path))
        for bid in ("asy.sleep2", "asy.thenable"):
            w.request("setup", T, benchmark=bid, params={})
            assert per_call(w, "workload", 5, 2) >= 1.9e6  # each call is awaited: >= 2 ms
            assert per_call(w, "overhead", 5, 2) < 1e6
            w.request("teardown", T)
        w.request("setup", T, benchmark="asy.count", params={})
        w.request("run", T, stage="workload", invocations=10, iterations=3)
        assert w.request("teardown", T)["type"] == "done"  # the probe call, then exactly 10 per iteration
    finally:
        w.close()


def test_setup_state_params_groups(tmp_path):
    f = write(tmp_path, "shape.bench.mjs", """
import { bench, group, params } from 'perflab';
group('g', () => {
  params({ n: [1, 2], s: ['a', 'b', 'c'] });
  bench('withSetup', (st) => { if (st.len !== st.n * 10) throw new Error('bad state'); return st.len; },
        { setup: ({ n, s }) => ({ n, len: n * 10, s }), baseline: true, ops: 3 });
  bench('plain', ({ n, s }) => s.repeat(n));
});
bench('chained', (x) => x).params({ k: [{ a: 1 }, { a: 2 }] }).ops(2);
""")
    w = launch([f])
    try:
        loaded = w.request("load", T, paths=[str(f)], root=str(tmp_path))
        assert loaded["errors"] == []
        b = {x["id"]: x for x in loaded["benchmarks"]}
        assert set(b) == {"shape.g.withSetup", "shape.g.plain", "shape.chained"}
        assert b["shape.g.withSetup"]["group"] == "g" and b["shape.g.withSetup"]["baseline"]
        assert b["shape.g.withSetup"]["ops_per_invoke"] == 3
        assert b["shape.g.plain"]["params"] == [{"name": "n", "values": ["1", "2"]},
                                               {"name": "s", "values": ["a", "b", "c"]}]
        assert b["shape.chained"]["params"] == [{"name": "k", "values": ['{"a":1}', '{"a":2}']}]
        assert b["shape.chained"]["ops_per_invoke"] == 2 and b["shape.chained"]["group"] == "shape"
        for n in (0, 1):
            for s in (0, 2):
                w.request("setup", T, benchmark="shape.g.withSetup", params={"n": n, "s": s})
                w.request("run", T, stage="workload", invocations=32, iterations=1)
                w.request("teardown", T)
    finally:
        w.close()


def test_iteration_hooks_run_outside_timing(tmp_path):
    f = write(tmp_path, "iter.bench.mjs", """
import { bench } from 'perflab';
const log = [];
bench('consume', (st) => { if (st.items.length === 0) throw new Error('not refilled'); st.items.pop(); }, {
  setup: () => ({ items: [] }),
  iterationSetup: (st) => { st.items = [1]; log.push('setup'); },
  iterationTeardown: () => { log.push('teardown'); },
  teardown: () => { if (log.length !== 2 * (1 + 3 + 2)) throw new Error('hooks ran ' + log.length + ' times'); },
});
""")
    w = launch([f])
    try:
        loaded = w.request("load", T, paths=[str(f)], root=str(tmp_path))
        assert loaded["benchmarks"][0]["iteration_setup"] is True
        w.request("setup", T, benchmark="iter.consume", params={})
        assert len(w.request("run", T, stage="workload", invocations=1, iterations=3)["ns"]) == 3
        # with_overhead: the hooks wrap the workload iteration only, not the empty one after it
        paired = w.request("run", T, stage="workload", invocations=1, iterations=2, with_overhead=True)
        assert len(paired["ns"]) == len(paired["overhead_ns"]) == 2
        assert w.request("teardown", T)["type"] == "done"  # probe call + 3 + 2 iterations, each wrapped
    finally:
        w.close()


def test_diagnose_allocation(tmp_path):
    f = write(tmp_path, "mem.bench.mjs", """
import { bench } from 'perflab';
bench('none', (o) => o.a + o.b, { setup: () => ({ a: 1, b: 2 }) });
bench('arr', () => new Array(1000).fill(0));
""")
    w = launch([f])
    try:
        w.request("load", T, paths=[str(f)], root=str(tmp_path))
        w.request("setup", T, benchmark="mem.none", params={})
        w.request("run", T, stage="warmup", invocations=16000, iterations=3)
        d = w.request("run", T, stage="diagnose", invocations=16000, iterations=1)
        assert d["alloc_bytes"] / 16000 < 4
        w.request("setup", T, benchmark="mem.arr", params={})
        d = w.request("run", T, stage="diagnose", invocations=2000, iterations=1)
        assert 8000 <= d["alloc_bytes"] / 2000 < 9000  # 1000 doubles/smis: 8 KB plus headers
        assert sum(d["gc"]) >= 1  # 16 MB through the young generation needs collections
    finally:
        w.close()


@pytest.mark.parametrize("rt", RUNTIMES, ids=[r.name for r in RUNTIMES])
def test_typescript_runs_without_build(rt):
    ts_file = EXAMPLES / "collections.bench.ts"
    w = launch([ts_file], runtime=rt)
    try:
        loaded = w.request("load", T, paths=[str(ts_file)], root=str(EXAMPLES))
        assert loaded["errors"] == []
        ids = [b["id"] for b in loaded["benchmarks"]]
        assert ids == ["collections.lookup.Map.get", "collections.lookup.object lookup"]
        assert [b["line"] for b in loaded["benchmarks"]] == [19, 25]  # .ts lines, whatever the path
        w.request("setup", T, benchmark=ids[0], params={"size": 0})
        assert len(w.request("run", T, stage="workload", invocations=16, iterations=2)["ns"]) == 2
    finally:
        w.close()


def test_prepare_flags_and_sources(tmp_path):
    for name in ("a.bench.js", "b.bench.mjs", "c.bench.ts", "d.bench.mts", "bench_e.js", "bench_f.ts",
                 "x.d.ts", "helper.js", "bench_g.mts"):
        write(tmp_path, name, "")
    (tmp_path / "node_modules").mkdir()
    write(tmp_path / "node_modules", "z.bench.js", "")
    found = sorted(p.name for p in TOOLCHAIN.find_sources(tmp_path))
    assert found == ["a.bench.js", "b.bench.mjs", "bench_e.js", "bench_f.ts", "c.bench.ts", "d.bench.mts"]
    assert strips_types((22, 6, 0)) == (True, ["--experimental-strip-types"])
    assert strips_types((22, 18, 0)) == (True, [])
    assert strips_types((20, 20, 2)) == (False, [])
    import dataclasses
    rt = dataclasses.replace(RUNTIMES[0], flags=("--max-semi-space-size=64",), env=(("FOO", "1"),))
    spec = TOOLCHAIN.prepare(rt, [tmp_path / "a.bench.js"], tmp_path)
    assert spec.argv[0] == rt.executable and spec.argv[-1].endswith("worker.js")
    assert "--max-semi-space-size=64" in spec.argv and spec.env["FOO"] == "1"
    assert spec.load_paths == [str(tmp_path / "a.bench.js")]


def test_runtime_flags_reach_node(tmp_path):
    import dataclasses
    f = write(tmp_path, "flags.bench.mjs", """
import { bench } from 'perflab';
bench('argv', () => { if (!process.execArgv.includes('--max-old-space-size=123')) throw new Error(process.execArgv.join(' ')); });
""")
    rt = dataclasses.replace(RUNTIMES[0], flags=("--max-old-space-size=123",))
    w = launch([f], runtime=rt)
    try:
        w.request("load", T, paths=[str(f)], root=str(tmp_path))
        w.request("setup", T, benchmark="flags.argv", params={})
        w.request("run", T, stage="workload", invocations=1, iterations=1)
    finally:
        w.close()


def test_every_runtime_speaks_the_protocol():
    seen = []
    for rt in RUNTIMES:
        w = launch([FIXTURE], runtime=rt)
        try:
            assert version_tuple(w.hello.runtime["version"]) == version_tuple(rt.version)
            loaded = w.request("load", T, paths=[str(FIXTURE)], root=str(FIXTURE.parent))
            assert len(loaded["benchmarks"]) == 5
            w.request("setup", T, benchmark="conformance.add", params={})
            assert len(w.request("run", T, stage="workload", invocations=160, iterations=2)["ns"]) == 2
            seen.append(rt.name)
        finally:
            w.close()
    assert seen
