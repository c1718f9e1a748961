"""The seeds' claims, which of our comparisons stands for each, and their verdicts.

A claim comes from a case's `meta["claim"]` or, for the seed corpus in every language, from the
registry `seed_claims.json` (keyed by seed, section and method name). A seed claim is about ONE
comparison — an older and a newer version of one runtime doing one workload, or two methods (two
parameter values) on one runtime — so each claim says which of ours stands for it (`comparison`):

- `"versions"` (the default): the family's pair (perflab.report.families), oldest → newest, when
  that pair is a version comparison. Other runtimes of the language (python3.11 beside 3.8 → 3.13)
  and pairs that are not versions (gcc → clang, -O1 → -O3) are shown for reference only.
- `{"methods": ["Write", "WriteGather"]}`: those two methods on the family's newest runtime (the
  version the seed measured is the newer one); on the other runtimes for reference.
- `{"param": "specifyPreallocationSize", "values": ["False", "True"]}`: two values of a parameter,
  the other parameters equal, on the family's newest runtime.

(The older `"compare": {"before": A, "after": B}` / `{"param": P, "before": x, "after": y}` still reads.)

ONE rule decides who may judge a claim (suites/seeds/README.md says the same): a **faithful** port, on
the comparison the seed made (above), in a family where the **mechanism** the seed credits is present
(the registry's `mechanism`: `what`, and per language `present` / `absent` / `unknown`). Everything else
is shown with its figures, never counted: a partial or different port, or a family where the mechanism
is absent or not established, as an **analogue**; another runtime or a pair that is not the seed's
comparison, or an extra benchmark, **for reference**. A port without a fidelity (not audited yet)
decides, marked; a claim without a `mechanism` (a benchmark's own `meta["claim"]`) is not gated on it."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Callable

from ..judge import ClaimVerdict, claim_verdict, confidence_text, expected
from .families import FAMILY_NAMES, KIND_TEXT, Pair, pair_kind, pairs_of
from .results_view import (CONFIDENCE, SAME_BAND, Case, Ratio, Report, Section, _finite, contention_blocks, method_of,
                           runtime_ratio)


def claim_rule(confidence: float = CONFIDENCE) -> str:
    """The claims' rule as the reports print it, at the report's confidence."""
    return (
    "Each claim is checked by ONE comparison per family — the one the seed made: for a claim about "
    "versions, the family's oldest → newest runtime (only when those are two versions of one runtime); "
    "for a claim about two methods or two parameter values, those two on the family's newest runtime — "
    "and only on a **faithful** port, in a family where the **mechanism** the seed credits for the change is "
    "present (each claim names it). "
    f"Our figure is the ratio after/before of those two measurements with its {confidence_text(confidence)} confidence "
    "interval. A claim is **confirmed** when that whole interval lies on the side the seed claims "
    "(below 1 for “faster”, above 1 for “slower”, inside "
    f"[{SAME_BAND[0]}, {SAME_BAND[1]}] for “same”), **contradicted** when the interval rules the "
    f"claim out: for “faster”, no part of it shows a speed-up beyond the {1 - SAME_BAND[0]:.0%} band "
    f"(its low end at or above {SAME_BAND[0]}: slower, unchanged, or faster by less than a reader "
    "would notice, and not surely faster); for “slower”, likewise mirrored; for “same”, entirely "
    "outside that band — and **inconclusive** otherwise — "
    "including when there is no interval (a dry run, a failed case) or either case was measured under "
    "heavy or changing contention (its Notes say so). A partial or different port, or a family where the "
    "mechanism is absent or not established, is shown as an **analogue** with its figures; another runtime of the "
    "language, a pair that is not a version pair or an extra benchmark **for reference**: neither is ever counted. Our figures are per operation "
    "(a seed figure may be per call of many operations: only ratios compare). Only the direction is "
    "judged: the seed measured .NET on other hardware, so its ratio is shown for reference, with "
    "whether it falls inside our interval.")


CLAIM_RULE = claim_rule()


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
    comparison: str      # "Node 18 → 24 SeekForward(fileSize=1024)"
    before: Case
    after: Case
    ratio: Ratio | None
    verdict: str         # confirmed | contradicted | inconclusive (for reference checks: as it would read)
    seed_inside: str
    decides: bool = True
    note: str = ""       # why it is only for reference, or how far the port can be trusted
    analogue: bool = False  # the seed's comparison, but a partial port or no mechanism: never counted

    @property
    def shown_verdict(self) -> str:
        return self.verdict if self.decides else "analogue" if self.analogue else "for reference"


@dataclass
class Claim:
    text: str
    expect: str | None
    seed: tuple[float, float, str] | None
    checks: list[ClaimCheck]
    note: str = ""
    kind: str = "versions"   # the comparison that stands for the claim: versions | methods | param
    mechanism: str = ""      # what the seed credits for the change (the registry's mechanism.what)

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
    def deciding(self) -> list[ClaimCheck]:
        return [c for c in self.checks if c.decides]

    @property
    def overall(self) -> str:
        """From the deciding checks only (one per parameter case the claim covers)."""
        vs = {c.verdict for c in self.deciding}
        if not self.deciding:
            if any(c.analogue for c in self.checks):
                return "analogue"
            return "for reference only" if self.checks else "not checked"
        if len(vs) == 1:
            return str(vs.pop())  # confirmed, contradicted or inconclusive
        if ClaimVerdict.CONFIRMED in vs and ClaimVerdict.CONTRADICTED in vs:
            return "mixed"
        return "partly " + (ClaimVerdict.CONFIRMED if ClaimVerdict.CONFIRMED in vs else ClaimVerdict.CONTRADICTED)

    @property
    def decided(self) -> bool:
        """Every deciding check reached a verdict (a claim still partly inconclusive is not decided)."""
        return self.overall in (ClaimVerdict.CONFIRMED, ClaimVerdict.CONTRADICTED, "mixed")

    @property
    def checked_as(self) -> str:
        """How the claim was mapped: `checked as Node 18 → 24 SeekForward(fileSize=1024)`."""
        labels = [c.comparison for c in self.deciding]
        if labels:
            return "checked as " + "; ".join(labels)
        analogues = [c for c in self.checks if c.analogue]
        if analogues:  # the seed's comparison, not counted: say why (port, mechanism)
            a = analogues[0]  # the reason's head; the section's claims table gives all of it
            return f"analogue only: {a.comparison} ({'; '.join(n.split(':')[0] for n in a.note.split('; '))})"
        return self.note or "no comparison of ours stands for it"


def verdict(ratio: Ratio | None, expect: str | None) -> ClaimVerdict:
    """perflab.judge.claim_verdict on our ratio's interval (inconclusive without one)."""
    if ratio is None or not ratio.has_interval:
        return ClaimVerdict.INCONCLUSIVE
    return claim_verdict(ratio.low, ratio.high, expect, SAME_BAND)


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
    return claim_for(case.meta, case.method_name)


def claim_for(meta: dict, method: str) -> Any:
    """A benchmark's claim from its meta and method name alone: known before anything is measured."""
    if "claim" in meta:
        return meta["claim"]
    return registry().get((str(meta.get("seed", "")), str(meta.get("section", "")), method))


def carries_claim(case) -> bool:
    """Whether a planned case (perflab.model.Case) stands for a seed claim in some comparison: the ones
    `--budget-total` measures first and with a full share."""
    return claim_for(case.benchmark.meta or {}, method_of(case.benchmark.name)) is not None


def decides_in(runtimes: list) -> Callable[[Any], bool]:
    """`carries_claim`, knowing the run's runtimes (perflab.model.Runtime, in `--runtimes` order): whether
    a planned case can decide its claim in the report (`claims_of`), the ones `--budget-total` measures
    first and with a full share. A claim of versions is decided only by a family whose first and last
    runtimes are two versions of one runtime, on those two; a claim of two methods or two parameter
    values only on the family's newest runtime; in either case only where the claim's mechanism is
    present in the language (`mechanism_standing`) and on a port that may decide (not partial,
    different or an extra: `port_standing`). A C/C++ gcc → clang pair or Mono with and without its
    interpreter decides no version claim: their cases are shown for reference, and take a reference
    share (in the main job they were 96 of pass 1's 266 cases, at a full share)."""
    ends: dict[str, list] = {}
    for rt in runtimes:
        ends.setdefault(rt.language, []).append(rt)
    versions = {lang: {rts[0].label, rts[-1].label} for lang, rts in ends.items()
                if len(rts) > 1 and pair_kind(rts[0].label, rts[-1].label, rts[0].implementation,
                                              rts[-1].implementation) == "versions"}
    newest = {lang: rts[-1].label for lang, rts in ends.items()}

    def decides(case) -> bool:
        claim = claim_for(case.benchmark.meta or {}, method_of(case.benchmark.name))
        if not isinstance(claim, dict):
            return False
        kind = comparison_of(claim)["kind"]
        meta = case.benchmark.meta or {}
        if not mechanism_standing(claim, case.runtime.language)[0] or meta.get("extra") in (True, "true") \
                or str(meta.get("fidelity", "")).startswith(("partial", "different", "not run")):
            return False  # an analogue or an extra: shown, never counted (port_standing)
        if kind == "versions":
            return case.runtime.label in versions.get(case.runtime.language, ())
        return kind in ("methods", "param") and case.runtime.label == newest.get(case.runtime.language)
    return decides


def comparison_of(claim: dict) -> dict:
    """The claim's comparison, normalised to {"kind": "versions"} | {"kind": "methods", "before",
    "after"} | {"kind": "param", "param", "before", "after"} | {"kind": "invalid", "why"}."""
    comp, legacy = claim.get("comparison"), claim.get("compare")
    if isinstance(comp, dict):
        methods, values = comp.get("methods"), comp.get("values")
        if isinstance(methods, list) and len(methods) == 2:
            return {"kind": "methods", "before": str(methods[0]), "after": str(methods[1])}
        if comp.get("param") and isinstance(values, list) and len(values) == 2:
            return {"kind": "param", "param": str(comp["param"]), "before": str(values[0]),
                    "after": str(values[1])}
        return {"kind": "invalid", "why": "its comparison names neither two methods nor a parameter's two values"}
    if comp not in (None, "versions"):
        return {"kind": "invalid", "why": f"unknown comparison {comp!r}"}
    if isinstance(legacy, dict) and legacy:
        if legacy.get("param"):
            return {"kind": "param", "param": str(legacy["param"]), "before": str(legacy.get("before")),
                    "after": str(legacy.get("after"))}
        if legacy.get("before") and legacy.get("after"):
            return {"kind": "methods", "before": str(legacy["before"]), "after": str(legacy["after"])}
    return {"kind": "versions"}


def mechanism_standing(claim: dict, language: str) -> tuple[bool, str]:
    """(is the mechanism the claim credits present in this language family, why not) from the claim's
    `mechanism`; a claim that names none is not gated on it."""
    mech = claim.get("mechanism") if isinstance(claim, dict) else None
    if not isinstance(mech, dict):
        return True, ""
    family = FAMILY_NAMES.get(language, language)
    if language in (mech.get("present") or {}):
        return True, ""
    if language in (mech.get("absent") or {}):
        return False, f"mechanism absent on {family}: {mech['absent'][language]}"
    why = (mech.get("unknown") or {}).get(language, "not examined")
    return False, f"mechanism not established on {family}: {why}"


def port_standing(*cases: Case) -> tuple[bool, str]:
    """(may the cases decide a claim, a mark for the reader) from the ports' own audit in `meta`."""
    decides, marks = True, []
    for c in cases:
        m = c.meta
        fid = m.get("fidelity")
        if m.get("extra") in (True, "true"):  # Go and Java meta values are strings
            decides, mark = False, f"{c.method_name} is an extra benchmark, not a port of the seed's"
        elif fid is None:
            mark = "port not audited"
        elif str(fid).startswith(("different", "not run")):  # "not run: needs C# 8 …": not measured as written
            decides, mark = False, f"port {fid}"
        elif str(fid) == "faithful":
            mark = ""
        elif str(fid).startswith("partial"):  # suites/seeds/README.md: a partial port's claim is not checked
            decides, mark = False, f"port {fid}"
        else:
            mark = f"port {fid}"  # anything unforeseen: decides, marked
        if mark and mark not in marks:
            marks.append(mark)
    return decides, "; ".join(marks)


def _call(c: Case) -> str:
    return f"{c.method_name}({', '.join(f'{k}={v}' for k, v in c.params.items())})"


@dataclass
class _Candidate:
    label: str
    before: Case
    after: Case
    decisive: bool
    why_not: str = ""


def _version_pairs(carriers: list[Case], pairs: dict[str, Pair], section: Section,
                   selector: dict) -> list[_Candidate]:
    out = []
    for a in carriers:
        pair = pairs.get(a.language)
        if pair is None or a.runtime == pair.old or not _matches(a, selector):
            continue
        b = next((c for c in section.cases if c.runtime == pair.old and c.key == a.key), None)
        if b is None:
            continue
        label = f"{pair.family_name} {pair.short(b.runtime)} → {pair.short(a.runtime)} {_call(a)}"
        if a.runtime != pair.new:
            why = f"not the family's oldest → newest pair ({pair.title})"
        elif pair.kind != "versions":
            why = f"{pair.title} is {KIND_TEXT[pair.kind].split(':')[0]}"
        else:
            why = ""
        out.append(_Candidate(label, b, a, not why, why))
    return out


def _within_runtime_pairs(carriers: list[Case], pairs: dict[str, Pair], comp: dict,
                          selector: dict) -> list[_Candidate]:
    out = []
    for b in carriers:
        if not _matches(b, selector):
            continue
        if comp["kind"] == "methods":
            if b.method_name != comp["before"]:
                continue
            found = [a for a in carriers if a.method_name == comp["after"] and a.runtime == b.runtime
                     and a.params == b.params]
        else:
            name = comp["param"]
            if not _same(b.params.get(name), comp["before"]):
                continue
            rest = {k: v for k, v in b.params.items() if k != name}
            found = [a for a in carriers if a.bench_id == b.bench_id and a.runtime == b.runtime
                     and _same(a.params.get(name), comp["after"])
                     and {k: v for k, v in a.params.items() if k != name} == rest]
        pair = pairs.get(b.language)
        for a in found:
            family = pair.family_name if pair else b.language
            short = pair.short(b.runtime) if pair else b.runtime
            if comp["kind"] == "methods":
                label = f"{family} {short} {comp['before']} → {comp['after']}" + (
                    f"({_kv(b.params)})" if b.params else "")
            else:
                label = f"{family} {short} {b.method_name}({name}={b.params[name]} → {a.params[name]}" + (
                    f", {_kv(rest)})" if rest else ")")
            newest = (pair.new or pair.old) if pair else b.runtime
            why = "" if b.runtime == newest else f"not the family's newest runtime ({pair.short(newest) if pair else newest})"
            out.append(_Candidate(label, b, a, not why, why))
    return out


def claims_of(report: Report, section: Section) -> list[Claim]:
    texts: dict[str, tuple[Any, list[Case]]] = {}
    for c in section.cases:
        cl = claim_of(c)
        if cl is None:
            continue
        text = cl if isinstance(cl, str) else str(cl.get("text", "")) if isinstance(cl, dict) else str(cl)
        texts.setdefault(text, (cl, []))[1].append(c)
    pairs = pairs_of(report)
    claims = []
    for text, (cl, carriers) in texts.items():
        if not isinstance(cl, dict):
            claims.append(Claim(text, None, None, [], note="no figures to check"))
            continue
        seed = _seed_figures(cl)
        expect = cl.get("expect")
        if expect is None and seed:
            expect = expected(seed[0], seed[1])
        selector = cl.get("params") if isinstance(cl.get("params"), dict) else {}
        comp = comparison_of(cl)
        if comp["kind"] == "invalid":
            claims.append(Claim(text, expect, seed, [], note=f"not checked: {comp['why']}", kind="invalid"))
            continue
        candidates = (_version_pairs(carriers, pairs, section, selector) if comp["kind"] == "versions"
                      else _within_runtime_pairs(carriers, pairs, comp, selector))
        checks = []
        seed_r = seed[1] / seed[0] if seed and seed[0] > 0 else None
        for cand in candidates:
            r = runtime_ratio(cand.after, cand.before)
            v = verdict(r, expect)
            # interference that hit it all cannot be seen in the interval, save in the paired
            # CPU-timed ratio of one code on two versions (stats/contention.ratio_stands)
            if contention_blocks(r, cand.after, cand.before, same_code=comp["kind"] == "versions"):
                v = ClaimVerdict.INCONCLUSIVE
            inside = ("—" if seed_r is None or r is None or not r.has_interval
                      else "yes" if r.low <= seed_r <= r.high else "no")
            may, mark = port_standing(cand.before, cand.after)
            present, absent = mechanism_standing(cl, cand.after.language)
            extra = any(c.meta.get("extra") in (True, "true") for c in (cand.before, cand.after))
            notes = [n for n in (cand.why_not, mark, absent) if n]
            checks.append(ClaimCheck(cand.label, cand.before, cand.after, r, v, inside,
                                     decides=cand.decisive and may and present, note="; ".join(notes),
                                     analogue=cand.decisive and not extra and not (may and present)))
        checks.sort(key=lambda ch: (not ch.decides, not ch.analogue))  # the deciding comparison first
        note = "" if checks else "no pair of our cases to compare (not measured in these results)"
        mech = cl.get("mechanism") if isinstance(cl.get("mechanism"), dict) else {}
        claims.append(Claim(text, expect, seed, checks, note, kind=comp["kind"], mechanism=str(mech.get("what", ""))))
    return claims


def _kv(d: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in d.items())
