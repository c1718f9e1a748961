"""The seeds' table as data: `Method | Runtime | Params… | Mean | Error | StdDev | Median | Ratio |
RatioSD | Allocated | Alloc Ratio | Code Size`, one unit per column, optional columns only when used."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..analysis import Row
from ..units import TIME_UNITS, format_in, format_size, number, pick_unit

TIME_COLUMNS = ("Mean", "Error", "StdDev", "Median")


@dataclass
class Table:
    columns: list[str]
    rows: list[list[str]]
    right_aligned: set[str] = field(default_factory=set)
    section_ends: list[int] = field(default_factory=list)  # row indices after which a group ends
    footnotes: list[str] = field(default_factory=list)
    raw: list[dict] = field(default_factory=list)  # unformatted values per row (csv)


def _method(row: Row, show_group: bool) -> str:
    b = row.result.case.benchmark
    return f"{b.group}.{b.name}" if show_group and b.group else b.name


def build_table(rows: list[Row], hide: set[str] | None = None) -> Table:
    hide = {h.lower() for h in (hide or set())}
    params: list[str] = []
    for r in rows:
        for name in r.result.case.param_values:
            if name not in params:
                params.append(name)
    runtimes = {r.result.case.runtime.label for r in rows}
    groups = {r.result.case.benchmark.group for r in rows}
    show_group = len(groups) > 1
    has_ratio = any(r.baseline_key for r in rows)
    has_alloc = any(r.result.diagnostics and r.result.diagnostics.alloc_bytes_per_op is not None
                    for r in rows)
    has_alloc_ratio = has_alloc and any(r.alloc_ratio is not None for r in rows)
    has_code = any(r.result.diagnostics and r.result.diagnostics.code_size is not None for r in rows)
    gc_gens = max((len(r.result.diagnostics.gc_per_1000_ops) for r in rows
                   if r.result.diagnostics and r.result.diagnostics.gc_per_1000_ops), default=0)
    has_gc = gc_gens and any(any(g > 0 for g in r.result.diagnostics.gc_per_1000_ops) for r in rows
                             if r.result.diagnostics and r.result.diagnostics.gc_per_1000_ops)
    has_notes = any(r.warnings or not r.result.ok or r.result.absent for r in rows)

    columns = ["Method"] + (["Runtime"] if runtimes else []) + params + list(TIME_COLUMNS)
    if has_ratio:
        columns += ["Ratio", "RatioSD"]
    if has_gc:
        columns += [f"Gen{i}" for i in range(gc_gens)]
    if has_alloc:
        columns += ["Allocated"] + (["Alloc Ratio"] if has_alloc_ratio else [])
    if has_code:
        columns += ["Code Size"]
    if has_notes:
        columns += ["Notes"]
    columns = [c for c in columns if c.lower() not in hide or c == "Method"]

    units = {}
    for col in TIME_COLUMNS:
        vals = [getattr(r.estimate, col.lower()) for r in rows if r.estimate]
        units[col] = pick_unit(vals, TIME_UNITS)
    # Mean, Median share the unit of the smallest mean so rows compare at a glance (as BenchmarkDotNet)
    units["Median"] = units["Mean"]

    table = Table(columns=columns, rows=[],
                  right_aligned={c for c in columns if c not in ("Method", "Runtime", "Notes")
                                 and c not in params})
    previous_group = None
    for i, r in enumerate(rows):
        e, res, d = r.estimate, r.result, r.result.diagnostics
        group = (res.case.benchmark.group, res.case.benchmark.file)
        if previous_group is not None and group != previous_group:
            table.section_ends.append(i - 1)
        previous_group = group
        cells: dict[str, str] = {"Method": _method(r, show_group), "Runtime": res.case.runtime.label}
        for p in params:
            cells[p] = res.case.param_values.get(p, "-")
        for col in TIME_COLUMNS:
            cells[col] = format_in(getattr(e, col.lower()), units[col]) if e else "NA"
        if r.ratio:
            cells["Ratio"] = f"{r.ratio.value:.2f}"
            cells["RatioSD"] = f"{r.ratio.sd:.2f}"
        elif r.is_baseline and e:
            cells["Ratio"], cells["RatioSD"] = "1.00", "0.00"
        else:
            cells["Ratio"] = cells["RatioSD"] = "?" if r.baseline_key else ""
        gcs = (d.gc_per_1000_ops if d and d.gc_per_1000_ops else [])
        for g in range(gc_gens):
            cells[f"Gen{g}"] = (number(gcs[g]) if gcs[g] else "-") if g < len(gcs) else "NA"
        cells["Allocated"] = format_size(d.alloc_bytes_per_op) if d else "NA"
        cells["Alloc Ratio"] = f"{r.alloc_ratio:.2f}" if r.alloc_ratio is not None else (
            "NA" if r.baseline_key else "")
        cells["Code Size"] = f"{d.code_size:,} B" if d and d.code_size is not None else "NA"
        if not res.ok:
            cells["Notes"] = f"FAILED: {res.error}"
        elif res.absent:
            cells["Notes"] = f"NA: {res.absent}"
        elif r.warnings:
            cells["Notes"] = "; ".join(_short(w) for w in r.warnings)
        else:
            cells["Notes"] = ""
        table.rows.append([cells.get(c, "") for c in columns])
        table.raw.append(_raw(r, params))
    for r in rows:
        label = f"{_method(r, True)} [{', '.join(f'{k}={v}' for k, v in r.result.case.param_values.items())}] @ {r.result.case.runtime.label}"
        if not r.result.ok:
            table.footnotes.append(f"{label}: FAILED: {r.result.error}")
        elif r.result.absent:
            table.footnotes.append(f"{label}: NA: {r.result.absent}")
        for w in r.warnings:
            table.footnotes.append(f"{label}: {w}")
    return table


def _short(warning: str) -> str:
    return warning.split(":")[0]


def _raw(r: Row, params: list[str]) -> dict:
    e, d, c = r.estimate, r.result.diagnostics, r.result.case
    out = {"Method": c.benchmark.name, "Group": c.benchmark.group, "Runtime": c.runtime.label}
    for p in params:
        out[p] = c.param_values.get(p, "")
    for k in ("mean", "error", "stddev", "median", "min", "max", "ci_low", "ci_high"):
        out[f"{k}_ns"] = getattr(e, k) if e else ""
    out["n"] = e.n if e else ""
    out["launches"] = e.launches if e else ""
    out["ratio"] = r.ratio.value if r.ratio else ""
    out["ratio_sd"] = r.ratio.sd if r.ratio else ""
    out["allocated_bytes"] = d.alloc_bytes_per_op if d and d.alloc_bytes_per_op is not None else ""
    out["alloc_ratio"] = r.alloc_ratio if r.alloc_ratio is not None else ""
    out["code_size_bytes"] = d.code_size if d and d.code_size is not None else ""
    out["status"] = "failed" if not r.result.ok else "na" if r.result.absent else "ok"
    out["error"] = r.result.error or ""
    out["warnings"] = " | ".join(r.warnings)
    return out

