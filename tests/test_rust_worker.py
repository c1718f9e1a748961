"""The Rust worker driven over protocol v2 by the host: conformance vectors, the toolchain (runtimes, flags,
generated crate, compile errors, missing toolchains), faults that must fail alone (panic, abort, segfault,
endless loop, printing), the dead-code trap and the code size diagnostics."""
from __future__ import annotations

import dataclasses
import json
import statistics
import subprocess
from pathlib import Path

import pytest

# workerkit before perflab: it puts the source tree on sys.path when perflab is not installed
from workerkit import (REPO, T, builds_before_and_after_editing, case_runner, installed_runtimes, perflab_cli,
                       preferred, prepare_file, worker)
from workerkit import private_cache  # noqa: F401 (autouse: builds go to a temporary perflab cache)

from perflab.conformance import VECTORS, run_vector
from perflab.engine.worker import BenchmarkError
from perflab.errors import PrepareError, WorkerFailure
from perflab.model import Runtime
from perflab.toolchains.rust import RustToolchain, format_build_error, parse_flags

FIXTURE = REPO / "protocol" / "fixtures" / "rust"
EXAMPLES = REPO / "examples" / "rust"

TC = RustToolchain()
RUNTIMES, pytestmark = installed_runtimes(TC, "no Rust toolchain")

FAULTS = r'''use perflab::{black_box, Bencher, Registry};

fn trap(b: &mut Bencher) {
    let n = black_box(2000u64);
    // a pure computation whose result the benchmark never uses: perflab sinks it, so it is measured
    b.iter(move || {
        let mut s = 0u64;
        for i in 0..n {
            s = s.wrapping_add((i * i) ^ (s >> 3));
        }
        s
    });
}

pub fn register(r: &mut Registry) {
    r.bench("fine", |b| b.iter(|| black_box(40u64) + 2));
    r.bench("panics", |b| b.iter(|| if black_box(true) { panic!("kaboom {}", 42) }));
    r.bench("setup_panics", |b| {
        let v: Vec<u8> = Vec::new();
        let _ = v[black_box(3)];
        b.iter(|| ())
    });
    r.bench("aborts", |b| b.iter(|| if black_box(true) { std::process::abort() }));
    r.bench("segfaults", |b| b.iter(|| unsafe { black_box(std::ptr::null_mut::<u64>()).write_volatile(1) }));
    r.bench("loops", |b| b.iter(|| loop { black_box(0); }));
    r.bench("prints", |b| b.iter(|| { println!("{{\"v\":1,\"id\":99,\"type\":\"samples\"}}"); eprintln!("noise"); 1 }));
    r.bench("trap", trap);
    r.bench("noop", |b| b.iter(|| ()));
}
'''


@pytest.fixture(scope="module")
def rt() -> Runtime:
    return preferred(RUNTIMES, lambda r: r.name == "rust-stable")


@pytest.fixture(scope="module")
def fixture_spec(rt, tmp_path_factory):
    return TC.prepare(rt, TC.find_sources(FIXTURE), tmp_path_factory.mktemp("work"))


@pytest.fixture(scope="module")
def faults(rt, tmp_path_factory):
    return prepare_file(TC, rt, tmp_path_factory.mktemp("faults") / "faults.rs", FAULTS)


run_case = case_runner("faults")


# -- conformance & fixture ---------------------------------------------------------------------

@pytest.mark.parametrize("vector", sorted(VECTORS.glob("*.json")), ids=lambda p: p.stem)
def test_conformance_vectors(fixture_spec, vector):
    run_vector(fixture_spec, json.loads(vector.read_text()))


def test_hello_and_loaded_shape(fixture_spec, rt):
    with worker(fixture_spec) as w:
        assert w.hello.language == "rust"
        assert w.hello.runtime["version"] == rt.version
        assert {"alloc", "allocs", "codesize"} <= set(w.hello.capabilities)
        loaded = w.request("load", T, paths=fixture_spec.load_paths, root=fixture_spec.root)
        benches = {b["name"]: b for b in loaded["benchmarks"]}
        assert benches["add"]["id"] == "fixture.add" and benches["add"]["group"] == "fixture"
        assert benches["add"]["file"] == str(FIXTURE / "fixture.rs") and benches["add"]["line"] > 0
        # load with no matching path: nothing
        assert w.request("load", T, paths=["/nonexistent/x.rs"], root="/")["benchmarks"] == []


def test_diagnose_reports_allocations_and_code_size(fixture_spec):
    with worker(fixture_spec) as w:
        w.request("load", T, paths=fixture_spec.load_paths, root=fixture_spec.root)
        w.request("setup", T, benchmark="fixture.sized", params={"n": 2})
        d = w.request("run", T, stage="diagnose", invocations=10, iterations=2)
        assert d["allocs"] == 20 and d["alloc_bytes"] == 20 * 100 * 8
        assert isinstance(d["code_size"], int) and d["code_size"] > 0
        w.request("teardown", T)
        w.request("setup", T, benchmark="fixture.noop", params={})
        d = w.request("run", T, stage="diagnose", invocations=10, iterations=1)
        assert d["allocs"] == 0 and 0 < d["code_size"] <= 16


# -- faults ----------------------------------------------------------------------------------

def test_panic_is_an_exception_and_the_worker_stays_usable(faults):
    f, spec = faults
    with worker(spec) as w:
        w.request("load", T, paths=spec.load_paths, root=spec.root)
        with pytest.raises(BenchmarkError) as e:
            run_case(w, "panics")
        assert e.value.kind == "exception" and "kaboom 42" in str(e.value)
        assert e.value.file == str(f) and e.value.line == 17
        w.request("teardown", T)
        with pytest.raises(BenchmarkError) as e:
            w.request("setup", T, benchmark="faults.setup_panics", params={})
        assert e.value.kind == "exception" and "index out of bounds" in str(e.value)
        assert len(run_case(w, "fine")["ns"]) == 2


@pytest.mark.parametrize("name,signal", [("aborts", "SIGABRT"), ("segfaults", "SIGSEGV")])
def test_crash_fails_the_case_with_the_signal(faults, name, signal):
    _, spec = faults
    with worker(spec) as w:
        w.request("load", T, paths=spec.load_paths, root=spec.root)
        with pytest.raises(WorkerFailure) as e:
            run_case(w, name)
        assert signal in str(e.value)


def test_endless_loop_times_out_on_the_host(faults):
    _, spec = faults
    with worker(spec) as w:
        w.request("load", T, paths=spec.load_paths, root=spec.root)
        with pytest.raises(WorkerFailure) as e:
            run_case(w, "loops", timeout=2)
        assert "timed out" in str(e.value)
        assert w.proc.poll() is not None  # the host killed it


def test_printing_cannot_corrupt_the_protocol(faults):
    _, spec = faults
    with worker(spec) as w:
        w.request("load", T, paths=spec.load_paths, root=spec.root)
        assert len(run_case(w, "prints", invocations=3)["ns"]) == 2
        assert len(run_case(w, "fine")["ns"]) == 2


def test_dead_code_trap_is_measured_not_optimised_away(faults):
    """An unused pure computation costs far more than the overhead loop (no absolute timings)."""
    _, spec = faults
    with worker(spec) as w:
        w.request("load", T, paths=spec.load_paths, root=spec.root)
        work = run_case(w, "trap", invocations=200, iterations=5)["ns"]
        over = w.request("run", T, stage="overhead", invocations=200, iterations=5)["ns"]
        assert statistics.median(work) > 20 * statistics.median(over)


def test_cli_run_faults_fail_alone(faults, rt, tmp_path):
    f, _ = faults
    out = subprocess.run([*perflab_cli(), "run", str(f), "--runtimes", rt.name, "--job", "dry", "--timeout", "5",
                          "--store", "none", "--out", str(tmp_path), "-e", "json"],
                         capture_output=True, text=True, timeout=600)
    files = list(tmp_path.glob("*.json"))
    assert files, out.stdout[-3000:] + out.stderr[-3000:]
    status = {c["benchmark"]["name"]: c["status"] for c in json.loads(files[0].read_text())["cases"]}
    for name in ("panics", "setup_panics", "aborts", "segfaults", "loops"):
        assert status[name] != "ok", status
    for name in ("fine", "prints", "trap", "noop"):
        assert status[name] == "ok", status


# -- toolchain -------------------------------------------------------------------------------

def test_runtimes_are_rustup_toolchains():
    names = [r.name for r in RUNTIMES]
    assert all(n.startswith("rust-") for n in names)
    for r in RUNTIMES:
        assert Path(r.executable).name == "rustc" and r.version[0].isdigit()


def test_flags_map_to_cargo_profile_and_rustflags():
    st = parse_flags(("opt-level=3,lto=fat", "target-cpu=native", "-Zshare-generics", "codegen-units=1"))
    assert st.env == {"CARGO_PROFILE_RELEASE_OPT_LEVEL": "3", "CARGO_PROFILE_RELEASE_LTO": "fat",
                      "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "1"}
    assert st.rustflags == ["-Ctarget-cpu=native", "-Zshare-generics"]
    assert parse_flags(("profile=dev", "opt-level=1")).env == {"CARGO_PROFILE_DEV_OPT_LEVEL": "1"}
    assert parse_flags(("count-allocs=off",)).count_allocs is False
    with pytest.raises(PrepareError):
        parse_flags(("fast",))


def test_own_global_allocator_with_count_allocs_off(rt, tmp_path):
    f = tmp_path / "own_alloc.rs"
    f.write_text("use perflab::Registry;\n#[global_allocator]\nstatic A: std::alloc::System = std::alloc::System;\n"
                 "pub fn register(r: &mut Registry) { r.bench(\"v\", |b| b.iter(|| vec![1u8; 10])); }\n")
    spec = TC.prepare(dataclasses.replace(rt, flags=("count-allocs=off",)), [f], tmp_path)
    with worker(spec) as w:
        assert "alloc" not in w.hello.capabilities
        w.request("load", T, paths=spec.load_paths, root=spec.root)
        w.request("setup", T, benchmark="own_alloc.v", params={})
        d = w.request("run", T, stage="diagnose", invocations=4, iterations=1)
        assert d["allocs"] is None and d["code_size"] > 0


def test_flags_build_a_separate_binary(rt, tmp_path):
    sources = TC.find_sources(FIXTURE)
    a = TC.prepare(rt, sources, tmp_path)
    b = TC.prepare(dataclasses.replace(rt, flags=("opt-level=1,codegen-units=1",)), sources, tmp_path)
    assert a.argv != b.argv
    with worker(b) as w:
        w.request("load", T, paths=b.load_paths, root=b.root)
        w.request("setup", T, benchmark="fixture.add", params={})
        assert len(w.request("run", T, stage="workload", invocations=10, iterations=1)["ns"]) == 1


def test_compile_error_names_file_and_line(rt, tmp_path):
    bad = tmp_path / "bad.rs"
    bad.write_text("use perflab::Registry;\n\npub fn register(r: &mut Registry) {\n"
                   "    r.bench(\"x\", |b| b.iter(|| undefined_thing()));\n}\n")
    # the file fails alone (tests/test_rust_criterion.py has it beside a good one): the build leaves it out
    spec = TC.prepare(rt, [bad], tmp_path)
    with worker(spec) as w:
        loaded = w.request("load", T, paths=spec.load_paths, root=spec.root)
    assert loaded["benchmarks"] == []
    (err,) = loaded["errors"]
    assert f"{bad}:4:" in err["message"] and "undefined_thing" in err["message"] and err["benchmark"]["id"] == "bad.x"


def test_missing_toolchain_is_a_clear_error(tmp_path):
    ghost = Runtime(name="rust-9.9.9", language="rust", version="9.9.9", executable="/nonexistent/bin/rustc")
    with pytest.raises(PrepareError) as e:
        TC.prepare(ghost, TC.find_sources(FIXTURE), tmp_path)
    assert "rust-9.9.9" in str(e.value) and "rustup" in str(e.value)


def test_find_sources_and_user_tree_untouched(rt, tmp_path):
    srcs = TC.find_sources(EXAMPLES)
    assert [s.name for s in srcs] == ["words.rs"]
    before = sorted(p.relative_to(EXAMPLES) for p in EXAMPLES.rglob("*"))
    spec = TC.prepare(rt, srcs, tmp_path)
    assert sorted(p.relative_to(EXAMPLES) for p in EXAMPLES.rglob("*")) == before
    with worker(spec) as w:
        loaded = w.request("load", T, paths=spec.load_paths, root=spec.root)
        names = {b["name"] for b in loaded["benchmarks"]}
        assert names == {"split_whitespace", "byte_scan", "collect_vec"}


def test_format_build_error_heads_with_location():
    text = ("   Compiling x v0.0.0\nerror[E0425]: cannot find function `nope` in this scope\n"
            "  --> /abs/b.rs:7:9\n   |\n7  |     nope();\n   |     ^^^^ not found\n\nwarning: unused\n")
    out = format_build_error(text)
    assert out.splitlines()[0] == "/abs/b.rs:7:9: error[E0425]: cannot find function `nope` in this scope"
    assert "Compiling" not in out and "warning" not in out


def test_rust_flags_label(rt):
    assert dataclasses.replace(rt, flags=("opt-level=3,lto=fat",)).label == f"{rt.name}:opt-level=3,lto=fat"


def test_a_runtime_that_fails_to_build_fails_alone(rt, tmp_path):
    out = subprocess.run([*perflab_cli(), "run", str(FIXTURE), "--runtimes", f"{rt.name},{rt.name}:opt-level=banana",
                          "--filter", "*add", "--job", "dry", "--store", "none", "--out", str(tmp_path), "-e", "json"],
                         capture_output=True, text=True, timeout=600)
    cases = json.loads(next(tmp_path.glob("*.json")).read_text())["cases"]
    status = {c["runtime"]["label"]: c for c in cases}
    assert status[rt.name]["status"] == "ok"
    bad = status[f"{rt.name}:opt-level=banana"]
    assert bad["status"] != "ok" and "banana" in (bad["error"] or "") + bad.get("error_detail", ""), out.stderr


def test_a_shared_module_rebuilds_when_it_changes(rt, tmp_path):
    """A benchmark file may bring in a helper shared with others (`#[path = "…"] mod …;`): editing the
    helper must give a new build, not the cached binary."""
    first, second = builds_before_and_after_editing(
        TC, rt, tmp_path, ("helper.rs", "pub fn helper() -> u64 { 1 }\n", "pub fn helper() -> u64 { 2 }  // changed\n"),
        ("bench_shared.rs", 'use perflab::Registry;\n#[path = "../common/helper.rs"]\nmod helper;\n\n'
                            'pub fn register(r: &mut Registry) { r.bench("uses_helper", |b| b.iter(|| helper::helper())); }\n'))
    assert first != second


def test_module_files_follow_path_mods_plain_mods_and_includes(tmp_path):
    from perflab.toolchains.rust import module_files
    (tmp_path / "a.rs").write_text('#[path = "sub/b.rs"] pub(crate) mod b;\nmod c;\nconst D: &str = include_str!("d.txt");\n')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.rs").write_text('mod e;\n')
    (tmp_path / "sub" / "e.rs").write_text("")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "mod.rs").write_text("")
    (tmp_path / "d.txt").write_text("data")
    got = {p.relative_to(tmp_path.resolve()).as_posix() for p in module_files(tmp_path / "a.rs")}
    assert got == {"sub/b.rs", "sub/e.rs", "c/mod.rs", "d.txt"}
