"""The results a seeds report is made of: cases loaded from result files, grouped into the seeds'
sections, and the ratios between them (paired when the run interleaved them)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ..errors import UsageError
from ..ratios import METHOD_COLUMN, Identity, format_ratio, pair, runtime_column
from ..judge import contention_reason
from ..stats.contention import measured_together
from ..model import Status
from ..policy import DEFAULT
from ..judge.interval import delta
from ..results import CaseRecord, DocumentError, ResultsDocument, _finite, load_document, method_of  # noqa: F401 (report modules import them here)
from ..units import TIME_UNITS, format_in, format_size, pick_unit

OTHER = "Other"
SEED_TITLES = {
    "000": "Performance Improvements in .NET 6",
    "001": "Threading sections of “Performance Improvements in .NET 8 & 7 & 6”",
    "002": "File IO improvements in .NET 6",
    "003": "Performance Improvements in .NET Core 3.0",
    "004": "Performance improvements in ASP.NET Core 6",
}
# Section order of each seed document (committed data: the documents' headings, in order); unknown sections follow.
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
CONFIDENCE = DEFAULT.stop.confidence  # perflab run's, when a document does not say its own
MAX_LISTED = 6  # cases named in a note before "and N more"
SAME_BAND = DEFAULT.claims.same_band

# -- loading ------------------------------------------------------------------------------------

# a case of a results document, typed: results.CaseRecord (the one model report, compare, the web
# and bench read documents through)
Case = CaseRecord


def _load_one(path: Path) -> dict:
    """A results document as every reader loads it (results.load_document: one schema, one check),
    its error a one-line UsageError naming the file."""
    if not path.exists():
        raise UsageError(f"{path}: no such file")
    if not path.is_file():
        raise UsageError(f"{path}: not a file (give perflab results .json files)")
    try:
        doc = load_document(path, parts=False)  # a case's unreadable counts are noted on it
    except DocumentError as exc:
        raise UsageError(str(exc)) from None
    if not doc["cases"]:
        raise UsageError(f"{path}: the results hold no cases")
    return doc


@dataclass
class Report:
    title: str
    paths: list[str]
    docs: list[dict]
    cases: list[Case]
    runtimes: list[str]          # in order; the first of each language is that language's baseline
    notes: list[str] = field(default_factory=list)

    @cached_property
    def language_of(self) -> dict[str, str]:
        return {c.runtime: c.language for c in self.cases}

    @cached_property
    def baselines(self) -> list[str]:
        """One per language (a report may hold Python, Node and Go results side by side)."""
        seen: dict[str, str] = {}
        for label in self.runtimes:
            seen.setdefault(self.language_of.get(label, ""), label)
        return list(seen.values())

    @property
    def baseline(self) -> str:
        return ", ".join(self.baselines)

    @cached_property
    def confidence(self) -> float:
        """The confidence of the report's intervals and verdicts: its runs' (the strictest when they
        differ)."""
        return max((c.confidence for c in self.cases), default=CONFIDENCE)

    def baseline_of(self, case: "Case") -> str:
        return next((b for b in self.baselines if self.language_of.get(b) == case.language), self.runtimes[0])

    @cached_property
    def pairs(self) -> dict[int, tuple["Case | None", "Case | None"]]:
        """Each case's (baseline-method case, baseline-runtime case): perflab.ratios' rule, the
        same the run's own table follows."""
        found = pair([Identity(c.language, c.group, c.name, tuple(sorted(c.params.items())),
                               c.runtime, bool(c.bench.get("baseline")), c.revision) for c in self.cases],
                     self.runtimes)
        at = lambda i: self.cases[i] if i is not None else None  # noqa: E731
        return {id(c): (at(p.method_base), at(p.runtime_base)) for c, p in zip(self.cases, found)}

    def baseline_case(self, section: "Section", case: "Case") -> "Case | None":
        base = self.baseline_of(case)
        return next((c for c in section.cases if c.runtime == base and c.key == case.key), None)


def load_report(paths: list[str], title: str, baseline: str | None = None) -> Report:
    if not paths:
        raise UsageError("report: give at least one results file (perflab-*.json)")
    docs = [_load_one(Path(p)) for p in paths]
    return report_from_docs(list(paths), docs, title, baseline)


def _listed(names: list[str]) -> str:
    """The first MAX_LISTED names, and how many more."""
    more = len(names) - MAX_LISTED
    return ", ".join(names[:MAX_LISTED]) + (f" and {more} more" if more > 0 else "")


def report_from_docs(paths: list[str], docs: list[dict], title: str,
                     baseline: str | None = None) -> Report:
    """A report of results documents already loaded (files, or runs from the history: `paths` then
    names each document, e.g. "run #12")."""
    notes: list[str] = []
    by_key: dict[tuple, Case] = {}
    order: list[tuple] = []
    seen_keys: set = set()
    again: dict[tuple[str, str], list[str]] = {}
    kept: dict[tuple[str, str], list[str]] = {}  # measured again, failed there: the earlier stands
    for i, (p, doc) in enumerate(zip(paths, docs)):
        cases = ResultsDocument(doc, p, i).cases
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
                name = f"{c.bench_id}{'[' + _params_text(c) + ']' if c.params else ''}@{c.runtime}"
                if by_key[k].ok and not c.ok:
                    # a measurement that failed does not take the place of one that did not:
                    # nothing measured is lost to a later attempt (its error is in the note)
                    kept.setdefault((by_key[k].path, p), []).append(f"{name} ({c.error})")
                    continue
                again.setdefault((by_key[k].path, p), []).append(name)
            else:
                order.append(k)
            by_key[k] = c
    # one note per pair of files: a second pass measures dozens of cases again
    for (first, later), which in again.items():
        notes.append(f"{len(which)} case(s) measured in {first} and again in {later}; the later "
                     f"file is used: {_listed(which)}.")
    for (first, later), which in kept.items():
        notes.append(f"{len(which)} case(s) measured in {first} failed when measured again in {later}; "
                     f"the earlier measurement is used: {_listed(which)}.")
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
        runtimes.remove(baseline)  # first overall, so first of its language
        runtimes.insert(0, baseline)
    return Report(title=title, paths=list(paths), docs=docs, cases=cases, runtimes=runtimes,
                  notes=notes)


# -- ratios -------------------------------------------------------------------------------------

@dataclass
class Ratio:
    value: float
    low: float | None
    high: float | None
    paired: bool = False  # the run's own ratio, its two sides measured round by round together

    @property
    def has_interval(self) -> bool:
        return self.low is not None and self.high is not None

    def text(self) -> str:
        if self.has_interval:
            return f"{_fmt_ratio(self.value)} [{_fmt_ratio(self.low)}–{_fmt_ratio(self.high)}]"
        return f"{_fmt_ratio(self.value)} [no interval]"


_fmt_ratio = format_ratio


def unpaired_ratio(after: Case, before: Case, confidence: float = CONFIDENCE) -> Ratio | None:
    """after/before from two independent estimates: perflab.judge's delta method."""
    if not (after.ok and before.ok) or after.mean <= 0 or before.mean <= 0:
        return None
    value = after.mean / before.mean
    if after.se is None or before.se is None or after.df is None or before.df is None:
        return Ratio(value, None, None)  # one process a side: no interval
    lr = delta(after.mean, after.se, after.df, before.mean, before.se, before.df)
    if not lr.has_interval:
        return Ratio(value, None, None)
    low, high = lr.interval(confidence)
    return Ratio(value, low, high)


def ratio_to(case: Case, base: Case | None) -> Ratio | None:
    """The case against `base` (its baseline method or its baseline runtime: perflab.ratios). The
    run's own (paired, per-round) ratio is used when the run computed it against that very case."""
    if base is None or not case.ok or not base.ok:
        return None
    if case is base:
        return Ratio(1.0, 1.0, 1.0)
    for field, base_field in (("ratio", "baseline"), ("runtime_ratio", "runtime_baseline")):
        found = _stored_ratio(case, base, field, base_field)
        if found is not None:
            return found
    # two runs' cases: the stricter of their jobs' confidence
    return unpaired_ratio(case, base, max(case.confidence, base.confidence))


runtime_ratio = method_ratio = ratio_to


def contention_blocks(ratio: Ratio | None, after: Case, before: Case, same_code: bool) -> bool:
    """Whether contention leaves a ratio of `after` to `before` without a verdict: yes when either
    side was contended, unless the ratio is the run's own paired one of the same code on two
    runtimes, both sides timed by their thread's CPU time (stats/contention.ratio_stands)."""
    return bool(contention_reason(after.contention_level, before.contention_level,
                                  ratio is not None and ratio.paired, same_code, after.cpu_timed, before.cpu_timed,
                                  together=measured_together(after.raw.get("contention"),
                                                             before.raw.get("contention"))))


def _stored_ratio(case: Case, base: Case, field: str, base_field: str) -> Ratio | None:
    r = case.stored_ratio(field)
    if r is not None and case.doc == base.doc and case.raw.get(base_field) == base.key_text:
        lo, hi = r.get("ci_low"), r.get("ci_high")
        ok = _finite(lo) and _finite(hi) and lo > 0
        return Ratio(float(r["value"]), float(lo) if ok else None, float(hi) if ok else None,
                     paired=r.get("paired") is True)
    return None


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
    ratio: Ratio | None                  # vs the baseline runtime (None: no such baseline)
    method_ratio: Ratio | None = None    # vs the group's baseline method
    runtime_base: str = ""               # label of the baseline runtime, "" when none
    has_method_base: bool = False

    @property
    def has_runtime_base(self) -> bool:
        return bool(self.runtime_base)


def section_rows(report: Report, section: Section) -> list[Row]:
    labels = _method_labels(section.cases)
    rows = []
    for c in section.cases:
        mbase, rbase = report.pairs.get(id(c), (None, None))
        rows.append(Row(c, labels[c.bench_id], runtime_ratio(c, rbase), method_ratio(c, mbase),
                        rbase.runtime if rbase else "", mbase is not None))
    return rows


def is_numeric_column(column: str) -> bool:
    return column in ("Mean", "Allocated") or column.startswith("Ratio")


def table_cells(rows: list[Row]) -> tuple[list[str], list[list[str]]]:
    """`Method | Runtime | Params | Mean | Ratio | Ratio vs <runtime> | Allocated`, a ratio column
    only when some row has that baseline (perflab.ratios)."""
    bases = list(dict.fromkeys(r.runtime_base for r in rows if r.runtime_base))
    has_method = any(r.has_method_base for r in rows)
    has_runtime = any(r.has_runtime_base for r in rows)
    rt_col = runtime_column(bases[0]) if len(bases) == 1 else "Ratio vs baseline runtime"
    columns = (["Method", "Runtime", "Params", "Mean"] + ([METHOD_COLUMN] if has_method else [])
               + ([rt_col] if has_runtime else []) + ["Allocated"])
    unit = pick_unit([r.case.mean for r in rows if r.case.ok], TIME_UNITS)
    out = []
    for r in rows:
        c = r.case
        mean = (format_in(c.mean, unit) if c.ok else f"NA: {c.absent}" if c.absent
                else f"SKIPPED: {c.skipped}" if c.skipped else f"FAILED: {c.error}")
        cells = [r.method, c.runtime, _params_text(c), mean]
        if has_method:
            cells.append(_ratio_cell(r.method_ratio, r.has_method_base, c.ok))
        if has_runtime:
            cells.append(_ratio_cell(r.ratio, r.has_runtime_base, c.ok))
        cells.append(format_size(c.alloc) if c.alloc is not None else "NA")
        out.append(cells)
    return columns, out


def _ratio_cell(ratio: Ratio | None, has_base: bool, ok: bool) -> str:
    if ratio is not None:
        return format_ratio(ratio.value)
    return "?" if has_base and ok else ""
