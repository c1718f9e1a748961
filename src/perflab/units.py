"""Units and number formatting shared by every exporter."""
from __future__ import annotations

import math

TIME_UNITS = (("ns", 1.0), ("μs", 1e3), ("ms", 1e6), ("s", 1e9))
SIZE_UNITS = (("B", 1.0), ("KB", 1024.0), ("MB", 1024.0 ** 2), ("GB", 1024.0 ** 3))


def pick_unit(values, units) -> tuple[str, float]:
    """The largest unit in which the smallest non-zero magnitude is still ≥ 1 (one unit per column)."""
    mags = [abs(v) for v in values if v is not None and math.isfinite(v) and v != 0]
    if not mags:
        return units[0]
    smallest = min(mags)
    chosen = units[0]
    for name, scale in units:
        if smallest >= scale:
            chosen = (name, scale)
    return chosen


def number(v: float) -> str:
    """About four significant figures (1.234, 12.34, 123.4, 1,234); a thousands separator only from
    10,000 up (a unit chosen by the smallest value leaves larger ones with more digits)."""
    a = abs(v)
    if a >= 10_000:
        return f"{v:,.0f}"
    if a >= 1000:
        return f"{v:.0f}"
    if a >= 100:
        return f"{v:.1f}"
    if a >= 10:
        return f"{v:.2f}"
    if a >= 1 or a == 0:
        return f"{v:.3f}"
    return f"{v:.4g}"


def format_in(v: float | None, unit: tuple[str, float]) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "NA"
    return f"{number(v / unit[1])} {unit[0]}"


def format_time(ns: float | None) -> str:
    if ns is None:
        return "NA"
    return format_in(ns, pick_unit([ns], TIME_UNITS))


def format_size(b: float | None) -> str:
    if b is None:
        return "NA"
    if b == 0:
        return "-"
    unit = pick_unit([b], SIZE_UNITS)
    v = b / unit[1]
    return f"{v:,.0f} {unit[0]}" if unit[0] == "B" else f"{number(v)} {unit[0]}"
