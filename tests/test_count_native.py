"""--measure instructions under the real valgrind, for C/C++ and Rust: work(2N) counts twice work(N)
(2.000 ± 0.5 %), the same case counted twice gives the same Ir (within 0.01 %), and a benchmark that
crashes only under valgrind fails alone with valgrind's words. Each count takes seconds."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

# workerkit before perflab: it puts the source tree on sys.path when perflab is not installed
from workerkit import installed_runtimes, preferred, prepare_file
from workerkit import private_cache  # noqa: F401 (autouse: builds go to a temporary perflab cache)

from perflab.engine.count import CountFailed, Counter
from perflab.engine.worker import WorkerProcess
from perflab.model import Benchmark, Case
from perflab.toolchains.cpp import CppToolchain
from perflab.toolchains.rust import RustToolchain

pytestmark = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind not installed")

CPP = r'''#include "perflab.hpp"
#include <cstdlib>
#include <cstring>
static long long n_;
static unsigned long long work(long long n) {
    unsigned long long s = 0;
    for (long long i = 0; i < n; ++i) s += (unsigned long long)(i * i) ^ (s >> 3);
    return s;
}
PERFLAB_BENCH(work, perflab::param("n", {1000, 2000}),
              perflab::setup([](perflab::State& st) { n_ = st.param_int("n"); })) {
    perflab::do_not_optimize(work(n_));
}
static int* volatile nowhere = nullptr;
static bool under_valgrind() {
    const char* p = std::getenv("LD_PRELOAD");
    return p && std::strstr(p, "vgpreload");
}
PERFLAB_BENCH(crashes_under_valgrind) { if (under_valgrind()) *nowhere = 1; }
'''

RUST = r'''use perflab::{black_box, Bencher, Registry};
fn work(b: &mut Bencher) {
    let n: u64 = b.param_as("n");
    b.iter(move || {
        let mut s = 0u64;
        for i in 0..black_box(n) {
            s = s.wrapping_add((i * i) ^ (s >> 3));
        }
        s
    });
}
pub fn register(r: &mut Registry) {
    r.bench("work", work).param("n", &[1000, 2000]);
}
'''


def _setup(toolchain, runtime, folder: Path, name: str, text: str):
    """(counter, {benchmark name: Benchmark}) for `text` built on `runtime`."""
    _, spec = prepare_file(toolchain, runtime, folder / name, text)
    _check_marker_symbol(spec.argv[0])
    w = WorkerProcess(spec)
    try:
        loaded = w.load(spec.load_paths, spec.root, 120)
    finally:
        w.close()
    benches = {b["name"]: Benchmark.from_json(b, toolchain.language) for b in loaded["benchmarks"]}
    prep = SimpleNamespace(runtime=runtime, toolchain=toolchain, spec=spec)
    return Counter({runtime.label: prep}, timeout=300), benches


def _check_marker_symbol(binary: str) -> None:
    """The optimised worker keeps the marker as one global function under its own name, and no clone
    of it (a `.constprop`/`.isra` copy that callgrind would not match)."""
    if shutil.which("nm") is None:
        return
    out = subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout
    symbols = [line.split()[-2:] for line in out.splitlines() if "perflab_measured_region" in line]
    assert symbols == [["T", "perflab_measured_region"]], symbols


def _case(bench: Benchmark, runtime, **params) -> Case:
    idx = {a.name: a.values.index(str(params[a.name])) for a in bench.params}
    return Case(bench, tuple(idx.items()), runtime)


def _check_work(counter, bench, runtime):
    one = counter.count(_case(bench, runtime, n=1000))
    two = counter.count(_case(bench, runtime, n=2000))
    again = counter.count(_case(bench, runtime, n=1000))
    for rec in (one, two, again):
        assert rec["agreed"] and rec["error"] is None, rec["note"]
        assert len(rec["launches"]) == 2  # native code: the first two launches agree
    ratio = two["per_op"]["Ir"] / one["per_op"]["Ir"]
    assert abs(ratio - 2.0) <= 0.005 * 2.0, ratio
    assert abs(again["per_op"]["Ir"] - one["per_op"]["Ir"]) <= 1e-4 * one["per_op"]["Ir"]
    assert one["per_op"]["est_cycles"] >= one["per_op"]["Ir"]  # every access costs at least a cycle
    return one


CPP_TC = CppToolchain()
CPP_RUNTIMES, _ = installed_runtimes(CPP_TC, "no C++ compiler")


@pytest.fixture(scope="module")
def cpp(tmp_path_factory):
    if not CPP_RUNTIMES:
        pytest.skip("no C++ compiler")
    rt = preferred(CPP_RUNTIMES, lambda r: r.name.startswith("gcc"))
    return (*_setup(CPP_TC, rt, tmp_path_factory.mktemp("cpp"), "work_bench.cpp", CPP), rt)


def test_cpp_counts_scale_with_the_work_and_repeat(cpp):
    counter, benches, rt = cpp
    rec = _check_work(counter, benches["work"], rt)
    assert rec["marker"] == "perflab_measured_region" and rec["pinned"]["aslr"] == "off"
    assert rec["tool"].startswith("callgrind (valgrind-")


def test_cpp_a_crash_only_under_valgrind_fails_with_valgrinds_message(cpp):
    counter, benches, rt = cpp
    with pytest.raises(CountFailed) as exc:
        counter.count(_case(benches["crashes_under_valgrind"], rt))
    assert "SIGSEGV" in exc.value.reason and "valgrind:" in exc.value.reason, exc.value.reason


RUST_TC = RustToolchain()
RUST_RUNTIMES, _ = installed_runtimes(RUST_TC, "no Rust toolchain")


@pytest.fixture(scope="module")
def rust(tmp_path_factory):
    if not RUST_RUNTIMES:
        pytest.skip("no Rust toolchain")
    rt = preferred(RUST_RUNTIMES, lambda r: r.name == "rust-stable")
    return (*_setup(RUST_TC, rt, tmp_path_factory.mktemp("rust"), "work.rs", RUST), rt)


def test_rust_counts_scale_with_the_work_and_repeat(rust):
    counter, benches, rt = rust
    _check_work(counter, benches["work"], rt)
