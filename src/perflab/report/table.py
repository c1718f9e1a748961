"""The run's tables as data, as BenchmarkDotNet prints them: one table per benchmark group
(class/module/file) with `Method | Runtime | Params… | Mean | Error | StdDev | Median | Ratio | RatioSD
| Ratio vs <runtime> | … | Allocated | Alloc Ratio | Code Size | Notes`, only the columns the group
uses, one unit per column per table, Notes as footnote markers explained in a legend below the table.

Cells hold plain text (user data unescaped): each renderer escapes for its own format
(perflab.report.escape). The CSV is one file for the whole run (`csv_rows`).
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field

from ..analysis import Row
from ..model import Case, Status
from ..ratios import (METHOD_ALLOC_COLUMN, METHOD_COLUMN, format_ratio, runtime_alloc_column,
                      runtime_column)
from ..units import TIME_UNITS, format_in, format_size, number, pick_unit
from . import counts as count_cols
from . import rates

TIME_COLUMNS = ("Mean", "Error", "StdDev", "Median")
LEFT_COLUMNS = ("Method", "Runtime", "Notes")


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list[str]]
    params: list[str] = field(default_factory=list)
    failed_rows: set[int] = field(default_factory=set)
    legend: list[str] = field(default_factory=list)  # "[1] Method(n=10) @ rt: the full note"

    @property
    def right_aligned(self) -> set[str]:
        return {c for c in self.columns if c not in LEFT_COLUMNS and c not in self.params}


def case_label(case: Case) -> str:
    """`Method(a=1, b=x) runtime`: how a case is named in legends and progress lines."""
    params = ", ".join(f"{k}={v}" for k, v in case.param_values.items())
    return f"{case.benchmark.name}({params}) {case.runtime.label}"


def group_of(row: Row) -> tuple[str, str, str]:
    """A table's rows: one language's benchmarks of one group (class/module), or of one file."""
    b = row.result.case.benchmark
    return (b.language, b.group, "" if b.group else b.file)


def group_title(row: Row) -> str:
    """`Group (language, file)`, or `file (language)` for functions outside a class."""
    b = row.result.case.benchmark
    file = _short_path(b.file)
    return f"{b.group or file or 'benchmarks'} ({b.language}{', ' + file if b.group and file else ''})"


def _short_path(path: str) -> str:
    if not path:
        return ""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return path
    return rel if len(rel) < len(path) else path


def build_tables(rows: list[Row], hide: set[str] | None = None) -> list[Table]:
    """One table per group, in the order the rows come (the run sorts them as discovered)."""
    groups: dict[tuple, list[Row]] = {}
    for r in rows:
        groups.setdefault(group_of(r), []).append(r)
    return [build_table(g, hide, group_title(g[0])) for g in groups.values()]


def hideable() -> list[str]:
    """The columns --hide can name (beside parameters); "Ratio" also hides "Ratio vs <runtime>"."""
    from .counts import INSTR_RATIO, INSTRUCTIONS, SECONDARY
    return (["Runtime", *TIME_COLUMNS, METHOD_COLUMN, "RatioSD", INSTRUCTIONS, INSTR_RATIO]
            + [name for name, _ in SECONDARY] + ["Allocated", METHOD_ALLOC_COLUMN, "Code Size", "Notes"])


def unknown_hidden(hide: set[str], params: set[str]) -> list[str]:
    """The names in --hide that are neither a column nor a parameter of the benchmarks found."""
    known = {c.lower() for c in hideable()} | {p.lower() for p in params}
    return sorted(h for h in hide if h.lower() not in known and not re.fullmatch(r"gen\d", h.lower()))


def _hidden(column: str, hide: set[str]) -> bool:
    # "RatioSD" hides "RatioSD vs go1.20" too: the runtime columns are named after their runtime
    return column != "Method" and (column.lower() in hide or column.split(" vs ")[0].lower() in hide)


def _units(rows: list[Row]) -> dict[str, tuple[str, float]]:
    """One unit per column (BenchmarkDotNet's rule: the largest in which the column's smallest value
    is ≥ 1); Mean and Median share one so they read side by side."""
    est = [r.estimate for r in rows if r.estimate]
    units = {c: pick_unit([getattr(e, c.lower()) for e in est], TIME_UNITS) for c in ("Error", "StdDev")}
    units["Mean"] = units["Median"] = pick_unit([e.mean for e in est] + [e.median for e in est],
                                                TIME_UNITS)
    return units


def _ratio_cells(ratio, has_base: bool, ok: bool) -> tuple[str, str]:
    if ratio is not None:
        return format_ratio(ratio.value), f"{ratio.sd:.2f}" if math.isfinite(ratio.sd) else "NA"
    if not has_base or not ok:
        return "", ""
    return ("?", "?")  # a baseline exists but no ratio could be computed (e.g. its case failed)


def build_table(rows: list[Row], hide: set[str] | None = None, title: str = "") -> Table:
    hide = {h.lower() for h in (hide or set())}
    params: list[str] = []
    for r in rows:
        for name in r.result.case.param_values:
            if name not in params:
                params.append(name)
    runtimes = list(dict.fromkeys(r.result.case.runtime.label for r in rows))
    bases = list(dict.fromkeys(r.result.case.runtime.label for r in rows if r.is_runtime_baseline))
    base_rt = bases[0] if bases else None
    revs = {r.result.case.runtime.revision for r in rows if r.is_runtime_baseline}
    if len(bases) > 1 and len(revs) == 1 and "" not in revs:
        # --rev with several runtimes: each runtime is divided by itself on the first revision
        base_rt = "@" + revs.pop()
    has_ratio = any(r.baseline_key for r in rows)
    has_rt_ratio = base_rt is not None and any(r.runtime_baseline_key for r in rows)
    diags = [r.result.diagnostics for r in rows if r.result.diagnostics]
    has_alloc = any(d.alloc_bytes_per_op is not None for d in diags)
    gc_gens = max((len(d.gc_per_1000_ops) for d in diags if d.gc_per_1000_ops), default=0)
    has_gc = gc_gens and any(any(g > 0 for g in d.gc_per_1000_ops) for d in diags if d.gc_per_1000_ops)
    has_code = any(d.code_size is not None for d in diags)
    metric_units = list(dict.fromkeys(u for d in diags for u in d.metrics))
    rate_names = list(dict.fromkeys(n for d in diags for n in d.rates))
    has_notes = any(r.warnings or not r.result.ok or _absent(r) or count_cols.notes(r) for r in rows)
    # a run that counted instructions only has no time to show (a case it could not count has)
    timed = any(r.estimate for r in rows) or not count_cols.has_counts(rows)

    rt_col = runtime_column(base_rt) if has_rt_ratio else ""
    rt_sd_col = rt_col.replace("Ratio", "RatioSD", 1)
    rt_alloc_col = runtime_alloc_column(base_rt) if has_rt_ratio else ""
    columns = ["Method"] + (["Runtime"] if len(runtimes) > 1 else []) + params
    columns += list(TIME_COLUMNS) if timed else []
    if has_ratio and timed:
        columns += [METHOD_COLUMN, "RatioSD"]
    if has_rt_ratio and timed:
        columns += [rt_col, rt_sd_col]
    columns += count_cols.columns(rows, has_ratio, rt_col if has_rt_ratio else "")
    if has_gc:
        columns += [f"Gen{i}" for i in range(gc_gens)]
    if has_alloc:
        columns += ["Allocated"]
        if has_ratio and any(r.alloc_ratio is not None for r in rows):
            columns.append(METHOD_ALLOC_COLUMN)
        if has_rt_ratio and any(r.runtime_alloc_ratio is not None for r in rows):
            columns.append(rt_alloc_col)
    if has_code:
        columns += ["Code Size"]
    # the benchmark's own metrics (b.ReportMetric), a column per unit, named by it unless perflab's
    # own columns use that name
    metric_col = {u: u if u not in columns and u != "Notes" else f"{u} (reported)" for u in metric_units}
    columns += list(metric_col.values())
    # throughput and rate counters (criterion's Throughput, Google Benchmark's bytes_per_second…): a
    # column per name, the quantity per op over this row's mean
    rate_col = {n: n if n not in columns and n != "Notes" else f"{n} (reported)" for n in rate_names}
    columns += list(rate_col.values())
    if has_notes:
        columns += ["Notes"]
    columns = [c for c in columns if not _hidden(c, hide)]

    units = _units(rows)
    table = Table(title=title, columns=columns, rows=[], params=params)
    shared: dict[str, tuple[int, list[str]]] = {}  # note → (its marker, the rows that carry it)
    by_key = {r.key: r for r in rows}
    for i, r in enumerate(rows):
        e, res, d = r.estimate, r.result, r.result.diagnostics
        cells: dict[str, str] = {"Method": res.case.benchmark.name, "Runtime": res.case.runtime.label}
        for p in params:
            cells[p] = res.case.param_values.get(p, "-")
        for col in TIME_COLUMNS:
            cells[col] = format_in(getattr(e, col.lower()), units[col]) if e else "NA"
        cells[METHOD_COLUMN], cells["RatioSD"] = _ratio_cells(r.ratio, bool(r.baseline_key), res.ok)
        cells[rt_col], cells[rt_sd_col] = _ratio_cells(r.runtime_ratio, bool(r.runtime_baseline_key),
                                                       res.ok)
        gcs = (d.gc_per_1000_ops if d and d.gc_per_1000_ops else [])
        for g in range(gc_gens):
            cells[f"Gen{g}"] = (number(gcs[g]) if gcs[g] else "-") if g < len(gcs) else "NA"
        cells["Allocated"] = format_size(d.alloc_bytes_per_op) if d else "NA"
        cells[METHOD_ALLOC_COLUMN] = _alloc_ratio_cell(r.alloc_ratio, r.baseline_key)
        cells[rt_alloc_col] = _alloc_ratio_cell(r.runtime_alloc_ratio, r.runtime_baseline_key)
        cells["Code Size"] = f"{d.code_size:,} B" if d and d.code_size is not None else "NA"
        for unit, col in metric_col.items():
            cells[col] = number(d.metrics[unit]) if d and unit in d.metrics else "-"
        for name, col in rate_col.items():
            rate = d.rates.get(name) if d else None
            cells[col] = rates.format_rate(rates.per_second(rate, e.mean if e else None), rate) if rate else "-"
        cells.update(count_cols.cells(r, by_key, rt_col if has_rt_ratio else ""))
        label = case_label(res.case)
        status = "FAILED" if not res.ok else "NA" if _absent(r) else "SKIPPED" if res.skipped else ""
        reason = ([f"{status}: {res.error if not res.ok else _absent(r) or res.skipped}"] if status
                  else [])
        markers = []
        for note in reason + r.warnings + count_cols.notes(r):
            # a note several rows share (contention over the whole run, say) is one legend line
            if note not in shared:
                shared[note] = (len(shared) + 1, [])
            shared[note][1].append(label)
            markers.append(f"[{shared[note][0]}]")
        cells["Notes"] = " ".join([status] + markers if status else markers)
        if not res.ok:
            table.failed_rows.add(i)
        table.rows.append([cells.get(c, "") for c in columns])
    for note, (k, labels) in shared.items():
        who = (labels[0] if len(labels) == 1 else "every row" if len(labels) == len(rows)
               else f"{len(labels)} rows")
        table.legend.append(f"[{k}] {who}: {note}")
    return table


def _absent(r: Row) -> str:
    """Why a case does not exist on its runtime (a file its toolchain cannot build): "" if it does.
    (`CaseResult.absent` comes with the cli branch; getattr keeps this module working before it.)"""
    return getattr(r.result, "absent", None) or ""


def _alloc_ratio_cell(value: float | None, baseline_key: str | None) -> str:
    if value is not None:
        return f"{value:.2f}"
    return "NA" if baseline_key else ""


# -- the run's CSV: one row per case, raw numbers ---------------------------------------------------

PARAM_PREFIX = "param:"  # parameters are `param:<name>` columns: no parameter name can hit a stats one
METRIC_PREFIX = "metric:"  # a benchmark's own metrics (b.ReportMetric) are `metric:<unit>` columns
RATE_PREFIX = "rate:"  # throughput and rate counters, per second, are `rate:<name>` columns


def csv_rows(rows: list[Row]) -> tuple[list[str], list[dict]]:
    """Columns and rows of the run's CSV. Text cells hold user data (the writer neutralises them);
    numbers are raw (nanoseconds, bytes, plain ratios)."""
    params: list[str] = []
    for r in rows:
        for name in r.result.case.param_values:
            if name not in params:
                params.append(name)
    by_key = {r.key: r for r in rows}
    counted = any(r.result.counts for r in rows)
    out = [{**_raw(r, params, by_key), **(count_cols.csv_fields(r, by_key) if counted else {})}
           for r in rows]
    columns = list(dict.fromkeys(k for row in out for k in row))  # metric columns differ by row
    return columns, [{c: row.get(c, "") for c in columns} for row in out]


TEXT_COLUMNS = {"Method", "Group", "Runtime", "ratio_baseline_method", "ratio_baseline_runtime",
                "error", "warnings", "count_note"}


def _raw(r: Row, params: list[str], by_key: dict[str, Row]) -> dict:
    e, d, c = r.estimate, r.result.diagnostics, r.result.case
    out = {"Method": c.benchmark.name, "Group": c.benchmark.group, "Runtime": c.runtime.label}
    for p in params:
        out[PARAM_PREFIX + p] = c.param_values.get(p, "")
    for k in ("mean", "error", "stddev", "median", "min", "max", "ci_low", "ci_high"):
        out[f"{k}_ns"] = getattr(e, k) if e else ""
    out["n"] = e.n if e else ""
    out["launches"] = e.launches if e else ""
    out["ratio"] = r.ratio.value if r.ratio else ""
    out["ratio_sd"] = r.ratio.sd if r.ratio else ""
    base = by_key.get(r.baseline_key or "")
    out["ratio_baseline_method"] = base.result.case.benchmark.name if base else ""
    out["runtime_ratio"] = r.runtime_ratio.value if r.runtime_ratio else ""
    out["runtime_ratio_sd"] = r.runtime_ratio.sd if r.runtime_ratio else ""
    base = by_key.get(r.runtime_baseline_key or "")
    out["ratio_baseline_runtime"] = base.result.case.runtime.label if base else ""
    out["allocated_bytes"] = d.alloc_bytes_per_op if d and d.alloc_bytes_per_op is not None else ""
    out["alloc_ratio"] = r.alloc_ratio if r.alloc_ratio is not None else ""
    out["runtime_alloc_ratio"] = r.runtime_alloc_ratio if r.runtime_alloc_ratio is not None else ""
    out["code_size_bytes"] = d.code_size if d and d.code_size is not None else ""
    for unit, value in (d.metrics if d else {}).items():
        out[METRIC_PREFIX + unit] = value
    for name, value in rates.per_second_all(d, e).items():
        out[RATE_PREFIX + name] = "" if value is None else value
    out["status"] = str(Status.FAILED if not r.result.ok else Status.NA if _absent(r)
                        else Status.SKIPPED if r.result.skipped else Status.OK)
    out["error"] = r.result.error or ""
    out["warnings"] = " | ".join(r.warnings)
    return out

