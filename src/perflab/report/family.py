"""A family's summary: its pair's per-case ratios, their geometric mean, the biggest wins and
losses, and the claims it speaks to — the head of each family page, a row of the index, and a line
on the console.

The geometric mean is over the cases measured on both runtimes of the pair with an interval (ratio =
newer / older: below 1 = the newer is faster). Its 99.9 % interval treats those cases as fixed and
independent (perflab.judge.geometric_mean, the one the `compare` command uses too); when it would span
more than ×10 either side it is not given, and the summary says why. It says how well THESE cases were
measured, not how a different choice of workloads would come out (the spread across cases, min and
max, is shown beside it for that).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..judge import ClaimVerdict, confidence_text
from ..judge import geometric_mean as judged_geometric_mean
from .claims import Claim, claims_of
from .families import KIND_TEXT, Pair
from .results_view import CONFIDENCE, Case, Ratio, Report, Section, _fmt_ratio, _params_text, runtime_ratio, sections_of

TOP = 5  # biggest wins and losses listed


@dataclass
class CaseRatio:
    old: Case
    new: Case
    ratio: Ratio

    @property
    def label(self) -> str:
        p = _params_text(self.new)
        return self.new.method_name + (f"({p})" if p != "-" else "")


@dataclass
class FamilySummary:
    pair: Pair
    report: Report                      # the family's cases only
    cases: int                          # benchmark cases (keys) of the family
    ratios: list[CaseRatio]             # compared with an interval
    no_interval: int                    # compared, but one side has no interval (dry run)
    failed: int                         # a side failed or is missing
    geomean: float | None = None
    geomean_ci: tuple[float, float] | None = None
    geomean_note: str = ""  # why the geometric mean has no interval
    claims: list[tuple[Section, Claim]] = field(default_factory=list)

    @property
    def wins(self) -> list[CaseRatio]:
        return sorted((r for r in self.ratios if r.ratio.high < 1), key=lambda r: r.ratio.value)

    @property
    def losses(self) -> list[CaseRatio]:
        return sorted((r for r in self.ratios if r.ratio.low > 1), key=lambda r: -r.ratio.value)

    def claim_count(self, what: str) -> int:
        if what == "decided":
            return sum(cl.decided for _, cl in self.claims)
        if what == "judged":  # a comparison of ours stands for it (decided or not)
            return sum(bool(cl.deciding) for _, cl in self.claims)
        return sum(cl.overall == what for _, cl in self.claims)

    def geomean_text(self) -> str:
        if self.geomean is None:
            return "—"
        if self.geomean_ci is None:
            return f"×{_fmt_ratio(self.geomean)} [{self.geomean_note or 'no interval'}]"
        lo, hi = self.geomean_ci
        return f"×{_fmt_ratio(self.geomean)} [{_fmt_ratio(lo)}–{_fmt_ratio(hi)}]"

    def claims_text(self) -> str:
        judged = self.claim_count("judged")
        return (f"{self.claim_count('decided')}/{judged} decided: {self.claim_count(ClaimVerdict.CONFIRMED)} "
                f"confirmed, {self.claim_count(ClaimVerdict.CONTRADICTED)} contradicted")


def subset(report: Report, language: str) -> Report:
    """The report restricted to one language's cases and runtimes."""
    cases = [c for c in report.cases if c.language == language]
    runtimes = [r for r in report.runtimes if report.language_of.get(r) == language]
    return Report(title=report.title, paths=report.paths, docs=report.docs, cases=cases,
                  runtimes=runtimes, notes=list(report.notes))


def geometric_mean(ratios: list[Ratio], confidence: float = CONFIDENCE
                   ) -> tuple[float | None, tuple[float, float] | None]:
    """Geometric mean of ratios with intervals, and its interval (perflab.judge.geometric_mean; None
    when it would be meaningless)."""
    g = judged_geometric_mean([(r.value, r.low, r.high) for r in ratios if r.has_interval], confidence)
    return g.value, ((g.low, g.high) if g.has_interval else None)


def summarize(report: Report, pair: Pair) -> FamilySummary:
    fam = subset(report, pair.language)
    old = {c.key: c for c in fam.cases if c.runtime == pair.old}
    new = {c.key: c for c in fam.cases if c.runtime == pair.new} if pair.new else {}
    keys = list(dict.fromkeys(c.key for c in fam.cases))
    ratios, no_interval, failed = [], 0, 0
    for k in keys:
        a, b = new.get(k), old.get(k)
        if pair.new is None:
            continue
        r = runtime_ratio(a, b) if a is not None and b is not None else None
        if r is None:
            failed += 1
        elif not r.has_interval:
            no_interval += 1
        else:
            ratios.append(CaseRatio(b, a, r))
    g = judged_geometric_mean([(r.ratio.value, r.ratio.low, r.ratio.high) for r in ratios], report.confidence)
    ci, why = ((g.low, g.high) if g.has_interval else None), g.why_none  # the judge's rule: within ×1.25
    claims = [(s, cl) for s in sections_of(fam) for cl in claims_of(fam, s)]
    return FamilySummary(pair, fam, len(keys), ratios, no_interval, failed, g.value, ci, why, claims)


def summaries(report: Report, pairs: dict[str, Pair]) -> list[FamilySummary]:
    return [summarize(report, p) for p in pairs.values()]


# -- the head of a family page ------------------------------------------------------------------

def _ratio_rows(items: list[CaseRatio]) -> list[list[str]]:
    from ..units import format_time
    return [[r.label, format_time(r.old.mean), format_time(r.new.mean), r.ratio.text()] for r in items]


def preamble(s: FamilySummary) -> tuple[list[str], list[str]]:
    """Markdown lines and HTML fragments: the summary, the biggest wins and losses."""
    md, out, md2, out2 = summary_parts(s)
    return md + md2, out + out2


def summary_parts(s: FamilySummary) -> tuple[list[str], list[str], list[str], list[str]]:
    """(summary Markdown, summary HTML, wins-and-losses Markdown, wins-and-losses HTML): the page puts
    its claims between the two, so that its first screen is the summary and the claims."""
    import html
    p = s.pair
    facts = [("Comparison", f"{p.title}: {KIND_TEXT[p.kind]}")]
    if p.new:
        facts.append(("Cases", f"{s.cases} of this family; {len(s.ratios)} compared with an interval"
                      + (f", {s.no_interval} without (no interval)" if s.no_interval else "")
                      + (f", {s.failed} failed or measured on one side only" if s.failed else "")))
        facts.append(("Geometric mean of the ratios (newer / older)",
                      s.geomean_text() + ((f" — {confidence_text(s.report.confidence)} interval of these cases' measurement"
                                           if s.geomean_ci else "") + "; across cases "
                                          f"from ×{_fmt_ratio(min(r.ratio.value for r in s.ratios))} to "
                                          f"×{_fmt_ratio(max(r.ratio.value for r in s.ratios))}"
                                          if s.ratios else "")))
        facts.append(("Wins / losses", f"{len(s.wins)} faster on {p.short(p.new)} (interval below 1), "
                      f"{len(s.losses)} slower (interval above 1), "
                      f"{len(s.ratios) - len(s.wins) - len(s.losses)} not distinguishable"))
    facts.append(("Claims", s.claims_text() if s.claims else "none of this family's cases carries a claim"))
    md0 = ["## Summary", ""] + [f"- **{k}**: {v}" for k, v in facts] + [""]
    out0 = ['<h2 id="summary">Summary</h2><dl>'] + [
        f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in facts] + ["</dl>"]
    md: list[str] = []
    out: list[str] = []
    cols = ["Case", f"Mean on {p.old}", f"Mean on {p.new}", f"Ratio ({confidence_text(s.report.confidence)} CI)"]
    for title, items in (("Biggest wins", s.wins[:TOP]), ("Biggest losses", s.losses[:TOP])):
        if not p.new:
            break
        rows = _ratio_rows(items)
        md += [f"### {title}", ""]
        out.append(f"<h3>{html.escape(title)}</h3>")
        if not rows:
            md += ["none", ""]
            out.append("<p>none</p>")
            continue
        md += ["| " + " | ".join(cols) + " |", "|---|---:|---:|---:|"]
        md += ["| " + " | ".join(x.replace("|", "\\|") for x in r) + " |" for r in rows] + [""]
        out.append('<table class="results"><thead><tr>' + "".join(f"<th>{html.escape(c)}</th>" for c in cols)
                   + "</tr></thead><tbody>" + "".join(
                       "<tr>" + "".join(f'<td class="{"num" if j else ""}">{html.escape(x)}</td>'
                                        for j, x in enumerate(r)) + "</tr>" for r in rows)
                   + "</tbody></table>")
    return md0, out0, md, out
