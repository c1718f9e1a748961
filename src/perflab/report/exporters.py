"""Renderers of the table model: terminal (rich), GitHub Markdown, CSV; and the JSON document."""
from __future__ import annotations

import csv
import io
from pathlib import Path

from rich import box
from rich.console import Console
from rich.table import Table as RichTable

from .table import Table

EXPORTERS = ("table", "md", "csv", "json")


def to_terminal(table: Table, console: Console) -> None:
    t = RichTable(box=box.MARKDOWN, show_edge=True, pad_edge=False, header_style="bold")
    for col in table.columns:
        t.add_column(col, justify="right" if col in table.right_aligned else "left",
                     overflow="fold", max_width=60 if col == "Notes" else None)
    for i, row in enumerate(table.rows):
        style = "red" if row[-1].startswith("FAILED") else None
        t.add_row(*row, style=style, end_section=i in table.section_ends)
    console.print(t)
    for note in table.footnotes:
        console.print(f"  [yellow]•[/yellow] {note}", highlight=False, soft_wrap=True)


def to_markdown(table: Table) -> str:
    def esc(s: str) -> str:
        return s.replace("|", "\\|")
    lines = ["| " + " | ".join(table.columns) + " |",
             "|" + "|".join("---:" if c in table.right_aligned else "---" for c in table.columns) + "|"]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in table.rows]
    if table.footnotes:
        lines.append("")
        lines += [f"- {esc(n)}" for n in table.footnotes]
    return "\n".join(lines) + "\n"


def to_csv(table: Table) -> str:
    buf = io.StringIO()
    if table.raw:
        writer = csv.DictWriter(buf, fieldnames=list(table.raw[0].keys()) + [
            k for r in table.raw[1:] for k in r if k not in table.raw[0]])
        writer.writeheader()
        for r in table.raw:
            writer.writerow(r)
    return buf.getvalue()


def write_text_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".tmp-{path.name}")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
