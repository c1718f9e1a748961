"""Renderers of the tables: terminal, GitHub Markdown, CSV.

The terminal layout is BenchmarkDotNet's console table: pipe-separated, padded columns, one line per
row, never wrapped (a CI log stays grep-able; a wide table scrolls instead of breaking into fake rows).
Every cell is user data to its renderer and goes through perflab.report.escape.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

from rich.console import Console
from rich.text import Text

from ..analysis import Row
from ..ratios import DEFINITION
from .counts import DEFINITION as COUNTS_DEFINITION, INSTRUCTIONS
from .escape import csv_cell, md_cell, visible
from .table import TEXT_COLUMNS, Table, csv_rows

EXPORTERS = ("table", "md", "csv", "json")


def aligned_lines(table: Table, escape_pipes: bool = False) -> list[str]:
    """The table as padded, pipe-separated lines (header, rule, rows), control characters visible.
    `escape_pipes` (off a terminal): a '|' inside a cell is written '\\|', as in Markdown, so a name
    holding one cannot shift the columns of a script that splits the lines on ' | '; on a terminal
    the padding aligns the columns and names stay verbatim."""
    def cell(value: str) -> str:
        return visible(value).replace("|", "\\|") if escape_pipes else visible(value)
    cells = [[cell(c) for c in table.columns]] + [[cell(c) for c in r] for r in table.rows]
    widths = [max(len(row[j]) for row in cells) for j in range(len(table.columns))]
    right = [c in table.right_aligned for c in table.columns]

    def line(row: list[str]) -> str:
        return "| " + " | ".join(c.rjust(w) if r else c.ljust(w)
                                 for c, w, r in zip(row, widths, right)) + " |"
    rule = "|" + "|".join(("-" * (w + 1) + ":") if r else "-" * (w + 2)
                          for w, r in zip(widths, right)) + "|"
    return [line(cells[0]), rule] + [line(r) for r in cells[1:]]


def _print(console: Console, s: str, style: str = "") -> None:
    console.print(Text(s, style=style), soft_wrap=True, no_wrap=True, overflow="ignore", crop=False)


def to_terminal(tables: list[Table], header: list[str], console: Console) -> None:
    for h in header:
        _print(console, visible(h))
    for t in tables:
        _print(console, "")
        _print(console, visible(t.title), "bold")
        lines = aligned_lines(t, escape_pipes=not console.is_terminal)
        _print(console, lines[0], "bold")
        _print(console, lines[1])
        for i, ln in enumerate(lines[2:]):
            _print(console, ln, "red" if i in t.failed_rows else "")
        for note in t.legend:
            _print(console, "  " + visible(note), "yellow")
    if _has_ratio(tables):
        _print(console, "")
        _print(console, DEFINITION.replace("**", ""))
    if _has_counts(tables):
        _print(console, "")
        _print(console, COUNTS_DEFINITION.replace("**", ""))


def _has_ratio(tables: list[Table]) -> bool:
    return any(c.startswith("Ratio") for t in tables for c in t.columns)


def _has_counts(tables: list[Table]) -> bool:
    return any(INSTRUCTIONS in t.columns for t in tables)


def _fence(lines: list[str]) -> str:
    """A code fence longer than any backtick run inside: a runtime flag cannot close it early."""
    ticks = 3
    while any("`" * ticks in ln for ln in lines):
        ticks += 1
    return "`" * ticks


def markdown_table(columns: list[str], rows: list[list[str]], right_aligned: set[str]) -> list[str]:
    """A GitHub table; every cell escaped (`|`, backslash, newline, HTML, emphasis)."""
    out = ["| " + " | ".join(md_cell(c) for c in columns) + " |",
           "|" + "|".join("---:" if c in right_aligned else "---" for c in columns) + "|"]
    out += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
    return out


def to_markdown(tables: list[Table], header: list[str]) -> str:
    lines: list[str] = []
    if header:
        fence = _fence(header)
        lines += [fence, *[visible(h) for h in header], fence, ""]
    if _has_ratio(tables):
        lines += [DEFINITION, ""]
    if _has_counts(tables):
        lines += [COUNTS_DEFINITION, ""]
    for t in tables:
        lines += [f"### {md_cell(t.title)}", ""]
        lines += markdown_table(t.columns, t.rows, t.right_aligned)
        if t.legend:
            lines.append("")
            lines += [f"- {md_cell(n)}" for n in t.legend]
        lines.append("")
    return "\n".join(lines)


def to_csv(rows: list[Row]) -> str:
    """One row per case. Parameters are `param:<name>` columns; text cells of user data that start
    like a formula are neutralised; numbers are written as they are."""
    columns, data = csv_rows(rows)
    buf = io.StringIO()
    if data:
        writer = csv.DictWriter(buf, fieldnames=columns)
        writer.writerow({c: csv_cell(c) for c in columns})
        for r in data:
            writer.writerow({k: csv_cell(v) if (k in TEXT_COLUMNS or k.startswith("param:")) and v != ""
                             else v for k, v in r.items()})
    return buf.getvalue()


def write_text_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".tmp-{path.name}")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
