"""The Python worker's authoring API and measurements, through the real protocol."""
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from perflab.engine.plan import open_worker
from perflab.engine.worker import OVERHEAD_FIRST, BenchmarkError
from perflab.runtimes.python import describe
from perflab.toolchains.python import PythonToolchain

RUNTIME = describe(shutil.which("python3") or sys.executable)


def worker_for(tmp_path, source, name="bench_x.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    spec = PythonToolchain().prepare(RUNTIME, [path], tmp_path)
    return open_worker(spec, 30)


def by_name(loaded):
    return {b["name"]: b for b in loaded["benchmarks"]}


def test_functions_classes_params_arguments_and_options_are_discovered(tmp_path):
    w, loaded = worker_for(tmp_path, """
        import perflab

        def bench_plain():
            return 1

        def helper():          # not a benchmark: no decorator, no bench_ prefix
            return 2

        @perflab.params(n=[1, 2], s=["a", "b", "c"])
        @perflab.benchmark(baseline=True, categories=["x"], ops=8, meta={"seed": "002"})
        def decorated(n, s):
            return n

        @perflab.arguments(10, (20, 30))
        @perflab.benchmark
        def with_args(a, b=0):
            return a + b

        class Strings:
            params = {"size": [10, 100]}
            def setup(self):
                self.text = "x" * self.size
            @perflab.benchmark
            def upper(self):
                return self.text.upper()
            def bench_lower(self):
                return self.text.lower()
    """)
    try:
        b = by_name(loaded)
        assert set(b) == {"bench_plain", "decorated", "with_args", "upper", "bench_lower"}
        d = b["decorated"]
        assert d["baseline"] and d["ops_per_invoke"] == 8 and d["categories"] == ["x"]
        assert d["meta"] == {"seed": "002"}
        assert d["params"] == [{"name": "n", "values": ["1", "2"]},
                               {"name": "s", "values": ["a", "b", "c"]}]
        assert b["with_args"]["params"] == [{"name": "a,b", "values": ["10", "(20, 30)"]}]
        assert b["upper"]["group"] == "Strings"
        assert b["upper"]["params"] == [{"name": "size", "values": ["10", "100"]}]
        assert b["bench_plain"]["group"] == "bench_x"
        assert loaded["errors"] == []
    finally:
        w.close()


def test_class_setup_sees_its_parameters_and_the_benchmark_runs(tmp_path):
    w, loaded = worker_for(tmp_path, """
        import perflab
        class C:
            params = {"size": [10, 100000]}
            def setup(self):
                self.data = list(range(self.size))
            @perflab.benchmark
            def total(self):
                return sum(self.data)
    """)
    try:
        bid = by_name(loaded)["total"]["id"]
        w.setup(bid, {"size": 0}, 10)
        small = min(w.run("workload", 10, 3, 10).ns)
        w.teardown(10)
        w.setup(bid, {"size": 1}, 10)
        big = min(w.run("workload", 10, 3, 10).ns)
        assert big > 20 * small  # 10 000× more data; the parameter really reached setup
    finally:
        w.close()


def test_function_setup_and_teardown_get_the_parameters(tmp_path):
    log = tmp_path / "log.txt"
    w, loaded = worker_for(tmp_path, f"""
        import perflab
        def make(n):
            open({str(log)!r}, "a").write("setup %d\\n" % n)
        def drop(n):
            open({str(log)!r}, "a").write("teardown %d\\n" % n)
        @perflab.params(n=[3, 4])
        @perflab.benchmark(setup=make, teardown=drop)
        def f(n):
            return n
    """)
    try:
        bid = by_name(loaded)["f"]["id"]
        w.setup(bid, {"n": 1}, 10)
        w.run("workload", 1, 1, 10)
        w.teardown(10)
        assert log.read_text().split("\n")[:2] == ["setup 4", "teardown 4"]
    finally:
        w.close()


def test_iteration_setup_runs_before_every_iteration_outside_the_timed_region(tmp_path):
    w, loaded = worker_for(tmp_path, """
        import time, perflab
        class Q:
            def iteration_setup(self):
                time.sleep(0.02)       # expensive, and must not be timed
                self.items = [1, 2, 3]
            @perflab.benchmark
            def pop(self):
                return self.items.pop()
    """)
    try:
        b = by_name(loaded)["pop"]
        assert b["iteration_setup"] is True
        w.setup(b["id"], {}, 10)
        ns = w.run("workload", 1, 5, 10).ns
        assert max(ns) < 10_000_000  # far below the 20 ms sleep
    finally:
        w.close()


def test_overhead_stage_times_an_empty_call_and_is_cheaper_than_real_work(tmp_path):
    w, loaded = worker_for(tmp_path, """
        import perflab
        DATA = list(range(1000))
        @perflab.benchmark
        def work():
            return sorted(DATA)
    """)
    try:
        w.setup(by_name(loaded)["work"]["id"], {}, 10)
        work = min(w.run("workload", 160, 3, 10).ns)
        over = min(w.run("overhead", 160, 3, 10).ns)
        assert over * 10 < work
    finally:
        w.close()


def test_diagnose_counts_allocations_and_gc(tmp_path):
    w, loaded = worker_for(tmp_path, """
        import perflab
        @perflab.benchmark
        def allocates():
            return [[] for _ in range(1000)]
        @perflab.benchmark
        def nothing():
            return None
    """)
    try:
        b = by_name(loaded)
        w.setup(b["allocates"]["id"], {}, 10)
        d = w.diagnose(100, 1, 30)
        assert d["alloc_bytes"] / 100 > 16_000  # ≥ 1000 empty lists of ≥ 16 bytes (+ the outer list)
        assert d["gc"][0] > 0  # 100 000 new container objects trigger young collections
        w.teardown(10)
        w.setup(b["nothing"]["id"], {}, 10)
        d = w.diagnose(100, 1, 30)
        assert d["alloc_bytes"] / 100 < 16
    finally:
        w.close()


def test_exceptions_carry_the_benchmarks_file_and_line(tmp_path):
    w, loaded = worker_for(tmp_path, """
        import perflab
        @perflab.benchmark
        def bad():
            return {}["missing"]
    """)
    try:
        w.setup(by_name(loaded)["bad"]["id"], {}, 10)
        with pytest.raises(BenchmarkError) as info:
            w.run("workload", 1, 1, 10)
        assert "KeyError" in info.value.reason
        assert info.value.file.endswith("bench_x.py") and info.value.line == 5
    finally:
        w.close()


REPORT_ORIGIN = """
    import sys
    import perflab
    SEEN = (perflab.__file__, [p for p in sys.path if "python-worker" in p])

    @perflab.benchmark
    def origin():
        raise RuntimeError(repr(SEEN))
"""


def _origin(tmp_path):
    """Where the worker's perflab module came from and what of the bytecode folder a benchmark file
    sees on sys.path, as the benchmark reports it."""
    w, loaded = worker_for(tmp_path, REPORT_ORIGIN)
    try:
        w.setup(by_name(loaded)["origin"]["id"], {}, 10)
        with pytest.raises(BenchmarkError) as info:
            w.run("workload", 1, 1, 10)
        return info.value.reason
    finally:
        w.close()


def test_the_worker_module_is_compiled_once_per_interpreter_and_imported_from_its_bytecode(
        tmp_path, monkeypatch):
    from perflab.toolchains.python import compiled_worker
    monkeypatch.setenv("PERFLAB_CACHE", str(tmp_path / "cache"))
    folder = compiled_worker(RUNTIME)
    pyc = folder / "perflab.pyc"
    stamp = pyc.stat().st_mtime_ns
    assert compiled_worker(RUNTIME) == folder and pyc.stat().st_mtime_ns == stamp  # compiled once
    reason = _origin(tmp_path)
    assert str(pyc) in reason and "[]" in reason  # imported from it; gone from the benchmark's path


def test_bytecode_the_interpreter_cannot_read_falls_back_to_the_workers_source(tmp_path, monkeypatch):
    from perflab.toolchains.python import compiled_worker
    monkeypatch.setenv("PERFLAB_CACHE", str(tmp_path / "cache"))
    (compiled_worker(RUNTIME) / "perflab.pyc").write_bytes(b"not bytecode at all")
    reason = _origin(tmp_path)
    assert "perflab.py'" in reason and "[]" in reason


def test_a_benchmark_that_prints_does_not_corrupt_the_protocol(tmp_path):
    w, loaded = worker_for(tmp_path, """
        import perflab, sys
        @perflab.benchmark
        def noisy():
            print('{"v": 1, "id": 99, "type": "samples", "ns": [1]}')
            sys.stdout.flush()
    """)
    try:
        w.setup(by_name(loaded)["noisy"]["id"], {}, 10)
        assert len(w.run("workload", 3, 2, 10).ns) == 2
        assert w.output_bytes() > 0
    finally:
        w.close()


def test_a_worker_that_leaves_quickly_still_runs_atexit(tmp_path):
    """The worker skips the interpreter's shutdown when it exits (launches end by the dozen), but
    not what a benchmark asked for at exit."""
    log = tmp_path / "atexit.txt"
    w, loaded = worker_for(tmp_path, f"""
        import atexit, perflab
        atexit.register(lambda: open({str(log)!r}, "w").write("ran"))
        @perflab.benchmark
        def f():
            pass
    """)
    w.setup(by_name(loaded)["f"]["id"], {}, 10)
    w.run("workload", 1, 1, 10)
    w.teardown(10)
    w.close()
    assert log.read_text() == "ran"
    assert w.proc.returncode == 0


def test_the_host_package_reexports_the_authoring_api():
    import perflab
    assert callable(perflab.benchmark) and callable(perflab.params)


def test_python_workers_may_start_while_others_are_measured(tmp_path):
    """CPython and PyPy size nothing by the CPUs they may use when they start, so the engine may start
    them ahead, off the measuring CPU; a toolchain has to say so (Go and the JVM must not)."""
    from perflab.toolchains.base import LaunchSpec
    path = tmp_path / "bench_x.py"
    path.write_text("def bench_x():\n    return 1\n")
    assert PythonToolchain().prepare(RUNTIME, [path], tmp_path).starts_aside
    assert not LaunchSpec(argv=["x"]).starts_aside


def test_descriptions_come_from_docstrings_and_hooks_get_the_parameters_they_name(tmp_path):
    log = tmp_path / "log.txt"
    w, loaded = worker_for(tmp_path, f"""
        import perflab

        def note(*parts):
            open({str(log)!r}, "a").write(" ".join(map(str, parts)) + "\\n")

        def make(n, unused=None):          # names n: gets it
            note("make", n, unused)

        def drop(**values):                # takes any: gets every parameter
            note("drop", sorted(values.items()))

        @perflab.params(n=[3])
        @perflab.benchmark(setup=make, teardown=drop)
        def f(n):
            '''

            Builds a list of n items.
            More lines that the table does not show.'''
            return n

        class Base:
            def bench_doc(self):
                '''Inherited description.'''

        class Child(Base):
            params = {{"size": [5]}}
            def setup(self):               # a class's parameters are attributes
                note("setup", self.size)
            def bench_doc(self):
                return 1
    """)
    try:
        b = by_name(loaded)
        assert b["f"]["description"] == "Builds a list of n items."
        child = [d for d in loaded["benchmarks"] if d["group"] == "Child"][0]
        assert child["description"] == "Inherited description."
        w.setup(b["f"]["id"], {"n": 0}, 10)
        w.teardown(10)
        w.setup(child["id"], {"size": 0}, 10)
        w.teardown(10)
        assert log.read_text().split("\n")[:3] == ["make 3 None", "drop [('n', 3)]", "setup 5"]
    finally:
        w.close()


def test_every_iteration_reports_the_cpu_time_of_the_measuring_thread(tmp_path):
    """A busy iteration's CPU time is at most its wall time (plus the host's slack); a sleeping one
    gets far less CPU than wall time: what tells a preempted iteration from slow code."""
    w, loaded = worker_for(tmp_path, """
        import time
        import perflab
        @perflab.benchmark
        def busy():
            return sum(range(2000))
        @perflab.benchmark
        def sleepy():
            time.sleep(0.005)
    """)
    try:
        clock = w.hello.cpu_clock
        assert clock is not None and clock.scope == "thread" and clock.source == "time.thread_time_ns"
        w.setup(by_name(loaded)["busy"]["id"], {}, 10)
        work, over = w.run_with_overhead(100, 3, 10)
        for t in (work, over, w.run("warmup", 100, 4, 10)):
            assert len(t.cpu) == len(t.ns) and all(c >= 0 for c in t.cpu)
            assert all(c <= n + clock.slack_ns(n) for n, c in zip(t.ns, t.cpu))
        assert sum(work.cpu) > 0
        w.teardown(10)
        w.setup(by_name(loaded)["sleepy"]["id"], {}, 10)
        t = w.run("workload", 2, 3, 10)
        assert all(c < n / 2 for n, c in zip(t.ns, t.cpu)), t  # asleep: wall ≫ CPU
    finally:
        w.close()


def test_with_overhead_takes_either_order(tmp_path):
    """`overhead_first` (capability `overhead_first`): each pair's empty iteration may run before
    its workload iteration, so the engine can put either side second of a request alike (issue #38)."""
    log = tmp_path / "order.txt"
    w, loaded = worker_for(tmp_path, f"""
        import perflab
        _log = open({str(log)!r}, "a")
        def setup_each():
            _log.write("s")
            _log.flush()
        @perflab.benchmark(iteration_setup=setup_each)
        def work():
            return 1
    """)
    try:
        assert OVERHEAD_FIRST in w.hello.capabilities
        w.setup(by_name(loaded)["work"]["id"], {}, 10)
        for first in (False, True):
            work, over = w.run_with_overhead(1, 2, 10, overhead_first=first)
            assert len(work.ns) == len(over.ns) == 2 and len(over.cpu) == 2
        w.teardown(10)
    finally:
        w.close()
    assert log.read_text() == "ss" + "ss"  # one setup per workload iteration, either order


def test_a_pyenv_shim_is_resolved_to_the_interpreter_it_runs(tmp_path):
    # a pyenv shim is a script that finds and execs the interpreter; launching it costs a shell and
    # `pyenv exec` per worker, and its hash is not the interpreter's
    real = Path(sys.executable).resolve()
    shim = tmp_path / "python3"
    shim.write_text(f'#!/bin/sh\nexport PYENV_ROOT=/nowhere\n# exec "$PYENV_ROOT/libexec/pyenv" exec "$program" "$@"\n'
                    f'exec {real} "$@"\n')
    shim.chmod(0o755)
    rt = describe(str(shim))
    assert rt is not None and Path(rt.executable).resolve() == real
    # a wrapper of the user's own is launched as named: it may set what the run needs
    wrapper = tmp_path / "python-with-env"
    wrapper.write_text(f'#!/bin/sh\nexport SOMETHING=1\nexec {real} "$@"\n')
    wrapper.chmod(0o755)
    assert describe(str(wrapper)).executable == str(wrapper)
    # a link to a binary (a venv's python) is launched by the path it was given
    link = tmp_path / "venv-python"
    link.symlink_to(real)
    assert describe(str(link)).executable == str(link)


def test_a_launch_for_one_case_gets_only_its_benchmark_described(tmp_path):
    """`load` with `only` (capability load_only): the reply describes the one benchmark a launch is
    for, not the file's every benchmark (O(file) per case: quadratic for a file of many)."""
    from perflab.engine.worker import LOAD_ONLY
    path = tmp_path / "bench_many.py"
    path.write_text("import perflab\n" + "".join(
        f"\n@perflab.benchmark\ndef b{i}():\n    return {i}\n" for i in range(50)))
    spec = PythonToolchain().prepare(describe(sys.executable), [path], tmp_path / "work")
    w, every = open_worker(spec, 30)
    try:
        assert LOAD_ONLY in w.hello.capabilities and len(every["benchmarks"]) == 50
    finally:
        w.close()
    w, one = open_worker(spec, 30, only="bench_many.b7")
    try:
        assert [b["id"] for b in one["benchmarks"]] == ["bench_many.b7"]
        w.setup("bench_many.b7", {}, 30)  # the named one runs as before
        assert w.run("workload", 1, 2, 30).ns
    finally:
        w.close()
