"""criterion benches run unchanged on the Rust worker's compatibility layer (workers/rust/criterion): the
fixture crate tests/fixtures/rust_criterion uses every supported API (bench_function, bench_with_input,
groups with throughput and settings, BenchmarkId::new/from_parameter, iter, iter_batched(_ref) with each
BatchSize, iter_custom, iter_with_setup, iter_with_large_drop, both criterion_group! forms), APIs perflab
cannot honour (to_async, a custom measurement) that fail their benchmark alone, and a file that does not
compile, which fails alone with the compiler's file:line while the rest is measured."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from workerkit import REPO, T, installed_runtimes, perflab_cli, preferred, worker, write
from workerkit import private_cache  # noqa: F401 (autouse: builds go to a temporary perflab cache)

from perflab.engine.worker import BenchmarkError
from perflab.model import Runtime
from perflab.toolchains.rust import RustToolchain
from perflab.toolchains.rust_crate import declared_benchmarks, is_criterion_file, read_crate

CRATE = REPO / "tests" / "fixtures" / "rust_criterion"
BENCHES = CRATE / "benches"

TC = RustToolchain()
RUNTIMES, pytestmark = installed_runtimes(TC, "no Rust toolchain")


@pytest.fixture(scope="module")
def rt() -> Runtime:
    return preferred(RUNTIMES, lambda r: r.name == "rust-stable")


@pytest.fixture(scope="module")
def spec(rt, tmp_path_factory):
    return TC.prepare(rt, TC.find_sources(CRATE), tmp_path_factory.mktemp("work"))


@pytest.fixture(scope="module")
def loaded(spec):
    with worker(spec) as w:
        return w.request("load", T, paths=spec.load_paths, root=spec.root)


def test_criterion_files_are_found_in_the_crate_and_its_benches_folder():
    names = [p.name for p in TC.find_sources(CRATE)]
    assert names == ["api.rs", "broken.rs", "legacy.rs", "unsupported.rs"]  # not src/lib.rs
    assert [p.name for p in TC.find_sources(BENCHES)] == names
    assert not is_criterion_file("use criterion::Criterion;\nfn main() {}\n")


def test_the_crates_dev_dependencies_and_required_features_are_read(tmp_path):
    crate = tmp_path / "c"
    write(crate / "Cargo.toml", """
        [package]
        name = "c"
        version = "0.1.0"
        edition = "2018"
        [dependencies]
        local = { path = "../local" }
        opt = { version = "1", optional = true }
        [dev-dependencies]
        bench = { version = "0.4", package = "criterion" }
        rand = "0.8"
        [[bench]]
        name = "b"
        harness = false
        required-features = ["fast"]
        """)
    write(crate / "src" / "lib.rs", "")
    c = read_crate(crate, tmp_path / "shim")
    assert c.has_lib and c.edition == "2018" and c.uses_criterion
    assert c.deps["local"] == {"path": str((tmp_path / "local").resolve())}
    assert "opt" not in c.deps and c.deps["rand"] == "0.8"
    assert c.deps["bench"] == {"path": str(tmp_path / "shim"), "package": "criterion"}
    assert c.bench_features[(crate / "benches" / "b.rs").resolve()] == ["fast"]


def test_load_lists_each_benchmark_with_group_parameters_and_throughput(loaded):
    benches = {b["id"]: b for b in loaded["benchmarks"]}
    # top-level benchmarks are grouped by their file, group members by the group's name
    assert {"api.fib 20", "api.sum borrowed", "api.fib_input", "sizes.fib", "sizes.sizes",
            "batched.iter_batched", "batched.iter_batched_ref", "batched.per_iteration",
            "batched.iter_with_setup", "batched.iter_with_large_drop", "batched.iter_custom",
            "unsupported.async", "unsupported.still_runs", "legacy.fib_over"} == set(benches)
    # criterion 0.3's bench_function_over_inputs: each input ({:?}) a parameter value
    assert benches["legacy.fib_over"]["params"] == [{"name": "parameter", "values": ["5", "9"]}]
    assert benches["sizes.fib"]["params"] == [{"name": "parameter", "values": ["10", "40"]}]
    assert benches["sizes.sizes"]["params"] == [{"name": "parameter", "values": ["8", "64"]}]
    assert benches["api.fib_input"]["params"] == [{"name": "parameter", "values": ["10"]}]
    assert "10: 10 elements" in benches["sizes.fib"]["meta"]["throughput"]
    assert "64: 64 bytes" in benches["sizes.sizes"]["meta"]["throughput"]
    assert benches["api.fib 20"]["file"] == str(BENCHES / "api.rs")
    assert benches["api.fib 20"]["line"] == 12  # the bench_function call
    assert benches["sizes.fib"]["line"] == 19   # inside the helper taking &mut BenchmarkGroup<WallTime>


def test_a_custom_measurement_fails_its_benchmark_alone_at_load(loaded):
    err = next(e for e in loaded["errors"] if (e.get("benchmark") or {}).get("id") == "unsupported.ticks")
    assert "criterion::measurement custom measurement" in err["message"]
    assert f"{BENCHES / 'unsupported.rs'}:39" in err["message"]  # where with_measurement is called
    assert err["file"] == str(BENCHES / "unsupported.rs") and err["line"] == 33


def test_a_file_that_does_not_compile_fails_alone_with_the_compilers_file_and_line(loaded):
    err = next(e for e in loaded["errors"] if e["file"] == str(BENCHES / "broken.rs"))
    assert err["benchmark"] == {"id": "broken.broken_fn", "name": "broken_fn", "group": "broken"}
    assert "does not compile" in err["message"] and "no_such_function" in err["message"]
    assert f"{BENCHES / 'broken.rs'}:5:" in err["message"]
    assert len(loaded["benchmarks"]) == 14  # everything else was built and listed


@pytest.mark.parametrize("bid,params", [
    ("api.fib 20", {}), ("api.sum borrowed", {}), ("api.fib_input", {"parameter": 0}),
    ("sizes.fib", {"parameter": 1}), ("sizes.sizes", {"parameter": 0}),
    ("batched.iter_batched", {}), ("batched.iter_batched_ref", {}), ("batched.per_iteration", {}),
    ("batched.iter_with_setup", {}), ("batched.iter_with_large_drop", {}), ("batched.iter_custom", {}),
    ("legacy.fib_over", {"parameter": 1}),
])
def test_each_benchmark_is_measured_from_inside_its_closure(spec, bid, params):
    with worker(spec, load=True) as w:
        for _ in range(2):  # a second case of the same benchmark in the same worker
            w.request("setup", T, benchmark=bid, params=params)
            for stage in ("pilot", "warmup", "overhead", "workload"):
                r = w.request("run", T, stage=stage, invocations=8, iterations=3)
                assert len(r["ns"]) == 3 and all(x >= 0 for x in r["ns"])
            r = w.request("run", T, stage="workload", invocations=8, iterations=2, with_overhead=True)
            assert len(r["overhead_ns"]) == 2
            w.request("teardown", T)


def test_throughput_is_a_rate_per_op_in_the_diagnostics_of_its_case(spec):
    """criterion's Throughput of the case's own parameter (Elements(40), Bytes(64)) reaches the host as
    a quantity per op, which it divides by the measured mean (report/rates.py); none without it."""
    with worker(spec, load=True) as w:
        for bid, params, want in [
                ("sizes.fib", {"parameter": 1}, {"per_op": 40.0, "unit": "elem", "base": 1000, "invert": False}),
                ("sizes.sizes", {"parameter": 1}, {"per_op": 64.0, "unit": "B", "base": 1024, "invert": False}),
                ("api.fib 20", {}, None)]:
            w.request("setup", T, benchmark=bid, params=params)
            d = w.request("run", T, stage="diagnose", invocations=4, iterations=1)
            assert (d.get("rates") or {}).get("Throughput") == want, bid
            w.request("teardown", T)


def test_inputs_and_large_outputs_are_made_and_dropped_outside_allocation_counting(spec):
    with worker(spec, load=True) as w:
        w.request("setup", T, benchmark="batched.iter_batched", params={})
        assert w.request("run", T, stage="diagnose", invocations=20, iterations=2)["allocs"] == 0
        w.request("teardown", T)
        w.request("setup", T, benchmark="batched.iter_with_large_drop", params={})
        assert w.request("run", T, stage="diagnose", invocations=20, iterations=2)["allocs"] == 40
        w.request("teardown", T)
        w.request("setup", T, benchmark="sizes.sizes", params={"parameter": 1})
        d = w.request("run", T, stage="diagnose", invocations=5, iterations=1)
        assert d["allocs"] == 5 and d["alloc_bytes"] == 5 * 64  # vec![0u8; 64] per call
        w.request("teardown", T)


def test_to_async_fails_its_benchmark_alone_and_the_worker_goes_on(spec):
    with worker(spec, load=True) as w:
        with pytest.raises(BenchmarkError) as e:
            w.request("setup", T, benchmark="unsupported.async", params={})
        assert "Bencher::to_async" in str(e.value)
        assert e.value.file == str(BENCHES / "unsupported.rs") and e.value.line == 28
        w.request("setup", T, benchmark="unsupported.still_runs", params={})
        assert len(w.request("run", T, stage="workload", invocations=4, iterations=1)["ns"]) == 1
        w.request("teardown", T)


def test_a_perflab_api_file_that_does_not_compile_fails_alone(rt, tmp_path):
    good = write(tmp_path / "good.rs", """
        use perflab::Registry;
        pub fn register(r: &mut Registry) { r.bench("fine", |b| b.iter(|| 1 + 1)); }
        """)
    bad = write(tmp_path / "bad.rs", """
        use perflab::Registry;

        pub fn register(r: &mut Registry) {
            r.bench("x", |b| b.iter(|| undefined_thing()));
        }
        """)
    spec = TC.prepare(rt, [good, bad], tmp_path)
    with worker(spec) as w:
        loaded = w.request("load", T, paths=spec.load_paths, root=spec.root)
    assert [b["id"] for b in loaded["benchmarks"]] == ["good.fine"]
    (err,) = loaded["errors"]
    assert err["benchmark"]["id"] == "bad.x" and f"{bad}:4:" in err["message"]
    assert "undefined_thing" in err["message"]


def test_declared_benchmarks_are_read_from_the_text():
    got = declared_benchmarks(BENCHES / "api.rs")
    assert {"name": "fib 20", "group": "api", "line": 12} in got
    assert any(b["name"] == "iter_custom" and b["group"] == "batched" for b in got)


def test_perflab_run_measures_the_rest_and_exits_1(rt, tmp_path):
    """The whole crate through the CLI: each failure is one row with its reason, the rest is measured."""
    out = subprocess.run([*perflab_cli(), "run", str(CRATE), "--runtimes", rt.name, "--job", "dry",
                          "--store", "none", "--out", str(tmp_path), "-e", "json"],
                         capture_output=True, text=True, timeout=1200)
    assert out.returncode == 1, out.stderr[-2000:]
    cases = json.loads(next(tmp_path.glob("*.json")).read_text())["cases"]
    status = {(c["benchmark"]["id"], tuple(c["params"].values())): c for c in cases}
    failed = {k[0]: c["error"] for k, c in status.items() if c["status"] != "ok"}
    assert set(failed) == {"broken.broken_fn", "unsupported.async", "unsupported.ticks"}
    assert f"{BENCHES / 'broken.rs'}:5:" in failed["broken.broken_fn"]
    assert "to_async" in failed["unsupported.async"] and "with_measurement" in failed["unsupported.ticks"]
    ok = [k for k, c in status.items() if c["status"] == "ok"]
    assert len(ok) == 16 and ("sizes.fib", ("40",)) in ok and ("legacy.fib_over", ("9",)) in ok
    assert "protocol" not in out.stdout + out.stderr


def test_the_ecosystem_slice_runs_one_small_crate_unchanged(tmp_path):
    """CI's slice of bench/ecosystems.py for rust-criterion: one small crate fetched by cargo (sha256
    pinned), its criterion benches run under perflab with --job dry."""
    out = subprocess.run([sys.executable, str(REPO / "bench" / "ecosystems.py"), "--ecosystems", "rust-criterion",
                          "--slice", "--job", "dry", "--no-native", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    doc = json.loads((tmp_path / "ecosystems.json").read_text())
    (r,) = doc["rust-criterion"]
    assert r["error"] == "" and r["protocol_errors"] == 0
    assert r["benchmarks_found"] > 0 and r["ran_unchanged"] == r["benchmarks_found"]


def test_the_study_names_contention_only_when_criterions_cpu_share_shows_it():
    """bench/eco/rust_criterion.cause_of: criterion's wall-clock mean against perflab's CPU-timed one is
    put down to contention only when criterion's process was measurably off the CPU and its figure
    scaled by that share meets perflab's; a full CPU share never says contention."""
    sys.path.insert(0, str(REPO / "bench"))
    from eco.common import Comparison
    from eco.rust_criterion import cause_of
    comp = Comparison("g.f", 3.0, 2.9, 3.1, 12.0, 11.0, 13.0)
    est = {"cpu_timed": True, "gross_mean": 3.3, "overhead_per_op": 0.3}
    assert cause_of(comp, est, 0.25).startswith("contention: criterion's process was on a CPU 25 %")
    assert cause_of(comp, est, 1.0) == "" and cause_of(comp, est, None) == ""
    assert cause_of(comp, est, 0.5) == ""                    # scaled, 6 ns: still not perflab's 3 ns
    assert cause_of(comp, {**est, "cpu_timed": False}, 0.25) == ""  # perflab's mean is wall time too
    # perflab's mean before subtracting its loop's empty call is criterion's: loop overhead
    near = Comparison("g.f", 2.7, 2.6, 2.8, 3.05, 3.0, 3.1)
    assert cause_of(near, {**est, "gross_mean": 3.0}, 1.0).startswith("loop overhead")
