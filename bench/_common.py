"""Helpers shared by the bench/ scripts: run perflab as a user would and read its JSON document."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path


def write_bench(folder: Path, name: str, source: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return path


RUN_TIMEOUT_S = 1800


def perflab_run(path: Path, *args: str, out: Path | None = None,
                python: list[str] = ("-m", "perflab.cli"), timeout_s: float = RUN_TIMEOUT_S,
                env: dict | None = None) -> tuple[dict, float]:
    """Run `perflab run`, return (results document, wall seconds of the whole command). The results
    file is kept in `out` (a fresh folder, made if missing), else in a temporary folder. `timeout_s`:
    the bound on the command (a study of thousands of cases gives its own)."""
    if out is None:
        out = Path(tempfile.mkdtemp(prefix="perflab-bench-"))
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    try:  # a bound, so that a study's printed estimate is one: the jobs' budgets are seconds per case
        proc = subprocess.run([sys.executable, *python, "run", str(path), "--exporters",
                               "json", "-o", str(out), *args], capture_output=True, text=True, timeout=timeout_s,
                              env=env)
    except subprocess.TimeoutExpired:
        raise SystemExit(f"perflab run {path} {' '.join(args)} took more than {timeout_s:.0f} s") from None
    wall = time.perf_counter() - t0
    docs = list(out.glob("perflab-*.json"))
    # exit status 1: some case failed, the others measured and saved — the study records the failure
    if proc.returncode not in (0, 1) or len(docs) != 1:
        raise SystemExit(f"perflab failed ({proc.returncode}):\n{proc.stderr}")
    [doc_path] = docs
    return json.loads(doc_path.read_text()), wall


def called_different(value: float, ci_low: float, ci_high: float) -> bool:
    """A ratio's verdict as `perflab compare` gives one, from the judge (perflab.judge): its interval
    excludes 1.00 and it is more than compare's noise threshold (Change.threshold, 2 %) away from 1.00."""
    from perflab.judge import Thresholds, Verdict, verdict_from_interval
    from perflab.policy import DEFAULT
    verdict = verdict_from_interval(value, ci_low, ci_high, Thresholds(min_change=DEFAULT.change.threshold))
    return verdict in (Verdict.FASTER, Verdict.SLOWER)


@dataclass(frozen=True)
class Ratio:
    """A case's ratio to its baseline with its interval (the results document's confidence, 99.9 %)."""
    value: float
    low: float
    high: float

    def holds(self, x: float) -> bool:
        return self.low <= x <= self.high

    def overlaps(self, other: "Ratio") -> bool:
        return self.low <= other.high and other.low <= self.high

    @property
    def different(self) -> bool:
        return called_different(self.value, self.low, self.high)


# The only places that read the results document's ratio and stop fields: if their shape changes,
# adapt these functions.
def ratio_of(case: dict) -> Ratio | None:
    """The case's ratio to its baseline, or None for a baseline or a case without one. Two runtimes of a
    benchmark: its "runtime_ratio" (Ratio vs the first runtime); else the methods of a group with a
    baseline method: its "ratio" (perflab.ratios keeps the two apart)."""
    from perflab.results import CaseRecord  # the one typed model of a results document
    record = CaseRecord(0, "", case)
    for key, baseline in (("runtime_ratio", "is_runtime_baseline"), ("ratio", "is_baseline")):
        r = record.stored_ratio(key)
        if r is not None and not case.get(baseline):
            return Ratio(r["value"], r["ci_low"], r["ci_high"])
    return None


# What a study records for a case that gave no ratio (it failed): held nothing, different from nothing,
# and `inconclusive` says so.
NO_RATIO = Ratio(float("nan"), float("nan"), float("nan"))

REACHED = ("target reached", "ratio target reached")


def inconclusive(case: dict, doc: dict | None = None) -> bool:
    """The run says its figure is not to be trusted: its precision target was not reached (it stopped
    at its budget), the case failed, or contention leaves its comparison without a verdict: heavy
    or changing contention on either side, as the judge rules for the run's table
    (`contention_blocks`; `doc` finds the baseline side)."""
    if case.get("status", "ok") != "ok" or case.get("stop_reason") not in REACHED:
        return True
    return contention_blocks(case, doc)


def contention_blocks(case: dict, doc: dict | None = None) -> bool:
    """Contention leaves the case's comparison without a verdict, as the judge rules for the run's
    table (perflab.judge.contention_reason): either side — the case or its baseline, which `doc`
    finds — was measured under heavy or changing contention, and the ratio is not one that stands:
    the paired CPU-timed ratio of the same code on two runtimes (or revisions), or of two methods
    measured together as a duet. The ratio to the runtime (or revision) baseline is judged first,
    else the ratio to the baseline method."""
    from perflab.judge import contention_reason
    from perflab.results import CaseRecord  # the one typed model of a results document
    from perflab.stats.contention import measured_together
    cases = (doc or {}).get("cases", [])
    this = CaseRecord(0, "", case)
    for field, base_key, same_code in (("runtime_ratio", "runtime_baseline", True), ("ratio", "baseline", False)):
        found = next((c for c in cases if c.get("key") == case.get(base_key)), None)
        if found is None or not case.get(field):
            continue
        base = CaseRecord(0, "", found)
        paired = (this.stored_ratio(field) or {}).get("paired") is True
        return bool(contention_reason(this.contention_level, base.contention_level, paired, same_code,
                                      this.cpu_timed, base.cpu_timed,
                                      together=measured_together(case.get("contention"), found.get("contention"))))
    return bool(contention_reason(this.contention_level, None))


def compared_case(doc: dict) -> dict:
    """The one case of a two-sided comparison that is not its baseline (A/B: B, whose ratio is B/A)."""
    cases = [c for c in doc["cases"] if not (c.get("is_runtime_baseline") or c.get("is_baseline"))]
    if len(cases) != 1:
        raise SystemExit(f"expected one compared case, got {[c.get('key') for c in doc['cases']]}")
    return cases[0]


def perflab_compare(old: Path, new: Path) -> list[dict]:
    """`perflab compare OLD NEW`'s verdict per case, read from its Markdown table: dicts with
    benchmark, runtime, ratio (NEW/OLD or None), verdict (slower, faster, same, n/a)."""
    proc = subprocess.run([sys.executable, "-m", "perflab.cli", "compare", str(old), str(new), "--format", "md"],
                          capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"perflab compare failed ({proc.returncode}):\n{proc.stderr}")
    rows = [line.strip().strip("|").split("|") for line in proc.stdout.splitlines() if line.startswith("|")]
    header = [h.strip() for h in rows[0]]
    out = []
    for cells in rows[2:]:
        row = dict(zip(header, (re.sub(r"\\(.)", r"\1", c.strip()) for c in cells)))  # undo md escapes
        if row.get("Benchmark") == "geometric mean":
            continue
        verdict = row["Verdict"].split()
        verdict = next((w for w in verdict if w in ("slower", "faster", "same", "n/a")), row["Verdict"])
        ratio = float(row["New/Old"]) if row["New/Old"] not in ("", "NA") else None
        out.append({"benchmark": row["Benchmark"], "runtime": row["Runtime"], "ratio": ratio, "verdict": verdict})
    return out


def host_python() -> str:
    return sys.executable
