"""`perflab` command line: run · list · runtimes · conformance."""
from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)
from rich.table import Table as RichTable

from . import __version__, toolchains
from .analysis import analyse
from .engine.plan import build_plan, find_sources, open_worker, prepare
from .engine.runner import Engine
from .environment import collect
from .errors import UsageError, WorkerFailure
from .jobs import JOBS, get_job
from .model import Runtime
from .report.exporters import EXPORTERS, to_csv, to_markdown, to_terminal, write_text_atomic
from .report.table import build_table
from .results import document, write_atomic
from .runtimes import resolve, split_specs
from .store import StoreError, open_store

# the arguments of `run` a resumed run takes from the interrupted one
RESUMABLE = ("paths", "runtimes", "filter", "category", "job", "exporters", "out", "hide", "timeout",
             "budget", "target", "iteration_time", "no_overhead", "max_cases", "label")

# Not on a terminal (CI logs, pipes): never wrap the table; let it be as wide as it is.
out = Console(highlight=False, width=None if sys.stdout.isatty() else 1000)
err = Console(stderr=True, highlight=False)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="perflab", description=__doc__)
    p.add_argument("--version", action="version", version=f"perflab {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="measure benchmarks on one or more runtimes")
    run.add_argument("paths", nargs="*", default=["."], help="benchmark files or folders (default: .)")
    run.add_argument("--runtimes", "-r", help="comma-separated runtime specs, e.g. python3.8,python3.13 "
                     "(the first is the Ratio baseline), or 'all' for every installed runtime; default: the python3 on PATH")
    run.add_argument("--filter", "-f", action="append", default=[],
                     help="glob on benchmark names (Group.method); repeatable")
    run.add_argument("--category", action="append", default=[], help="only these categories")
    run.add_argument("--job", "-j", default="default", help=f"one of {', '.join(JOBS)} (default: default)")
    run.add_argument("--exporters", "-e", default="table,md,csv,json",
                     help=f"comma-separated subset of {','.join(EXPORTERS)}")
    run.add_argument("--out", "-o", default="perflab-results", help="folder for the result files")
    run.add_argument("--hide", default="", help="columns to hide, e.g. Error,StdDev")
    run.add_argument("--timeout", type=float, help="seconds to wait for any single worker reply")
    run.add_argument("--budget", type=float, help="seconds of measurement per case (overrides the job)")
    run.add_argument("--target", type=float, help="precision target as a fraction, e.g. 0.02")
    run.add_argument("--iteration-time", type=float, help="seconds per iteration (overrides the job)")
    run.add_argument("--no-overhead", action="store_true", help="do not measure/subtract call overhead")
    run.add_argument("--max-cases", type=int, default=1000, help="limit of cases per benchmark")
    run.add_argument("--seed", type=int, help="seed of the interleaving order (default: random)")
    run.add_argument("--store", help="history store URL: sqlite:///path.db (default: $PERFLAB_STORE "
                     "or ~/.local/share/perflab/history.db), postgresql://user:pw@host/db, or none")
    run.add_argument("--resume", nargs="?", const="latest", metavar="RUN_ID",
                     help="continue an interrupted run (default: the latest incomplete one), "
                     "measuring only the cases it had not finished")
    run.add_argument("--label", default="", help="a name for this run in the history")

    ls = sub.add_parser("list", help="list the benchmarks perflab finds")
    ls.add_argument("paths", nargs="*", default=["."])
    ls.add_argument("--runtimes", "-r")
    ls.add_argument("--filter", "-f", action="append", default=[])
    ls.add_argument("--category", action="append", default=[])

    sub.add_parser("runtimes", help="list the runtimes perflab can use")

    cmp_ = sub.add_parser("compare", help="compare two results: files or stored runs (ID, latest, latest~1)")
    cmp_.add_argument("old")
    cmp_.add_argument("new")
    cmp_.add_argument("--threshold", type=float, default=2.0,
                      help="noise threshold in percent: smaller changes are 'same' (default 2)")
    cmp_.add_argument("--fail-on-regression", type=float, metavar="PCT",
                      help="exit with status 1 if a case is slower by more than PCT percent")
    cmp_.add_argument("--format", choices=("table", "md"), default="table")
    cmp_.add_argument("--force", action="store_true", help="compare results from different setups")
    cmp_.add_argument("--store")

    hist = sub.add_parser("history", help="stored runs, a benchmark's series, and change points")
    hist.add_argument("pattern", nargs="?", help="glob on benchmark (Group.method) or case key")
    hist.add_argument("--changes", action="store_true", help="find where performance shifted")
    hist.add_argument("--min-shift", type=float, default=2.0, help="smallest shift to report, percent")
    hist.add_argument("--store")

    conf = sub.add_parser("conformance", help="check a worker against the protocol vectors")
    conf.add_argument("--runtime", required=True)
    conf.add_argument("--fixtures", help="fixture folder (default: protocol/fixtures/<language>)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return {"run": cmd_run, "list": cmd_list, "runtimes": cmd_runtimes,
                "conformance": cmd_conformance, "compare": cmd_compare,
                "history": cmd_history}[args.command](args)
    except (UsageError, StoreError) as exc:
        err.print(f"[red]error:[/red] {exc}", soft_wrap=True)
        return 2
    except KeyboardInterrupt:
        err.print("[red]interrupted[/red]")
        return 130


# -- shared steps --------------------------------------------------------------------------------

def _select_runtimes(spec_text: str | None, languages: list[str]) -> list[Runtime]:
    tcs = toolchains.all_toolchains()
    if spec_text and spec_text.strip() == "all":
        found = [rt for tc in tcs if tc.language in languages for rt in tc.discover_runtimes()
                 if rt.installed]
        if not found:
            raise UsageError("--runtimes all: no installed runtime found for "
                             f"{', '.join(languages)}")
        return found
    if spec_text:
        runtimes = resolve(split_specs(spec_text), tcs)
        unused = [r.label for r in runtimes if r.language not in languages]
        if unused:
            err.print(f"[yellow]note:[/yellow] no benchmarks for {', '.join(unused)} here; ignored")
        return [r for r in runtimes if r.language in languages]
    chosen = []
    for lang in languages:
        tc = toolchains.get(lang)
        default = getattr(tc, "default_runtime", None)
        rt = default() if default else next((r for r in tc.discover_runtimes() if r.installed), None)
        if rt is None:
            raise UsageError(f"no {lang} runtime found; install one or give --runtimes")
        chosen.append(rt)
    return chosen


def _prepare_all(paths: list[Path], spec_text: str | None, timeout: float, workdir: Path):
    sources = find_sources(paths, toolchains.all_toolchains())
    if not sources:
        raise UsageError(f"no benchmark files under {', '.join(map(str, paths))} "
                         "(Python: bench_*.py, *_bench.py, benchmarks.py; JavaScript/TypeScript: "
                         "*.bench.{js,mjs,ts,mts}, bench_*.{js,mjs,ts}; Go: packages with Benchmark "
                         "functions in *_test.go)")
    runtimes = _select_runtimes(spec_text, list(sources))
    if not runtimes:
        raise UsageError("none of the given runtimes matches the benchmarks' languages "
                         f"({', '.join(sources)})")
    prepared = []
    with err.status("preparing runtimes…"):
        for rt in runtimes:
            prep = prepare(rt, toolchains.get(rt.language), sources[rt.language], workdir, timeout)
            if prep.error:
                err.print(f"[red]{rt.label}:[/red] {prep.error}", soft_wrap=True)
            prepared.append(prep)
    return prepared


def _check_out_dir(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".perflab-write-test-"):
            pass
    except OSError as exc:
        raise UsageError(f"--out {path}: not writable ({exc.strerror or exc}); "
                         "choose a folder you can write to") from None


# -- commands ------------------------------------------------------------------------------------

def cmd_run(args) -> int:
    store = open_store(args.store)  # a bad store is an error before anything runs
    resumed = None
    if args.resume is not None:
        if store is None:
            raise UsageError("--resume needs a history store (--store is none)")
        rid = store.latest_run_id(incomplete_only=True) if args.resume == "latest" else int(args.resume)
        if rid is None:
            raise UsageError("--resume: no interrupted run in the history; start a new run")
        resumed = store.run(rid)
        for k in RESUMABLE:
            if k in resumed["args"]:
                setattr(args, k, resumed["args"][k])
    exporters = [e.strip() for e in args.exporters.split(",") if e.strip()]
    bad = [e for e in exporters if e not in EXPORTERS]
    if bad:
        raise UsageError(f"--exporters: unknown '{bad[0]}'; choose from {', '.join(EXPORTERS)}")
    job = get_job(args.job, timeout_s=args.timeout, budget_s=args.budget,
                  target_rel_error=args.target, iteration_time_s=args.iteration_time, overhead=False if args.no_overhead else None)
    out_dir = Path(args.out)
    _check_out_dir(out_dir)
    paths = [Path(p) for p in args.paths]
    started = dt.datetime.now(dt.timezone.utc)
    stamp = started.strftime("%Y%m%d-%H%M%S")
    workdir = Path(tempfile.mkdtemp(prefix="perflab-"))
    prepared = _prepare_all(paths, args.runtimes, job.timeout_s, workdir)
    plan = build_plan(prepared, args.filter, args.category, args.max_cases)
    if not plan.groups and not plan.failed:
        if any(p.error for p in prepared):
            return 1
        raise UsageError("no benchmark matches the filters")

    by_label = {p.runtime.label: p for p in prepared}
    env = collect(paths)
    env["runtimes"] = [p.runtime.to_json() for p in prepared]
    json_path = out_dir / f"perflab-{stamp}.json"
    results = []

    from .environment import binary_sha256, fingerprint
    from .model import CaseResult
    from .results import case_result_from_json, row_to_json
    for rt in env["runtimes"]:
        rt["binary_sha256"] = binary_sha256(rt["executable"])
    done_keys: set[str] = set()
    run_id = None
    if store is not None:
        if resumed:
            run_id = resumed["id"]
            for c in store.cases(run_id):
                results.append(case_result_from_json(c))
                done_keys.add(c["key"])
            err.print(f"resuming run #{run_id}: {len(done_keys)} case(s) already measured")
        else:
            run_id = store.begin_run(command=sys.argv, args={k: getattr(args, k) for k in RESUMABLE},
                                     job=job.__dict__, environment=env, fingerprint=fingerprint(env),
                                     label=args.label)
    store_failed = []

    def to_store(result_rows):
        if store is None or store_failed:
            return
        try:
            for row in result_rows:
                store.add_case(run_id, row_to_json(row))
        except StoreError as exc:  # keep measuring; the JSON document still has everything
            store_failed.append(str(exc))
            err.print(f"[red]history store failed:[/red] {exc}; results stay in the JSON file")

    plan.groups = [[c for c in g if c.key not in done_keys] for g in plan.groups]
    plan.groups = [g for g in plan.groups if g]
    for case, reason in plan.failed:
        if case.key not in done_keys:
            results.append(CaseResult(case=case, error=reason, stop_reason="failed"))

    def launch(case, index):
        prep = by_label[case.runtime.label]
        paths_ = [case.benchmark.file] if case.benchmark.file in prep.spec.load_paths else None
        worker, loaded = open_worker(prep.spec, job.timeout_s, paths_)
        if not any(b.get("id") == case.benchmark.id for b in loaded["benchmarks"]):
            worker.close()
            raise WorkerFailure(f"benchmark {case.benchmark.id} not found when relaunched")
        return worker

    def save(complete: bool):
        rows = analyse(results, job.confidence, job.target_rel_error, job.overhead)
        if "json" in exporters:
            write_atomic(json_path, document(rows, job, env, sys.argv, started, complete))
        return rows

    total = sum(len(g) for g in plan.groups)
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                        TextColumn("{task.fields[current]}"), console=err, transient=True)
    rng = random.Random(args.seed)
    with progress:
        task = progress.add_task(f"{job.name} job", total=total, current="")

        def done(result):
            results.append(result)
            progress.advance(task)
            rows_now = save(complete=False)
            to_store([r for r in rows_now if r.result is result])

        engine = Engine(job, launch, rng=rng, on_case_done=done)
        for group in plan.groups:
            progress.update(task, current=group[0].benchmark.full_name)
            engine.run_group(group)
    rows = save(complete=True)
    to_store(rows)  # final judgement (ratios need every case) replaces the provisional one
    if store is not None and not store_failed:
        store.finish_run(run_id)
    # table order: as discovered (group, benchmark, params), runtimes in the order given
    order = {c.key: i for i, c in enumerate([c for g in plan.groups for c in g] +
                                              [c for c, _ in plan.failed])}
    rows.sort(key=lambda r: order.get(r.result.case.key, 0))
    table = build_table(rows, {h.strip() for h in args.hide.split(",") if h.strip()})
    if "table" in exporters:
        to_terminal(table, out)
    written = []
    if "md" in exporters:
        write_text_atomic(out_dir / f"perflab-{stamp}.md", to_markdown(table))
        written.append(out_dir / f"perflab-{stamp}.md")
    if "csv" in exporters:
        write_text_atomic(out_dir / f"perflab-{stamp}.csv", to_csv(table))
        written.append(out_dir / f"perflab-{stamp}.csv")
    if "json" in exporters:
        written.insert(0, json_path)
    wall = (dt.datetime.now(dt.timezone.utc) - started).total_seconds()
    failed = [r for r in rows if not r.result.ok]
    err.print(f"{len(rows)} cases in {wall:.1f}s; {len(failed)} failed. "
              + (f"Results: {', '.join(map(str, written))}" if written else "")
              + (f"; history: run #{run_id} in {store.url}" if store is not None and not store_failed
                 else ""), soft_wrap=True)
    return 1 if failed or any(p.error for p in prepared) else 0


def cmd_list(args) -> int:
    paths = [Path(p) for p in args.paths]
    prepared = _prepare_all(paths, args.runtimes, 60.0, Path(tempfile.mkdtemp(prefix="perflab-")))
    plan = build_plan(prepared, args.filter, args.category)
    t = RichTable(title="benchmarks")
    for col in ("Benchmark", "Params", "Cases", "Runtimes", "Source"):
        t.add_column(col)
    seen = {}
    for group in plan.groups:
        b = group[0].benchmark
        entry = seen.setdefault(b.id, [b, 0, set()])
        entry[1] += 1
        entry[2].update(c.runtime.label for c in group)
    for b, n, rts in seen.values():
        axes = "; ".join(f"{a.name} ∈ {{{', '.join(a.values)}}}" for a in b.params)
        t.add_row(b.full_name + (" (baseline)" if b.baseline else ""), axes, str(n),
                  ", ".join(sorted(rts)), f"{os.path.relpath(b.file)}:{b.line}")
    out.print(t)
    return 1 if any(p.error for p in prepared) else 0


def cmd_runtimes(args) -> int:
    t = RichTable(title="runtimes")
    for col in ("Name", "Language", "Version", "Implementation", "Status", "Path"):
        t.add_column(col)
    for tc in toolchains.all_toolchains():
        for rt in tc.discover_runtimes():
            t.add_row(rt.name, rt.language, rt.version, rt.implementation,
                      "installed" if rt.installed else (rt.note or "installable"), rt.executable)
    out.print(t)
    return 0


def cmd_compare(args) -> int:
    from .compare import compare_docs, load_side, regressions, summary, to_markdown, to_rows
    old, new = load_side(args.old, args.store), load_side(args.new, args.store)
    result = compare_docs(old, new, threshold=args.threshold / 100, force=args.force)
    if args.format == "md":
        out.print(to_markdown(result), markup=False, soft_wrap=True)
    else:
        cols, rows = to_rows(result)
        t = RichTable(box=None)
        for c in cols:
            t.add_column(c, justify="left" if c in ("Benchmark", "Runtime", "Verdict") else "right")
        for r in rows:
            style = {"slower": "red", "faster": "green"}.get(r[-1].split(" ")[0])
            t.add_row(*r, style=style)
        out.print(t)
        for line in summary(result):
            out.print(line)
    if args.fail_on_regression is not None:
        bad = regressions(result, args.fail_on_regression)
        if bad:
            err.print(f"{len(bad)} regression(s) above {args.fail_on_regression}%: "
                      + ", ".join(f"{c.key} ({c.ratio - 1:+.1%})" for c in bad), soft_wrap=True)
            return 1
    return 0


def cmd_history(args) -> int:
    from .history import find_changes
    from .units import format_time
    store = open_store(args.store)
    if store is None:
        raise UsageError("history needs a store; --store is none")
    if args.pattern is None and not args.changes:
        t = RichTable(title=f"runs in {store.url}")
        for c in ("Run", "Started", "Label", "Cases", "Failed", "Complete", "Fingerprint"):
            t.add_column(c)
        for r in store.runs():
            t.add_row(str(r["id"]), r["started"], r["label"], str(r["cases"]), str(r["failed"]),
                      "yes" if r["complete"] else "no (--resume)", r["fingerprint"])
        out.print(t)
        return 0
    series = store.series(args.pattern)
    if not series:
        raise UsageError(f"no stored case matches '{args.pattern}'")
    if args.changes:
        changes = find_changes(series, args.min_shift / 100)
        if not changes:
            out.print(f"no shift of {args.min_shift:g}% or more in {len({s['key'] for s in series})} "
                      "series")
            return 0
        t = RichTable(title="change points")
        for c in ("Case", "Last run before", "First run after", "Before", "After", "Change", "Runs"):
            t.add_column(c)
        for ch in changes:
            t.add_row(ch.key, f"#{ch.before_run}", f"#{ch.after_run}", format_time(ch.before_mean),
                      format_time(ch.after_mean), f"{ch.change:+.1%}",
                      f"{len(ch.runs_before)} before, {len(ch.runs_after)} after")
        out.print(t)
        return 0
    t = RichTable(title=f"history of {args.pattern}")
    for c in ("Run", "Started", "Benchmark", "Runtime", "Mean", "Error", "Status"):
        t.add_column(c)
    for s_ in series:
        t.add_row(str(s_["run_id"]), s_["started"], s_["benchmark"], s_["runtime"],
                  format_time(s_["mean_ns"]) if s_["mean_ns"] is not None else "NA",
                  format_time(s_["error_ns"]) if s_["error_ns"] is not None else "NA", s_["status"])
    out.print(t)
    return 0


def cmd_conformance(args) -> int:
    from .conformance import run_conformance
    rt = resolve([args.runtime], toolchains.all_toolchains())[0]
    return run_conformance(rt, Path(args.fixtures) if args.fixtures else None, out)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
