"""`perflab compare OLD NEW`: per case, NEW/OLD with an interval and a verdict.

Each side is estimated as `perflab run` estimates a case (stats/clean.py cleans its launches, and
stats/estimate.py combines the launches' means): the Old and New columns are those estimates, and
New/Old is their ratio, so its direction always agrees with the columns. Its interval, p and verdict
are perflab.judge's (`judge.compare`, the delta method: launches as units, Welch–Satterthwaite's
degrees of freedom; the change rule and contention in judge/rules.py). (Resampling iterations treats 100 iterations of one process as 100
independent facts — the pseudo-replication behind false alarms like benchstat's +24 % on identical
code.) The two-sided p-values are adjusted across all cases with Benjamini–Hochberg (false-discovery
rate), and a change is only called when it is also larger than a noise threshold (default 2 %): on a
shared machine, two runs minutes apart rarely agree to better than that. A case measured under heavy
or changing contention in either run (stats/contention.py) is never called faster or slower:
inconclusive.

Instruction counts (`--measure instructions`), where both sides have them, get a verdict of their own
beside the time's, in columns of their own: New/Old per-op Ir judged by the launches' own spread and a
count threshold (default 0.1 %), with no interval (perflab.count_verdicts).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .count_verdicts import CountVerdict, format_count, judge_counts
from .environment import fingerprint_parts
from .machines import case_machine_parts, has_machines
from .errors import UsageError
from .importers.common import is_imported, side_estimate
from .results import CaseRecord, DocumentError, ResultsDocument, load_document
from .model import Status
from .policy import DEFAULT
from .judge import Thresholds, Verdict, adjust, compare, confidence_text, decide_change, geometric_mean
from .stats.contention import contention_differs
from .stats.estimate import Estimate, estimate

RULES = DEFAULT.change  # compare's numbers, each with why: perflab.policy.Change
DEFAULT_THRESHOLD = RULES.threshold
DEFAULT_CONFIDENCE = RULES.confidence
DEFAULT_ALPHA = round(1 - DEFAULT_CONFIDENCE, 10)  # one confidence: α is 1 − the interval's


@dataclass
class CaseComparison:
    key: str
    benchmark: str
    params: dict
    runtime: str
    old_mean: float | None
    new_mean: float | None
    ratio: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    p: float | None = None
    p_adjusted: float | None = None
    verdict: Verdict = Verdict.NA
    note: str = ""
    contended: bool = False  # either side measured under heavy or changing contention
    counts: CountVerdict | None = None  # the verdict on instruction counts; None: neither side counted
    timed: bool = True  # False: a side was only counted (--measure instructions), no time verdict


@dataclass
class Comparison:
    old_label: str
    new_label: str
    cases: list[CaseComparison] = field(default_factory=list)
    only_old: list[str] = field(default_factory=list)
    only_new: list[str] = field(default_factory=list)
    geomean: float | None = None
    geomean_ci: tuple[float, float] | None = None
    forced_mismatch: list[str] = field(default_factory=list)
    threshold: float = DEFAULT_THRESHOLD
    contention: str = ""  # why the two runs' contention differs clearly (empty: it does not)
    count_threshold: float = RULES.count_threshold
    count_geomean: float | None = None  # of the New/Old Ir ratios judged
    imported: list[str] = field(default_factory=list)  # "run #3: imported from hyperfine (file)"
    confidence: float = DEFAULT_CONFIDENCE  # of every interval, and α = 1 − it for every p
    geomean_note: str = ""  # why the geometric mean has no interval


def load_side(ref: str, store_url: str | None) -> tuple[str, dict]:
    """A results file, or a stored run: `run:ID`, `ID`, `latest`, `latest~N`."""
    m = re.fullmatch(r"(?:run:)?(\d+)|latest(?:~(\d+))?", ref)
    if m and not Path(ref).exists():
        from .store import StoreError, open_store
        try:
            store = open_store(store_url, create=False)  # compare only reads
            if store is None:
                raise UsageError(f"{ref}: runs need a history store, but --store is none")
            if m.group(1):
                rid = int(m.group(1))
            else:
                ids = [r["id"] for r in store.runs()]
                back = int(m.group(2) or 0)
                if len(ids) <= back:
                    raise UsageError(f"{ref}: the history has only {len(ids)} run(s)")
                rid = ids[-1 - back]
            return f"run #{rid}", store.document(rid)
        except StoreError as exc:
            raise UsageError(str(exc)) from None
    try:
        return ref, load_document(Path(ref))
    except DocumentError as exc:
        raise UsageError(str(exc)) from None


def _record(case: "dict | CaseRecord") -> CaseRecord:
    """A case as the typed model reads it (history hands compare the store's dicts)."""
    return case if isinstance(case, CaseRecord) else CaseRecord(0, "", case)


def _side(case: "dict | CaseRecord", overhead: bool) -> tuple[Estimate | None, int]:
    """A case's estimate from its raw samples, as `perflab run` makes it, and its sample count."""
    case = _record(case)
    launches = case.launches()
    est = estimate(launches, case.ops_per_invoke, subtract_overhead=overhead, modality=False)
    return est, sum(len(ln.workload) for ln in launches)


def log_ratio_test(new: Estimate, old: Estimate, confidence: float) -> tuple[float, float, float, float]:
    """new/old from two estimates of independent runs: (ratio, low, high, two-sided p), perflab.judge's
    delta method (judge.interval)."""
    c = compare(new, old, None, Thresholds(confidence))
    return c.ratio, c.low, c.high, c.p


def compare_docs(old: tuple[str, dict], new: tuple[str, dict], threshold: float = DEFAULT_THRESHOLD,
                 alpha: float = DEFAULT_ALPHA, confidence: float = DEFAULT_CONFIDENCE,
                 force: bool = False, count_threshold: float = RULES.count_threshold) -> Comparison:
    (old_label, a), (new_label, b) = old, new
    result = Comparison(old_label, new_label, threshold=threshold, count_threshold=count_threshold,
                        confidence=confidence)
    for label, doc in ((old_label, a), (new_label, b)):  # a side measured by another harness says which
        src = (doc.get("environment") or {}).get("imported")
        if isinstance(src, dict):
            result.imported.append(f"{label}: imported from {src.get('tool')} ({src.get('file')})")
    fa, fb = fingerprint_parts(a.get("environment", {})), fingerprint_parts(b.get("environment", {}))
    differing = [k for k in fa if fa[k] != fb[k]]
    if is_imported(a) or is_imported(b):
        # an imported file states only some of its machine (perflab.importers): what it leaves
        # unsaid is unknown, not different; what it states must still match
        differing = [k for k in differing if fa[k] is not None and fb[k] is not None]
    da, db = ResultsDocument(a, old_label), ResultsDocument(b, new_label)
    ca = {k: c.raw for k, c in da.by_key().items()}
    cb = {k: c.raw for k, c in db.by_key().items()}
    if has_machines(a) or has_machines(b):
        # a cluster run: what counts is the machine that measured each case, not the driver's
        differing = []
        for key in [k for k in ca if k in cb]:
            pa = case_machine_parts(ca[key], a.get("environment", {}))
            pb = case_machine_parts(cb[key], b.get("environment", {}))
            if pa != pb:
                fa, fb = pa, pb
                differing = [k for k in pa if pa.get(k) != pb.get(k)]
                break
    if differing:
        detail = "; ".join(f"{k}: {fa[k]} vs {fb[k]}" for k in differing)
        if not force:
            raise UsageError(f"{old_label} and {new_label} were measured on different machines or "
                             f"setups ({detail}); their times are not comparable. Use --force to "
                             "compare anyway (the output will say so)")
        result.forced_mismatch = differing
    common = [k for k in ca if k in cb]
    result.only_old = [k for k in ca if k not in cb]
    result.only_new = [k for k in cb if k not in ca]
    if not common:
        raise UsageError(f"{old_label} and {new_label} have no case in common "
                         f"({len(ca)} vs {len(cb)} cases); nothing to compare")
    over_a, over_b = da.overhead, db.overhead
    result.contention = contention_differs(da.environment.get("contention") or {},
                                           db.environment.get("contention") or {})
    tested = []
    for key in common:
        cc = measure_case(ca[key], cb[key], over_a, over_b, confidence)
        result.cases.append(cc)
        # counts are judged whatever became of the time (a run may have counted only)
        cc.counts = judge_counts(ca[key].get("counts"), cb[key].get("counts"), count_threshold)
        if cc.p is not None:
            tested.append(cc)
    if tested:
        decide(tested, alpha, threshold)
        g = geometric_mean([(c.ratio, c.ci_low, c.ci_high) for c in tested], confidence)
        result.geomean = g.value
        result.geomean_ci = (g.low, g.high) if g.has_interval else None
        result.geomean_note = g.why_none
    judged = [c.counts.ratio for c in result.cases
              if c.counts and c.counts.verdict in (Verdict.FASTER, Verdict.SLOWER, Verdict.SAME)]
    if judged:
        result.count_geomean = float(math.exp(np.mean(np.log(judged))))
    return result


def measure_case(x: dict, y: dict, overhead_old: bool = True, overhead_new: bool = True,
              confidence: float = DEFAULT_CONFIDENCE) -> CaseComparison:
    """One case of two runs: both estimates, New/Old with its interval and unadjusted p, or the
    reason it cannot be tested (verdict n/a, p None). The verdict waits for `decide`."""
    rx, ry = _record(x), _record(y)
    cc = CaseComparison(rx.key_text, f"{rx.group}.{rx.bench.get('name')}", x.get("params", {}),
                        rx.runtime, None, None)
    va, vb = (rx.raw["runtime"].get("version"), ry.raw["runtime"].get("version"))
    changed_runtime = f"runtime {va} → {vb}" if va != vb and va and vb else ""  # "": unknown (imported)
    if counted_only(x) or counted_only(y):  # `--measure instructions`: no time to judge
        cc.verdict, cc.timed = NOT_TIMED, False
        return cc
    if rx.status != Status.OK or ry.status != Status.OK:
        side = rx if rx.status != Status.OK else ry
        cc.verdict, cc.note = Verdict.NA, {Status.NA: "not available in ", Status.SKIPPED: "skipped in "}.get(
            side.status, "failed in ") + (
            "old" if side is rx else "new")
        return cc
    if is_imported(x) or is_imported(y):
        _judge_imported(cc, x, y, overhead_old, overhead_new, confidence, changed_runtime)
        return cc
    (ea, na), (eb, nb) = _side(rx, overhead_old), _side(ry, overhead_new)
    # the columns print the same estimates the ratio is made of
    cc.old_mean = ea.mean if ea else None
    cc.new_mean = eb.mean if eb else None
    if ea is None or eb is None or min(na, nb) < RULES.min_samples:
        cc.verdict, cc.note = Verdict.NA, "too few samples (a dry run?)"
        return cc
    if ea.df < 1 or eb.df < 1:
        cc.verdict, cc.note = Verdict.NA, "one process: no interval"
        return cc
    if ea.ci_low <= 0 or eb.ci_low <= 0:
        cc.verdict, cc.note = Verdict.NA, "indistinguishable from empty"
        return cc
    judged = compare(eb, ea, None, Thresholds(confidence), contention=(ry.contention_level, rx.contention_level))
    cc.ratio, cc.ci_low, cc.ci_high, cc.p = judged.ratio, judged.low, judged.high, judged.p
    cc.verdict = judged.verdict  # until `decide` adjusts p across the cases
    cc.note = "; ".join(n for n in (changed_runtime, *_old_first(judged.reasons)) if n)
    cc.contended = judged.verdict == Verdict.INCONCLUSIVE
    return cc


def _old_first(reasons: list[str]) -> list[str]:
    """compare's notes name the old run first ("contention in old and new")."""
    return [r.replace("contention in new and old", "contention in old and new") for r in reasons]


def decide(tested: list[CaseComparison], alpha: float = DEFAULT_ALPHA,
           threshold: float = DEFAULT_THRESHOLD) -> None:
    """The verdicts of tested cases: p adjusted across them (Benjamini–Hochberg), then
    perflab.judge's change rule (judge.rules.decide_change); a case contended on either side is
    inconclusive (its note says so)."""
    th = Thresholds(1 - alpha, threshold)
    for c, p in zip(tested, adjust([c.p for c in tested])):
        c.p_adjusted = p
        c.verdict = Verdict.INCONCLUSIVE if c.contended else decide_change(c.ratio, p, th)


def _judge_imported(cc: CaseComparison, x: dict, y: dict, over_a: bool, over_b: bool, confidence: float,
                    changed_runtime: str) -> None:
    """A case where either side came from another harness (perflab import): each side is judged by
    its stored estimate (perflab's over the file's units, or the tool's own interval); a side without
    an interval makes the verdict inconclusive, with the reason."""
    sides, notes = [], []
    for label, c, over in (("old", x, over_a), ("new", y, over_b)):
        if is_imported(c):
            est, note, why = side_estimate(c)
            if note:
                notes.append(f"{label}: {note}")
            if est is None:
                est_mean = (c.get("estimate") or {}).get("mean")
                sides.append((est_mean, None, why))
                continue
        else:
            est, n = _side(c, over)
            if est is None or n < RULES.min_samples or est.df < 1 or est.ci_low <= 0:
                sides.append((est.mean if est else None, None, "no interval (one process, or too few samples)"))
                continue
        sides.append((est.mean, est, ""))
    (ma, ea, why_a), (mb, eb, why_b) = sides
    cc.old_mean, cc.new_mean = ma, mb
    if ea is None or eb is None:
        if ma and mb:
            cc.ratio = mb / ma
        cc.verdict = Verdict.INCONCLUSIVE
        whys = [f"old and new: {why_a}"] if why_a and why_a == why_b else \
            [f"{side}: {w}" for side, w in (("old", why_a), ("new", why_b)) if w]
        cc.note = "; ".join([*whys, changed_runtime] if changed_runtime else whys)
        return
    cc.ratio, cc.ci_low, cc.ci_high, cc.p = log_ratio_test(eb, ea, confidence)
    if len(notes) == 2 and notes[0][len("old: "):] == notes[1][len("new: "):]:
        notes = [notes[0][len("old: "):]]  # both sides say the same
    cc.note = "; ".join(n for n in (changed_runtime, *notes) if n)


NOT_TIMED = "not timed"  # the time "verdict" of a case a side only counted


def counted_only(case: dict) -> bool:
    """A case measured with `--measure instructions` alone: counted, never timed (no launches)."""
    return case.get("counts") is not None and not case.get("launches") and case.get("status") == Status.OK


def has_times(result: Comparison) -> bool:
    return any(c.timed for c in result.cases)


def regressions(result: Comparison, pct: float) -> list[CaseComparison]:
    """Cases whose time is slower by more than `pct` percent."""
    return [c for c in result.cases if c.verdict == Verdict.SLOWER and c.ratio and c.ratio - 1 > pct / 100]


def count_regressions(result: Comparison, pct: float) -> list[CaseComparison]:
    """Cases that count more instructions per operation, by more than `pct` percent."""
    return [c for c in result.cases if c.counts and c.counts.verdict == Verdict.SLOWER
            and c.counts.ratio - 1 > pct / 100]


def has_counts(result: Comparison) -> bool:
    return any(c.counts for c in result.cases)


COUNT_COLUMNS = ["Old Ir/op", "New Ir/op", "Ir New/Old", "Ir verdict"]


def verdict_of(cols: list[str], row: list[str]) -> str:
    """The verdict word a row is marked by: "slower" when either measure says so, else "faster" when
    either does, else the time's."""
    words = [row[cols.index(c)].split(" ")[0] for c in ("Verdict", "Ir verdict") if c in cols]
    for w in (Verdict.SLOWER, Verdict.FASTER):
        if w in words:
            return w
    return words[0] if words else ""


def to_rows(result: Comparison) -> tuple[list[str], list[list[str]]]:
    from .units import format_time
    params = sorted({k for c in result.cases for k in c.params})
    counted = has_counts(result)
    # two runs that only counted (`--measure instructions`) have no time columns at all
    timed = has_times(result) or not counted
    cols = (["Benchmark", "Runtime"] + params
            + (["Old", "New", "New/Old", f"{confidence_text(result.confidence).replace(' ', '')} CI",
                "p (FDR)", "Verdict"] if timed else [])
            + (COUNT_COLUMNS if counted else []))
    rows = []
    for c in result.cases:
        time_cells = [
            format_time(c.old_mean) if c.old_mean is not None else "NA",
            format_time(c.new_mean) if c.new_mean is not None else "NA",
            f"{c.ratio:.3f}" if c.ratio else "NA",
            f"[{c.ci_low:.3f}, {c.ci_high:.3f}]" if c.ci_low else "",
            f"{c.p_adjusted:.3g}" if c.p_adjusted is not None else "",
            c.verdict + (f" ({c.note})" if c.note else "")] if c.timed else [
            "", "", "", "", "", NOT_TIMED]
        rows.append([c.benchmark, c.runtime] + [c.params.get(p, "-") for p in params]
                    + (time_cells if timed else []) + (_count_cells(c.counts) if counted else []))
    if result.geomean or result.count_geomean:
        lo, hi = result.geomean_ci or (None, None)
        rows.append(["geometric mean", ""] + ["" for _ in params] + ([
            "", "", f"{result.geomean:.3f}" if result.geomean else "",
            f"[{lo:.3f}, {hi:.3f}]" if lo else result.geomean_note, "", ""] if timed else [])
            + (["", "", f"{result.count_geomean:.4f}" if result.count_geomean else "", ""]
               if counted else []))
    return cols, rows


def _count_cells(cv: CountVerdict | None) -> list[str]:
    """The count columns of a row: per-op Ir of each side, their ratio (four decimals: counts resolve
    0.1 %), and the verdict with its reason."""
    if cv is None:
        return ["", "", "", "n/a (not counted)"]
    return [format_count(cv.old), format_count(cv.new), f"{cv.ratio:.4f}" if cv.ratio else "NA",
            cv.verdict + (f" ({cv.note})" if cv.note else "")]


def summary(result: Comparison) -> list[str]:
    counts = {v: sum(c.verdict == v for c in result.cases)
              for v in (*Verdict, NOT_TIMED)}
    lines = []
    if has_times(result) or not has_counts(result):
        lines.append(f"{result.new_label} vs {result.old_label}: {counts[Verdict.FASTER]} faster, "
                     f"{counts[Verdict.SLOWER]} slower, {counts[Verdict.SAME]} same, "
                     + (f"{counts[Verdict.INCONCLUSIVE]} inconclusive (contention, or no interval: see the notes), "
                        if counts[Verdict.INCONCLUSIVE] else "")
                     + f"{counts[Verdict.NA]} not comparable "
                     + (f"{counts[NOT_TIMED]} not timed (only counted), " if counts[NOT_TIMED] else "")
                     + f"(noise threshold {result.threshold:.0%}, {confidence_text(result.confidence)} "
                     f"intervals, FDR-adjusted p < {1 - result.confidence:.3g})")
    else:
        lines.append(f"{result.new_label} vs {result.old_label}: counted only (--measure "
                     "instructions), no time to compare")
    if has_counts(result):
        n = {v: sum(bool(c.counts) and c.counts.verdict == v for c in result.cases)
             for v in Verdict}
        n[Verdict.NA] += sum(c.counts is None for c in result.cases)
        lines.append(f"instructions: {n[Verdict.FASTER]} fewer, {n[Verdict.SLOWER]} more, {n[Verdict.SAME]} same, "
                     + (f"{n[Verdict.INCONCLUSIVE]} inconclusive (counts that did not repeat: see the notes), "
                        if n[Verdict.INCONCLUSIVE] else "")
                     + f"{n[Verdict.NA]} not comparable (count threshold {result.count_threshold:.2%}, "
                     "or the launches' own spread where wider; no interval)")
    lines += result.imported
    if result.contention:
        lines.append(f"WARNING: the runs were measured under clearly different contention "
                     f"({result.contention}): differences may be the machine's, not the code's")
    if result.forced_mismatch:
        lines.append("WARNING: compared across different setups (--force): "
                     + ", ".join(result.forced_mismatch) + " differ")
    if result.only_old or result.only_new:
        lines.append(f"{len(result.only_old)} case(s) only in {result.old_label}, "
                     f"{len(result.only_new)} only in {result.new_label}")
    return lines


def to_markdown(result: Comparison) -> str:
    from .report.escape import md_cell
    from .report.exporters import markdown_table
    cols, rows = to_rows(result)
    out = [f"### perflab: {md_cell(result.new_label)} vs {md_cell(result.old_label)}", ""]
    marked = []
    for r in rows:
        cells = list(r)
        for col in ("Verdict", "Ir verdict"):
            if col in cols:
                i = cols.index(col)
                cells[i] = {Verdict.SLOWER: "🔴 ", Verdict.FASTER: "🟢 "}.get(cells[i].split(" ")[0], "") + cells[i]
        marked.append(cells)
    out += markdown_table(cols, marked, set())  # every cell escaped: names and params are user data
    out += [""] + [f"> {md_cell(line)}" for line in summary(result)]
    return "\n".join(out) + "\n"
