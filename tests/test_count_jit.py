"""--measure instructions on the JIT runtimes (Node, Java, C# on Mono), with real valgrind: each worker in
count mode runs every `run` request's timed loop inside exactly one call of its marker (count_runs checks
one dump per run), and the per-operation count is linear in the work and repeatable.

Slow by nature: one worker launch under callgrind takes 1–3 minutes for a JIT (V8, HotSpot and Mono
start up at valgrind's speed), more on a busy machine; so each runtime has ONE test, ONE launch, and
everything is checked on that launch's runs. Tolerances are what was measured (docs/instructions-languages.md).
"""
from __future__ import annotations

import shutil

import pytest

import workerkit  # noqa: F401  (puts src/ on sys.path)
from workerkit import installed_runtimes, preferred, write

from perflab.measures.callgrind import CountProfile, count_runs
from perflab.toolchains.base import LaunchSpec, after_executable
from perflab.toolchains.csharp import CSharpToolchain
from perflab.toolchains.java import JavaToolchain
from perflab.toolchains.node import NodeToolchain

needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
N = 4096  # invocations of the n runs (2n: twice); work per launch is negligible beside start-up


def runs(n):
    """warmup n (pays first-run costs), then overhead/workload at n, at 2n, and at n again."""
    return [("warmup", n, 1), ("overhead", n, 1), ("workload", n, 1), ("overhead", 2 * n, 1),
            ("workload", 2 * n, 1), ("overhead", n, 1), ("workload", n, 1)]


def net_counts(toolchain, runtime, source, benchmark_id, tmp_path, n=N):
    """(net Ir per op at n, the same at 2n, the same at n again) from one counted launch."""
    spec = toolchain.prepare(runtime, [source], source.parent)
    profile = toolchain.count_profile(runtime)
    dumps = count_runs(toolchain.count_spec(spec, runtime, profile), profile, tmp_path / "cg",
                       benchmark_id, {}, runs(n), timeout=1800)
    ir = [d["Ir"] for d in dumps]
    print(f"{runtime.name}: Ir per run {ir}")  # shown with -s: the figures in docs/instructions-languages.md
    return (ir[2] - ir[1]) / n, (ir[4] - ir[3]) / (2 * n), (ir[6] - ir[5]) / n


def check_linear_and_repeatable(per_op, tolerance):
    at_n, at_2n, again = per_op
    assert at_n > 50, per_op  # the benchmark's ~100-step loop was counted, not just the empty loop
    assert abs(at_2n / at_n - 1) <= tolerance, per_op  # work(2n) = 2 × work(n)
    assert abs(again / at_n - 1) <= tolerance, per_op  # the same run, later in the launch


def test_runtime_args_go_right_after_the_executable():
    spec = LaunchSpec(argv=["/usr/bin/java", "-Xmx1g", "-cp", "x", "Main"], env={"A": "1"}, root="/r")
    out = after_executable(spec, ("-Xbatch", "-XX:+UseSerialGC"))
    assert out.argv == ["/usr/bin/java", "-Xbatch", "-XX:+UseSerialGC", "-Xmx1g", "-cp", "x", "Main"]
    assert out.env == {"A": "1"} and out.root == "/r" and spec.argv[1] == "-Xmx1g"


@pytest.mark.parametrize("toolchain", [NodeToolchain(), JavaToolchain(), CSharpToolchain()],
                         ids=lambda t: t.language)
def test_profiles_name_a_native_marker_and_self_modifying_code(toolchain):
    from perflab.model import Runtime
    profile = toolchain.count_profile(Runtime(name="x", language=toolchain.language, version="1",
                                              executable="/bin/x"))
    assert isinstance(profile, CountProfile)
    assert "*" not in profile.marker  # an exact name: two matching nested functions would toggle twice
    assert "--smc-check=all-non-file" in profile.valgrind_args  # JIT code lives in anonymous memory


NODE = NodeToolchain()
NODE_RUNTIMES, needs_node = installed_runtimes(NODE, "no Node.js installed")


@needs_valgrind
@needs_node
def test_node_counts_one_dump_per_run_linear_and_repeatable(tmp_path):
    """Slow: one node20 launch under callgrind (2–3 min on a busy machine)."""
    rt = preferred(NODE_RUNTIMES, lambda r: r.version.startswith("20."))
    f = write(tmp_path / "tiny.bench.mjs", """
        import { bench } from 'perflab';
        bench('work', () => { let s = 0; for (let i = 0; i < 100; i++) s += i * 3; return s; });
    """)
    check_linear_and_repeatable(net_counts(NODE, rt, f, "tiny.work", tmp_path), 0.005)


JAVA = JavaToolchain()
JAVA_RUNTIMES, needs_jdk = installed_runtimes(JAVA, "no JDK installed", without_note=True)


@needs_valgrind
@needs_jdk
def test_java_counts_one_dump_per_run_linear_and_repeatable(tmp_path):
    """Slow: one JDK 17 launch under callgrind (3–11 min on a busy machine). HotSpot's runs carry a
    fixed ~9 000 Ir more in the workload loop than in the overhead loop, and identical runs differ
    by ~3 000 Ir within a launch: at n = 4096 that was 0.44 % off 2.000, so n is 32768 here."""
    rt = preferred(JAVA_RUNTIMES, lambda r: r.version.startswith("17"))
    f = write(tmp_path / "TinyBench.java", """
        import perflab.Benchmark;

        public class TinyBench {
            @Benchmark
            public long work() { long s = 0; for (int i = 0; i < 100; i++) s += (long) i * 3; return s; }
        }
    """)
    check_linear_and_repeatable(net_counts(JAVA, rt, f, "TinyBench.work", tmp_path, n=32768), 0.005)


CSHARP = CSharpToolchain()
MONO_RUNTIMES, needs_mono = installed_runtimes(CSHARP, "no Mono installed")


@needs_valgrind
@needs_mono
def test_mono_counts_one_dump_per_run_linear_and_repeatable(tmp_path):
    """Slow: one Mono launch under callgrind (about 2 min on a busy machine)."""
    f = write(tmp_path / "TinyBench.cs", """
        using BenchmarkDotNet.Attributes;

        public class TinyBench
        {
            [Benchmark]
            public long Work() { long s = 0; for (int i = 0; i < 100; i++) s += (long)i * 3; return s; }
        }
    """)
    check_linear_and_repeatable(net_counts(CSHARP, MONO_RUNTIMES[0], f, "TinyBench:TinyBench.Work", tmp_path),
                                0.005)
