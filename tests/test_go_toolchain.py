"""The Go integration's pure-Python parts: finding benchmark files, scanning Benchmark functions and
their `//perflab:` directives, the testing-package hook patch, and runtime naming (no go needed)."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from perflab.errors import PrepareError
from perflab.runtimes import go as goruntimes
from perflab.toolchains import get
from perflab.toolchains.go import (GEN_INTERNAL, GoToolchain, _is_benchmark_name, generate_external,
                                   generate_internal, scan_file, stdlib_testing_overlay)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def test_registered():
    assert isinstance(get("go"), GoToolchain)


def test_benchmark_names_follow_go_test():
    assert _is_benchmark_name("Benchmark")
    assert _is_benchmark_name("BenchmarkSort")
    assert _is_benchmark_name("Benchmark_noop")
    assert not _is_benchmark_name("Benchmarking")


def test_find_sources(tmp_path):
    write(tmp_path / "a" / "a_test.go", "package a\n\nimport \"testing\"\n\nfunc BenchmarkA(b *testing.B) {}\n")
    write(tmp_path / "a" / "a.go", "package a\n")
    write(tmp_path / "a" / "only_test.go", "package a\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n")
    write(tmp_path / "n" / "n.go", 'package n\n\nimport "perflab.dev/go/perflab"\n\nvar _ = perflab.Sink[int]\n')
    write(tmp_path / "a" / "testdata" / "t_test.go", "package t\n\nfunc BenchmarkT(b *testing.B) {}\n")
    write(tmp_path / "vendor" / "v" / "v_test.go", "package v\n\nfunc BenchmarkV(b *testing.B) {}\n")
    write(tmp_path / "_skip" / "s_test.go", "package s\n\nfunc BenchmarkS(b *testing.B) {}\n")
    found = GoToolchain().find_sources(tmp_path)
    assert [p.relative_to(tmp_path.resolve()).as_posix() for p in found] == ["a/a_test.go", "n/n.go"]
    assert GoToolchain().find_sources(tmp_path / "a" / "a_test.go") == [(tmp_path / "a" / "a_test.go").resolve()]


def test_scan_file_directives_and_shapes(tmp_path):
    f = write(tmp_path / "x_test.go", """
        package x

        import "testing"

        // BenchmarkFast measures the fast path.
        // More prose.
        //
        //perflab:baseline ops=4 category=io,net
        func BenchmarkFast(b *testing.B) {
            for b.Loop() {
            }
        }

        func BenchmarkSubs(bb *testing.B) {
            bb.Run("n=1", func(b *testing.B) {})
        }

        func BenchmarkHelper(b *testing.B) {
            helper(1, b)
        }

        func Benchmarking(b *testing.B) {}

        func BenchmarkPlain(b *testing.B) {
            for i := 0; i < b.N; i++ {
            }
        }
    """)
    got = {b.func: b for b in scan_file(f)}
    assert list(got) == ["BenchmarkFast", "BenchmarkSubs", "BenchmarkHelper", "BenchmarkPlain"]
    fast = got["BenchmarkFast"]
    assert (fast.baseline, fast.ops, fast.categories, fast.loop, fast.may_have_subs) == (
        True, 4, ["io", "net"], True, False)
    assert fast.description == "measures the fast path."
    assert fast.line == 9
    assert got["BenchmarkSubs"].may_have_subs and not got["BenchmarkSubs"].loop
    assert got["BenchmarkHelper"].may_have_subs
    plain = got["BenchmarkPlain"]
    assert (plain.baseline, plain.ops, plain.may_have_subs, plain.loop) == (False, 1, False, False)


def test_generated_code_mentions_every_benchmark(tmp_path):
    f = write(tmp_path / "x_test.go", "package x\n\nimport \"testing\"\n\nfunc BenchmarkA(b *testing.B) {}\n")
    benches = scan_file(f)
    internal = generate_internal("x", "example.com/x", benches, has_loop=True)
    assert "package x\n" in internal and "F: BenchmarkA" in internal and "for b.Loop()" in internal
    assert "func TestPerflabWorkerZZ(" in internal
    assert "for b.Loop()" not in generate_internal("x", "example.com/x", benches, has_loop=False)
    external = generate_external("x", "example.com/x", benches)
    assert "package x_test\n" in external and '"example.com/x_test"' in external
    assert GEN_INTERNAL.endswith("_test.go")


def test_testing_overlay_patches_run_once(tmp_path):
    src = tmp_path / "src" / "testing"
    write(src / "testing.go", "package testing\n\nfunc (c *common) setOutputWriter() {}\n")
    timer = ("func (b *B) StartTimer() {\n\tif !b.timerOn {\n\t\tb.start = time.Now()\n\t}\n}\n"
             "func (b *B) StopTimer() {\n\tif b.timerOn {\n\t\tb.duration += time.Since(b.start)\n"
             "\t\tb.netBytes += memStats.TotalAlloc - b.startBytes\n\t}\n}\n"
             "func (b *B) ResetTimer() {\n\tif b.timerOn {\n\t\tb.start = time.Now()\n\t}\n"
             "\tb.duration = 0\n}\n")
    write(src / "benchmark.go", "package testing\n\nfunc (b *B) Run(name string, f func(b *B)) bool {\n"
                                "\treturn true\n}\n" + timer)
    hook, patched = stdlib_testing_overlay(tmp_path)
    assert "perflabRunHook(b, name, f)" in patched
    assert "b.setOutputWriter()" in hook and "func PerflabRun(" in hook
    # protocol v2: the CPU clock is read just outside the *B's timer reads
    assert patched.count("\t\tperflabCPUStart(b)\n\t\tb.start = time.Now()\n") == 2
    assert "b.duration += time.Since(b.start)\n\t\tperflabCPUStop(b)\n" in patched
    assert "\tb.duration = 0\n\tperflabCPUReset(b)\n" in patched
    # the timed interval's GC count is read just after StopTimer's own MemStats read
    assert "b.netBytes += memStats.TotalAlloc - b.startBytes\n\t\tperflabGCStop(b)\n" in patched
    write(src / "benchmark.go", "package testing\n\nfunc (b *B) Run(name string, f func(*B)) bool {}\n" + timer)
    with pytest.raises(PrepareError, match="Run"):
        stdlib_testing_overlay(tmp_path)
    write(src / "benchmark.go", "package testing\n\nfunc (b *B) Run(name string, f func(b *B)) bool {\n"
                                "\treturn true\n}\n" + timer.replace("time.Since", "since"))
    with pytest.raises(PrepareError, match="timer"):
        stdlib_testing_overlay(tmp_path)


def test_runtime_naming():
    rt = goruntimes.runtime_for("/x/bin/go", {"GOVERSION": "go1.22.12", "GOROOT": "/x"})
    assert (rt.name, rt.version, rt.language) == ("go1.22", "1.22.12", "go")
    assert goruntimes.runtime_for("/x/bin/go", {"GOVERSION": "go1.20.5", "GOROOT": "/x"}) is None
    assert goruntimes.runtime_for("/x/bin/go", {"GOVERSION": "devel go1.27-abc", "GOROOT": "/x"}).name == "go-devel"


def test_installable_runtimes_are_offered(monkeypatch, tmp_path):
    monkeypatch.setattr(goruntimes.shutil, "which", lambda name: None)
    monkeypatch.setenv("GOPATH", str(tmp_path))
    monkeypatch.setattr(goruntimes.Path, "home", classmethod(lambda cls: tmp_path))
    rts = goruntimes.discover()
    assert [r.name for r in rts] == [f"go1.{m}" for m in range(21, 27)]
    assert all(not r.installed and r.executable == "" and "module proxy" in r.note for r in rts)
    fake = tmp_path / "pkg" / "mod" / "golang.org" / "toolchain@v0.0.1-go1.23.4.linux-amd64" / "bin" / "go"
    fake.parent.mkdir(parents=True)
    fake.write_text("")
    if goruntimes._goos_goarch() == ("linux", "amd64"):
        rts = {r.name: r for r in goruntimes.discover()}
        assert rts["go1.23"].installed and rts["go1.23"].version == "1.23.4"


# -- which toolchain, and which files it builds -----------------------------------------------------

from perflab.engine.plan import Prepared, build_plan  # noqa: E402
from perflab.model import Benchmark, Runtime  # noqa: E402
from perflab.toolchains import go_versions  # noqa: E402


def go_rt(minor, installed=True, patch=0):
    return Runtime(f"go1.{minor}", "go", f"1.{minor}.{patch}", f"/go{minor}/bin/go" if installed else "",
                   implementation="gc", installed=installed)


@pytest.mark.parametrize("expr, minor, expected", [
    ("go1.24", 21, False), ("go1.24", 24, True), ("go1.24", 26, True), ("!go1.24", 21, True),
    ("linux && go1.22", 23, True), ("(windows || darwin) && go1.22", 23, False),
    ("go1.25 || linux", 21, True), ("!(go1.22 && !go1.25)", 23, False),
])
def test_build_constraints_evaluate_like_go(expr, minor, expected, monkeypatch):
    monkeypatch.setattr(go_versions.platform, "system", lambda: "Linux")
    assert go_versions.evaluate(expr, go_versions._tags(go_rt(minor))) is expected


def test_a_version_gated_file_is_absent_not_failed_on_older_toolchains(tmp_path):
    f = write(tmp_path / "loop_test.go", """
        // Copyright notice

        //go:build go1.24

        package p
        """)
    plain = write(tmp_path / "p_test.go", "package p\n")
    bench = Benchmark("p.BenchmarkLoop", "Loop", "p", "go", file=str(f))
    assert go_versions.absence_reason(go_rt(21), bench) == "not built by go1.21: //go:build go1.24"
    assert go_versions.absence_reason(go_rt(26), bench) is None
    assert go_versions.absence_reason(go_rt(21), Benchmark("x", "X", "p", "go", file=str(plain))) is None

    tc = GoToolchain()
    old, new = Prepared(go_rt(21), tc), Prepared(go_rt(26), tc)
    new.benchmarks = [bench]
    plan = build_plan([old, new], [], [])
    assert plan.failed == []
    [(case, reason)] = plan.absent
    assert case.runtime.name == "go1.21" and "//go:build go1.24" in reason


def test_absent_cases_are_na_in_the_table_and_do_not_fail(tmp_path):
    from perflab.analysis import analyse
    from perflab.model import Case, CaseResult
    from perflab.report.table import build_table
    from perflab.results import case_result_from_json, row_to_json
    bench = Benchmark("p.BenchmarkLoop", "Loop", "p", "go")
    res = CaseResult(Case(bench, (), go_rt(21)), absent="not built by go1.21: //go:build go1.24")
    [row] = analyse([res])
    assert res.ok and row.estimate is None
    table = build_table([row])
    assert table.rows[0][table.columns.index("Notes")] == "NA [1]"
    assert table.legend == ["[1] Loop() go1.21: NA: not built by go1.21: //go:build go1.24"]
    doc = row_to_json(row)
    assert doc["status"] == "na" and case_result_from_json(doc).absent == res.absent


def test_the_default_is_the_newest_installed_toolchain_the_module_allows(tmp_path):
    write(tmp_path / "go.mod", "module m\n\ngo 1.22\n")
    src = write(tmp_path / "p" / "p_test.go", "package p\n")
    rts = [go_rt(21), go_rt(22), go_rt(24), go_rt(26, installed=False)]
    rt, why = go_versions.choose_default(rts, [src])
    assert rt.name == "go1.24" and "go 1.22" in why and "-r" in why
    write(tmp_path / "go.mod", "module m\n\ngo 1.22\n\ntoolchain go1.25.1\n")
    rt, why = go_versions.choose_default(rts, [src])
    assert rt.name == "go1.26" and not rt.installed and "toolchain go1.25.1" in why
    write(tmp_path / "go.mod", "module m\n\ngo 1.21\n")
    assert go_versions.choose_default(rts, [src])[0].name == "go1.24"
