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

    ls = sub.add_parser("list", help="list the benchmarks perflab finds")
    ls.add_argument("paths", nargs="*", default=["."])
    ls.add_argument("--runtimes", "-r")
    ls.add_argument("--filter", "-f", action="append", default=[])
    ls.add_argument("--category", action="append", default=[])

    sub.add_parser("runtimes", help="list the runtimes perflab can use")

    conf = sub.add_parser("conformance", help="check a worker against the protocol vectors")
    conf.add_argument("--runtime", required=True)
    conf.add_argument("--fixtures", help="fixture folder (default: protocol/fixtures/<language>)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return {"run": cmd_run, "list": cmd_list, "runtimes": cmd_runtimes,
                "conformance": cmd_conformance}[args.command](args)
    except UsageError as exc:
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
                         "(Python: bench_*.py, *_bench.py, benchmarks.py)")
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

    from .model import CaseResult
    for case, reason in plan.failed:
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
            save(complete=False)

        engine = Engine(job, launch, rng=rng, on_case_done=done)
        for group in plan.groups:
            progress.update(task, current=group[0].benchmark.full_name)
            engine.run_group(group)
    rows = save(complete=True)
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
              + (f"Results: {', '.join(map(str, written))}" if written else ""), soft_wrap=True)
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


def cmd_conformance(args) -> int:
    from .conformance import run_conformance
    rt = resolve([args.runtime], toolchains.all_toolchains())[0]
    return run_conformance(rt, Path(args.fixtures) if args.fixtures else None, out)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
