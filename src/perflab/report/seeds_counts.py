"""Instruction counts in a seeds report (`--measure instructions` results): a table of their own after
each section's time table, never columns mixed into it.

`Method | Runtime | Params | Ir/op | Ir ratio vs <baseline runtime> | Est. cycles/op | L1 misses/op |
LL misses/op | Spread`: per-op Ir is the figure (net of the empty loop), the ratio is against the same
case on the section's baseline runtime (a plain quotient: counts need no interval), the estimated
cycles and the cache misses are secondary figures (their formula is in docs/instructions.md), and the
spread is that of the case's own launches. Below it, per runtime, why its cases could not be counted
(`counts.error`) and what to know about its counts (`counts.note`).
"""
from __future__ import annotations

import html

from ..count_verdicts import format_count, per_op, spread
from ..results import counts_problem
from .escape import md_cell
from .results_view import Case, Report, Row, _params_text

SECONDARY = (("Est. cycles/op", "est_cycles"), ("L1 misses/op", "l1_misses"), ("LL misses/op", "ll_misses"))
TEXT_COLUMNS = ("Method", "Runtime", "Params")


def counted(rows: list[Row]) -> bool:
    """Whether any case of these rows was counted (or tried to be)."""
    return any(r.case.raw.get("counts") is not None for r in rows)


def _counts(case: Case | None) -> dict | None:
    """The case's counts record, or None (not counted, or unreadable: runtime_notes says so)."""
    c = case.raw.get("counts") if case is not None else None
    return c if isinstance(c, dict) and not counts_problem(c) else None


def count_table(report: Report, rows: list[Row]) -> tuple[list[str], list[list[str]]]:
    """The section's count table: only the cases that have a count (the others are noted below it)."""
    bases = list(dict.fromkeys(r.runtime_base for r in rows if r.runtime_base))
    ratio_col = (f"Ir ratio vs {bases[0]}" if len(bases) == 1 else "Ir ratio vs baseline runtime")
    cols = ["Method", "Runtime", "Params", "Ir/op"] + ([ratio_col] if bases else []) + [
        name for name, _ in SECONDARY] + ["Spread"]
    cells = []
    for r in rows:
        counts = _counts(r.case)
        ir = per_op(counts)
        if ir is None:
            continue
        line = [r.method, r.case.runtime, _params_text(r.case), format_count(ir)]
        if bases:
            base = report.pairs.get(id(r.case), (None, None))[1]
            base_ir = per_op(_counts(base))
            line.append(f"{ir / base_ir:.4f}" if base_ir else "")  # the baseline's own row: 1
        line += [format_count(per_op(counts, key)) for _, key in SECONDARY]
        s = spread(counts)
        line.append("one launch" if s is None else f"{s:.3%}" + ("" if counts.get("agreed", True)
                                                                else " (did not agree)"))
        cells.append(line)
    return cols, cells


def runtime_notes(rows: list[Row]) -> list[str]:
    """Per runtime: why its cases were not counted, and the notes its counts carry, each once."""
    found: dict[tuple[str, str], list[str]] = {}
    for r in rows:
        counts = _counts(r.case)
        raw = r.case.raw.get("counts")
        where = r.method + (f" [{_params_text(r.case)}]" if r.case.params else "")
        if counts is None and raw is not None:
            found.setdefault((r.case.runtime, f"counts unreadable: the case {counts_problem(raw)}"),
                             []).append(where)
        if counts is None:
            continue
        if counts.get("error"):
            found.setdefault((r.case.runtime, f"not counted: {counts['error']}"), []).append(where)
        if counts.get("note"):
            found.setdefault((r.case.runtime, str(counts["note"])), []).append(where)
    return [f"{rt}: {text}" + (f" ({len(cases)} cases)" if len(cases) > 1 else f" ({cases[0]})")
            for (rt, text), cases in found.items()]


def markdown(report: Report, rows: list[Row]) -> list[str]:
    if not counted(rows):
        return []
    cols, cells = count_table(report, rows)
    out = ["**Instructions** (per operation, under valgrind; no interval: see the spread)", ""]
    if cells:
        out += ["| " + " | ".join(md_cell(c) for c in cols) + " |",
                "|" + "|".join("---" if c in TEXT_COLUMNS else "---:" for c in cols) + "|"]
        out += ["| " + " | ".join(md_cell(x) for x in line) + " |" for line in cells]
        out.append("")
    out += [f"- {md_cell(n)}" for n in runtime_notes(rows)]
    return out + [""]


def html_fragment(report: Report, rows: list[Row]) -> str:
    if not counted(rows):
        return ""
    cols, cells = count_table(report, rows)
    num = lambda c: "" if c in TEXT_COLUMNS else "num"  # noqa: E731
    parts = ['<h4>Instructions</h4><p class="how">Per operation, under valgrind; no interval: the '
             "spread is that of the case's own launches.</p>"]
    if cells:
        parts.append('<table class="counts"><thead><tr>' + "".join(
            f'<th class="{num(c)}">{html.escape(c)}</th>' for c in cols) + "</tr></thead><tbody>")
        parts += ["<tr>" + "".join(f'<td class="{num(c)}">{html.escape(x)}</td>' for c, x in zip(cols, line))
                  + "</tr>" for line in cells]
        parts.append("</tbody></table>")
    notes = runtime_notes(rows)
    if notes:
        parts.append('<ul class="count-notes">' + "".join(f"<li>{html.escape(n)}</li>" for n in notes)
                     + "</ul>")
    return "".join(parts)
