"""Results written by other harnesses, read into perflab's results model (`perflab import`).

One module per format; each says how its file maps onto perflab's cases (its docstring) and offers
`detect(data)` (a parsed JSON value of its shape), `sniff(text)` (the format's marks, to name the
format of a file whose JSON is broken) and `parse(path, data) -> Imported`. Go's text output and
criterion's folders are read by their own rules. `load(path)` picks the format;
`common.build_document` makes a perflab results document of it.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from . import benchmarkdotnet, criterion, go_bench, google_benchmark, hyperfine, jmh, pyperf, pytest_benchmark
from .common import Imported, ImportFailed

# JSON formats, most specific shape first (pytest-benchmark's and pyperf's both have "benchmarks")
JSON_FORMATS = (benchmarkdotnet, jmh, pytest_benchmark, google_benchmark, pyperf, hyperfine)
FORMATS = ("criterion (target/criterion/**/new/{estimates,sample,benchmark}.json, or the folder)",
           "Google Benchmark (--benchmark_format=json)", "pyperf (.json, .json.gz)",
           "pytest-benchmark (--benchmark-json)", "BenchmarkDotNet (*-report-full.json)",
           "JMH (-rf json)", "hyperfine (--export-json)", "go test -bench text output")


class UnknownFormat(Exception):
    """A file of none of the shapes perflab reads (bad input: nothing is imported)."""


def unknown(path: str, what: str) -> UnknownFormat:
    return UnknownFormat(f"{path}: {what}; perflab import reads " + "; ".join(FORMATS))


def _text(path: Path) -> str:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise ImportFailed(f"a gzip file that cannot be decompressed ({exc})") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportFailed(f"not UTF-8 text (byte {exc.start})") from None


def classify(arg: str) -> tuple[str, object]:
    """What an argument is, before anything is imported: ("criterion", [folders]) or ("file", module
    or None when the format shows only once its text is read). UnknownFormat: a path perflab cannot
    read at all (missing, a folder without criterion results)."""
    path = Path(arg)
    if path.is_dir():
        found = criterion.folders(path)
        if not found:
            raise unknown(arg, "a folder without criterion results (no */new/benchmark.json)")
        return "criterion", found
    if not path.is_file():
        raise UnknownFormat(f"{arg}: no such file or folder")
    if criterion.is_criterion_file(path):
        return "criterion", [path.parent]
    return "file", None


def detect_file(arg: str) -> tuple[object, object]:
    """(module, parsed data or text) of a file, or UnknownFormat. A file of a known format whose JSON
    is broken raises ImportFailed naming its format and where."""
    path = Path(arg)
    try:
        text = _text(path)
    except OSError as exc:
        raise UnknownFormat(f"{arg}: cannot be read ({exc.strerror or exc})") from None
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            data = json.loads(text)
        except ValueError as exc:
            for mod in JSON_FORMATS:
                if mod.sniff(text):
                    raise ImportFailed(f"{mod.TOOL} file that is not valid JSON ({exc.msg} at line "
                                       f"{exc.lineno}, column {exc.colno}); truncated?") from None
            raise unknown(arg, f"not valid JSON ({exc.msg} at line {exc.lineno}) and of no known shape") from None
        for mod in JSON_FORMATS:
            if mod.detect(data):
                return mod, data
        if isinstance(data, dict) and data.get("schema") == "perflab.results":
            raise unknown(arg, "already a perflab results file (use it as it is with compare/report)")
        raise unknown(arg, "JSON of an unknown shape")
    if go_bench.sniff(text):
        return go_bench, text
    raise unknown(arg, "not JSON, and no `go test -bench` result line")


def parse_file(arg: str, mod, data) -> Imported:
    try:
        return mod.parse(arg, data)
    except ImportFailed as exc:
        raise ImportFailed(f"{mod.TOOL} file: {exc}") from None
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as exc:
        # a shape the importer did not foresee: still this file's fault, said where we can
        raise ImportFailed(f"{mod.TOOL} file: unexpected content ({type(exc).__name__}: {exc})") from None
