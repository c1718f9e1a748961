"""Profiles (`run --profile`, `perflab profile`): the reduction to collapsed stacks, the profilers'
formats, the extra launch beside the measured figures, and the flame graph pages. A profile's exact
counts vary from launch to launch: the tests assert which frames appear, never how many samples."""
from __future__ import annotations

import gzip
import json
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from fakes import make_case
from perflab.engine.measure import MeasuringEngine
from perflab.engine.plan import prepare
from perflab.engine.profile import Profiler
from perflab.measures import profile as prof
from perflab.measures import profile_formats as formats
from perflab.measures.profile import ELSEWHERE, HARNESS, Frame
from perflab.model import CaseResult
from perflab.report.flame import case_page, data_json, diff_page
from perflab.runtimes import python as pyruntimes
from perflab.toolchains.python import PythonToolchain

OWN = "/proj/bench_x.py"


def _harness(f: Frame) -> bool:
    return f.file.endswith("perflab.py") or f.file.startswith("<perflab-")


def test_reduce_cuts_the_harness_above_the_benchmark_and_folds_the_rest():
    stacks = [
        ((Frame("serve", "/w/perflab.py"), Frame("_loop", "<perflab-loop-workload-0-1>"),
          Frame("bench", OWN), Frame("helper", OWN), Frame("sorted", "")), 5),
        ((Frame("serve", "/w/perflab.py"), Frame("_loop", "<perflab-loop-workload-0-1>")), 2),
        ((Frame("gc_thread", "/usr/lib/x.py"),), 1),
    ]
    collapsed, own = prof.reduce(stacks, [OWN], _harness)
    assert collapsed == {"bench (bench_x.py);helper (bench_x.py);sorted": 5, HARNESS: 2,
                         f"{ELSEWHERE};gc_thread (x.py)": 1}
    assert own == ["bench (bench_x.py)", "helper (bench_x.py)"]
    assert not any("perflab.py" in k for k in collapsed)


def test_a_frame_name_never_breaks_the_collapsed_format():
    collapsed, _ = prof.reduce([((Frame("a;b\nc", OWN),), 3)], [OWN], _harness)
    text = prof.to_collapsed(collapsed)
    assert prof.parse_collapsed(text) == {"a:b c (bench_x.py)": 3}
    with pytest.raises(ValueError, match="line 2: not 'frame;frame count'"):
        prof.parse_collapsed("a;b 3\nno count here\n")


def test_python_samples_and_cpuprofile_are_read_root_first(tmp_path):
    py = tmp_path / "s.jsonl"
    py.write_text(json.dumps({"stack": [["outer", OWN], ["inner", OWN]], "count": 4}) + "\n")
    assert formats.read_python_samples(py) == [((Frame("outer", OWN), Frame("inner", OWN)), 4)]
    cp = tmp_path / "x.cpuprofile"
    cp.write_text(json.dumps({"nodes": [
        {"id": 1, "callFrame": {"functionName": "(root)", "url": ""}, "children": [2]},
        {"id": 2, "callFrame": {"functionName": "run", "url": "file:///w/worker.js"}, "children": [3]},
        {"id": 3, "callFrame": {"functionName": "", "url": "file:///p/a.bench.mjs", "lineNumber": 9}}],
        "samples": [3, 3, 2]}))
    got = dict(formats.read_cpuprofile(cp))
    assert got[(Frame("run", "file:///w/worker.js"), Frame("(anonymous:10)", "file:///p/a.bench.mjs"))] == 2
    assert got[(Frame("run", "file:///w/worker.js"),)] == 1


def _pb_varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _pb(num: int, value) -> bytes:
    if isinstance(value, int):
        return _pb_varint(num << 3) + _pb_varint(value)
    return _pb_varint(num << 3 | 2) + _pb_varint(len(value)) + value


def test_a_go_pprof_profile_is_decoded_leaf_last(tmp_path):
    strings = ["", "main.Benchmark", "main.hot", "x_test.go", "x.go"]
    msg = b"".join(_pb(6, s.encode()) for s in strings)
    msg += _pb(5, _pb(1, 1) + _pb(2, 1) + _pb(4, 3)) + _pb(5, _pb(1, 2) + _pb(2, 2) + _pb(4, 4))
    msg += _pb(4, _pb(1, 10) + _pb(4, _pb(1, 1))) + _pb(4, _pb(1, 11) + _pb(4, _pb(1, 2)))
    # locations leaf first, packed; values packed: (samples, nanoseconds)
    msg += _pb(2, _pb(1, _pb_varint(11) + _pb_varint(10)) + _pb(2, _pb_varint(7) + _pb_varint(70_000_000)))
    path = tmp_path / "cpu.pprof"
    path.write_bytes(gzip.compress(msg))
    assert formats.read_pprof(path) == [((Frame("main.Benchmark", "x_test.go"), Frame("main.hot", "x.go")), 7)]


def test_jfr_json_is_read_root_first(tmp_path):
    ev = {"values": {"stackTrace": {"frames": [
        {"method": {"name": "hot", "type": {"name": "demo.Bench$1"}}},
        {"method": {"name": "run", "type": {"name": "perflab.Worker"}}}]}}}
    path = tmp_path / "j.json"
    path.write_text(json.dumps({"recording": {"events": [ev, ev]}}))
    assert formats.read_jfr_json(path) == [((Frame("perflab.Worker.run", "Worker.java"),
                                             Frame("demo.Bench$1.hot", "Bench.java")), 2)]


# -- the extra launch beside the figures ------------------------------------------------------------

class FakeEngine:
    def __init__(self):
        self.job, self.on_case_done, self.settled = None, None, 0

    def settle(self):
        self.settled += 1

    def run_group(self, cases):
        return [CaseResult(case=c, wall_seconds=1.5, error="boom" if c.benchmark.name == "bad" else None) for c in cases]


class FakeProfiler:
    def __init__(self):
        self.seen = []

    def profile(self, case):
        self.seen.append(case.key)
        if case.benchmark.name == "refused":
            return prof.not_profiled("the kernel refuses perf events (perf_event_paranoid is 4)")
        return prof.record("fake", 10, {"bench (x.py)": 3}, ["bench (x.py)"], None, None, 0.1)


def test_profiles_come_after_the_figures_and_never_replace_them():
    a, refused, bad = make_case("a"), make_case("refused"), make_case("bad")
    engine, profiler, done = FakeEngine(), FakeProfiler(), []
    out = MeasuringEngine(engine, None, ("time",), on_case_done=done.append,
                          profiler=profiler).run_group([a, refused, bad])
    assert engine.settled == 1  # the timed launches are gone before the profiled ones start
    assert profiler.seen == [a.key, refused.key]  # a failed case is not profiled
    assert out[0].wall_seconds == 1.5 and out[0].profile["samples"] == 3
    assert out[1].ok and out[1].profile == {"error": "no profile: the kernel refuses perf events "
                                                     "(perf_event_paranoid is 4)"}
    assert out[2].error == "boom" and out[2].profile is None
    assert [r.case.key for r in done] == [a.key, refused.key, bad.key]


def test_a_runtime_that_cannot_be_profiled_says_why_in_one_line(tmp_path):
    tc = SimpleNamespace(profile_how=lambda rt, spec, d: (_ for _ in ()).throw(prof.NotProfilable("no profiler")))
    case = make_case("a")
    p = Profiler({case.runtime.label: SimpleNamespace(runtime=case.runtime, toolchain=tc, spec=None)}, 30, tmp_path)
    assert p.profile(case) == {"error": "no profile: no profiler"}


# -- the real Python worker ----------------------------------------------------------------------------

BENCH = '''
from perflab import benchmark

def planted_hot(n):
    s = 0
    for i in range(n):
        s += i * i
    return s

@benchmark
def calls_hot():
    return planted_hot(200)
'''


def _python_case(tmp_path, executable=sys.executable):
    src = tmp_path / "bench_hot.py"
    src.write_text(BENCH)
    rt = pyruntimes.describe(executable)
    prep = prepare(rt, PythonToolchain(), [src], tmp_path / "build", 60)
    assert prep.error is None, prep.error
    bench = prep.benchmarks[0]
    from perflab.model import Case
    return Case(bench, (), prep.runtime), prep


@pytest.mark.parametrize("which", ["cpython", "pypy"])
def test_the_python_worker_samples_the_benchmark_and_folds_perflab_away(tmp_path, which):
    exe = sys.executable if which == "cpython" else shutil.which("pypy3")
    if exe is None:
        pytest.fail("pypy3 is part of the test machine (Debian package pypy3)")
    case, prep = _python_case(tmp_path, exe)
    rec = Profiler({prep.runtime.label: prep}, 60, tmp_path / "out", seconds=0.5).profile(case)
    assert "error" not in rec, rec
    stacks = prof.stacks_of(rec)
    assert prof.parse_collapsed(Path(rec["collapsed"]).read_text()) == stacks
    assert Path(rec["raw"]).is_file()
    assert not any("perflab.py" in k or "<perflab-" in k for k in stacks)  # the harness is folded
    if which == "cpython":
        assert "planted_hot (bench_hot.py)" in rec["own"]
        assert any(k.endswith("planted_hot (bench_hot.py)") for k in stacks)
    else:  # PyPy's JIT lets the sampler in at its loop's boundaries only: said in the note
        assert rec["note"]


# -- flame graph pages ------------------------------------------------------------------------------

HOSTILE = '<img src=x onerror="alert(1)">&</script>'


def test_flame_pages_never_interpret_a_frame_name_as_html():
    rec = prof.record("fake", 1, {f"main;{HOSTILE}": 3}, [HOSTILE], None, None, 0.0)
    html = case_page(f"bench {HOSTILE}", rec)
    assert HOSTILE not in html and "<img" not in html
    assert "\\u003cimg src=x" in html  # the name travels as JSON text for the script
    data = json.loads(data_json({HOSTILE: 1}, [], "t").replace("\\u003c", "<"))
    assert data["stacks"] == [[HOSTILE, 1]]
    diff = diff_page(HOSTILE, "old", "new", rec, rec, script_src="/static/flamegraph.js")
    assert "<img" not in diff and '<script src="/static/flamegraph.js">' in diff


# -- the real Node and Go workers -----------------------------------------------------------------------

NODE_BENCH = '''import { bench } from 'perflab';
function plantedHot(n) { let s = 0; for (let i = 0; i < n; i++) s += (i * i) % 7; return s; }
bench('calls hot', () => plantedHot(2000));
'''


def _profile_one(tmp_path, toolchain, sources, runtime, want=None):
    prep = prepare(runtime, toolchain, sources, tmp_path / "build", 120)
    assert prep.error is None, prep.error
    from perflab.model import Case
    bench = next(b for b in prep.benchmarks if want is None or b.name == want)
    case = Case(bench, tuple(bench.expand()[0].items()) if bench.params else (), prep.runtime)
    return Profiler({prep.runtime.label: prep}, 120, tmp_path / "out", seconds=0.5).profile(case)


def test_node_cpu_prof_shows_the_benchmark_and_folds_the_worker(tmp_path):
    from perflab.toolchains.node import NodeToolchain
    tc = NodeToolchain()
    rt = next((r for r in tc.discover_runtimes() if r.installed), None)
    assert rt is not None, "a Node runtime is part of the test machine"
    src = tmp_path / "hot.bench.mjs"
    src.write_text(NODE_BENCH)
    rec = _profile_one(tmp_path, tc, [src], rt)
    assert "error" not in rec, rec
    assert "plantedHot (hot.bench.mjs)" in rec["own"]
    stacks = prof.stacks_of(rec)
    assert not any("worker.js" in k for k in stacks) and not any(k.endswith("(idle)") for k in stacks)


def test_go_pprof_shows_the_benchmark_function(tmp_path):
    from perflab.toolchains.go import GoToolchain
    tc = GoToolchain()
    root = Path(__file__).resolve().parent.parent / "examples" / "go" / "hashing"
    rt = next((r for r in tc.discover_runtimes() if r.installed), None)
    assert rt is not None, "a Go toolchain is part of the test machine"
    rec = _profile_one(tmp_path, tc, tc.find_sources(root), rt, want="DJB2")
    assert "error" not in rec, rec
    stacks = prof.stacks_of(rec)
    assert any(k.startswith("example.com/perflab-examples/hashing_test.BenchmarkDJB2 (hashing_test.go)")
               for k in stacks), stacks
    assert not any("testing.(*B)" in k for k in stacks)


def test_a_whole_process_profile_tells_start_up_from_the_timed_loop():
    stacks = [((Frame("main", "/w/perflab.py"), Frame("load", "/w/perflab.py")), 4),
              ((Frame("main", "/w/perflab.py"), Frame("onRun", "/w/perflab.py"), Frame("loop", "/w/perflab.py")), 2)]
    collapsed, _ = prof.reduce(stacks, [OWN], _harness, in_run=lambda f: f.name == "onRun")
    assert collapsed == {prof.OUTSIDE_RUN: 4, HARNESS: 2}


def test_java_flight_recorder_shows_the_benchmark_method(tmp_path):
    from perflab.toolchains.java import JavaToolchain
    tc = JavaToolchain()
    rt = next((r for r in tc.discover_runtimes() if r.installed), None)
    assert rt is not None, "a JDK is part of the test machine"
    src = Path(__file__).resolve().parent.parent / "examples" / "java" / "StringsBench.java"
    rec = _profile_one(tmp_path, tc, [src], rt, want="join")
    assert "error" not in rec, rec
    assert "StringsBench.join (StringsBench.java)" in rec["own"]
    assert not any("_perflab_" in k or "perflab.internal" in k for k in prof.stacks_of(rec))


# -- instructions by function (callgrind) -----------------------------------------------------------------

CALLGRIND_DUMP = """# callgrind format
version: 1
positions: line
events: Ir Dr
fl=bench.c
fn=bench_loop
10 100 5
cfl=bench.c
cfn=planted_hot
calls=4 20
11 800 40
fn=planted_hot
20 780 39
cfn=memcpy
calls=1 0
21 20 1
fl=libc.c
fn=memcpy
5 20 1
"""


def test_callgrind_self_and_inclusive_per_function():
    from perflab.measures.callgrind_functions import parse_functions, per_op_table
    got = parse_functions(CALLGRIND_DUMP)
    assert got == {"bench_loop": (100, 900), "planted_hot": (780, 800), "memcpy": (20, 20)}
    table = per_op_table(got, ops=4)
    assert table[0] == ["planted_hot", 195.0, 200.0] and [r[0] for r in table] == ["planted_hot", "bench_loop", "memcpy"]


def test_the_function_that_grew_comes_first_in_the_counted_difference():
    from perflab.report.flame import functions_page
    old = {"functions": [["loop", 10.0, 110.0], ["hot", 100.0, 100.0], ["other", 50.0, 50.0]], "per_op": {"Ir": 160.0}}
    new = {"functions": [["loop", 10.0, 120.0], ["hot", 110.0, 110.0], ["other", 45.0, 45.0],
                         [HOSTILE, 1.0, 1.0]], "per_op": {"Ir": 166.0}}
    page_ = functions_page("case", new, old=old, old_label="A")
    first = page_.split("<tr><td>", 2)[1]
    assert first.startswith("hot</td>") and "+10.00" in first
    assert HOSTILE not in page_ and "&lt;img" in page_


PERF_SCRIPT = """perflab-bench 4242/4242 12762.1:
\t    55d0 fnv1a+0x10 (/tmp/perflab-bench)
\t    5600 perflab_run_loop+0x22 (/tmp/perflab-bench)
\t    5700 main+0x5 (/tmp/perflab-bench)

perflab-bench 4242/4242 12762.2:
\t    55d0 fnv1a+0x12 (/tmp/perflab-bench)
\t    5600 perflab_run_loop+0x22 (/tmp/perflab-bench)
\t    5700 main+0x5 (/tmp/perflab-bench)

"""


def test_perf_script_is_read_and_native_frames_are_told_by_name():
    from perflab.toolchains.profiling import native_how  # noqa: F401 (the module's harness names)
    from perflab.toolchains.profiling import NATIVE_HARNESS
    stacks = formats.read_perf_script(PERF_SCRIPT)
    assert stacks == [((Frame("main", "/tmp/perflab-bench"), Frame("perflab_run_loop", "/tmp/perflab-bench"),
                        Frame("fnv1a", "/tmp/perflab-bench")), 2)]
    collapsed, own = prof.reduce(stacks, [], lambda f: f.name.startswith(NATIVE_HARNESS) or f.name == "main",
                                 is_own=lambda f: "fnv1a" in f.name)
    assert collapsed == {"fnv1a (perflab-bench)": 2} and own == ["fnv1a (perflab-bench)"]


def test_c_under_perf_shows_the_benchmark_function(tmp_path):
    from perflab.toolchains.cpp import CppToolchain
    from perflab.toolchains.profiling import perf_usable
    if perf_usable():
        pytest.fail(f"perf is part of the test machine (.ci/run installs linux-perf): {perf_usable()}")
    tc = CppToolchain()
    rt = next((r for r in tc.discover_runtimes() if r.installed), None)
    assert rt is not None, "a C compiler is part of the test machine"
    src = Path(__file__).resolve().parent.parent / "examples" / "cpp" / "bench_checksum.c"
    rec = _profile_one(tmp_path, tc, [src], rt, want="fnv1a")
    assert "error" not in rec, rec
    assert any(o.startswith("fnv1a ") for o in rec["own"]), rec["own"]


def test_a_results_file_with_a_damaged_profile_is_named():
    from perflab.measures.profile import profile_problem
    assert profile_problem(None) == "" and profile_problem({"error": "no profile: x"}) == ""
    assert profile_problem([1]) == "has 'profile' that is not an object"
    assert profile_problem({"stacks": "a;b 1"}) == "has 'profile.stacks' that is not a list"
    # a stack that is not [text, count] is left out, never a traceback
    assert prof.stacks_of({"stacks": [["a;b", 2], ["bad"], [1, 2], ["c", True]]}) == {"a;b": 2}


def test_perflab_profile_writes_stacks_raw_and_a_flame_graph_per_case(tmp_path, capsys):
    from perflab.cli import main
    src = tmp_path / "bench_hot.py"
    src.write_text(BENCH)
    assert main(["profile", str(src), "-o", str(tmp_path / "out"), "--seconds", "0.3",
                 "-r", sys.executable]) == 0
    folder = next((tmp_path / "out").glob("perflab-*-profiles"))
    records = json.loads((folder / "profiles.json").read_text())
    (key, rec), = records.items()
    assert "planted_hot (bench_hot.py)" in rec["own"]
    assert (folder / f"{Path(rec['collapsed']).stem}.html").is_file()
    assert main(["profile", str(src), "--seconds", "0"]) == 2
    assert "--seconds: 0 is not a number of seconds above 0" in capsys.readouterr().err


PLANTED = '''
from perflab import benchmark

def planted_hot(n):
    s = 0
    for i in range(n * FACTOR):
        s += i * i
    return s

def steady(n):
    return sum(range(n))

@benchmark
def calls_hot():
    return planted_hot(200) + steady(2000)
'''


def test_a_planted_hot_function_is_the_largest_growth_of_the_difference(tmp_path):
    """A helper made 3x slower at a 'second revision' (a 10 % change is within a one-second
    profile's sampling noise on this machine: a bench/ study's matter) is the frame whose self share
    grows most — what the difference flame graph draws reddest."""
    from perflab.report.flame import diff_page, self_share_changes
    recs = []
    for rev, factor in (("a", 1), ("b", 3)):
        d = tmp_path / rev
        d.mkdir()
        src = d / "bench_hot.py"
        src.write_text(PLANTED.replace("FACTOR", str(factor)))
        prep = prepare(pyruntimes.describe(sys.executable), PythonToolchain(), [src], d / "build", 60)
        from perflab.model import Case
        case = Case(prep.benchmarks[0], (), prep.runtime)
        recs.append(Profiler({prep.runtime.label: prep}, 60, None, seconds=1.0).profile(case))
    old, new = (prof.stacks_of(r) for r in recs)
    top, grew = self_share_changes(old, new)[0]
    assert top.endswith("planted_hot (bench_hot.py)") and grew > 0, self_share_changes(old, new)[:3]
    assert "Largest growth of self share" in diff_page("c", "a", "b", recs[0], recs[1])
