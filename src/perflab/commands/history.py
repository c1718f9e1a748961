"""`perflab compare` and `perflab history`: verdicts between results, and what the store remembers."""
from __future__ import annotations

from pathlib import Path

from rich.table import Table as RichTable
from rich.text import Text

from ..console import err, out
from ..report.escape import visible


def listing(title: str | None = None) -> RichTable:
    """A table for `list`, `runtimes`, `history`: boxed on a terminal; off one, plain padded columns
    (grep-able, no box drawing). The title is user data (a store URL, a pattern): text."""
    return RichTable(title=Text(title) if title else None,
                     **({} if out.is_terminal else {"box": None, "title_justify": "left"}))


def cells(values) -> list[Text]:
    """Table cells of stored user data (names, labels, paths): text, never markup, one line each."""
    return [Text(visible("" if v is None else v)) for v in values]
from ..errors import UsageError
from ..judge import Verdict
from ..store import StoreError, open_store


def cmd_compare(args) -> int:
    from ..compare import (compare_docs, count_regressions, load_side, regressions, summary,
                           to_markdown, to_rows, verdict_of)
    old, new = load_side(args.old, args.store), newest_side(args.new, args.store)
    result = compare_docs(old, new, threshold=args.threshold / 100, force=args.force,
                          count_threshold=getattr(args, "count_threshold", 0.1) / 100)
    if args.format == "md":
        out.print(Text(to_markdown(result)), soft_wrap=True)
    else:
        cols, rows = to_rows(result)
        t = RichTable(box=None)
        for c in cols:
            t.add_column(Text(c), justify="left" if c in ("Benchmark", "Runtime", "Verdict", "Ir verdict")
                         else "right")
        for r in rows:
            style = {Verdict.SLOWER: "red", Verdict.FASTER: "green"}.get(verdict_of(cols, r))
            t.add_row(*cells(r), style=style)
        out.print(t)
        for line in summary(result):
            out.print(Text(line))
    diff_flame_graphs(result, old, new, getattr(args, "flame_dir", None))
    if args.fail_on_regression is not None:
        pct, measure = args.fail_on_regression, getattr(args, "fail_measure", "any")
        bad = []
        if measure in ("any", "time"):
            bad += [f"{c.key} (time {c.ratio - 1:+.1%})" for c in regressions(result, pct)]
        if measure in ("any", "instructions"):
            bad += [f"{c.key} (instructions {c.counts.ratio - 1:+.2%})"
                    for c in count_regressions(result, pct)]
        if bad:
            err.print(Text(f"{len(bad)} regression(s) above {pct}%: " + ", ".join(bad)), soft_wrap=True)
            return 1
    return 0


def diff_flame_graphs(result, old: tuple[str, dict], new: tuple[str, dict], folder: str | None) -> None:
    """For every case called slower whose two sides were profiled (`run --profile`): a difference
    flame graph page, in `folder` (default: perflab-results/flame-diff), its path printed."""
    from types import SimpleNamespace

    from ..engine.profile import case_slug
    from ..report.flame import (count_slower_with_functions, functions_page, slower_with_profiles,
                                write_diff_pages)
    where = Path(folder or "perflab-results") / "flame-diff"
    for key, path in write_diff_pages(slower_with_profiles(result, old[1], new[1]), old[0], new[0], where):
        err.print(Text(f"why {key} is slower: {path}"), soft_wrap=True)
    for key, a, b in count_slower_with_functions(result, old[1], new[1]):
        where.mkdir(parents=True, exist_ok=True)
        path = where / f"functions-{case_slug(SimpleNamespace(key=key))}.html"
        path.write_text(functions_page(f"{key} ({new[0]})", b, old=a, old_label=old[0]))
        err.print(Text(f"which function counts more instructions in {key}: {path}"), soft_wrap=True)


def newest_side(refs: list[str], store: str | None) -> tuple[str, dict]:
    """NEW as given, or among several results files (`results/perflab-*.json` once the folder holds
    two runs) the one whose run started last: pooling them would mix the code of different commits."""
    from ..compare import load_side
    if len(refs) == 1:
        return load_side(refs[0], store)
    if any(not Path(ref).is_file() for ref in refs):
        raise UsageError(f"compare: several NEW sides ({', '.join(refs)}) must all be results files; "
                         "give one stored run")
    sides = [load_side(ref, store) for ref in refs]
    newest = max(sides, key=lambda side: (str(side[1].get("started") or ""),
                                         Path(side[0]).stat().st_mtime))
    err.print(Text(f"compare: {len(refs)} results files given as NEW; judging the newest run, "
                   f"{newest[0]} (set aside: {', '.join(s[0] for s in sides if s is not newest)})"),
              soft_wrap=True)
    return newest


def cmd_history(args) -> int:
    from ..units import format_time
    try:
        store = open_store(args.store, create=False)  # history only reads: it never makes one
    except StoreError:
        _hint_legacy(args.store)
        raise
    if store is None:
        raise UsageError("history needs a store; --store is none")
    if args.pattern is None and not args.changes:
        from ..provenance import provenance
        t = listing(f"runs in {store.url}")
        for c in ("Run", "Started", "Commit (branch)", "Label", "Command", "Paths", "Runtimes", "Job",
                  "Cases", "Failed", "Complete", "Machine"):
            t.add_column(c)
        counts, records = store.case_counts(), store.run_records()
        for r in records:
            p = provenance(r)
            n, failed = counts.get(r["id"], (0, 0))
            t.add_row(*cells([str(r["id"]), r["started"], p.revision, p.label, p.command,
                              ", ".join(p.paths), ", ".join(p.runtimes), p.job, str(n), str(failed),
                              "yes" if r["complete"] else "no (--resume)", p.fingerprint]))
        out.print(t)
        if not records:
            _hint_legacy(args.store)
        return 0
    series = store.series(args.pattern)
    if not series:
        raise UsageError(f"no stored case matches '{args.pattern}' (a glob on Group.method, the method "
                         "alone, or a case key: e.g. 'Sort*' or '*Sort*')")  # printed as text by cli
    if args.changes:
        return _print_changes(series, args, store)
    counted = any(s_.get("counts") for s_ in series)
    t = listing(f"history of {args.pattern}")
    for c in ("Run", "Started", "Benchmark", "Params", "Runtime", "Mean", "Error", "Status") + (
            ("Ir/op",) if counted else ()):
        t.add_column(c)
    for s_ in series:
        t.add_row(*cells([str(s_["run_id"]), s_["started"], s_["benchmark"], _params(s_["params"]),
                          s_["runtime"],
                          format_time(s_["mean_ns"]) if s_["mean_ns"] is not None else "NA",
                          format_time(s_["error_ns"]) if s_["error_ns"] is not None else "NA",
                          s_["status"]] + ([_ir_cell(s_.get("counts"))] if counted else [])))
    out.print(t)
    return 0


def _ir_cell(counts: dict | None) -> str:
    from ..count_verdicts import format_count, per_op
    if counts is None:
        return "-"
    return format_count(per_op(counts)) if per_op(counts) is not None else "not counted"


def _print_changes(series: list[dict], args, store) -> int:
    """Time changes (change points) and steps in instruction counts, one table, the measure named."""
    from ..count_verdicts import format_count
    from ..history import StoredCases, find_changes, find_count_changes
    from ..units import format_time
    count_threshold = getattr(args, "count_threshold", 0.1) / 100
    changes = find_changes(series, args.min_shift / 100, StoredCases(store)) + find_count_changes(series, count_threshold)
    keys = len({s_["key"] for s_ in series})
    counted = len({s_["key"] for s_ in series if s_.get("counts")})
    if not changes:
        out.print(Text(f"no shift of {args.min_shift:g}% or more in {keys} series"
                       + (f", and no step in the instruction counts of {counted} counted series beyond "
                          f"{count_threshold:.2%} and their launches' spread" if counted else "")))
        return 0
    t = listing("change points")
    params = {s_["key"]: _params(s_["params"]) for s_ in series}
    for c in ("Case", "Params", "Measure", "Found by", "Last run before", "First run after", "Before", "After",
              "Change", "Runs"):
        t.add_column(c)
    changes.sort(key=lambda ch: (ch.key, ch.after_run, ch.measure))
    for ch in changes:
        fmt = format_time if ch.measure == "time" else (lambda v: f"{format_count(v)} Ir")
        found_by = "step" if ch.measure == "instructions" else ch.method
        t.add_row(*cells([ch.key, params.get(ch.key, "-"), ch.measure, found_by, f"#{ch.before_run}",
                          f"#{ch.after_run}", fmt(ch.before_mean), fmt(ch.after_mean),
                          (f"{ch.change:+.1%}" if ch.measure == "time" else f"{ch.change:+.2%}")
                          + f" {ch.verdict}",
                          f"{len(ch.runs_before)} before, {len(ch.runs_after)} after"]))
    out.print(t)
    return 0


def _params(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "-"


def _hint_legacy(store_arg: str | None) -> None:
    """An empty project history while the per-account one of earlier perflab versions exists: say
    where the older runs are (histories follow the project now)."""
    import os

    from ..store import legacy_path
    old = legacy_path()
    if store_arg is None and not os.environ.get("PERFLAB_STORE") and old.is_file():
        err.print(Text(f"note: this project's history is empty; runs of earlier perflab versions are "
                       f"in {old} (perflab history --store sqlite://{old})"), soft_wrap=True)
