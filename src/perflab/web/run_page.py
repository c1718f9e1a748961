"""A stored run as the report shows it: the environment header, then one table per benchmark group
(the seeds' table of perflab.report, its ratios paired by perflab.ratios), its warnings and plot."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..report.header import header_lines
from ..report.plots import ratio_plot_png
from ..report.results_view import (OTHER, Report, Section, _params_text, is_numeric_column,
                                   report_from_docs, section_rows, sections_of, seed_heading,
                                   table_cells)


@dataclass
class GroupTable:
    title: str
    columns: list[str]
    rows: list[list[str]]
    numeric: list[bool]
    failed: list[bool]
    benchmarks: list[str]           # each row's Group.method, for its link to the benchmark page
    notes: list[str] = field(default_factory=list)
    has_plot: bool = False          # some row has a ratio against its baseline runtime
    # each row's case key when it has a profile (its flame graph page), else None; and why not
    profiles: list = field(default_factory=list)
    no_profile: list = field(default_factory=list)
    functions: list = field(default_factory=list)  # each row's case key when it has instructions by function


def groups_of(report: Report) -> list[Section]:
    """The seeds' sections; cases without seed metadata get one section per benchmark group."""
    out = []
    for s in sections_of(report):
        if s.seed or s.name != OTHER:
            out.append(s)
            continue
        by_group: dict[str, Section] = {}
        for c in s.cases:
            title = c.group or c.bench.get("file") or "benchmarks"
            by_group.setdefault(title, Section("", f"{title} ({c.language})" if c.language else title)
                                ).cases.append(c)
        out += by_group.values()
    return out


def run_report(doc: dict, run_id: int) -> Report | None:
    if not doc.get("cases"):
        return None
    return report_from_docs([f"run #{run_id}"], [doc], f"run #{run_id}")


def tables(report: Report) -> list[GroupTable]:
    out = []
    for s in groups_of(report):
        rows = section_rows(report, s)
        cols, cells = table_cells(rows)
        notes = []
        for r in rows:
            where = f"{r.method} ({_params_text(r.case)}) @ {r.case.runtime}"
            if not r.case.ok:
                notes.append(f"{where}: FAILED: {r.case.error}")
            notes += [f"{where}: {w}" for w in r.case.warnings]
        title = f"{seed_heading(s.seed)} · {s.name}" if s.seed else s.name
        plotted = any(r.case.runtime not in report.baselines and r.ratio is not None
                      and r.ratio.value > 0 for r in rows)  # what ratio_plot_png draws
        out.append(GroupTable(title, cols, cells, [is_numeric_column(c) for c in cols],
                              [not r.case.ok for r in rows],
                              [f"{r.case.group}.{r.case.name}" for r in rows], notes, plotted,
                              [profiled_key(r.case.raw) for r in rows],
                              [no_profile_reason(r.case.raw) for r in rows],
                              [counted_key(r.case.raw) for r in rows]))
    return out


def environment_lines(doc: dict) -> list[str]:
    return header_lines(doc.get("environment") or {}, doc.get("job") or {})


def plot_png(doc: dict, run_id: int, index: int) -> bytes | None:
    """The ratio plot of a run's `index`-th group (matplotlib), or None when it has no ratio."""
    report = run_report(doc, run_id)
    sections = groups_of(report) if report else []
    if not 0 <= index < len(sections):
        return None
    s = sections[index]
    title = f"{seed_heading(s.seed)} · {s.name}" if s.seed else s.name
    return ratio_plot_png(report, section_rows(report, s), title)


def profiled_key(raw) -> str | None:
    """The case's key when it has a profile with stacks (`run --profile`), else None."""
    from ..measures.profile import stacks_of
    p = raw.get("profile") if isinstance(raw, dict) else None
    return str(raw.get("key")) if stacks_of(p) else None


def no_profile_reason(raw) -> str:
    p = raw.get("profile") if isinstance(raw, dict) else None
    return str(p.get("error") or "") if isinstance(p, dict) else ""


def case_of(doc: dict, key: str) -> dict | None:
    return next((c for c in doc.get("cases") or [] if isinstance(c, dict) and c.get("key") == key), None)


def counted_key(raw) -> str | None:
    """The case's key when its count has the per-function table (`--measure instructions`)."""
    from ..report.flame import _function_rows
    counts = raw.get("counts") if isinstance(raw, dict) else None
    return str(raw.get("key")) if isinstance(counts, dict) and _function_rows(counts) else None
