"""What "Ratio" means: which case each case is divided by, and what the column is called.

The one definition every output uses (the run's table, md, csv, json, `report`, its HTML). Two ratios,
never mixed into one number:

- **Ratio** (BenchmarkDotNet's meaning): the case's mean / the mean of its group's baseline method
  (`baseline=True`), same parameters, same runtime. Only in a group (class/module/file) that marks a
  baseline method.
- **Ratio vs <runtime>**: the case's mean / the mean of the same benchmark and parameters on the
  baseline runtime: the first runtime given for its language. Only when that language ran on
  several runtimes. In a run that compares revisions (`--rev A,B`), the baseline is the same
  runtime on the first revision given: `python3.11@B` is divided by `python3.11@A`, never by
  another runtime, so the column says what the change of code did and nothing else.

A group with a baseline method run on several runtimes has both columns. Every row that has a
baseline has its ratio; the baseline row itself shows 1.00. How a ratio and its interval are computed
is the statistics' business (perflab.stats); this module only decides the pairs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

METHOD_COLUMN = "Ratio"
METHOD_ALLOC_COLUMN = "Alloc Ratio"
DEFINITION = ("**Ratio** = mean / mean of the group's baseline method (same parameters, same runtime). "
              "**Ratio vs R** = mean / mean of the same benchmark and parameters on runtime R, the "
              "first runtime given for the language. A baseline row shows 1.00.")


def runtime_column(baseline_runtime: str) -> str:
    return f"Ratio vs {baseline_runtime}"


def runtime_alloc_column(baseline_runtime: str) -> str:
    return f"Alloc Ratio vs {baseline_runtime}"


@dataclass(frozen=True)
class Identity:
    """What pairing needs to know about a case, whatever form the case has (a live result or a case
    loaded from a results file)."""
    language: str
    group: str
    method: str
    params: tuple[tuple[str, str], ...]
    runtime: str
    is_baseline_method: bool
    revision: str = ""  # `--rev`: the revision the case ran (its runtime label ends in "@revision")

    @property
    def runtime_family(self) -> str:
        """The runtime without its revision: what a revision's case is paired on."""
        return self.runtime[:-len(self.revision) - 1] if self.revision else self.runtime


def identity(case) -> Identity:
    """A case's identity for pairing (`case`: a perflab.model.Case)."""
    return Identity(case.runtime.language, case.benchmark.group, case.benchmark.name,
                    tuple(sorted(case.param_values.items())), case.runtime.label, case.benchmark.baseline,
                    case.runtime.revision)


@dataclass(frozen=True)
class Pair:
    method_base: int | None   # index of the baseline-method case (same runtime, params), or None
    runtime_base: int | None  # index of the same case on the baseline runtime, or None


def language_runtimes(items: Sequence[Identity]) -> dict[str, dict[str, None]]:
    """Each language's runtimes, in order of appearance (a dict used as an ordered set)."""
    out: dict[str, dict[str, None]] = {}
    for it in items:
        out.setdefault(it.language, {})[it.runtime] = None
    return out


def baseline_runtimes(runtimes: dict[str, dict[str, None]], runtime_order: Sequence[str] = ()) -> dict[str, str]:
    """The baseline runtime of each language (`runtimes`: `language_runtimes`): the first of its
    runtimes in `runtime_order` (the order they were given), then in order of appearance."""
    rank = {label: i for i, label in enumerate(runtime_order)}
    # min keeps the first of equals: the order of appearance
    return {lang: min(rts, key=lambda rt: rank.get(rt, len(rank))) for lang, rts in runtimes.items()}


def pair(items: Sequence[Identity], runtime_order: Sequence[str] = (),
         runtimes: dict[str, dict[str, None]] | None = None) -> list[Pair]:
    """Each item's pairs. `runtimes`: the languages' runtimes of the whole run (`language_runtimes`)
    when `items` are part of it: every pair lies within the cases that share a language, group and
    parameters (and method, unless the group has a baseline method), so such a part pairs as the
    whole run would — the run's baseline runtime and whether a language ran on several runtimes are
    all it needs of the rest."""
    runtimes_of = runtimes if runtimes is not None else language_runtimes(items)
    base_rt = baseline_runtimes(runtimes_of, runtime_order)
    # revisions: each runtime's baseline is itself on the language's first revision
    first_rev = {lang: next((it.revision for it in items if it.language == lang and it.runtime == rt),
                            rt.rsplit("@", 1)[1] if "@" in rt and any(it.revision for it in items) else "")
                 for lang, rt in base_rt.items()}
    base_method: dict[tuple[str, str], str] = {}
    for it in items:
        if it.is_baseline_method:
            base_method.setdefault((it.language, it.group), it.method)
    index = {(it.language, it.group, it.method, it.params, it.runtime): i for i, it in enumerate(items)}
    out = []
    for it in items:
        m = base_method.get((it.language, it.group))
        mi = index.get((it.language, it.group, m, it.params, it.runtime)) if m is not None else None
        base = (f"{it.runtime_family}@{first_rev[it.language]}" if it.revision and first_rev.get(it.language)
                else base_rt[it.language])
        ri = (index.get((it.language, it.group, it.method, it.params, base))
              if len(runtimes_of[it.language]) > 1 else None)
        out.append(Pair(mi, ri))
    return out


def format_ratio(x: float) -> str:
    """A ratio as every output prints it: two decimals, three below 0.01, clamped at the extremes."""
    if x >= 1000:
        return ">1000"
    if x < 0.001:
        return "<0.001"
    return f"{x:.2f}" if x >= 0.01 else f"{x:.3f}"
