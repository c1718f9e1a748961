"""Re-judge saved results: every verdict perflab's code decides from them, one line each, so that two
versions of the code can be diffed on the same samples (issue #37: a refactor of the judgement must
change no verdict it does not mean to).

    .venv/bin/python bench/rejudge.py RESULTS.json... [--compare OLD.json NEW.json]... > after.txt
    PYTHONPATH=/path/to/old/checkout/src .venv/bin/python bench/rejudge.py ... > before.txt
    diff before.txt after.txt

Per results file: each row's ratios (against its baseline method and runtime) with their interval and
where it lies, the rows whose contention or disagreement warning the table prints, each seed claim's
verdict, each family's geometric mean as `perflab report` prints it; per `--compare` pair, each case's
verdict as `perflab compare` gives it, and the geometric mean.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from perflab.analysis import analyse
from perflab.compare import compare_docs, to_rows
from perflab.errors import UsageError
from perflab.report.claims import claims_of
from perflab.report.families import pairs_of
from perflab.report.family import summarize
from perflab.report.results_view import report_from_docs, sections_of
from perflab.results import ResultsDocument, case_result_from_json, load_document


def run_lines(path: str) -> list[str]:
    results = ResultsDocument.read(Path(path))
    doc = results.raw
    order = [rt.get("label") for rt in results.environment.get("runtimes") or [] if isinstance(rt, dict)]
    # the numbers it was judged with: the policy it saved, or its job's confidence and target
    stop = results.policy.stop
    rows = analyse([case_result_from_json(c) for c in doc["cases"]], stop.confidence,
                   stop.target_rel_error, results.overhead, order)
    out = []
    for r in rows:
        for name, rat in (("ratio", r.ratio), ("runtime_ratio", r.runtime_ratio)):
            if rat is not None:
                where = "above 1" if rat.ci_low > 1 else "below 1" if rat.ci_high < 1 else "holds 1"
                out.append(f"run | {path} | {r.key} | {name} | {rat.value:.4f} [{rat.ci_low:.4f}, "
                           f"{rat.ci_high:.4f}] | {where} | "
                           + ("contended-warning" if any("inconclusive" in w for w in r.warnings) else ""))
        out += [f"run | {path} | {r.key} | disagree" for w in r.warnings if "processes disagree" in w]
    rep = report_from_docs([path], [doc], "rejudge")
    for s in sections_of(rep):
        for cl in claims_of(rep, s):
            out += [f"claim | {path} | {cl.text[:50]} | {ch.comparison} | {ch.shown_verdict} | "
                    + (ch.ratio.text() if ch.ratio else "-") for ch in cl.checks]
    if len({c["runtime"]["label"] for c in doc["cases"]}) > 1:
        for pr in pairs_of(rep).values():
            s = summarize(rep, pr)
            out.append(f"family | {path} | {pr.title} | {s.geomean_text()} | wins {len(s.wins)} "
                       f"losses {len(s.losses)}")
    return out


def compare_lines(old: str, new: str) -> list[str]:
    try:
        res = compare_docs((old, load_document(Path(old))), (new, load_document(Path(new))), force=True)
    except UsageError as exc:
        return [f"compare | {old} | {new} | error | {exc}"]
    cols, rows = to_rows(res)
    out = [f"compare | {old} | {new} | {c.key} | {c.verdict} | " + (f"{c.ratio:.4f}" if c.ratio else "-")
           + (f" | [{c.ci_low:.4f}, {c.ci_high:.4f}]" if c.ci_low else " |") + f" | {c.note}" for c in res.cases]
    if res.geomean:
        i = cols.index("New/Old")
        out.append(f"compare | {old} | {new} | geomean | {rows[-1][i]} | {rows[-1][i + 1]}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--compare", nargs=2, action="append", default=[], metavar=("OLD", "NEW"))
    args = ap.parse_args()
    for line in [x for f in args.files for x in run_lines(f)] + [
            x for old, new in args.compare for x in compare_lines(old, new)]:
        print(line)


if __name__ == "__main__":
    main()
