"""A report's families: one per language, and the pair of runtimes its report compares.

The pair is the language's FIRST and LAST runtime in the results' order (the order `--runtimes` gave;
the main job lists each family's oldest version first). What the pair compares decides which seed
claims it may judge (see perflab.report.claims):

- `versions`: the same implementation, two versions (CPython 3.8 → 3.13, Node 18 → 24, Rust stable →
  nightly) — what the seeds compared (.NET 5 → .NET 6);
- `implementations`: two implementations or compilers (gcc → clang, CPython → PyPy);
- `flags`: one runtime with two sets of flags (gcc12 -O1 → -O3): an optimisation comparison;
- `single`: only one runtime of the language was measured: nothing to compare.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .results_view import Report

FAMILY_NAMES = {"python": "CPython", "node": "Node", "go": "Go", "java": "JDK", "rust": "Rust",
                "cpp": "C/C++", "csharp": "C#/Mono"}
# the part of a runtime name that says the family, dropped in titles: python3.8 → 3.8, node18 → 18
_NAME_PREFIX = {"python": "python", "node": "node", "go": "go", "java": "jdk", "rust": "rust-"}
KIND_TEXT = {
    "versions": "a version comparison: the same runtime, older → newer (what the seeds compared)",
    "implementations": "a comparison of two implementations (compilers), not of versions",
    "flags": "an optimisation comparison (one runtime, two sets of flags), not a version one",
    "single": "one runtime only: nothing compared",
}


@dataclass(frozen=True)
class Pair:
    language: str
    old: str            # runtime label
    new: str | None     # None: only one runtime of the language
    kind: str           # versions | implementations | flags | single
    family_name: str

    def short(self, label: str) -> str:
        """`python3.8` → `3.8`, `rust-nightly` → `nightly`, `gcc12:-O1` → `gcc12 -O1`."""
        prefix = _NAME_PREFIX.get(self.language)
        name, _, flags = label.partition(":")
        if prefix and name.startswith(prefix) and len(name) > len(prefix):
            name = name[len(prefix):]
        return f"{name} {flags}".strip()

    @property
    def title(self) -> str:
        """`CPython 3.8 → 3.13`, `C/C++ gcc12 -O1 → gcc12 -O3`."""
        if self.new is None:
            return f"{self.family_name} {self.short(self.old)}"
        return f"{self.family_name} {self.short(self.old)} → {self.short(self.new)}"

    @property
    def report_title(self) -> str:
        if self.kind == "versions":
            return f"Performance Improvements in {self.title}"
        if self.kind == "single":
            return f"Performance of {self.title}"
        return f"Performance of {self.title} ({'optimisation levels' if self.kind == 'flags' else 'not versions'})"

    @property
    def runtimes(self) -> list[str]:
        return [self.old] + ([self.new] if self.new else [])


def _info(report: Report, label: str) -> dict:
    for d in report.docs:
        for rt in (d.get("environment") or {}).get("runtimes") or []:
            if isinstance(rt, dict) and (rt.get("label") or rt.get("name")) == label:
                return rt
    for c in report.cases:
        if c.runtime == label:
            return c.raw.get("runtime") or {}
    return {}


def _kind(report: Report, old: str, new: str) -> str:
    return pair_kind(old, new, _info(report, old).get("implementation"), _info(report, new).get("implementation"))


def pair_kind(old: str, new: str, impl_a: str | None = None, impl_b: str | None = None) -> str:
    """What two runtime labels of one language compare (see the module), with their implementations
    where known: also asked before a run, of the runtimes it will measure (report.claims.decides_in)."""
    name_a, name_b = old.partition(":")[0], new.partition(":")[0]  # a label is NAME[:flags/env]
    if name_a == name_b:
        return "flags"
    if impl_a and impl_b and impl_a != impl_b:
        return "implementations"
    if re.sub(r"\d+$", "", name_a) != re.sub(r"\d+$", "", name_b) and not name_a.startswith("rust-"):
        return "implementations"  # gcc12 → clang14 without an implementation field
    return "versions"


def pairs_of(report: Report) -> dict[str, Pair]:
    """language → its pair, languages in the order their first runtime appears."""
    by_lang: dict[str, list[str]] = {}
    for label in report.runtimes:
        by_lang.setdefault(report.language_of.get(label, ""), []).append(label)
    out = {}
    for lang, labels in by_lang.items():
        old, new = labels[0], (labels[-1] if len(labels) > 1 else None)
        kind = "single" if new is None else _kind(report, old, new)
        name = FAMILY_NAMES.get(lang, lang or "Other")
        if lang == "python" and any(not lab.startswith("python") for lab in labels):
            name = "Python"
        out[lang] = Pair(lang, old, new, kind, name)
    return out
