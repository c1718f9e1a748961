"""scripts/extract_csharp_seeds.py on a small synthetic seed: code blocks found around `[Benchmark]` by
brace balance and what a line looks like (prose, result tables and disassembly stay out), member
snippets wrapped in the seed's Program boilerplate, whole programs kept as they are, headers that the
worker reads, and the committed corpus matching what the script writes from the seed documents."""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "extract_csharp_seeds.py"


def load():
    spec = importlib.util.spec_from_file_location("extract_csharp_seeds", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["extract_csharp_seeds"] = mod
    spec.loader.exec_module(mod)
    return mod


SEED_000 = """Performance Improvements

using BenchmarkDotNet.Attributes;
using System;
using System.Collections.Immutable;

[MemoryDiagnoser]
public class Program
{
    public static void Main(string[] args) => BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args);

    // BENCHMARKS GO HERE
}

JIT

Consider this microbenchmark, where the JIT does something clever:

private int _value = 12345;
private byte[] _buffer = new byte[100];

[Benchmark]
public bool Format() => Utf8Formatter.TryFormat(_value, _buffer, out _);

[Benchmark(Baseline = true)]
public Task PingPong() =>
    Task.WhenAll(from c in _connections
                 select c.Run());

Method Runtime Mean Ratio
Format .NET 5.0 12.3 ns 1.00

; Program.Format()
       mov       rax,1
; Total bytes of code 5

Threading

[Benchmark]
public int[] Build()
{
    return new int[10];
}
That is the whole story.
"""

SEED_001 = """线程
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Running;
BenchmarkSwitcher.FromAssembly(typeof(Tests).Assembly).Run(args);
[HideColumns("Error")]
public partial class Tests
{
[Benchmark]
public int Increment() => ++t_value;
}
方法 | 运行时 | 平均值 |
"""


@pytest.fixture
def corpus(tmp_path):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "000_abc.txt").write_text(SEED_000, encoding="utf-8")
    (seeds / "001_def.txt").write_text(SEED_001, encoding="utf-8")
    mod = load()
    return mod, mod.extract(seeds, tmp_path / "out"), tmp_path / "out"


def _header(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8").splitlines()[0].split("perflab:", 1)[1])


def test_blocks_stop_at_prose_tables_and_disassembly(corpus):
    mod, written, out = corpus
    names = sorted(p.relative_to(out).as_posix() for p in written)
    assert names == ["jit/csharp/seed000_L0019_Format.cs", "threading/csharp/seed000_L0039_Build.cs",
                     "threading/csharp/seed001_L0002_Increment.cs"]
    fmt = (out / "jit/csharp/seed000_L0019_Format.cs").read_text(encoding="utf-8")
    assert "private int _value = 12345;" in fmt and "select c.Run());" in fmt  # fields above, a continued `=>`
    assert "Method Runtime" not in fmt and "mov" not in fmt and "Consider this" not in fmt
    build = (out / "threading/csharp/seed000_L0039_Build.cs").read_text(encoding="utf-8")
    assert "return new int[10];" in build and "whole story" not in build


def test_snippets_are_wrapped_in_the_seeds_program_and_programs_kept(corpus):
    mod, written, out = corpus
    fmt = (out / "jit/csharp/seed000_L0019_Format.cs").read_text(encoding="utf-8")
    lines = fmt.splitlines()
    assert "using System;" in lines and "using System.Collections.Immutable;" not in lines  # Mono lacks it
    assert "absent from Mono): System.Collections.Immutable" in fmt
    assert lines.index("public class Program") < lines.index("[Benchmark]") and lines[-1] == "}"
    program = (out / "threading/csharp/seed001_L0002_Increment.cs").read_text(encoding="utf-8")
    assert program.splitlines()[3:] == SEED_001.splitlines()[1:10]  # unedited, below the 3 header lines


def test_headers_carry_seed_section_categories_and_group(corpus):
    mod, written, out = corpus
    h = _header(out / "jit/csharp/seed000_L0019_Format.cs")
    assert h == {"seed": "000", "section": "JIT", "source": "000_abc.txt", "lines": "19-28",
                 "categories": ["jit", "seed_csharp"], "group": "000 L19 Format", "fidelity": "faithful"}
    assert _header(out / "threading/csharp/seed001_L0002_Increment.cs")["section"] == "Threading"


def test_rerunning_removes_stale_files(corpus, tmp_path):
    mod, written, out = corpus
    stale = out / "jit" / "csharp" / "seed000_L9999_Gone.cs"
    stale.write_text("// old\n")
    mod.extract(tmp_path / "seeds", out)
    assert not stale.exists()


CORPUS = SCRIPT.parents[1] / "suites" / "seeds"
MANIFEST = CORPUS / "csharp-corpus.sha256"  # what the script wrote from the seeds, file by file


def _corpus_files() -> list[Path]:
    return sorted(CORPUS.glob("*/csharp/seed*.cs"))


def _manifest_lines() -> list[str]:
    """sha256sum's format, paths relative to suites/seeds: `sha256sum -c` checks it too."""
    return [f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(CORPUS).as_posix()}"
            for p in _corpus_files()]


def _seeds() -> Path | None:
    """The seed documents only where a maintainer points at them (PERFLAB_SEED_DOCS): a test never looks
    for them beside the checkout."""
    folder = os.environ.get("PERFLAB_SEED_DOCS")
    return Path(folder) if folder and Path(folder).is_dir() else None


def test_the_committed_corpus_is_the_one_the_manifest_records():
    """Committed data only (a clone has no seed documents): every corpus file is there, unedited since
    the script wrote it from the seeds, and no file was added by hand."""
    recorded = MANIFEST.read_text(encoding="utf-8").splitlines()
    assert _manifest_lines() == recorded, (
        "suites/seeds/*/csharp differs from csharp-corpus.sha256: re-extract with "
        "scripts/extract_csharp_seeds.py, then `python tests/test_extract_csharp_seeds.py --manifest`")


def test_the_committed_corpus_is_what_the_script_writes(tmp_path):
    """With the seed documents given (PERFLAB_SEED_DOCS), the script's output is the
    committed corpus byte for byte; without them, the committed corpus is checked against the
    manifest (above), which this same comparison wrote."""
    mod = load()
    seeds = _seeds()
    if seeds is None:
        test_the_committed_corpus_is_the_one_the_manifest_records()
        return
    written = mod.extract(seeds, tmp_path)
    assert sorted(p.relative_to(tmp_path) for p in written) == \
        sorted(p.relative_to(CORPUS) for p in _corpus_files())
    for p in written:
        assert p.read_bytes() == (CORPUS / p.relative_to(tmp_path)).read_bytes(), p


if __name__ == "__main__" and sys.argv[1:] == ["--manifest"]:
    MANIFEST.write_text("\n".join(_manifest_lines()) + "\n", encoding="utf-8")
    print(f"wrote {MANIFEST} ({len(_corpus_files())} files)")
