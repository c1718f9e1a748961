"""The seeds' claims and their verdicts.

A claim comes from a case's `meta["claim"]` or, for the seed corpus in every language, from the
registry `seed_claims.json` (keyed by seed, section and method name). See `seeds_report` for the
fields of a claim."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from .results_view import (SAME_BAND, Case, Ratio, Report, Section, _finite, _params_text,
                           runtime_ratio, unpaired_ratio)

CLAIM_RULE = (
    "Our figure is the ratio after/before of two of our measurements (the claim says which: two "
    "parameter values, two methods, or the baseline runtime against each other runtime) with its "
    "99.9 % confidence interval. A claim is **confirmed** when that whole interval lies on the side "
    "the seed claims (below 1 for “faster”, above 1 for “slower”, inside "
    f"[{SAME_BAND[0]}, {SAME_BAND[1]}] for “same”), **contradicted** when the whole interval lies on "
    "the other side (for “same”: entirely outside that band), and **inconclusive** otherwise — "
    "including when there is no interval (a dry run, a failed case) or either case was measured under "
    "heavy or changing contention (its Notes say so). Our figures are per operation "
    "(a seed figure may be per call of many operations: only ratios compare). Only the direction is judged: "
    "the seed measured .NET on other hardware, so its ratio is shown for reference, with whether it "
    "falls inside our interval.")


# -- claims -------------------------------------------------------------------------------------

_UNITS = (("ms", 1e6), ("us", 1e3), ("μs", 1e3), ("ns", 1.0), ("s", 1e9))


def _seed_figures(claim: dict) -> tuple[float, float, str] | None:
    for unit, scale in _UNITS:
        b, a = claim.get(f"before_{unit}"), claim.get(f"after_{unit}")
        if _finite(b) and _finite(a):
            return b * scale, a * scale, unit
    b, a = claim.get("before"), claim.get("after")
    if _finite(b) and _finite(a):
        return float(b), float(a), str(claim.get("unit", ""))
    return None


@dataclass
class ClaimCheck:
    comparison: str
    before: Case
    after: Case
    ratio: Ratio | None
    verdict: str
    seed_inside: str


@dataclass
class Claim:
    text: str
    expect: str | None
    seed: tuple[float, float, str] | None
    checks: list[ClaimCheck]
    note: str = ""

    @property
    def seed_ratio(self) -> float | None:
        if self.seed and self.seed[0] > 0:
            return self.seed[1] / self.seed[0]
        return None

    def seed_text(self) -> str:
        if not self.seed:
            return "—"
        b, a, unit = self.seed
        scale = dict(_UNITS).get(unit, 1.0)
        unit = "μs" if unit == "us" else unit
        return f"{b / scale:,.6g} {unit} → {a / scale:,.6g} {unit} (×{a / b:.2f})"

    @property
    def overall(self) -> str:
        vs = {c.verdict for c in self.checks}
        if not self.checks:
            return "not checked"
        if vs == {"confirmed"}:
            return "confirmed"
        if vs == {"contradicted"}:
            return "contradicted"
        if "confirmed" in vs and "contradicted" in vs:
            return "mixed"
        if vs == {"inconclusive"}:
            return "inconclusive"
        return "partly " + ("confirmed" if "confirmed" in vs else "contradicted")


def verdict(ratio: Ratio | None, expect: str | None) -> str:
    if ratio is None or not ratio.has_interval or expect not in ("faster", "slower", "same"):
        return "inconclusive"
    lo, hi = ratio.low, ratio.high
    if expect == "faster":
        return "confirmed" if hi < 1 else "contradicted" if lo > 1 else "inconclusive"
    if expect == "slower":
        return "confirmed" if lo > 1 else "contradicted" if hi < 1 else "inconclusive"
    if SAME_BAND[0] <= lo and hi <= SAME_BAND[1]:
        return "confirmed"
    return "contradicted" if hi < SAME_BAND[0] or lo > SAME_BAND[1] else "inconclusive"


def _same(a: Any, b: Any) -> bool:
    """Parameter values as displayed by different languages: `True` (Python) is `true` (JS, Go)."""
    return a is not None and b is not None and str(a).lower() == str(b).lower()


def _matches(case: Case, selector: dict) -> bool:
    p = case.params
    return all(_same(p.get(str(k)), v) for k, v in selector.items())


@lru_cache(maxsize=1)
def registry() -> dict[tuple[str, str, str], dict]:
    """(seed, section, method name) → claim, from `seed_claims.json` shipped with perflab."""
    text = resources.files(__package__).joinpath("seed_claims.json").read_text(encoding="utf-8")
    out = {}
    for entry in json.loads(text)["claims"]:
        for method in entry["methods"]:
            out[(entry["seed"], entry["section"], method)] = entry["claim"]
    return out


def claim_of(case: Case) -> Any:
    """The case's own `meta["claim"]`, else the registry's claim for its seed, section and method."""
    if "claim" in case.meta:
        return case.meta["claim"]
    m = case.meta
    return registry().get((str(m.get("seed", "")), str(m.get("section", "")), case.method_name))


def claims_of(report: Report, section: Section) -> list[Claim]:
    texts: dict[str, tuple[Any, list[Case]]] = {}
    for c in section.cases:
        cl = claim_of(c)
        if cl is None:
            continue
        text = cl if isinstance(cl, str) else str(cl.get("text", "")) if isinstance(cl, dict) else str(cl)
        texts.setdefault(text, (cl, []))[1].append(c)
    claims = []
    for text, (cl, carriers) in texts.items():
        if not isinstance(cl, dict):
            claims.append(Claim(text, None, None, [], note="no figures to check"))
            continue
        seed = _seed_figures(cl)
        expect = cl.get("expect")
        if expect is None and seed:
            expect = "faster" if seed[1] < seed[0] else "slower" if seed[1] > seed[0] else "same"
        selector = cl.get("params") if isinstance(cl.get("params"), dict) else {}
        compare = cl.get("compare") if isinstance(cl.get("compare"), dict) else {}
        pairs: list[tuple[str, Case, Case]] = []
        if compare.get("param"):
            name, bv, av = str(compare["param"]), str(compare.get("before")), str(compare.get("after"))
            for b in carriers:
                if not _same(b.params.get(name), bv) or not _matches(b, selector):
                    continue
                rest = {k: v for k, v in b.params.items() if k != name}
                for a in carriers:
                    if (a.bench_id == b.bench_id and a.runtime == b.runtime and _same(a.params.get(name), av)
                            and {k: v for k, v in a.params.items() if k != name} == rest):
                        pairs.append((f"{name}={b.params[name]} → {a.params[name]} on {a.runtime}"
                                      + (f" ({_kv(rest)})" if rest else ""), b, a))
        elif compare.get("before") and compare.get("after"):
            bn, an = str(compare["before"]), str(compare["after"])
            for b in carriers:
                if b.method_name != bn or not _matches(b, selector):
                    continue
                for a in carriers:
                    if a.method_name == an and a.runtime == b.runtime and a.params == b.params:
                        pairs.append((f"{bn} → {an} on {a.runtime}"
                                      + (f" ({_params_text(a)})" if a.params else ""), b, a))
        else:
            for a in carriers:
                b = report.baseline_case(section, a)
                if b is None or a is b or not _matches(a, selector):
                    continue
                pairs.append((f"{b.runtime} → {a.runtime}" + (f" ({_params_text(a)})" if a.params else ""),
                              b, a))
        checks = []
        for label, b, a in pairs:
            r = runtime_ratio(a, b) if compare == {} else unpaired_ratio(a, b)
            v = verdict(r, expect)
            if a.contended or b.contended:  # the interval cannot see interference that hit it all
                v = "inconclusive"
            seed_r = seed[1] / seed[0] if seed and seed[0] > 0 else None
            inside = ("—" if seed_r is None or r is None or not r.has_interval
                      else "yes" if r.low <= seed_r <= r.high else "no")
            checks.append(ClaimCheck(label, b, a, r, v, inside))
        note = "" if checks else "no pair of our cases to compare (not measured in these results)"
        claims.append(Claim(text, expect, seed, checks, note))
    return claims


def _kv(d: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in d.items())
