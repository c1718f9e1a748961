"""The table's instruction columns (`--measure instructions`): per-op counts beside time, never in its
columns. `Instructions` is callgrind's Ir per operation net of the empty loop; `Est. Cycles`, `L1 Miss`
and `LL Miss` are secondary (hide them with --hide like any column); `Instr. Ratio` (and `Instr. Ratio
vs <runtime>`) divide by the same baseline as Ratio does (perflab.ratios), count by count.
"""
from __future__ import annotations

from ..analysis import Row
from ..measures.counts import format_count
from ..policy import DEFAULT

INSTRUCTIONS = "Instructions"
INSTR_RATIO = "Instr. Ratio"
SECONDARY = (("Est. Cycles", "est_cycles"), ("L1 Miss", "l1_misses"), ("LL Miss", "ll_misses"))
DEFINITION = ("**Instructions** = instructions per operation counted by valgrind's callgrind inside the "
              "timed loop, net of the empty loop (the figure of the two launches that agreed; ± is the "
              "spread when none did). **Instr. Ratio** = Instructions / Instructions of the same baseline "
              "as Ratio. **Est. Cycles** = L1 hits + 5 × LL hits + 35 × RAM accesses per operation "
              "(iai-callgrind's estimate); **L1 Miss**, **LL Miss** = cache misses per operation of "
              "callgrind's simulated caches.")


def per_op(row: Row | None) -> dict | None:
    counts = row.result.counts if row is not None else None
    return counts.get("per_op") if isinstance(counts, dict) else None


def has_counts(rows: list[Row]) -> bool:
    return any(per_op(r) for r in rows)


def instr_ratio_column(baseline_runtime: str) -> str:
    return f"{INSTR_RATIO} vs {baseline_runtime}"


def columns(rows: list[Row], has_ratio: bool, rt_col: str) -> list[str]:
    """The count columns a table of these rows gets (none when nothing was counted)."""
    if not has_counts(rows):
        return []
    out = [INSTRUCTIONS]
    if has_ratio:
        out.append(INSTR_RATIO)
    if rt_col:
        out.append(instr_ratio_column(rt_col.split(" vs ", 1)[1]))
    have = {k for r in rows for k in (per_op(r) or {})}
    return out + [name for name, key in SECONDARY if key in have]


def ratio(row: Row, base: Row | None) -> float | None:
    a, b = per_op(row), per_op(base)
    if not a or not b or b.get("Ir", 0) <= 0:
        return None
    return a.get("Ir", 0.0) / b["Ir"]


def _ratio_cell(row: Row, base_key: str | None, by_key: dict[str, Row]) -> str:
    if not base_key:
        return ""
    value = ratio(row, by_key.get(base_key))
    if value is None:
        return "NA"
    return ">1000" if value >= 1000 else "<0.001" if value < 0.001 else f"{value:.3f}"


def cells(row: Row, by_key: dict[str, Row], rt_col: str) -> dict[str, str]:
    p = per_op(row)
    out = {INSTR_RATIO: _ratio_cell(row, row.baseline_key, by_key)}
    if rt_col:
        out[instr_ratio_column(rt_col.split(" vs ", 1)[1])] = _ratio_cell(row, row.runtime_baseline_key,
                                                                         by_key)
    if not p:
        out[INSTRUCTIONS] = "NA"
        out.update({name: "NA" for name, _ in SECONDARY})
        return out
    counts = row.result.counts
    spread = "" if counts.get("agreed") else f" ±{(counts.get('spread') or 0.0):.2%}"
    out[INSTRUCTIONS] = format_count(p.get("Ir", 0.0)) + spread
    out.update({name: format_count(p[key]) if key in p else "NA" for name, key in SECONDARY})
    return out


def header_line(rows: list[Row]) -> str:
    """The line above the tables that says how the counts were taken ("" when nothing was counted)."""
    counted = [r.result.counts for r in rows if per_op(r)]
    if not counted:
        return ""
    tolerances = sorted({c.get("tolerance") for c in counted if isinstance(c.get("tolerance"), (int, float))})
    agree = "/".join(f"{t:.2%}" for t in tolerances)
    aslr = (counted[0].get("pinned") or {}).get("aslr", "?")
    return (f"Counted={counted[0].get('tool') or 'callgrind'}  CacheSim=on  ASLR={aslr}  "
            f"Launches=until two agree within {agree} (at most {DEFAULT.counts.max_launches})")


def progress_text(counts: dict | None) -> str:
    """The progress line's words for a case's count ("" when it has none)."""
    p = counts.get("per_op") if isinstance(counts, dict) else None
    if counts and counts.get("error"):
        return f"counting failed: {counts['error']}"
    if not p:
        return str(counts.get("note") or "") if counts else ""
    agreed = "" if counts.get("agreed") else f" ±{(counts.get('spread') or 0.0):.2%} (launches did not agree)"
    return f"{format_count(p.get('Ir', 0.0))} instructions/op{agreed}"


def notes(row: Row) -> list[str]:
    """What the row's count needs said: why it was not counted, why counting failed, or that its
    launches did not agree (the profile's own note too)."""
    counts = row.result.counts
    if not isinstance(counts, dict):
        return []
    out = []
    if counts.get("error") and row.result.ok:  # a failed case already says why in FAILED
        out.append(f"counting failed: {counts['error']}")
    if counts.get("note"):
        out.append(str(counts["note"]))
    return out


def csv_fields(row: Row, by_key: dict[str, Row]) -> dict:
    """Raw numbers for the run's CSV (empty when not counted)."""
    p, counts = per_op(row) or {}, row.result.counts or {}
    r = ratio(row, by_key.get(row.baseline_key or ""))
    rr = ratio(row, by_key.get(row.runtime_baseline_key or ""))
    return {"instructions": p.get("Ir", ""), "est_cycles": p.get("est_cycles", ""),
            "l1_misses": p.get("l1_misses", ""), "ll_misses": p.get("ll_misses", ""),
            "instructions_spread": counts.get("spread", "") if p else "",
            "instructions_agreed": counts.get("agreed", "") if p else "",
            "instr_ratio": r if r is not None else "", "runtime_instr_ratio": rr if rr is not None else "",
            "count_note": "; ".join(notes(row))}
