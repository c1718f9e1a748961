"""C# on Mono, issue #36 item 8: a file written in a newer C# than Mono's mcs parses is NA on that
runtime with the feature and version ("needs C# 8 (a using declaration, line 5): Mono's mcs compiles
C# 7"), not FAILED, and a seed port there is not called faithful; a file failing for another reason
stays FAILED with file:line; a seed snippet that uses its class's shared field compiles once extracted."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from workerkit import installed_runtimes, write

from perflab.engine.plan import Prepared, build_plan
from perflab.model import Benchmark, Runtime
from perflab.report.claims import port_standing
from perflab.toolchains.csharp import CSharpToolchain, needs_newer_csharp

TOOLCHAIN = CSharpToolchain()
RUNTIMES, needs_mono = installed_runtimes(TOOLCHAIN, "no Mono with mcs", without_note=True)
HEADER = '// perflab: {"seed": "000", "section": "IO", "group": "000 L1 Yell", "fidelity": "faithful"}\n'


@pytest.mark.parametrize("code, line, col, error, expected", [
    ("    public int F() { using var s = new System.IO.MemoryStream(); return 1; }",
     3, 30, "error CS1525: Unexpected symbol `var', expecting `('", "needs C# 8 (a using declaration"),
    ("    public string F(int x) => x switch { 1 => \"a\", _ => \"b\" };",
     3, 36, "error CS1519: Unexpected symbol `switch' in class, struct, or interface member declaration",
     "needs C# 8 (a switch expression"),
    ("    object _o = new();", 3, 22, "error CS1525: Unexpected symbol `)', expecting `(' or `type'",
     "needs C# 9 (a target-typed `new()`"),
    ("    public int F(int[] a) => a[^1];", 3, 32, "error CS1525: Unexpected symbol `^'",
     "needs C# 8 (indices and ranges"),
    ("    public int F() { int L(int y) => y; return L(1); }", 3, 28,
     "error CS1525: Unexpected symbol `(', expecting `,', `;', or `='", "needs C# 7 local functions"),
])
def test_newer_syntax_is_named_from_the_first_error_and_the_source(tmp_path, code, line, col, error, expected):
    src = write(tmp_path / "New.cs", "using System;\npublic class New {\n" + code + "\n}\n")
    why = needs_newer_csharp(src, f"{src}({line},{col}): {error}\nCompilation failed: 1 error(s)")
    assert why is not None and why.startswith(expected) and f"line {line}" in why
    assert "Mono's mcs" in why


def test_a_nullable_reference_annotation_is_named(tmp_path):
    src = write(tmp_path / "Nr.cs", "public class Nr {\n    static void T(object? a, string? n) { }\n}\n")
    why = needs_newer_csharp(src, f"{src}(2,5): error CS1502: The best overloaded method match for "
                                  "`Nr.T(object?, string?)' has some invalid arguments")
    assert why.startswith("needs C# 8 (nullable reference types")


def test_other_errors_are_not_newer_syntax(tmp_path):
    src = write(tmp_path / "Api.cs", "public class Api {\n    public int F() => undefinedThing;\n}\n")
    assert needs_newer_csharp(src, f"{src}(2,23): error CS0103: The name `undefinedThing' does not "
                                   "exist in the current context") is None
    # a syntax error that is just a mistake, not a newer construct
    bad = write(tmp_path / "Typo.cs", "public class Typo {\n    public int F() { return 1 }\n}\n")
    assert needs_newer_csharp(bad, f"{bad}(2,31): error CS1525: Unexpected symbol `}}'") is None


def _fake_prepared(tmp_path, reason: str | None):
    """A Prepared whose toolchain says the benchmark's file needs a newer C# (no Mono involved)."""
    rt = Runtime(name="mono", version="6.8.0", language="csharp", executable="/usr/bin/mono")
    bench = Benchmark(id="New:F", name="F", group="000 L1 Yell", language="csharp",
                      file=str(tmp_path / "New.cs"), line=3, meta={"seed": "000", "fidelity": "faithful"})
    tc = CSharpToolchain()
    if reason:
        tc._newer_csharp[rt.label] = {bench.file: reason}
    return Prepared(rt, tc, benchmarks=[bench])


def test_the_plan_makes_such_a_benchmark_na_and_not_a_faithful_port(tmp_path):
    why = "needs C# 8 (a using declaration (`using var x = …`), line 3): Mono's mcs compiles C# 7"
    plan = build_plan([_fake_prepared(tmp_path, why)], [], [])
    assert plan.groups == [] and plan.failed == []
    [(case, reason)] = plan.absent
    assert reason == why
    assert case.benchmark.meta["fidelity"] == f"not run: {why}"
    plan = build_plan([_fake_prepared(tmp_path, None)], [], [])  # compiles: measured as before
    assert plan.absent == [] and len(plan.groups) == 1


def test_a_port_not_run_as_written_does_not_decide_a_claim():
    class C:  # the report's Case, as far as port_standing reads it
        method_name = "F"
        meta = {"fidelity": "not run: needs C# 8 (a switch expression, line 4): Mono's mcs compiles C# 7"}
    decides, mark = port_standing(C())
    assert decides is False and "needs C# 8" in mark


@needs_mono
def test_a_csharp8_file_is_na_on_mono_and_a_broken_one_fails_with_its_line(tmp_path, capsys):
    from perflab.cli import main
    suite = tmp_path / "suite"
    write(suite / "Fine.cs", """
        using BenchmarkDotNet.Attributes;
        public class Fine { [Benchmark] public int Add() => 1 + 2; }
    """)
    write(suite / "Newer.cs", HEADER + "using System.IO;\nusing BenchmarkDotNet.Attributes;\n"
          "public class Newer\n{\n    [Benchmark]\n"
          "    public long Yell() { using var s = new MemoryStream(); return s.Length; }\n}\n")
    write(suite / "Plain8.cs", "using BenchmarkDotNet.Attributes;\npublic class Plain8\n{\n"
          "    [Benchmark] public string Kind() => 3 switch { 1 => \"a\", _ => \"b\" };\n}\n")
    write(suite / "Broken.cs", "using BenchmarkDotNet.Attributes;\npublic class Broken\n{\n"
          "    [Benchmark] public int X() => undefinedThing;\n}\n")
    main(["run", str(suite), "--runtimes", "mono",
               "--job", "dry", "--store", "none", "--out", str(tmp_path / "out"), "--json", "--quiet"])
    doc = json.loads(capsys.readouterr().out)
    cases = {c["benchmark"]["name"]: c for c in doc["cases"]}
    assert cases["Add"]["status"] == "ok"
    assert cases["Yell"]["status"] == "na" and cases["Yell"]["absent"].startswith("needs C# 8 (a using declaration")
    assert "line 7" in cases["Yell"]["absent"]
    assert cases["Yell"]["benchmark"]["meta"]["fidelity"].startswith("not run: needs C# 8")
    assert cases["Kind"]["status"] == "na" and "switch expression" in cases["Kind"]["absent"]
    broken = [c for c in doc["cases"] if c["status"] == "failed"]
    assert len(broken) == 1 and "Broken.cs:4" in broken[0]["error"] and "CS0103" in broken[0]["error"]


SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "extract_csharp_seeds.py"
SEED_003 = """Span and Friends
using BenchmarkDotNet.Attributes; using BenchmarkDotNet.Running; using System; using System.Linq; [MemoryDiagnoser] public class Program { static void Main(string[] args) => BenchmarkSwitcher.FromTypes(new[] { typeof(Program) }).Run(args); // ... paste benchmark code here }
The simple solution is to just iterate through all of the bytes:
private byte[] _buffer = new byte[10_000].Concat(new byte[] { 42 }).ToArray(); [Benchmark(Baseline = true)] public int LoopBytes() { byte[] buffer = _buffer; for (int i = 0; i < buffer.Length; i++) { if (buffer[i] != 0) return i; } return -1; }
Consider instead reading longs.
[Benchmark] public int LoopLongs() { byte[] buffer = _buffer; return buffer.Length; }
Method | Mean |
"""


def _extractor():
    spec = importlib.util.spec_from_file_location("extract_csharp_seeds_shared", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["extract_csharp_seeds_shared"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def extracted(tmp_path):
    seeds = tmp_path / "seeds"
    write(seeds / "003_x.txt", SEED_003)
    write(seeds / "000_x.txt", "using BenchmarkDotNet.Attributes;\npublic class Program\n{\n    // BENCHMARKS GO HERE\n}\n")
    return {p.name: p for p in _extractor().extract(seeds, tmp_path / "out")}


def test_a_snippet_gets_the_field_its_class_declares_in_another_snippet(extracted):
    longs = next(p for n, p in extracted.items() if n.endswith("LoopLongs.cs")).read_text()
    header = json.loads(longs.splitlines()[0].split("perflab:", 1)[1])
    assert header["shared_from"] == ["4-4"] and header["fidelity"] == "faithful"
    field = "private byte[] _buffer = new byte[10_000].Concat(new byte[] { 42 }).ToArray();"
    assert field in longs and longs.index(field) < longs.index("public int LoopLongs()")
    assert "LoopBytes" not in longs.split("\n", 3)[3]  # the other benchmark is not carried
    bytes_ = next(p for n, p in extracted.items() if n.endswith("LoopBytes.cs")).read_text()
    assert "shared_from" not in bytes_ and bytes_.count("_buffer =") == 1


@needs_mono
def test_the_extracted_shared_field_snippet_compiles(extracted):
    rt = RUNTIMES[0]
    _, mcs = TOOLCHAIN._mono(rt)
    shim = TOOLCHAIN.build_shim(rt, mcs)
    longs = next(p for n, p in extracted.items() if n.endswith("LoopLongs.cs"))
    entry = TOOLCHAIN.build_file(mcs, shim, longs)
    assert "assembly" in entry, entry.get("error")


@needs_mono
def test_a_run_whose_benchmarks_are_all_na_reports_them(tmp_path, capsys):
    from perflab.cli import main
    src = write(tmp_path / "Only8.cs", "using BenchmarkDotNet.Attributes;\npublic class Only8\n{\n"
                "    [Benchmark] public string Kind() => 3 switch { 1 => \"a\", _ => \"b\" };\n}\n")
    main(["run", str(src), "--runtimes", "mono", "--job", "dry", "--store", "none",
          "--out", str(tmp_path / "out"), "--json", "--quiet"])
    [case] = json.loads(capsys.readouterr().out)["cases"]
    assert case["status"] == "na" and case["absent"].startswith("needs C# 8 (a switch expression, line 4)")
