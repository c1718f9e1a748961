"""Throughput and rate columns: a quantity per operation (bytes, elements, a counter) divided by the
mean perflab measured, as the original harness shows it: criterion's `Throughput` ("1.20 GiB/s",
"3.40 Melem/s"), Google Benchmark's `bytes_per_second` / `items_per_second` and rate counters
(`Counter::kIsRate` & co.).

A worker reports the quantity, not the rate (`diagnostics.rates`, protocol/PROTOCOL.md): the rate is
computed here from the case's estimate, so it always agrees with the Mean beside it.
"""
from __future__ import annotations

import math
from typing import Any

from ..units import format_time

# unit → (binary prefixes?, the suffix after the prefix)
_BINARY = ["", "Ki", "Mi", "Gi", "Ti", "Pi"]
_DECIMAL = ["", "k", "M", "G", "T", "P"]


def parse(raw: Any) -> dict[str, dict]:
    """The `rates` of a diagnostics reply (or of stored results), checked: name → {per_op, unit,
    base, invert}. Malformed entries are left out (a number the worker could not compute)."""
    out: dict[str, dict] = {}
    if not isinstance(raw, dict):
        return out
    for name, r in raw.items():
        if not isinstance(r, dict):
            continue
        q = r.get("per_op")
        if not isinstance(q, (int, float)) or isinstance(q, bool) or not math.isfinite(q):
            continue
        unit = r.get("unit") if isinstance(r.get("unit"), str) else ""
        base = 1024 if r.get("base") == 1024 else 1000
        out[str(name)] = {"per_op": float(q), "unit": unit, "base": base, "invert": r.get("invert") is True}
    return out


def per_second(rate: dict, mean_ns: float | None) -> float | None:
    """The rate (quantity per second) at a mean of `mean_ns` per op; inverted (seconds per quantity)
    for Google Benchmark's `kInvert`. None when there is nothing to divide by."""
    if mean_ns is None or not math.isfinite(mean_ns) or mean_ns <= 0:
        return None
    v = rate["per_op"] / (mean_ns * 1e-9)
    if rate.get("invert"):
        return 1.0 / v if v else None
    return v


def format_rate(value: float | None, rate: dict) -> str:
    """`value` (from per_second) as the original harness prints it: a prefix by the rate's base
    (1024: Ki/Mi/Gi, 1000: k/M/G), then its unit per second ("B/s", "elem/s", "/s")."""
    if value is None:
        return "NA"
    if rate.get("invert"):
        return f"{format_time(value * 1e9)}/{rate['unit'] or 'unit'}"
    base = rate.get("base", 1000)
    prefixes = _BINARY if base == 1024 else _DECIMAL
    return f"{_scaled(value, base, prefixes)}{rate['unit']}/s"


def _scaled(v: float, base: int, prefixes: list[str]) -> str:
    i = 0
    while abs(v) >= base and i < len(prefixes) - 1:
        v /= base
        i += 1
    text = f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"
    return f"{text} {prefixes[i]}"


def per_second_all(diagnostics: Any, estimate: Any) -> dict[str, float | None]:
    """Every rate of a case per second (the results' `rates`): {} when it has none."""
    found = getattr(diagnostics, "rates", None) or {}
    mean = getattr(estimate, "mean", None)
    return {name: per_second(r, mean) for name, r in found.items()}
