"""--memory-limit: a benchmark that keeps allocating fails alone, "out of memory (limit X)", in every
language, and the other benchmark of its file is measured (engine/memory.py). The rules themselves
(sizes, the default, the runtime heap flags, the watch) with fakes; the languages end to end through
`perflab run`, each with a benchmark that never stops allocating and a small limit. No assertion
is about time."""
from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workerkit import REPO  # noqa: F401 - the source tree on sys.path when perflab is not installed

from perflab import config
from perflab.engine import memory
from perflab.engine.memory import Watch, default_limit, format_size, heap_flags, limit_spec, parse_size
from perflab.errors import UsageError
from perflab.toolchains.base import LaunchSpec
from perflab.policy import DEFAULT

FIXTURES = Path(__file__).parent / "fixtures" / "memory"
LIMIT = "256m"
REASON = "out of memory (limit 256 MiB)"


# -- the rules ---------------------------------------------------------------------------------

def test_sizes_parse_in_powers_of_1024_and_bad_ones_name_the_flag():
    assert parse_size("512m") == 512 << 20
    assert parse_size("2G") == 2 << 30
    assert parse_size("1.5GiB") == 3 << 29
    assert parse_size(str(64 << 20)) == 64 << 20
    for bad in ("lots", "12 parsecs", "-1g", ""):
        with pytest.raises(UsageError, match="--memory-limit"):
            parse_size(bad)
    with pytest.raises(UsageError, match="below 16 MiB"):
        parse_size("1m")
    assert format_size(256 << 20) == "256 MiB"
    assert format_size(3 << 29) == "1.5 GiB"


def test_the_default_is_half_the_memory_per_cpu(monkeypatch):
    monkeypatch.setattr(memory, "machine_memory", lambda: 24 << 30)
    monkeypatch.setattr(memory.os, "cpu_count", lambda: 2)
    assert default_limit() == 6 << 30
    monkeypatch.setattr(memory, "machine_memory", lambda: 1 << 30)
    monkeypatch.setattr(memory.os, "cpu_count", lambda: 8)
    assert default_limit() == DEFAULT.memory.default_min_bytes


def test_runtimes_get_their_own_heap_flag_before_the_users_flags():
    spec = LaunchSpec(argv=["/jdk/bin/java", "-Xmx8g", "-cp", "x", "Main"], env={"A": "1"})
    limited = limit_spec(spec, "java", 1 << 30)
    assert limited.argv == ["/jdk/bin/java", "-Xmx768m", "-Xmx8g", "-cp", "x", "Main"]  # the user's wins
    assert limited.memory_limit == 1 << 30 and limited.env == {"A": "1"}
    assert heap_flags("node", 1 << 30) == (["--max-old-space-size=768"], {})
    assert heap_flags("csharp", 1 << 30) == ([], {"MONO_GC_PARAMS": "max-heap-size=768m"})
    # Go's GOMEMLIMIT is soft: not set; the host's watch stops Go (and Python, Rust, C/C++)
    assert heap_flags("go", 1 << 30) == ([], {})
    user = limit_spec(LaunchSpec(argv=["mono", "w.exe"], env={"MONO_GC_PARAMS": "mine"}), "csharp", 1 << 30)
    assert user.env["MONO_GC_PARAMS"] == "mine"


def test_the_watch_calls_once_when_a_tree_passes_its_limit():
    held = {10: 100, 20: 500}
    calls = []
    w = Watch(interval_s=3600, rss=lambda pid: held[pid])
    w.add(10, 200, lambda used: calls.append((10, used)))
    w.add(20, 200, lambda used: calls.append((20, used)))
    w.check()
    assert calls == [(20, 500)]
    held[10] = 300
    w.check()
    w.check()
    assert calls == [(20, 500), (10, 300)]  # each once: a killed worker is no longer watched


def test_runtime_words_for_running_out_of_memory():
    for said in ("MemoryError", "java.lang.OutOfMemoryError: Java heap space",
                 "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
                 "fatal error: runtime: out of memory", "memory allocation of 1048576 bytes failed",
                 "terminate called after throwing an instance of 'std::bad_alloc'",
                 "System.OutOfMemoryException: Out of memory"):
        assert memory.looks_out_of_memory(said), said
    assert not memory.looks_out_of_memory("ZeroDivisionError: division by zero")


def test_the_project_file_takes_memory_limit(tmp_path):
    (tmp_path / "perflab.toml").write_text('memory_limit = "512m"\n')
    (tmp_path / ".git").mkdir()
    conf = config.load(tmp_path)
    assert conf.get("memory_limit") == "512m"
    (tmp_path / "perflab.toml").write_text('memory_limit = "lots"\n')
    with pytest.raises(UsageError, match="memory_limit"):
        config.load(tmp_path)


HOARD = """
import time

KEEP = []

def bench_hoard():
    KEEP.append(bytearray(b"x" * (96 << 20)))
    time.sleep(3600)
"""


def test_a_reply_that_times_out_with_the_heap_full_is_out_of_memory(tmp_path):
    """A JVM at its -Xmx collects garbage again and again before it throws: a reply that times out
    with the worker's resident memory at its heap flag's size is reported out of memory, not timed
    out. (A Python worker, and a heap size as if the runtime had been given one: deterministic.)"""
    from perflab.engine.plan import open_worker
    from perflab.errors import WorkerFailure
    from perflab.runtimes.python import describe
    from perflab.toolchains.python import PythonToolchain

    bench = tmp_path / "bench_hoard.py"
    bench.write_text(HOARD)
    spec = PythonToolchain().prepare(describe(sys.executable), [bench], tmp_path)
    spec = dataclasses.replace(spec, memory_limit=1 << 30, heap_limit=64 << 20)
    w, loaded = open_worker(spec, 60)
    try:
        w.setup(loaded["benchmarks"][0]["id"], {}, 60)
        with pytest.raises(WorkerFailure) as e:
            w.run("workload", 1, 1, timeout=5)
        assert e.value.reason.startswith("out of memory (limit 1 GiB): timed out after 5.0s with ")
        assert "its heap at its limit (64 MiB)" in e.value.reason
    finally:
        w.close()


CLIMB = """
import time

KEEP = [bytearray(b"x") * (320 << 20)]

def bench_climb():
    while True:  # on its way to the limit, 4 MiB a step, past the reply's deadline (~10 s)
        KEEP.append(bytearray(b"x") * (4 << 20))
        time.sleep(0.2)
"""


def test_a_reply_that_times_out_while_memory_still_climbs_ends_out_of_memory(tmp_path):
    """A leak still filling when the reply's time runs out (a JVM's heap on a slow machine) is awaited
    while its memory climbs: the watch then stops it at the limit, out of memory. It was "timed out
    after 5.0s (… resident of its 512 MiB memory limit)". (A Python worker: deterministic.)"""
    from perflab.engine.plan import open_worker
    from perflab.errors import WorkerFailure
    from perflab.runtimes.python import describe
    from perflab.toolchains.python import PythonToolchain

    bench = tmp_path / "bench_climb.py"
    bench.write_text(CLIMB)
    spec = PythonToolchain().prepare(describe(sys.executable), [bench], tmp_path)
    spec = dataclasses.replace(spec, memory_limit=512 << 20)
    w, loaded = open_worker(spec, 60)
    try:
        w.setup(loaded["benchmarks"][0]["id"], {}, 60)
        with pytest.raises(WorkerFailure) as e:
            w.run("workload", 1, 1, timeout=5)
        assert e.value.reason.startswith("out of memory (limit 512 MiB)"), e.value.reason
    finally:
        w.close()


# -- every language, end to end ------------------------------------------------------------------

def _have(*tools: str) -> bool:
    return all(shutil.which(t) for t in tools)


LANGUAGES = {
    "python": (None, True),
    "node": (None, _have("node")),
    "go": (None, _have("go")),
    "java": (None, _have("java", "javac")),
    "rust": (None, _have("cargo")),
    "cpp": (None, _have("g++")),
    "csharp": ("mono", _have("mono", "mcs")),
}


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_a_leaking_benchmark_fails_alone_out_of_memory(language, tmp_path):
    runtime, available = LANGUAGES[language]
    if not available:
        pytest.skip(f"no {language} toolchain on this machine")
    src = tmp_path / language
    shutil.copytree(FIXTURES / language, src)
    argv = [sys.executable, "-m", "perflab.cli", "run", str(src), "--job", "dry", "--memory-limit",
            LIMIT, "--store", "none", "--out", str(tmp_path / "out"), "--json", "--quiet"]
    if runtime:
        argv += ["--runtimes", runtime]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr[-3000:]
    doc = json.loads(proc.stdout)
    cases = {c["benchmark"]["name"].lower(): c for c in doc["cases"]}
    leak = next(c for name, c in cases.items() if "leak" in name or "grow" in name)
    fine = next(c for name, c in cases.items() if "fine" in name)
    assert leak["status"] == "failed"
    assert leak["error"].startswith(REASON), leak["error"]
    assert fine["status"] == "ok", fine.get("error")


@pytest.mark.skipif(not _have("java", "javac"), reason="no JDK on this machine")
def test_a_jvm_collecting_near_its_heap_limit_is_out_of_memory_not_timed_out(tmp_path):
    """A Java benchmark that keeps every small object it makes: G1 collects near -Xmx for minutes
    before OutOfMemoryError, and the JVM's resident memory stays below the size of the heap perflab
    gave it (here the user's own -Xmx128m wins over perflab's 768m: a heap far below the resident
    reading's threshold). When the reply times out, the JVM's own counters (engine/jvm_gc) show it
    collecting garbage with its heap filled: out of memory, not "timed out after 20.0s" as before."""
    src = tmp_path / "java"
    shutil.copytree(FIXTURES / "java_thrash", src)
    argv = [sys.executable, "-m", "perflab.cli", "run", str(src), "--job", "dry", "--memory-limit", "1g",
            "--runtimes", "jdk17:-Xmx128m", "--timeout", "20", "--store", "none", "--out",
            str(tmp_path / "out"), "--json", "--quiet"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    if "jdk17" in proc.stderr and "not found" in proc.stderr:
        pytest.skip("no JDK 17 on this machine")
    assert proc.returncode == 1, proc.stderr[-3000:]
    cases = {c["benchmark"]["name"]: c for c in json.loads(proc.stdout)["cases"]}
    assert cases["fine"]["status"] == "ok", cases["fine"].get("error")
    assert cases["leak"]["status"] == "failed"
    # the JVM's own OutOfMemoryError, had it come first, says so too
    assert cases["leak"]["error"].startswith("out of memory (limit 1 GiB): "), cases["leak"]["error"]


def test_gc_counters_are_read_from_a_jvms_performance_data(tmp_path, monkeypatch):
    """The hsperfdata layout (prologue, entries of 64-bit counters) as HotSpot writes it, and the
    reading that calls a JVM thrashing: in collections half a reading's time or more (a pause still
    under way counted up to now), with half its heap or more in use."""
    import struct

    from perflab.engine import jvm_gc

    def perf(values: dict[str, int]) -> bytes:
        entries = b""
        for name, value in values.items():
            raw = name.encode() + b"\0"
            raw += b"\0" * (-(20 + len(raw)) % 8)
            length = 20 + len(raw) + 8
            entries += struct.pack("<iiibbbbi", length, 20, 0, ord("J"), 0, 0, 0, 20 + len(raw)) + raw
            entries += struct.pack("<q", value)
        head = jvm_gc.MAGIC + bytes([1, 2, 0, 1]) + struct.pack("<iiqii", 0, 0, 0, 32, len(values))
        return head + entries

    base = {"sun.os.hrt.frequency": 1_000_000_000, "sun.gc.generation.1.maxCapacity": 128 << 20,
            "sun.gc.generation.0.maxCapacity": 128 << 20, "sun.gc.generation.1.space.0.used": 120 << 20,
            "sun.gc.collector.1.lastExitTime": 0}
    folder = tmp_path / "hsperfdata_me"
    folder.mkdir()
    monkeypatch.setattr(jvm_gc, "perf_file", lambda pid: str(folder / str(pid)))
    target = folder / "42"
    states = iter([
        # 1 s apart; a full collection entered at 1 s and still under way: 1 s of the second in GC
        {"sun.os.hrt.ticks": 2_000_000_000, "sun.gc.collector.1.time": 0,
         "sun.gc.collector.1.lastEntryTime": 1_000_000_000},
        {"sun.os.hrt.ticks": 3_000_000_000, "sun.gc.collector.1.time": 0,
         "sun.gc.collector.1.lastEntryTime": 1_000_000_000},
    ])
    target.write_bytes(perf({**base, **next(states)}))
    assert jvm_gc.counters(str(target))["sun.gc.generation.1.space.0.used"] == 120 << 20
    clock = iter([10.0, 11.0])
    monkeypatch.setattr(jvm_gc.time, "monotonic", lambda: next(clock))
    found = jvm_gc.thrashing(42, sleep=lambda s: target.write_bytes(perf({**base, **next(states)})))
    assert found is not None and found.gc_share == 1.0 and found.max_heap == 128 << 20
    # the same JVM running its code between two readings: not thrashing
    target.write_bytes(perf({**base, "sun.os.hrt.ticks": 1, "sun.gc.collector.1.time": 0}))
    clock = iter([10.0, 11.0])
    assert jvm_gc.thrashing(42, sleep=lambda s: None) is None
    assert jvm_gc.counters(str(tmp_path / "missing")) == {}
