"""The Java integration: JDK discovery and naming, building with each JDK's own javac into the cache
(never into the user's tree), compile errors with file:line, discovery of annotations, diagnostics
(allocated bytes, GC counts, code size), JVM flags from the runtime spec, conformance, and the CLI table."""
from __future__ import annotations

import dataclasses
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

# workerkit before perflab: it puts the source tree on sys.path when perflab is not installed
from workerkit import REPO, T, installed_runtimes, write

from perflab.conformance import VECTORS, run_conformance
from perflab.engine.plan import open_worker
from perflab.errors import PrepareError
from perflab.model import Runtime
from perflab.runtimes import java as javaruntimes
from perflab.toolchains import get
from perflab.toolchains.java import JavaToolchain, source_root

TOOLCHAIN = JavaToolchain()
RUNTIMES, needs_jdk = installed_runtimes(TOOLCHAIN, "no JDK >= 17 with javac", without_note=True)


def test_registered():
    assert isinstance(get("java"), JavaToolchain)


def test_find_sources_and_source_roots(tmp_path):
    write(tmp_path / "src" / "a" / "b" / "MapBench.java", "package a.b;\nclass MapBench {}\n")
    write(tmp_path / "src" / "a" / "b" / "Helper.java", "package a.b;\nclass Helper {}\n")
    write(tmp_path / "src" / "a" / "Uses.java", "package a;\nimport perflab.Benchmark;\nclass Uses {}\n")
    write(tmp_path / "build" / "XBench.java", "class XBench {}\n")
    write(tmp_path / "ListBenchmark.java", "// package not.this;\nclass ListBenchmark {}\n")
    found = [p.relative_to(tmp_path.resolve()).as_posix() for p in TOOLCHAIN.find_sources(tmp_path)]
    assert found == ["ListBenchmark.java", "src/a/Uses.java", "src/a/b/MapBench.java"]
    assert source_root(tmp_path / "src" / "a" / "b" / "MapBench.java") == tmp_path / "src"
    assert source_root(tmp_path / "ListBenchmark.java") == tmp_path
    helper = tmp_path / "src" / "a" / "b" / "Helper.java"
    assert TOOLCHAIN.find_sources(helper) == [helper.resolve()]


def test_release_file_names_the_runtime(tmp_path):
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    for exe in ("java", "javac"):
        (home / "bin" / exe).write_text("#!/bin/sh\nexit 1\n")
        (home / "bin" / exe).chmod(0o755)
    (home / "release").write_text('IMPLEMENTOR="Eclipse Adoptium"\nJAVA_VERSION="21.0.2"\n')
    rt = javaruntimes.describe(home)
    assert rt is not None and rt.name == "jdk21" and rt.version == "21.0.2" and not rt.note
    (home / "bin" / "javac").unlink()
    assert "javac" in javaruntimes.describe(home).note
    (home / "release").write_text('JAVA_VERSION="11.0.20"\n')
    assert "too old" in javaruntimes.describe(home).note
    assert javaruntimes.version_tuple("1.8.0_392") == (8, 0, 392)


def test_a_missing_jdk_or_a_jre_is_a_clear_error(tmp_path):
    gone = Runtime(name="jdk21", language="java", version="21.0.2", executable=str(tmp_path / "nope" / "java"))
    with pytest.raises(PrepareError, match="does not exist"):
        TOOLCHAIN.prepare(gone, [tmp_path / "XBench.java"], tmp_path)
    (tmp_path / "jre" / "bin").mkdir(parents=True)
    (tmp_path / "jre" / "bin" / "java").write_text("")
    jre = dataclasses.replace(gone, executable=str(tmp_path / "jre" / "bin" / "java"))
    with pytest.raises(PrepareError, match="no javac"):
        TOOLCHAIN.prepare(jre, [tmp_path / "XBench.java"], tmp_path)
    absent = dataclasses.replace(gone, executable="", installed=False)
    with pytest.raises(PrepareError, match="not installed"):
        TOOLCHAIN.prepare(absent, [tmp_path / "XBench.java"], tmp_path)


@needs_jdk
def test_discovers_jdks_by_feature_version():
    names = [r.name for r in RUNTIMES]
    assert all(n.startswith("jdk") and n[3:].isdigit() for n in names)
    assert len(names) == len(set(names))
    for r in RUNTIMES:
        assert Path(r.executable).is_file() and (Path(r.executable).parent / "javac").is_file()


@needs_jdk
def test_compile_error_names_file_and_line(tmp_path):
    f = write(tmp_path / "BrokenBench.java", """
        import perflab.Benchmark;

        public class BrokenBench {
            @Benchmark
            public int x() {
                return undefinedThing;
            }
        }
    """)
    with pytest.raises(PrepareError) as e:
        TOOLCHAIN.prepare(RUNTIMES[0], [f], tmp_path)
    assert f"{f}:6: error: cannot find symbol" in str(e.value)


SAMPLE = """
    package demo;

    import perflab.*;

    /** Helpers in other files of the package come along through -sourcepath. */
    public class DemoBench {
        @Param({"16", "1024"})
        int size;

        byte[] last;

        @Benchmark
        @Baseline
        public byte[] allocate() {
            last = new byte[size];
            return last;
        }

        @Benchmark(name = "twice", categories = {"math"})
        @OperationsPerInvocation(2)
        public int helper() {
            return Helper.twice(size) + Helper.twice(size + 1);
        }

        @Benchmark
        private int hidden() {
            return 0;
        }

        public static class Consuming {
            java.util.ArrayDeque<Integer> queue = new java.util.ArrayDeque<>();

            @Setup(Level.Invocation)
            public void refill() {
                queue.add(1);
            }

            @Benchmark
            public Integer take() {
                return queue.poll();
            }
        }
    }
"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("javademo")
    bench = write(root / "demo" / "DemoBench.java", SAMPLE)
    write(root / "demo" / "Helper.java", "package demo;\n\nclass Helper {\n    static int twice(int x) { return 2 * x; }\n}\n")
    return bench


@needs_jdk
def test_build_is_cached_and_leaves_the_tree_alone(demo, tmp_path):
    before = sorted(p.name for p in demo.parent.rglob("*"))
    spec = TOOLCHAIN.prepare(RUNTIMES[0], [demo], tmp_path)
    classes = Path(spec.argv[spec.argv.index("-cp") + 1].split(os.pathsep)[1])
    stamp = (classes.parent / "ok").stat().st_mtime_ns
    again = TOOLCHAIN.prepare(RUNTIMES[0], [demo], tmp_path)
    assert again.argv == spec.argv
    assert (classes.parent / "ok").stat().st_mtime_ns == stamp
    assert sorted(p.name for p in demo.parent.rglob("*")) == before
    assert spec.root == str(demo.parent.parent) and spec.load_paths == [str(demo)]


@needs_jdk
def test_load_describes_benchmarks_and_reports_bad_ones(demo, tmp_path):
    spec = TOOLCHAIN.prepare(RUNTIMES[0], [demo], tmp_path)
    w, loaded = open_worker(spec, T)
    try:
        by_id = {b["id"]: b for b in loaded["benchmarks"]}
        assert sorted(by_id) == ["demo.DemoBench.Consuming.take", "demo.DemoBench.allocate",
                                 "demo.DemoBench.helper"]
        alloc = by_id["demo.DemoBench.allocate"]
        assert alloc["baseline"] and alloc["group"] == "DemoBench" and alloc["line"] == 14
        assert alloc["params"] == [{"name": "size", "values": ["16", "1024"]}]
        assert alloc["file"] == str(demo)
        twice = by_id["demo.DemoBench.helper"]
        assert twice["name"] == "twice" and twice["ops_per_invoke"] == 2 and twice["categories"] == ["math"]
        take = by_id["demo.DemoBench.Consuming.take"]
        assert take["iteration_setup"] and take["group"] == "DemoBench.Consuming" and take["params"] == []
        assert len(loaded["errors"]) == 1 and "hidden" in loaded["errors"][0]["message"]
        assert "private" in loaded["errors"][0]["message"]
        # parameters, per-invocation setup and diagnostics
        w.request("setup", T, benchmark="demo.DemoBench.Consuming.take", params={})
        assert len(w.request("run", T, stage="workload", invocations=1, iterations=50)["ns"]) == 50
        w.request("teardown", T)
        w.request("setup", T, benchmark="demo.DemoBench.allocate", params={"size": 1})
        for _ in range(20):
            w.request("run", T, stage="warmup", invocations=2000, iterations=5)
        d = w.request("run", T, stage="diagnose", invocations=1000, iterations=2)
        # 1024 bytes + an array header per call; a wide margin either way
        per_call = d["alloc_bytes"] / 2000
        assert 1024 <= per_call < 1024 * 2, d
        assert isinstance(d["gc"], list) and all(isinstance(g, int) for g in d["gc"])
        assert isinstance(d["code_size"], int) and d["code_size"] > 0, d["notes"]
        assert any("Compiler.codelist" in n for n in d["notes"])
        w.request("teardown", T)
    finally:
        w.close()


@needs_jdk
def test_jvm_flags_from_the_runtime_spec_reach_the_jvm(demo, tmp_path):
    parallel = dataclasses.replace(RUNTIMES[-1], flags=("-XX:+UseParallelGC",))
    spec = TOOLCHAIN.prepare(parallel, [demo], tmp_path)
    assert spec.argv.index("-XX:+UseParallelGC") > spec.argv.index("-Dperflab.blackhole=compiler")
    w, _ = open_worker(spec, T)
    try:
        assert "-XX:+UseParallelGC" in w.hello.runtime["input_arguments"]
        assert w.hello.runtime["blackhole"] == "compiler"
        assert {"alloc", "gc", "codesize"} <= set(w.hello.capabilities)
        w.request("setup", T, benchmark="demo.DemoBench.allocate", params={"size": 0})
        d = w.request("run", T, stage="diagnose", invocations=100, iterations=1)
        assert any("PS Scavenge" in n for n in d["notes"])
    finally:
        w.close()


@needs_jdk
@pytest.mark.parametrize("runtime", RUNTIMES, ids=[r.name for r in RUNTIMES])
def test_conformance(runtime):
    out = io.StringIO()
    assert run_conformance(runtime, None, Console(file=out, width=200)) == 0, out.getvalue()
    assert f"{len(list(VECTORS.glob('*.json')))} passed, 0 failed" in out.getvalue()


@needs_jdk
def test_cli_prints_one_table_with_ratio_allocated_and_code_size(tmp_path):
    names = ",".join(r.name for r in RUNTIMES[:2])
    out = subprocess.run([sys.executable, "-m", "perflab.cli", "run", str(REPO / "examples" / "java" / "BoxingBench.java"),
                          "--runtimes", names, "--job", "short", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=600, cwd=tmp_path,
                         env={**os.environ, "COLUMNS": "250"})
    assert out.returncode == 0, out.stdout + out.stderr
    header = next(ln for ln in out.stdout.splitlines() if ln.startswith("| Method"))
    for col in ("Ratio", "Allocated", "Code Size"):
        assert col in header
    assert re.search(r"\b4 cases in [\d.]+\s*s;\s+0\s+failed", out.stdout + out.stderr), out.stderr[-2000:]


JMH_STYLE = """
    import org.openjdk.jmh.annotations.*;
    import org.openjdk.jmh.infra.Blackhole;

    @State(Scope.Benchmark)
    public class JmhStyleBench {
        @Param({"10", "1000"})
        public int n;

        int[] data;

        @Setup(Level.Trial)
        public void setup() {
            data = new int[n];
        }

        @Benchmark
        @OperationsPerInvocation(10)
        public long sum() {
            long s = 0;
            for (int v : data) s += v;
            return s;
        }

        @Benchmark
        public void sink(Blackhole bh) {
            bh.consume(data.length);
        }
    }
"""


@needs_jdk
@pytest.mark.skipif(__import__("perflab.toolchains.java", fromlist=["x"]).newest_jmh_core() is None,
                    reason="no jmh-core in ~/.m2 (mvn dependency:get -Dartifact=org.openjdk.jmh:jmh-core:1.37)")
@pytest.mark.parametrize("runtime", RUNTIMES, ids=[r.name for r in RUNTIMES])
def test_jmh_annotated_classes_run_as_they_are(tmp_path, runtime):
    f = write(tmp_path / "JmhStyleBench.java", JMH_STYLE)
    assert TOOLCHAIN.find_sources(tmp_path) == [f.resolve()]
    spec = TOOLCHAIN.prepare(runtime, [f], tmp_path)
    assert any("jmh-core" in p for p in spec.argv[spec.argv.index("-cp") + 1].split(os.pathsep))
    w, loaded = open_worker(spec, T)
    try:
        assert loaded["errors"] == []
        b, sink = loaded["benchmarks"]
        assert b["id"] == "JmhStyleBench.sum" and b["ops_per_invoke"] == 10
        assert b["params"] == [{"name": "n", "values": ["10", "1000"]}]
        w.request("setup", T, benchmark=b["id"], params={"n": 1})
        assert len(w.request("run", T, stage="workload", invocations=100, iterations=3)["ns"]) == 3
        w.request("teardown", T)
        assert sink["id"] == "JmhStyleBench.sink"  # JMH's own Blackhole as the argument
        w.request("setup", T, benchmark=sink["id"], params={"n": 0})
        assert len(w.request("run", T, stage="workload", invocations=100, iterations=3)["ns"]) == 3
        assert len(w.request("run", T, stage="overhead", invocations=100, iterations=3)["ns"]) == 3
        assert w.output_bytes() == 0  # no JVM warnings about JMH's use of Unsafe either
    finally:
        w.close()


@needs_jdk
def test_jmh_sources_without_jmh_say_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("M2_REPO", str(tmp_path / "empty-m2"))
    monkeypatch.delenv("PERFLAB_CLASSPATH", raising=False)
    f = write(tmp_path / "JmhStyleBench.java", JMH_STYLE)
    with pytest.raises(PrepareError, match="PERFLAB_CLASSPATH"):
        TOOLCHAIN.prepare(RUNTIMES[0], [f], tmp_path)


@needs_jdk
def test_a_file_that_does_not_compile_fails_alone(tmp_path):
    good = write(tmp_path / "GoodBench.java", """
        import perflab.Benchmark;

        public class GoodBench {
            @Benchmark
            public int one() { return 1; }
        }
    """)
    bad = write(tmp_path / "BadBench.java", """
        import perflab.Benchmark;

        public class BadBench {
            @Benchmark
            public int two() { return "two"; }
        }
    """)
    spec = TOOLCHAIN.prepare(RUNTIMES[0], TOOLCHAIN.find_sources(tmp_path), tmp_path)
    w, loaded = open_worker(spec, T)
    try:
        assert [b["id"] for b in loaded["benchmarks"]] == ["GoodBench.one"]
        [err] = loaded["errors"]
        assert err["file"] == str(bad.resolve()) and err["line"] == 5 and err["kind"] == "load"
        assert "incompatible types" in err["message"]
    finally:
        w.close()
    assert good.is_file()


def test_a_file_needing_a_newer_jdk_is_absent_not_failed():
    from perflab.model import Runtime
    from perflab.toolchains.java import absence_reason
    jdk17 = Runtime("jdk17", "java", "17.0.15", "/usr/bin/java")
    preview = {"file": "/x/SwitchBench.java", "message": "javac: /x/SwitchBench.java:10: error: patterns in "
               "switch statements are a preview feature and are disabled by default.\n  case Integer i"}
    records = {"message": "javac: /x/R.java:3: error: records are not supported in -source 11\n"
               "  (use -source 16 or higher to enable records)"}
    assert absence_reason(jdk17, preview) == ("not compiled by jdk17: patterns in switch statements are a "
                                              "preview feature and are disabled by default.")
    assert absence_reason(jdk17, records) == "not compiled by jdk17: records are not supported in -source 11"
    missing_api = {"message": "javac: /x/A.java:5: error: cannot find symbol\n  symbol: method ofVirtual()"}
    assert absence_reason(jdk17, missing_api) is None  # reads like any other error: a failure
    assert absence_reason(jdk17, None) is None
