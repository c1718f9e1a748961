"""`perflab report RESULT.json… --title "…" [--out DIR]`: the seeds' report from perflab results.

Writes one Markdown file (plots as PNG files beside it) and ONE self-contained HTML file (inline CSS,
plots embedded as base64 PNG: it opens without a network). The report is structured like the seed
documents: a part per seed, a section per seed section (from each benchmark's `meta`: `seed`,
`section`; benchmarks without them go to "Other"), and in each section

- the table `Method | Runtime | Params | Mean | Ratio | Allocated`,
- a plot of every ratio against the baseline runtime with its 99.9 % interval,
- for every claim a seed made with figures (`meta["claim"]`), the seed's figure beside ours and
  whether ours confirms it (rule: `CLAIM_RULE`).

A claim in `meta` is a string (shown, not checked) or a dict::

    {"text": "Ubuntu: PreallocationSize False 96.65 ms → True 43.70 ms",
     "before_ms": 96.65, "after_ms": 43.70,        # or before_us/after_us, before_ns/after_ns
     "expect": "faster",                           # "faster" | "slower" | "same" (default: from figures)
     "params": {"fileSize": "1048576"},            # optional: only these cases
     "compare": {"param": "specifyPreallocationSize", "before": "False", "after": "True"}}
                # or {"before": "Write", "after": "WriteGather"} (two methods of the section),
                # or no "compare": before = the baseline runtime, after = each other runtime.
"""
from __future__ import annotations

import argparse
import base64
import datetime as dt
import html
import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..units import TIME_UNITS, format_in, format_size, format_time, pick_unit

RESULTS_SCHEMA = "perflab.results"
RESULTS_VERSION = 1
OTHER = "Other"
SEED_TITLES = {
    "000": "Performance Improvements in .NET 6",
    "001": "Threading sections of “Performance Improvements in .NET 8 & 7 & 6”",
    "002": "File IO improvements in .NET 6",
    "003": "Performance Improvements in .NET Core 3.0",
    "004": "Performance improvements in ASP.NET Core 6",
}
# Section order of each seed document (from /work/shared/seeds/README.md); unknown sections follow.
SEED_SECTIONS = {
    "000": ["Benchmarking Setup", "JIT", "GC", "Threading", "System Types", "Arrays, Strings, Spans",
            "Buffering", "IO", "Networking", "Reflection", "Collections and LINQ", "Cryptography",
            "Peanut Butter", "JSON", "Interop", "Tracing", "Startup", "Size", "Blazor and mono"],
    "001": ["ThreadStatic", "ThreadPool", "Tasks", "Parallel", ".NET 7 threading", ".NET 6 threading"],
    "002": ["FileStream arguments", "Seek/Position", "Length", "WriteAsync", "ReadAsync", "Read & Write",
            "RandomAccess", "Scatter/Gather", "Preallocation", "FileStreamOptions"],
    "003": ["Setup", "Span and Friends", "Arrays and Strings", "Parsing/Formatting",
            "Regular Expressions", "Threading", "Collections", "Networking", "System.IO", "Console",
            "Process", "LINQ", "Interop", "Peanut butter", "GC", "JIT"],
    "004": ["Benchmarking Setup", "Span<T>", "Idle Connections", "EF Core", "Blazor", "Hodgepodge"],
}
CONFIDENCE = 0.999
SAME_BAND = (0.95, 1.05)
CLAIM_RULE = (
    "Our figure is the ratio after/before of two of our measurements (the claim says which: two "
    "parameter values, two methods, or the baseline runtime against each other runtime) with its "
    "99.9 % confidence interval. A claim is **confirmed** when that whole interval lies on the side "
    "the seed claims (below 1 for “faster”, above 1 for “slower”, inside "
    f"[{SAME_BAND[0]}, {SAME_BAND[1]}] for “same”), **contradicted** when the whole interval lies on "
    "the other side (for “same”: entirely outside that band), and **inconclusive** otherwise — "
    "including when there is no interval (a dry run, a failed case). Our figures are per operation "
    "(a seed figure may be per call of many operations: only ratios compare). Only the direction is judged: "
    "the seed measured .NET on other hardware, so its ratio is shown for reference, with whether it "
    "falls inside our interval.")


# -- loading ------------------------------------------------------------------------------------

def _finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


@dataclass
class Case:
    doc: int
    path: str
    raw: dict

    @property
    def bench(self) -> dict:
        return self.raw.get("benchmark") or {}

    @property
    def bench_id(self) -> str:
        b = self.bench
        return str(b.get("id") or f"{b.get('group', '')}.{b.get('name', '?')}")

    @property
    def name(self) -> str:
        return str(self.bench.get("name") or self.bench_id)

    @property
    def group(self) -> str:
        return str(self.bench.get("group") or "")

    @property
    def meta(self) -> dict:
        m = self.bench.get("meta")
        return m if isinstance(m, dict) else {}

    @property
    def params(self) -> dict[str, str]:
        p = self.raw.get("params")
        return {str(k): str(v) for k, v in p.items()} if isinstance(p, dict) else {}

    @property
    def key(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        return self.bench_id, tuple(sorted(self.params.items()))

    @property
    def runtime(self) -> str:
        rt = self.raw.get("runtime") or {}
        return str(rt.get("label") or rt.get("name") or "?")

    @property
    def ok(self) -> bool:
        return self.raw.get("status", "ok") == "ok" and self.mean is not None

    @property
    def estimate(self) -> dict:
        e = self.raw.get("estimate")
        return e if isinstance(e, dict) else {}

    @property
    def mean(self) -> float | None:
        m = self.estimate.get("mean")
        return float(m) if _finite(m) else None

    @property
    def se(self) -> float | None:
        s = self.estimate.get("se")
        return float(s) if _finite(s) else None

    @property
    def df(self) -> float | None:
        d = self.estimate.get("df")
        return float(d) if _finite(d) and d > 0 else None

    @property
    def alloc(self) -> float | None:
        d = self.raw.get("diagnostics") or {}
        a = d.get("alloc_bytes_per_op") if isinstance(d, dict) else None
        return float(a) if _finite(a) else None

    @property
    def error(self) -> str:
        return str(self.raw.get("error") or "failed")

    @property
    def warnings(self) -> list[str]:
        w = self.raw.get("warnings") or []
        return [str(x) for x in w] if isinstance(w, list) else []


def _load_one(path: Path) -> dict:
    if not path.exists():
        raise UsageError(f"{path}: no such file")
    if not path.is_file():
        raise UsageError(f"{path}: not a file (give perflab results .json files)")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot be read ({exc})") from None
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{path}: not a perflab results file (not JSON: {exc})") from None
    if not isinstance(doc, dict) or doc.get("schema") != RESULTS_SCHEMA:
        raise UsageError(f"{path}: not a perflab results file (no \"schema\": \"{RESULTS_SCHEMA}\")")
    version = doc.get("version")
    if not isinstance(version, int) or version > RESULTS_VERSION:
        raise UsageError(f"{path}: results version {version!r} is not supported "
                         f"(this perflab reads version ≤ {RESULTS_VERSION})")
    cases = doc.get("cases")
    if not isinstance(cases, list) or not all(isinstance(c, dict) for c in cases):
        raise UsageError(f"{path}: not a perflab results file (\"cases\" is not a list of objects)")
    if not cases:
        raise UsageError(f"{path}: the results hold no cases")
    for c in cases:
        if not isinstance(c.get("benchmark"), dict) or not isinstance(c.get("runtime"), dict):
            raise UsageError(f"{path}: not a perflab results file (a case lacks benchmark/runtime)")
    return doc


@dataclass
class Report:
    title: str
    paths: list[str]
    docs: list[dict]
    cases: list[Case]
    runtimes: list[str]          # in order; runtimes[0] is the baseline
    notes: list[str] = field(default_factory=list)

    @property
    def baseline(self) -> str:
        return self.runtimes[0]


def load_report(paths: list[str], title: str, baseline: str | None = None) -> Report:
    if not paths:
        raise UsageError("report: give at least one results file (perflab-*.json)")
    docs = [_load_one(Path(p)) for p in paths]
    notes: list[str] = []
    by_key: dict[tuple, Case] = {}
    order: list[tuple] = []
    seen_keys: set = set()
    for i, (p, doc) in enumerate(zip(paths, docs)):
        cases = [Case(i, p, c) for c in doc["cases"]]
        keys = {c.key for c in cases}
        if i > 0 and not keys & seen_keys:
            raise UsageError(f"{p}: no case in common with {', '.join(paths[:i])} "
                             "(same benchmark and parameters); nothing to compare")
        seen_keys |= keys
        if doc.get("complete") is False:
            notes.append(f"{p}: the run was interrupted; only the cases it finished are reported.")
        for c in cases:
            k = (c.key, c.runtime)
            if k in by_key:
                notes.append(f"{c.bench_id} {dict(c.key[1]) or ''} @ {c.runtime}: measured in "
                             f"{by_key[k].path} and {p}; the later file is used.")
            else:
                order.append(k)
            by_key[k] = c
    cases = [by_key[k] for k in order]
    runtimes: list[str] = []
    for doc in docs:
        for rt in (doc.get("environment") or {}).get("runtimes") or []:
            label = isinstance(rt, dict) and (rt.get("label") or rt.get("name"))
            if label and label in {c.runtime for c in cases} and label not in runtimes:
                runtimes.append(label)
    for c in cases:
        if c.runtime not in runtimes:
            runtimes.append(c.runtime)
    if baseline:
        if baseline not in runtimes:
            raise UsageError(f"--baseline {baseline}: not a runtime of these results "
                             f"({', '.join(runtimes)})")
        runtimes.remove(baseline)
        runtimes.insert(0, baseline)
    return Report(title=title, paths=list(paths), docs=docs, cases=cases, runtimes=runtimes,
                  notes=notes)


# -- ratios -------------------------------------------------------------------------------------

@dataclass
class Ratio:
    value: float
    low: float | None
    high: float | None

    @property
    def has_interval(self) -> bool:
        return self.low is not None and self.high is not None

    def text(self) -> str:
        if self.has_interval:
            return f"{_fmt_ratio(self.value)} [{_fmt_ratio(self.low)}–{_fmt_ratio(self.high)}]"
        return f"{_fmt_ratio(self.value)} [no interval]"


def _fmt_ratio(x: float) -> str:
    if x >= 1000:
        return ">1000"
    if x < 0.001:
        return "<0.001"
    return f"{x:.2f}" if x >= 0.01 else f"{x:.3f}"


def _quantile(df: float | None) -> float:
    p = 0.5 + CONFIDENCE / 2
    try:
        from scipy.stats import norm, t
        return float(t.ppf(p, df)) if df else float(norm.ppf(p))
    except Exception:  # pragma: no cover - scipy is a dependency; keep a fallback
        return 3.2905267314919255


def unpaired_ratio(after: Case, before: Case) -> Ratio | None:
    """after/before from two independent estimates: log-normal delta method, t quantile at the
    smaller of the two degrees of freedom."""
    if not (after.ok and before.ok) or after.mean <= 0 or before.mean <= 0:
        return None
    value = after.mean / before.mean
    if after.se is None or before.se is None or after.df is None or before.df is None:
        return Ratio(value, None, None)
    s = math.sqrt((after.se / after.mean) ** 2 + (before.se / before.mean) ** 2)
    q = _quantile(min(after.df, before.df))
    return Ratio(value, value * math.exp(-q * s), value * math.exp(q * s))


def runtime_ratio(case: Case, base: Case | None) -> Ratio | None:
    """The case against the same benchmark and parameters on the baseline runtime. The run's own
    (paired, per-round) ratio is used when it was computed against that very case."""
    if base is None or not case.ok or not base.ok:
        return None
    if case is base:
        return Ratio(1.0, 1.0, 1.0)
    r = case.raw.get("ratio")
    if (isinstance(r, dict) and case.doc == base.doc and case.raw.get("baseline") == base.raw.get("key")
            and _finite(r.get("value"))):
        lo, hi = r.get("ci_low"), r.get("ci_high")
        ok = _finite(lo) and _finite(hi) and lo > 0
        return Ratio(float(r["value"]), float(lo) if ok else None, float(hi) if ok else None)
    return unpaired_ratio(case, base)


# -- sections -----------------------------------------------------------------------------------

@dataclass
class Section:
    seed: str            # "" for Other
    name: str
    cases: list[Case] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", f"s{self.seed}-{self.name}".lower()).strip("-")


def _seed_of(case: Case) -> str:
    s = case.meta.get("seed")
    if s is None:
        return ""
    s = str(s)
    m = re.match(r"(\d{3})", s)
    return m.group(1) if m else s


def sections_of(report: Report) -> list[Section]:
    sections: dict[tuple[str, str], Section] = {}
    for c in report.cases:
        seed, name = _seed_of(c), c.meta.get("section")
        if not seed or not name:
            seed, name = "", OTHER
        key = (seed, str(name))
        sections.setdefault(key, Section(seed, str(name))).cases.append(c)
    # seeds in numeric order, sections in order of appearance, Other last
    seeds_order = sorted({k[0] for k in sections if k[0]})
    def rank(seed: str, name: str) -> int:
        known = [x.lower() for x in SEED_SECTIONS.get(seed, [])]
        return known.index(name.lower()) if name.lower() in known else len(known)
    out = []
    for seed in seeds_order:
        mine = [s for k, s in sections.items() if k[0] == seed]
        out += sorted(mine, key=lambda s: rank(seed, s.name))  # stable: unknown keep their order
    out += [s for k, s in sections.items() if not k[0]]
    rt_index = {r: i for i, r in enumerate(report.runtimes)}
    for s in out:
        first: dict[tuple, int] = {}
        for i, c in enumerate(s.cases):
            first.setdefault(c.key, i)
        s.cases.sort(key=lambda c: (first[c.key], rt_index.get(c.runtime, 99)))
    return out


def seed_heading(seed: str) -> str:
    if not seed:
        return OTHER
    title = SEED_TITLES.get(seed)
    return f"Seed {seed} — {title}" if title else f"Seed {seed}"


def _params_text(c: Case) -> str:
    return ", ".join(f"{k}={v}" for k, v in c.params.items()) or "-"


def _method_labels(cases: list[Case]) -> dict[str, str]:
    """Method names; the group is added where one name (and params) belongs to several benchmarks."""
    ids_per = {}
    for c in cases:
        ids_per.setdefault((c.name, c.key[1]), set()).add(c.bench_id)
    return {c.bench_id: (f"{c.group}.{c.name}" if len(ids_per[(c.name, c.key[1])]) > 1 and c.group
                         else c.name) for c in cases}


@dataclass
class Row:
    case: Case
    method: str
    ratio: Ratio | None


def section_rows(report: Report, section: Section) -> list[Row]:
    base = {c.key: c for c in section.cases if c.runtime == report.baseline}
    labels = _method_labels(section.cases)
    return [Row(c, labels[c.bench_id], runtime_ratio(c, base.get(c.key))) for c in section.cases]


def table_cells(rows: list[Row]) -> tuple[list[str], list[list[str]]]:
    columns = ["Method", "Runtime", "Params", "Mean", "Ratio", "Allocated"]
    unit = pick_unit([r.case.mean for r in rows if r.case.ok], TIME_UNITS)
    out = []
    for r in rows:
        c = r.case
        mean = format_in(c.mean, unit) if c.ok else f"FAILED: {c.error}"
        if r.ratio is None:
            ratio = "?" if c.ok else ""
        else:
            ratio = _fmt_ratio(r.ratio.value)
        alloc = format_size(c.alloc) if c.alloc is not None else "NA"
        out.append([r.method, c.runtime, _params_text(c), mean, ratio, alloc])
    return columns, out


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


def _matches(case: Case, selector: dict) -> bool:
    p = case.params
    return all(str(p.get(str(k))) == str(v) for k, v in selector.items())


def claims_of(report: Report, section: Section) -> list[Claim]:
    texts: dict[str, tuple[Any, list[Case]]] = {}
    for c in section.cases:
        cl = c.meta.get("claim")
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
                if b.params.get(name) != bv or not _matches(b, selector):
                    continue
                rest = {k: v for k, v in b.params.items() if k != name}
                for a in carriers:
                    if (a.bench_id == b.bench_id and a.runtime == b.runtime and a.params.get(name) == av
                            and {k: v for k, v in a.params.items() if k != name} == rest):
                        pairs.append((f"{name}={bv} → {av} on {a.runtime}"
                                      + (f" ({_kv(rest)})" if rest else ""), b, a))
        elif compare.get("before") and compare.get("after"):
            bn, an = str(compare["before"]), str(compare["after"])
            for b in carriers:
                if b.name != bn or not _matches(b, selector):
                    continue
                for a in carriers:
                    if a.name == an and a.runtime == b.runtime and a.params == b.params:
                        pairs.append((f"{bn} → {an} on {a.runtime}"
                                      + (f" ({_params_text(a)})" if a.params else ""), b, a))
        else:
            base = {c.key: c for c in section.cases if c.runtime == report.baseline}
            for a in carriers:
                b = base.get(a.key)
                if a.runtime == report.baseline or b is None or not _matches(a, selector):
                    continue
                pairs.append((f"{b.runtime} → {a.runtime}" + (f" ({_params_text(a)})" if a.params else ""),
                              b, a))
        checks = []
        for label, b, a in pairs:
            r = runtime_ratio(a, b) if compare == {} else unpaired_ratio(a, b)
            v = verdict(r, expect)
            seed_r = seed[1] / seed[0] if seed and seed[0] > 0 else None
            inside = ("—" if seed_r is None or r is None or not r.has_interval
                      else "yes" if r.low <= seed_r <= r.high else "no")
            checks.append(ClaimCheck(label, b, a, r, v, inside))
        note = "" if checks else "no pair of our cases to compare (not measured in these results)"
        claims.append(Claim(text, expect, seed, checks, note))
    return claims


def _kv(d: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in d.items())


# -- plots --------------------------------------------------------------------------------------

PLOT_MIN, PLOT_MAX = 0.01, 100.0  # intervals beyond are cut at the edge (arrow heads)


def ratio_plot_png(report: Report, rows: list[Row], title: str) -> bytes | None:
    """Horizontal plot: one line per (method, params, runtime ≠ baseline), the ratio against the
    baseline runtime on a log axis with its 99.9 % interval; a hollow marker = no interval."""
    items = [r for r in rows if r.case.runtime != report.baseline and r.ratio is not None
             and r.ratio.value > 0]
    if not items:
        return None
    import matplotlib
    matplotlib.use("Agg", force=False)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
    rt_colour = {rt: colours[i % len(colours)] for i, rt in enumerate(report.runtimes[1:])}
    height = 1.2 + 0.28 * len(items)
    fig = Figure(figsize=(9, height), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    labels, shown = [], set()
    for y, r in enumerate(items):
        col = rt_colour.get(r.case.runtime, "#333333")
        lab = r.case.runtime if r.case.runtime not in shown else None
        shown.add(r.case.runtime)
        v = min(max(r.ratio.value, PLOT_MIN), PLOT_MAX)
        if r.ratio.has_interval:
            lo, hi = max(r.ratio.low, PLOT_MIN), min(r.ratio.high, PLOT_MAX)
            lo, hi = min(lo, v), max(hi, v)
            ax.errorbar([v], [y], xerr=[[v - lo], [hi - v]], fmt="o", color=col,
                        ecolor=col, capsize=3, markersize=4, label=lab)
            # an interval cut at the plot's edge ends in an arrow head instead of a cap
            if r.ratio.low < PLOT_MIN:
                ax.plot([PLOT_MIN], [y], marker="<", color=col, markersize=6)
            if r.ratio.high > PLOT_MAX:
                ax.plot([PLOT_MAX], [y], marker=">", color=col, markersize=6)
        else:
            ax.plot([v], [y], "o", mfc="none", color=col, markersize=5, label=lab)
        p = _params_text(r.case)
        labels.append(f"{r.method}" + (f" ({p})" if p != "-" else ""))
    ax.axvline(1.0, color="#555555", lw=1, ls="--")
    span = [min(max(r.ratio.value, PLOT_MIN), PLOT_MAX) for r in items]
    span += [min(max(x, PLOT_MIN), PLOT_MAX) for r in items if r.ratio.has_interval
             for x in (r.ratio.low, r.ratio.high)]
    left, right = min(span + [0.9]), max(span + [1.1])
    ax.set_xlim(left / 1.15, right * 1.15)
    ax.set_xscale("log")
    from matplotlib.ticker import FuncFormatter, LogLocator
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=30))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda x, _: ""))
    ax.set_yticks(range(len(items)))
    ax.set_yticklabels([lb if len(lb) <= 60 else lb[:57] + "…" for lb in labels], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"ratio of Mean to {report.baseline} (log scale; 99.9 % interval, cut at "
                  f"{PLOT_MIN:g}–{PLOT_MAX:g}; < 1 = faster)")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", metadata={"Software": None})
    return buf.getvalue()


# -- rendering ----------------------------------------------------------------------------------

def _env_lines(report: Report) -> list[tuple[str, str]]:
    out = []
    env = next((d.get("environment") for d in report.docs if isinstance(d.get("environment"), dict)), {})
    cpu = env.get("cpu") or {}
    if cpu:
        out.append(("CPU", f"{cpu.get('model', '?')}, {cpu.get('logical_cores', '?')} logical cores"))
    os_ = env.get("os") or {}
    if os_:
        out.append(("OS", f"{os_.get('system', '')} {os_.get('release', '')} {os_.get('machine', '')}".strip()))
    versions = {}
    for d in report.docs:
        for rt in (d.get("environment") or {}).get("runtimes") or []:
            if isinstance(rt, dict):
                versions.setdefault(rt.get("label") or rt.get("name"), rt)
    for c in report.cases:
        versions.setdefault(c.runtime, c.raw.get("runtime") or {})
    rts = []
    for label in report.runtimes:
        rt = versions.get(label) or {}
        extra = " ".join(x for x in (rt.get("implementation"), rt.get("version")) if x)
        rts.append(f"{label}" + (f" ({extra})" if extra else "")
                   + (" — baseline" if label == report.baseline else ""))
    out.append(("Runtimes", "; ".join(rts)))
    jobs = sorted({str((d.get("job") or {}).get("name", "?")) for d in report.docs})
    out.append(("Job", ", ".join(jobs)))
    out.append(("Results", ", ".join(report.paths)))
    return out


def _md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _md_table(columns: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(columns) + " |",
           "|" + "|".join("---:" if c in ("Mean", "Ratio", "Allocated") else "---" for c in columns) + "|"]
    out += ["| " + " | ".join(_md_escape(x) for x in r) + " |" for r in rows]
    return out


def _claim_rows(claim: Claim) -> list[list[str]]:
    if not claim.checks:
        return [[claim.text, claim.seed_text(), "—", "—", claim.note or "not checked", "—"]]
    rows = []
    for ch in claim.checks:
        ours = "—"
        if ch.before.ok and ch.after.ok:
            ours = f"{format_time(ch.before.mean)} → {format_time(ch.after.mean)}"
            ours += f" (×{ch.ratio.text()})" if ch.ratio else ""
        rows.append([claim.text, claim.seed_text(), ch.comparison, ours, ch.verdict, ch.seed_inside])
    return rows


CLAIM_COLUMNS = ["Seed claim", "Seed figure", "Our comparison", "Our figure (99.9 % CI)",
                 "Verdict", "Seed ratio in our CI"]


@dataclass
class Rendered:
    markdown: str
    html: str
    plots: dict[str, bytes]


def render(report: Report, plots_dir_name: str) -> Rendered:
    generated = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    sections = sections_of(report)
    md: list[str] = [f"# {report.title}", "",
                     f"Generated by `perflab report` on {generated}.", ""]
    for k, v in _env_lines(report):
        md.append(f"- **{k}**: {v}")
    md += ["", "**Ratio** = Mean of the case / Mean of the same benchmark and parameters on the "
           f"baseline runtime **{report.baseline}**; the plots show it with its 99.9 % confidence "
           "interval. **Claims**: " + CLAIM_RULE, ""]
    for n in report.notes:
        md.append(f"> note: {n}")
    overview_at = len(md)
    overview: list[tuple[Section, Claim]] = []
    plots: dict[str, bytes] = {}
    toc: list[str] = []
    body: list[str] = []
    summary: dict[str, int] = {}
    last_seed = None
    for i, s in enumerate(sections):
        if s.seed != last_seed:
            heading = seed_heading(s.seed)
            md += ["", f"## {heading}", ""]
            body.append(f'<h2 id="seed-{html.escape(s.seed or "other")}">{html.escape(heading)}</h2>')
            toc.append(f'<li><a href="#seed-{html.escape(s.seed or "other")}">{html.escape(heading)}</a><ul>')
            if last_seed is not None:
                toc[-1] = "</ul></li>" + toc[-1]
            last_seed = s.seed
        rows = section_rows(report, s)
        cols, cells = table_cells(rows)
        claims = claims_of(report, s)
        sec_title = s.name if s.seed else "Benchmarks without seed metadata"
        md += [f"### {sec_title}", ""]
        toc.append(f'<li><a href="#{s.anchor}">{html.escape(sec_title)}</a></li>')
        body.append(f'<section id="{s.anchor}"><h3>{html.escape(sec_title)}</h3>')
        overview += [(s, cl) for cl in claims]
        if claims:
            crow = [r for cl in claims for r in _claim_rows(cl)]
            md += ["**Claims**", ""] + _md_table(CLAIM_COLUMNS, crow) + [""]
            body.append('<h4>Claims</h4><table class="claims"><thead><tr>'
                        + "".join(f"<th>{html.escape(c)}</th>" for c in CLAIM_COLUMNS) + "</tr></thead><tbody>")
            for r in crow:
                cls = r[4].split()[0] if r[4] else ""
                body.append("<tr>" + "".join(
                    f'<td class="v-{html.escape(cls)}">{html.escape(x)}</td>' if j == 4
                    else f"<td>{html.escape(x)}</td>"
                    for j, x in enumerate(r)) + "</tr>")
                summary[r[4]] = summary.get(r[4], 0) + 1
            body.append("</tbody></table>")
        md += _md_table(cols, cells) + [""]
        body.append('<table class="results"><thead><tr>' + "".join(
            f'<th class="{"num" if c in ("Mean", "Ratio", "Allocated") else ""}">{html.escape(c)}</th>'
            for c in cols) + "</tr></thead><tbody>")
        prev = None
        for row, r in zip(cells, rows):
            sep = ' class="first"' if prev is not None and r.case.key != prev else ""
            prev = r.case.key
            body.append(f"<tr{sep}>" + "".join(
                f'<td class="{"num" if c in ("Mean", "Ratio", "Allocated") else ""}">{html.escape(x)}</td>'
                for c, x in zip(cols, row)) + "</tr>")
        body.append("</tbody></table>")
        png = ratio_plot_png(report, rows, f"{seed_heading(s.seed)} · {sec_title}" if s.seed else sec_title)
        if png:
            fname = f"{i:02d}-{s.anchor}.png"
            plots[fname] = png
            md += [f"![ratios against {report.baseline}: {sec_title}]({plots_dir_name}/{fname})", ""]
            body.append(f'<figure><img alt="ratios against {html.escape(report.baseline)}: '
                        f'{html.escape(sec_title)}" src="data:image/png;base64,'
                        f'{base64.b64encode(png).decode("ascii")}"></figure>')
        notes = []
        for r in rows:
            where = f"{r.method} ({_params_text(r.case)}) @ {r.case.runtime}"
            if not r.case.ok:
                notes.append(f"{where}: FAILED: {r.case.error}")
            notes += [f"{where}: {w}" for w in r.case.warnings]
        if notes:
            md += (["<details><summary>Warnings</summary>", ""] + [f"- {_md_escape(n)}" for n in notes]
                   + ["", "</details>", ""])
            body.append("<details><summary>Warnings ({})</summary><ul>".format(len(notes))
                        + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul></details>")
        body.append("</section>")
    if toc:
        toc.append("</ul></li>")
    verdicts = ", ".join(f"{k}: {v}" for k, v in sorted(summary.items())) or "no claims checked"
    ov_cols = ["Seed", "Section", "Claim", "Comparisons", "Verdict"]
    ov_rows = [[s.seed, s.name, cl.text, str(len(cl.checks)), cl.overall] for s, cl in overview]
    if ov_rows:
        md[overview_at:overview_at] = (["", "## Claims at a glance", ""] + _md_table(ov_cols, ov_rows)
                                       + [""])
    md.insert(4, f"Claims: {verdicts}.")
    md.insert(5, "")
    head = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{html.escape(report.title)}</title>", f"<style>{_CSS}</style></head><body>",
            f"<h1>{html.escape(report.title)}</h1>",
            f'<p class="meta">Generated by <code>perflab report</code> on {html.escape(generated)}. '
            f"Claims: {html.escape(verdicts)}.</p>", "<dl>"]
    for k, v in _env_lines(report):
        head.append(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>")
    head.append("</dl>")
    head.append(f'<p class="how"><b>Ratio</b> = Mean of the case / Mean of the same benchmark and '
                f"parameters on the baseline runtime <b>{html.escape(report.baseline)}</b>; the plots "
                f"show it with its 99.9 % confidence interval (hollow marker: no interval). "
                f"<b>Claims</b>: {_md_bold_to_html(html.escape(CLAIM_RULE))}</p>")
    for n in report.notes:
        head.append(f'<p class="note">note: {html.escape(n)}</p>')
    if ov_rows:
        head.append('<h2 id="claims">Claims at a glance</h2><table class="claims"><thead><tr>'
                    + "".join(f"<th>{html.escape(c)}</th>" for c in ov_cols) + "</tr></thead><tbody>")
        for (s, cl), r in zip(overview, ov_rows):
            cls = r[4].split()[-1] if r[4] else ""
            head.append(f"<tr><td>{html.escape(r[0])}</td><td><a href=\"#{s.anchor}\">"
                        f"{html.escape(r[1])}</a></td><td>{html.escape(r[2])}</td>"
                        f'<td class="num">{r[3]}</td><td class="v-{html.escape(cls)}">'
                        f"{html.escape(r[4])}</td></tr>")
        head.append("</tbody></table>")
    head.append('<nav><h2>Contents</h2><ul>' + "".join(toc) + "</ul></nav>")
    page = "\n".join(head + body + ["</body></html>", ""])
    return Rendered("\n".join(md) + "\n", page, plots)


def _md_bold_to_html(s: str) -> str:
    return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", s)


_CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1200px;
padding:0 1em;color:#222;line-height:1.4}
h1{border-bottom:2px solid #ddd;padding-bottom:.3em}h2{margin-top:2em;border-bottom:1px solid #eee}
table{border-collapse:collapse;margin:.8em 0;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 8px;vertical-align:top}th{background:#f4f4f4;text-align:left}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.first td{border-top:2px solid #bbb}
table.claims td{max-width:320px}
.v-confirmed{background:#e6f4e6;font-weight:bold}.v-contradicted{background:#fbe3e3;font-weight:bold}
.v-inconclusive,.v-mixed,.v-checked{background:#f6f1dc}
dl{display:grid;grid-template-columns:max-content auto;gap:2px 1em}dt{font-weight:bold}dd{margin:0}
figure{margin:1em 0}figure img{max-width:100%}
.meta,.note{color:#555}.how{background:#f8f8f8;padding:.6em;border-left:3px solid #ccc}
nav ul{margin:.2em 0}code{background:#f2f2f2;padding:0 3px}
"""


# -- command ------------------------------------------------------------------------------------

def _slug(title: str) -> str:
    s = re.sub(r"[^A-Za-z0-9]+", "-", title).strip("-").lower()
    return s[:80] or "perflab-report"


def add_report_parser(subparsers) -> argparse.ArgumentParser:
    """Add the `report` subcommand to perflab's subparsers (cli.py wires `cmd_report`)."""
    rp = subparsers.add_parser(
        "report", help="a Markdown + self-contained HTML report, structured like the seeds",
        description="Build a report from perflab results files: a section per seed section "
                    "(benchmark meta), tables, ratio plots and the seeds' claims checked.")
    rp.add_argument("results", nargs="+", metavar="RESULT.json", help="perflab results files")
    rp.add_argument("--title", default="perflab report", help="report title")
    rp.add_argument("--out", "-o", default=None,
                    help="output folder (default: the folder of the first results file)")
    rp.add_argument("--baseline", default=None,
                    help="runtime label the ratios are against (default: the first runtime)")
    rp.set_defaults(func=cmd_report)
    return rp


def cmd_report(args) -> int:
    report = load_report(list(args.results), args.title or "perflab report",
                         getattr(args, "baseline", None))
    out_dir = Path(args.out) if getattr(args, "out", None) else Path(args.results[0]).resolve().parent
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {out_dir}: cannot create it ({exc.strerror or exc})") from None
    stem = _slug(report.title)
    plots_dir_name = f"{stem}_plots"
    rendered = render(report, plots_dir_name)
    from .exporters import write_text_atomic
    try:
        if rendered.plots:
            (out_dir / plots_dir_name).mkdir(exist_ok=True)
            for name, data in rendered.plots.items():
                (out_dir / plots_dir_name / name).write_bytes(data)
        md_path, html_path = out_dir / f"{stem}.md", out_dir / f"{stem}.html"
        write_text_atomic(md_path, rendered.markdown)
        write_text_atomic(html_path, rendered.html)
    except OSError as exc:
        raise UsageError(f"--out {out_dir}: not writable ({exc.strerror or exc})") from None
    print(f"report: {md_path} and {html_path} ({len(report.cases)} cases, "
          f"{len(report.runtimes)} runtimes, baseline {report.baseline})")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Standalone entry (`python -m perflab.report.seeds_report …`) until cli.py wires `report`."""
    import sys
    p = argparse.ArgumentParser(prog="perflab")
    sub = p.add_subparsers(dest="command", required=True)
    add_report_parser(sub)
    args = p.parse_args(["report", *(sys.argv[1:] if argv is None else argv)])
    try:
        return cmd_report(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
