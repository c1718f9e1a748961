"""Faults in Java benchmarks fail alone, with their reason, and the worker or the host survives:
exceptions (checked too), System.exit, heap exhaustion (-Xmx from the runtime spec), deadlocks (host
timeout), printing, failing setup, and load-time problems; driven over protocol v2 as the host would."""
from __future__ import annotations

import dataclasses

import pytest

# workerkit before perflab: it puts the source tree on sys.path when perflab is not installed
from workerkit import T, case_runner, installed_runtimes

from perflab.engine.plan import open_worker
from perflab.engine.worker import BenchmarkError
from perflab.errors import WorkerFailure
from perflab.toolchains.java import JavaToolchain

TOOLCHAIN = JavaToolchain()
RUNTIMES, pytestmark = installed_runtimes(TOOLCHAIN, "no JDK >= 17 with javac", without_note=True)

FAULTS = """package faults;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import perflab.Benchmark;
import perflab.Setup;

public class FaultsBench {
    @Benchmark
    public int throwsIt() {
        throw new IllegalStateException("bad input");
    }

    @Benchmark
    public void checked() throws Exception {
        throw new java.io.IOException("disk on fire");
    }

    @Benchmark
    public void exits() {
        System.exit(3);
    }

    @Benchmark
    public int prints() {
        System.out.println("hello from the benchmark");
        return 1;
    }

    @Benchmark
    public int oom() {
        List<long[]> keep = new ArrayList<>();
        for (;;) keep.add(new long[1 << 16]);
    }

    @Benchmark
    public void deadlock() throws InterruptedException {
        Object a = new Object(), b = new Object();
        CountDownLatch both = new CountDownLatch(2);
        Thread other = new Thread(() -> {
            synchronized (b) {
                both.countDown();
                try { both.await(); } catch (InterruptedException e) { return; }
                synchronized (a) { }
            }
        });
        other.setDaemon(true);
        other.start();
        synchronized (a) {
            both.countDown();
            both.await();
            synchronized (b) { }
        }
    }

    @Benchmark
    public int fine() {
        return 42;
    }

    @Benchmark
    public int recurses() {
        return 1 + recurses();
    }

    public static class SetupFails {
        @Setup
        public void prepare() {
            throw new IllegalArgumentException("no fixture");
        }

        @Benchmark
        public int never() {
            return 0;
        }
    }
}
"""


@pytest.fixture(scope="module")
def faults(tmp_path_factory):
    d = tmp_path_factory.mktemp("javafaults") / "faults"
    d.mkdir()
    f = d / "FaultsBench.java"
    f.write_text(FAULTS)
    return f


def start(faults, tmp_path, runtime=None, timeout=T):
    spec = TOOLCHAIN.prepare(runtime or RUNTIMES[0], [faults], tmp_path)
    w, loaded = open_worker(spec, timeout)
    assert loaded["errors"] == [], loaded["errors"]
    assert len(loaded["benchmarks"]) == 9
    return w


run_case = case_runner("faults.FaultsBench")


def assert_still_works(w):
    assert len(run_case(w, "fine")["ns"]) == 2


def test_exceptions_fail_alone_with_message_file_and_line(faults, tmp_path):
    w = start(faults, tmp_path)
    try:
        with pytest.raises(BenchmarkError) as e:
            run_case(w, "throwsIt")
        assert e.value.kind == "exception"
        assert str(e.value) == "java.lang.IllegalStateException: bad input"
        assert e.value.file == str(faults) and e.value.line == 13
        assert "FaultsBench.throwsIt" in e.value.detail
        with pytest.raises(BenchmarkError) as e:
            run_case(w, "checked")
        assert str(e.value) == "java.io.IOException: disk on fire" and e.value.line == 18
        with pytest.raises(BenchmarkError) as e:
            run_case(w, "recurses", invocations=1)
        assert str(e.value) == "java.lang.StackOverflowError" and e.value.file == str(faults)
        assert len(e.value.detail) < 200_000  # the traceback is the JVM's (capped at 1024 frames)
        with pytest.raises(BenchmarkError) as e:
            w.request("setup", T, benchmark="faults.FaultsBench.SetupFails.never", params={})
        assert "setup failed" in str(e.value) and "no fixture" in str(e.value)
        with pytest.raises(BenchmarkError) as e:
            w.request("run", T, stage="workload", invocations=1, iterations=1)
        assert e.value.kind == "state"
        assert_still_works(w)
    finally:
        w.close()


def test_system_exit_fails_the_case_with_its_reason(faults, tmp_path):
    w = start(faults, tmp_path)
    try:
        # the worker's shutdown hook answers the pending request before the JVM goes
        with pytest.raises(BenchmarkError) as e:
            run_case(w, "exits")
        assert "System.exit called by the benchmark" in str(e.value)
        assert e.value.file == str(faults) and e.value.line == 23
        assert w.proc.wait(timeout=T) == 3
    finally:
        w.close()
    w = start(faults, tmp_path)  # the next launch is unaffected
    try:
        assert_still_works(w)
    finally:
        w.close()


def test_printing_cannot_corrupt_the_protocol(faults, tmp_path):
    w = start(faults, tmp_path)
    try:
        assert len(run_case(w, "prints", invocations=160)["ns"]) == 2
        assert w.output_bytes() > 160 * len("hello from the benchmark")
        assert_still_works(w)
    finally:
        w.close()


def test_heap_exhaustion_is_the_benchmarks_error_and_the_worker_survives(faults, tmp_path):
    small = dataclasses.replace(RUNTIMES[0], flags=("-Xmx48m",))
    w = start(faults, tmp_path, small)
    try:
        with pytest.raises(BenchmarkError) as e:
            run_case(w, "oom", invocations=1, timeout=120)
        assert "java.lang.OutOfMemoryError" in str(e.value)
        assert "heap" in str(e.value).lower()
        assert_still_works(w)
    finally:
        w.close()


def test_deadlock_times_out_on_the_host(faults, tmp_path):
    w = start(faults, tmp_path)
    try:
        with pytest.raises(WorkerFailure) as e:
            run_case(w, "deadlock", invocations=1, timeout=3)
        assert "timed out" in str(e.value)
        assert w.proc.poll() is not None  # the host killed it
    finally:
        w.close()
    w = start(faults, tmp_path)
    try:
        assert_still_works(w)
    finally:
        w.close()
