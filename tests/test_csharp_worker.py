"""The C# integration on Mono: discovery of BenchmarkDotNet classes, Mono runtimes and their flags, the
build (one assembly per file, cached, compile errors with file:line), [Params]/[Arguments]/baseline as
the worker reports them, allocation and GC diagnostics, faults that fail alone (exception,
Environment.Exit, endless loop, stack overflow, a file that does not compile), and conformance."""
from __future__ import annotations

import dataclasses
import io
import os
import stat
from pathlib import Path

import pytest
from rich.console import Console

# workerkit before perflab: it puts the source tree on sys.path when perflab is not installed
from workerkit import T, installed_runtimes, worker, write

from perflab.conformance import run_conformance
from perflab.engine.plan import open_worker
from perflab.engine.worker import BenchmarkError
from perflab.errors import PrepareError, WorkerFailure
from perflab.model import Runtime
from perflab.runtimes import mono as monoruntimes
from perflab.toolchains import get
from perflab.toolchains.csharp import CSharpToolchain, declared_benchmarks, has_header, load_error

TOOLCHAIN = CSharpToolchain()
RUNTIMES, needs_mono = installed_runtimes(TOOLCHAIN, "no Mono with mcs", without_note=True)


def test_registered():
    assert isinstance(get("csharp"), CSharpToolchain)


def test_find_sources_are_files_with_benchmark_methods(tmp_path):
    write(tmp_path / "a" / "Bench.cs", "using BenchmarkDotNet.Attributes;\nclass A { [Benchmark] public void X() {} }\n")
    write(tmp_path / "a" / "Helper.cs", "class Helper { }\n")
    write(tmp_path / "b" / "Full.cs", "class B { [BenchmarkDotNet.Attributes.Benchmark(Baseline = true)] public void Y() {} }\n")
    write(tmp_path / "b" / "Prose.cs", "// about benchmarks: [Benchmarks] is not the attribute\n")
    write(tmp_path / "bin" / "Built.cs", "class C { [Benchmark] public void Z() {} }\n")
    found = [p.relative_to(tmp_path.resolve()).as_posix() for p in TOOLCHAIN.find_sources(tmp_path)]
    assert found == ["a/Bench.cs", "b/Full.cs", "bin/Built.cs"]
    own = TOOLCHAIN.find_sources(Path(__file__).resolve().parents[1] / "workers" / "csharp")
    assert own == []  # the worker's self-test benchmarks are not the user's


def test_declared_benchmarks_and_header_are_read_as_text():
    text = ('// perflab: {"seed": "000"}\nusing X;\nclass P {\n[Benchmark]\n[Arguments(1, 2)]\n'
            'public int Add(int a, int b) => a + b;\n'
            'private int _x; [Benchmark(Baseline = true)] public async Task<(int, int)> Run() => default;\n'
            '[Benchmark] public byte[] Bytes() => null; // a comment [Benchmark]\n'
            '[Disassembly] // for the [Benchmark] method\n[Memory]\n}\n')
    assert has_header(text) and not has_header("using X;\n// perflab: {}\n")
    assert declared_benchmarks(text) == [{"name": "Add", "line": 4}, {"name": "Run", "line": 7},
                                         {"name": "Bytes", "line": 8}]


def test_mcs_errors_become_a_load_error_with_the_line(tmp_path):
    src = tmp_path / "Bad.cs"
    text = (f"{src}(7,13): warning CS0168: unused\n{src}(9,20): error CS0103: The name `nope' does not exist\n"
            "Compilation failed: 1 error(s), 1 warnings\n")
    err = load_error(src, text)
    assert err["line"] == 9 and err["kind"] == "load" and err["file"] == str(src)
    assert "CS0103" in err["message"] and "warning" not in err["message"]


def _fake_mono(tmp_path: Path, llvm: str) -> Path:
    d = tmp_path / "mono-6.12" / "bin"
    d.mkdir(parents=True)
    mono = d / "mono"
    mono.write_text("#!/bin/sh\ncat <<'EOF'\nMono JIT compiler version 6.12.0.200 (tarball)\n"
                    f"\tLLVM:          {llvm}\n\tGC:            sgen\nEOF\n")
    mono.chmod(mono.stat().st_mode | stat.S_IEXEC)
    return mono


def test_describe_names_a_mono_by_version_and_reads_llvm(tmp_path):
    mono = _fake_mono(tmp_path, "supported, not enabled.")
    rt = monoruntimes.describe(str(mono))
    assert rt is not None and rt.name == "mono6.12" and rt.version == "6.12.0.200" and rt.language == "csharp"
    version, text = monoruntimes.mono_version(str(mono))
    assert not monoruntimes.llvm_available(text)
    assert monoruntimes.llvm_available("\tLLVM:          yes(610)\n")
    assert monoruntimes.describe(str(tmp_path)) is None
    boehm = mono.with_name("mono-boehm")
    boehm.write_text(mono.read_text())
    boehm.chmod(mono.stat().st_mode)
    assert monoruntimes.describe(str(boehm), name="mono-boehm").implementation == "Mono (Boehm GC)"


def test_llvm_flag_is_refused_when_mono_lacks_llvm(tmp_path):
    mono = _fake_mono(tmp_path, "supported, not enabled.")
    (mono.parent / "mcs").write_text("#!/bin/sh\nexit 1\n")
    rt = Runtime(name="mono6.12", language="csharp", version="6.12.0.200", executable=str(mono),
                 flags=("--llvm",))
    with pytest.raises(PrepareError, match="without its LLVM back end"):
        TOOLCHAIN.prepare(rt, [tmp_path / "X.cs"], tmp_path)


def test_a_missing_mono_is_a_clear_error(tmp_path):
    gone = Runtime(name="mono", language="csharp", version="6.8.0", executable=str(tmp_path / "nope" / "mono"))
    with pytest.raises(PrepareError, match="does not exist"):
        TOOLCHAIN.prepare(gone, [tmp_path / "X.cs"], tmp_path)
    with pytest.raises(PrepareError, match="apt-get install mono-complete"):
        TOOLCHAIN.prepare(dataclasses.replace(gone, installed=False, executable=""), [tmp_path / "X.cs"], tmp_path)


SAMPLE = """
    using System;
    using System.Collections.Generic;
    using BenchmarkDotNet.Attributes;
    using BenchmarkDotNet.Running;

    namespace Demo
    {
        [MemoryDiagnoser]
        [SimpleJob(launchCount: 1, warmupCount: 3)]
        public class Sample
        {
            [Params(16, 1024)]
            public int Size { get; set; }

            [ParamsSource(nameof(Modes))]
            public string Mode;
            public static IEnumerable<string> Modes => new[] { "fast", "slow" };

            [Benchmark(Baseline = true)]
            public byte[] Allocate() => new byte[Size];

            [Benchmark(OperationsPerInvoke = 8)]
            [BenchmarkCategory("math")]
            public int Compute() { int s = 0; for (int i = 0; i < 8; i++) s += Size ^ i; return s; }
        }

        public class WithArgs
        {
            [Benchmark]
            [Arguments(3, "abc")]
            [Arguments(4, "defg")]
            public int Args(long n, string s) => (int)n + s.Length;

            [Benchmark]
            public void Throws() => throw new ArgumentException("bad input");

            [Benchmark]
            public void Exits() => Environment.Exit(3);

            [Benchmark]
            public void Spins() { while (true) { } }

            [Benchmark]
            public int Recurses() => Recurse(0);
            private int Recurse(int n) => 1 + Recurse(n + 1);

            [Benchmark]
            public int Fine() => 42;

            private string _text = " padded ";
            [Benchmark]
            public ReadOnlySpan<char> Trim() => _text.AsSpan().Trim();  // a ref struct result
        }

        public static class Program
        {
            public static void Main(string[] args) => BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args);
        }
    }
"""


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    return write(tmp_path_factory.mktemp("csharp") / "Sample.cs", SAMPLE)


def _by_name(loaded: dict) -> dict[str, dict]:
    return {b["name"]: b for b in loaded["benchmarks"]}


@needs_mono
def test_bdn_class_is_discovered_with_params_arguments_and_baseline(sample, tmp_path):
    spec = TOOLCHAIN.prepare(RUNTIMES[0], [sample], tmp_path)
    w, loaded = open_worker(spec, T)
    w.close()
    assert loaded["errors"] == []
    b = _by_name(loaded)
    assert set(b) == {"Allocate", "Compute", "Args", "Throws", "Exits", "Spins", "Recurses", "Fine", "Trim"}
    alloc = b["Allocate"]
    assert alloc["group"] == "Sample" and alloc["baseline"] is True and alloc["line"] == 19
    assert alloc["params"] == [{"name": "Mode", "values": ["fast", "slow"]},  # by name, as BDN orders them
                               {"name": "Size", "values": ["16", "1024"]}]
    assert b["Compute"]["ops_per_invoke"] == 8 and b["Compute"]["categories"] == ["math"]
    assert b["Args"]["params"] == [{"name": "n, s", "values": ["3, abc", "4, defg"]}]
    assert alloc["meta"]["bdn_ignored"] == "MemoryDiagnoser, SimpleJob"


@needs_mono
def test_allocated_bytes_and_gc_counts(sample, tmp_path):
    spec = TOOLCHAIN.prepare(RUNTIMES[0], [sample], tmp_path)
    with worker(spec, load=True) as w:
        bid = _by_name(w.request("load", T, paths=spec.load_paths, root=spec.root))["Allocate"]["id"]
        w.request("setup", T, benchmark=bid, params={"Size": 1, "Mode": 0})
        d = w.request("run", T, stage="diagnose", invocations=100, iterations=2)
        # 200 arrays of 1024 bytes plus Mono's array header
        assert 200 * 1024 <= d["alloc_bytes"] < 200 * 1100
        assert len(d["gc"]) == 3 and all(isinstance(g, int) and g >= 0 for g in d["gc"])
        assert isinstance(d["code_size"], int) and d["code_size"] > 0  # Mono's JIT info for Allocate
        s = w.request("run", T, stage="workload", invocations=50, iterations=3)
        assert len(s["ns"]) == 3 and len(s["cpu_ns"]) == 3


@needs_mono
def test_faults_fail_alone_with_their_reason(sample, tmp_path):
    spec = TOOLCHAIN.prepare(RUNTIMES[0], [sample], tmp_path)
    w, loaded = open_worker(spec, T)
    ids = {n: b["id"] for n, b in _by_name(loaded).items()}

    def run(name, invocations=4, timeout=T):
        w.request("setup", T, benchmark=ids[name], params={})
        return w.request("run", timeout, stage="workload", invocations=invocations, iterations=1)

    try:
        with pytest.raises(BenchmarkError) as e:
            run("Throws")
        assert e.value.kind == "exception" and str(e.value) == "ArgumentException: bad input"
        assert e.value.file == str(sample) and e.value.line > 0
        with pytest.raises(BenchmarkError) as e:
            run("Recurses", invocations=1)
        assert "StackOverflowException" in str(e.value)
        assert len(run("Fine")["ns"]) == 1  # the worker survived both
        assert len(run("Trim")["ns"]) == 1  # a Span result is called and discarded
        with pytest.raises(WorkerFailure) as e:
            run("Spins", invocations=1, timeout=3)
        assert "timed out" in str(e.value)
    finally:
        w.close()
    w, _ = open_worker(spec, T)
    try:
        with pytest.raises(BenchmarkError) as e:
            run("Exits")
        assert str(e.value) == "Environment.Exit(3) called by the benchmark"
        assert w.proc.wait(timeout=T) == 3
    finally:
        w.close()


@needs_mono
def test_a_file_that_does_not_compile_fails_alone_with_file_and_line(sample, tmp_path):
    bad = write(tmp_path / "suite" / "Broken.cs", """
        using BenchmarkDotNet.Attributes;
        public class Broken
        {
            [Benchmark]
            public int X() => undefinedThing;
        }
    """)
    spec = TOOLCHAIN.prepare(RUNTIMES[0], [sample, bad], tmp_path)
    w, loaded = open_worker(spec, T)
    w.close()
    assert len(loaded["benchmarks"]) == 9
    [err] = loaded["errors"]
    assert err["file"] == str(bad) and err["line"] == 5 and "CS0103" in err["message"]
    # a corpus file (with a `// perflab:` header) lists its benchmarks instead, each failing alone
    corpus = write(tmp_path / "suite" / "Corpus.cs", '// perflab: {"seed": "003", "section": "JIT"}\n'
                   + bad.read_text().replace("Broken", "Corpus"))
    spec = TOOLCHAIN.prepare(RUNTIMES[0], [sample, corpus], tmp_path)
    w, loaded = open_worker(spec, T)
    try:
        assert loaded["errors"] == []
        x = _by_name(loaded)["X"]
        assert x["line"] == 5 and x["meta"]["seed"] == "003"
        with pytest.raises(BenchmarkError) as e:
            w.request("setup", T, benchmark=x["id"], params={})
        assert "does not compile on this runtime" in str(e.value) and "CS0103" in str(e.value)
    finally:
        w.close()


@needs_mono
def test_a_failing_global_setup_names_itself(tmp_path):
    src = write(tmp_path / "SetupFails.cs", """
        using System;
        using BenchmarkDotNet.Attributes;
        public class SetupFails
        {
            [GlobalSetup] public void Prepare() => throw new InvalidOperationException("no fixture");
            [Benchmark] public int Never() => 0;
        }
    """)
    spec = TOOLCHAIN.prepare(RUNTIMES[0], [src], tmp_path)
    w, loaded = open_worker(spec, T)
    try:
        with pytest.raises(BenchmarkError) as e:
            w.request("setup", T, benchmark=loaded["benchmarks"][0]["id"], params={})
        assert str(e.value) == "GlobalSetup Prepare failed: InvalidOperationException: no fixture"
        with pytest.raises(BenchmarkError) as e:
            w.request("run", T, stage="workload", invocations=1, iterations=1)
        assert e.value.kind == "state"
    finally:
        w.close()


@needs_mono
def test_builds_are_cached_per_file(sample, tmp_path):
    other = write(tmp_path / "Other.cs", "using BenchmarkDotNet.Attributes;\npublic class O { [Benchmark] public int Y() => 1; }\n")
    first = TOOLCHAIN.prepare(RUNTIMES[0], [sample, other], tmp_path)
    manifest = Path(first.env["PERFLAB_CSHARP_MANIFEST"]).read_text()
    other.write_text(other.read_text().replace("=> 1", "=> 2"))
    second = TOOLCHAIN.prepare(RUNTIMES[0], [sample, other], tmp_path)
    kept = Path(second.env["PERFLAB_CSHARP_MANIFEST"]).read_text()
    assert first.env["PERFLAB_CSHARP_MANIFEST"] != second.env["PERFLAB_CSHARP_MANIFEST"]
    assert first.cwd == str(tmp_path) != str(sample.parent)  # benchmarks write into perflab's folder, not the sources'

    sample_dll = [line for line in manifest.splitlines() if "Sample.dll" in line]
    assert sample_dll and sample_dll[0] in kept  # the unchanged file's assembly is reused


@needs_mono
@pytest.mark.parametrize("flags", [(), ("--interpreter",)], ids=["jit", "interpreter"])
def test_conformance(flags):
    console = Console(file=io.StringIO(), width=200)
    rt = dataclasses.replace(RUNTIMES[0], flags=flags)
    assert run_conformance(rt, None, console) == 0, console.file.getvalue()


@needs_mono
def test_the_bdn_example_runs_unedited():
    example = Path(__file__).resolve().parents[1] / "examples" / "csharp" / "StringBuilding.cs"
    spec = TOOLCHAIN.prepare(RUNTIMES[0], [example], Path(os.devnull).parent)
    w, loaded = open_worker(spec, T)
    w.close()
    assert loaded["errors"] == []
    assert {b["name"] for b in loaded["benchmarks"]} >= {"Concatenate", "Builder", "Join", "ParseInt", "Split"}
