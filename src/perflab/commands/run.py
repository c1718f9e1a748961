"""`perflab run`: plan, measure (engine), judge, print the table, write the results and the history."""
from __future__ import annotations

import datetime as dt
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from rich.text import Text

from ..console import err, out
from ..engine.count import Counter
from ..engine.measure import MeasuringEngine, parse_measure
from ..engine.memory import default_limit, parse_size
from ..measures.callgrind import ValgrindMissing, valgrind_path
from ..engine.affinity import Placement, check_mode, idle_times
from ..engine.plan import build_plan, make_launcher
from ..engine.runner import Engine
from ..engine.runqueue import RunQueueWatch
from ..engine.total_budget import TotalBudget, skip_timed_out
from ..environment import collect
from ..errors import UsageError
from ..jobs import get_job, parse_budget
from ..progress import CaseProgress, Reporter, case_summary
from ..report.claims import decides_in
from ..report.escape import markup
from ..report.exporters import EXPORTERS, to_csv, to_markdown, to_terminal, write_text_atomic
from ..report.header import header_lines
from ..report.counts import header_line as count_header, progress_text
from ..report.table import build_tables, case_label
from ..recording import Recorder, log_path, resumable
from ..results import document
from ..stats.distributions import preload
from ..store import StoreError, open_store
from ..toolchains import languages
from ..revisions import parse_revisions
from .common import check_out_dir, prepare_all, prepare_revisions
from ..policy import DEFAULT

# the arguments of `run` a resumed run takes from the interrupted one
RESUMABLE = ("paths", "runtimes", "filter", "category", "job", "exporters", "out", "hide", "timeout",
             "budget", "budget_total", "target", "iteration_time", "no_overhead", "max_cases", "label",
             "exclude", "cluster", "measure", "rev", "memory_limit", "profile", "profile_seconds")


def check_hide(hide: str, plan) -> None:
    """--hide names columns (or parameters of the benchmarks found): a misspelt one is bad input, not
    a column that silently stays."""
    from ..report.table import hideable, unknown_hidden
    names = {h.strip() for h in hide.split(",") if h.strip()}
    params = {name for group in plan.groups for case in group for name in case.param_values}
    params |= {name for case, _ in plan.failed for name in case.param_values}
    bad = unknown_hidden(names, params)
    if bad:
        raise UsageError(f"--hide: unknown column '{bad[0]}'; columns: {', '.join(hideable())}"
                         + (f", or a parameter ({', '.join(sorted(params))})" if params else ""))


def cmd_run(args) -> int:
    began = time.monotonic()  # --budget-total counts from here: the builds are part of the run
    measures = check_measures(args)  # a bad --measure or a missing valgrind: before anything runs
    if getattr(args, "fail_on_regression", None) is not None and not getattr(args, "rev", None):
        raise UsageError("--fail-on-regression on `run` needs --rev A,B (two revisions in one run); to "
                         "judge two stored runs use `perflab compare OLD NEW --fail-on-regression PCT`")
    seconds = getattr(args, "profile_seconds", None)
    if seconds is not None and not (getattr(args, "profile", False) and seconds > 0):
        raise UsageError(f"--profile-seconds {seconds:g}: give a number of seconds above 0, with --profile"
                         if getattr(args, "profile", False) else "--profile-seconds needs --profile")
    if getattr(args, "profile", False) and getattr(args, "cluster", None):
        raise UsageError("--profile with --cluster is not supported yet: profile on this machine")
    if getattr(args, "rev", None) and getattr(args, "cluster", None):
        raise UsageError("--rev with --cluster is not supported yet: the revisions' trees are laid out on "
                         "this machine only; run the revisions here, or check each out on the machines")
    preload()  # scipy.special loads while runtimes are found and the first workers start
    idle_since = idle_times()  # the window that picks the measuring CPU passes meanwhile too
    # a bad store is an error before anything runs; the default one is the benchmarks' project's
    store = open_store(args.store, project=Path(args.paths[0]) if args.paths else None)
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
        measures = check_measures(args)  # the interrupted run's
    exporters = [e.strip() for e in args.exporters.split(",") if e.strip()]
    bad = [e for e in exporters if e not in EXPORTERS]
    if bad:
        raise UsageError(f"--exporters: unknown '{bad[0]}'; choose from {', '.join(EXPORTERS)}")
    budget, budget_per_language = parse_budget(args.budget)
    budget_total = getattr(args, "budget_total", None)
    if budget_total is not None and not budget_total > 0:
        raise UsageError(f"--budget-total: {budget_total:g} is not a number of seconds above 0")
    unknown = sorted(set(budget_per_language) - set(languages()))
    if unknown:
        raise UsageError(f"--budget: unknown language '{unknown[0]}'; languages: {', '.join(languages())}")
    memory_limit = (parse_size(args.memory_limit) if getattr(args, "memory_limit", None)
                    else default_limit())
    job = get_job(args.job, timeout_s=args.timeout, memory_limit=memory_limit,
                  target_rel_error=args.target, iteration_time_s=args.iteration_time, overhead=False if args.no_overhead else None,
                  duet=None if getattr(args, "duet", None) is None else args.duet == "on").with_budgets(budget, budget_per_language)
    budget_per_language = dict(job.budget_by_language)
    out_dir = Path(args.out)
    check_out_dir(out_dir)
    check_mode(args.affinity)
    paths = [Path(p) for p in args.paths]
    started = dt.datetime.now(dt.timezone.utc)
    stamp = started.strftime("%Y%m%d-%H%M%S")
    workdir = Path(tempfile.mkdtemp(prefix="perflab-"))
    quiet, as_json = getattr(args, "quiet", False), getattr(args, "json", False)
    reporter = Reporter(err, quiet=quiet)
    revisions = None
    if getattr(args, "rev", None):
        prepared, revisions = prepare_revisions(parse_revisions(args.rev), paths, args.runtimes,
                                                job.timeout_s, workdir, args.exclude, reporter,
                                                memory_limit=job.memory_limit)
    else:
        prepared = prepare_all(paths, args.runtimes, job.timeout_s, workdir, args.exclude, reporter,
                               memory_limit=job.memory_limit)
    plan = build_plan(prepared, args.filter, args.category, args.max_cases)
    if not plan.groups and not plan.failed and not plan.absent:  # all NA: a table that says why
        if any(p.error for p in prepared):
            return 1
        raise UsageError("no benchmark matches the filters")
    check_hide(args.hide, plan)

    by_label = {p.runtime.label: p for p in prepared}
    env = collect(paths)
    env["runtimes"] = [p.runtime.to_json() for p in prepared]
    if revisions:
        env["revisions"] = [{"name": r.name, "commit": r.commit} for r in revisions]
    json_path = out_dir / f"perflab-{stamp}.json"
    results = []

    from ..environment import binary_sha256, fingerprint
    from ..model import CaseResult, StopReason
    from ..results import case_result_from_json, row_to_json
    for rt in env["runtimes"]:
        rt["binary_sha256"] = binary_sha256(rt["executable"])
    done_keys: set[str] = set()
    run_id = None
    logged_only: list[dict] = []  # finished cases of the interrupted run its store had not received
    if store is not None:
        if resumed:
            run_id = resumed["id"]
            stored = store.cases(run_id)
            log = resumed["args"].get("log")
            cases = resumable(stored, Path(log) if isinstance(log, str) else None)
            logged_only = cases[len(stored):]
            for c in cases:
                results.append(case_result_from_json(c))
                done_keys.add(c["key"])
            err.print(f"resuming run #{run_id}: {len(done_keys)} case(s) already measured")
        else:
            # "log": where this run's finished cases are logged as they finish (`--resume` reads it)
            log = str(log_path(json_path)) if "json" in exporters else None
            run_id = store.begin_run(command=sys.argv, args={**{k: getattr(args, k, None) for k in RESUMABLE},
                                                             "log": log},
                                     job=job.__dict__, environment=env, fingerprint=fingerprint(env),
                                     label=args.label)
    store_failed = []

    def to_store(cases: list[dict]):
        if store is None or store_failed:
            return
        try:
            store.add_cases(run_id, cases)  # one transaction for a batch
        except StoreError as exc:  # keep measuring; the JSON document still has everything
            store_failed.append(str(exc))
            err.print(f"[red]history store failed:[/red] {markup(str(exc))}; results stay in the JSON "
                      "file", soft_wrap=True)

    if logged_only:
        to_store(logged_only)  # the store holds the interrupted run's every finished case again
    plan.groups = [[c for c in g if c.key not in done_keys] for g in plan.groups]
    plan.groups = [g for g in plan.groups if g]
    one_budget = None
    if budget_total is not None:
        one_budget = TotalBudget(budget_total, began, budget_per_language, fixed_timeout=args.timeout is not None,
                                 favoured=decides_in([p.runtime for p in prepared]))
        if store is not None and not resumed:
            plan.groups, skipped = skip_timed_out(plan.groups, store)
            plan.failed = list(plan.failed) + skipped  # in the table with their reason, in their place
            if skipped:
                err.print(f"--budget-total: {len(skipped)} case(s) skipped: they timed out in the history's "
                          "latest attempt (reasons in the table)", soft_wrap=True)
    for case, reason in plan.failed:
        if case.key not in done_keys:
            results.append(CaseResult(case=case, error=reason, stop_reason=StopReason.FAILED))
    for case, reason in plan.absent:
        if case.key not in done_keys:
            results.append(CaseResult(case=case, absent=reason, stop_reason=StopReason.NOT_ON_RUNTIME))

    launch = make_launcher(by_label, job.timeout_s)

    recorder = Recorder(job=job, environment=env, command=sys.argv, started=started,
                        runtime_order=[p.runtime.label for p in prepared],
                        json_path=json_path if "json" in exporters else None, on_cases=to_store,
                        baseline_groups=baseline_groups(plan))
    recorder.extend(results)

    total = sum(len(g) for g in plan.groups)
    progress = CaseProgress(reporter, total, f"{job.name} job")
    rng = random.Random(args.seed)
    placement = Placement.choose(args.affinity, idle_since) if job.warmup_max > 0 else Placement()
    with progress:
        def done(result):
            mine = recorder.add(result)  # O(1) per case: the document waits for its interval
            summary = (f"SKIPPED: {result.skipped}" if result.skipped
                       else case_summary(result.ok, result.error, mine.estimate))
            counted = progress_text(result.counts) if result.ok else ""
            if counted:  # time and count side by side, or the count alone when time was not measured
                summary = f"{summary}; {counted}" if mine.estimate else counted
            if result.profile:
                summary = f"{summary}; {profile_text(result.profile)}"
            progress.advance(case_label(result.case), summary)

        engine = Engine(job, launch, rng=rng, on_case_done=done, placement=placement,
                        starts_aside=lambda case: by_label[case.runtime.label].spec.starts_aside,
                        runqueue=RunQueueWatch)
        profiler = None
        if getattr(args, "profile", False):
            from ..engine.profile import Profiler
            from ..measures.profile import PROFILE_SECONDS
            profiler = Profiler(by_label, job.timeout_s, out_dir / f"perflab-{stamp}-profiles",
                                seconds=getattr(args, "profile_seconds", None) or PROFILE_SECONDS)
        if measures != ("time",) or profiler is not None:
            counter = (Counter(by_label, max(job.timeout_s, DEFAULT.replies.count_timeout_min_s))
                       if "instructions" in measures else None)
            engine = MeasuringEngine(engine, counter, measures, on_case_done=done, profiler=profiler)
        try:
            if getattr(args, "cluster", None):
                from ..cluster import run_on_cluster
                stats = run_on_cluster(args.cluster, plan, prepared, job, done, progress, seed=args.seed)
                err.print(f"cluster: {stats['submitted']} group task(s); {stats['lost_machines']} lost with "
                          f"their machine, {stats['lost_workers']} with their worker process (machine still "
                          f"up), {stats['rerun_cases']} case(s) measured again elsewhere", soft_wrap=True)
            else:
                groups = one_budget.order(plan.groups) if one_budget is not None else plan.groups
                measure_here(engine, groups, job, progress, one_budget)
        except BaseException:
            recorder.write(complete=False)  # an interrupted run's document holds every finished case
            recorder.close()
            raise
        finally:
            engine.close()
    rows = recorder.finish()
    to_store([row_to_json(r) for r in rows])  # the final judgement (ratios need every case) replaces the provisional one
    if store is not None and not store_failed:
        store.finish_run(run_id)
    # table order: as discovered (group, benchmark, params), runtimes in the order given
    # table order: benchmarks as discovered, parameters in order, and each method's runtimes together
    # in the order they were given (as the seeds' tables list them)
    runtime_rank = {p.runtime.label: i for i, p in enumerate(prepared)}
    bench_rank: dict[tuple, int] = {}
    for c in [c for g in plan.groups for c in g] + [c for c, _ in plan.failed + plan.absent]:
        bench_rank.setdefault((c.benchmark.id, c.params), len(bench_rank))
    rows.sort(key=lambda r: (bench_rank.get((r.result.case.benchmark.id, r.result.case.params), 0),
                             runtime_rank.get(r.result.case.runtime.label, 0)))
    tables = build_tables(rows, {h.strip() for h in args.hide.split(",") if h.strip()})
    header = header_lines(env, job.__dict__)
    if "instructions" in measures and count_header(rows):
        header.append(count_header(rows))
    if "table" in exporters and not (as_json and quiet):
        # with --json, stdout holds the document alone: the table goes to stderr
        to_terminal(tables, header, err if as_json else out)
    if as_json:
        out.file.write(json.dumps(document(rows, job, env, sys.argv, started, True), indent=1) + "\n")
        out.file.flush()
    written = []
    if "md" in exporters:
        write_text_atomic(out_dir / f"perflab-{stamp}.md", to_markdown(tables, header))
        written.append(out_dir / f"perflab-{stamp}.md")
    if "csv" in exporters:
        write_text_atomic(out_dir / f"perflab-{stamp}.csv", to_csv(rows))
        written.append(out_dir / f"perflab-{stamp}.csv")
    if "json" in exporters:
        written.insert(0, json_path)
    if getattr(args, "profile", False):
        from ..report.flame import write_case_pages, write_runtime_diffs
        pages = write_case_pages(rows, out_dir / f"perflab-{stamp}-profiles")
        diffs = write_runtime_diffs(rows, out_dir / f"perflab-{stamp}-profiles")
        missing = [r for r in rows if (r.result.profile or {}).get("error")]
        if pages:
            written.append(out_dir / f"perflab-{stamp}-profiles")
        err.print(Text(f"--profile: {len(pages)} flame graph(s), {len(diffs)} difference(s) against the "
                       "first runtime"
                       + (f"; {len(missing)} case(s) without a profile (reasons in the results)" if missing else "")),
                  soft_wrap=True)
    if "instructions" in measures:
        from ..report.flame import write_function_pages
        fpages = write_function_pages(rows, out_dir / f"perflab-{stamp}-profiles")
        if fpages:
            err.print(Text(f"instructions by function: {len(fpages)} page(s) in {fpages[0].parent}"),
                      soft_wrap=True)
    if getattr(args, "disasm", False):
        from ..report.disasm import write_disassembly
        files, problems = write_disassembly(rows, out_dir / f"perflab-{stamp}-disasm")
        for p_ in problems:
            err.print(f"[yellow]--disasm:[/yellow] {markup(str(p_))}", soft_wrap=True)
        if files:
            written.append(files[0].parent)
    wall = (dt.datetime.now(dt.timezone.utc) - started).total_seconds()
    # a count that failed beside a measured time fails the run too (its time is in the table)
    failed = [r for r in rows if not r.result.ok or (r.result.counts or {}).get("error")]
    err.print(Text(f"{len(rows)} cases in {wall:.1f}s; {len(failed)} failed. "
                   + (f"Results: {', '.join(map(str, written))}" if written else "")
                   + (f"; history: run #{run_id} in {store.url}" if store is not None and not store_failed
                      else "")), soft_wrap=True)
    hint = contention_hint(rows)
    if hint:
        err.print(Text(hint), soft_wrap=True)
    status = 1 if failed or any(p.error for p in prepared) else 0
    gate = getattr(args, "fail_on_regression", None)
    if gate is not None:
        slower = revision_regressions(rows, gate)
        for row, ratio in slower:
            err.print(Text(f"regression: {case_label(row.result.case)} is ×{ratio.value:.3f} "
                           f"[{ratio.ci_low:.3f}, {ratio.ci_high:.3f}] of its time at {row.runtime_baseline_key.rsplit('@', 1)[-1]} "
                           f"(--fail-on-regression {gate:g})"), soft_wrap=True)
        if slower:
            status = 1
    return status


def contention_hint(rows, autogroup: bool | None = None) -> str:
    """A hint when cases were measured under contention on a machine where `nice` cannot help:
    the kernel's session autogroup shares the CPUs between sessions before it looks at nice values."""
    if not any(getattr(r, "contended", False) for r in rows):
        return ""
    if autogroup is None:
        from ..engine.host import autogroup_on
        autogroup = autogroup_on()
    if not autogroup:
        return ""
    return ("hint: some cases were measured under contention, and this kernel shares the CPUs between "
            "sessions first (sched_autogroup is on): other work started with `nice` from another terminal "
            "still gets an equal share; `echo 0 > /proc/sys/kernel/sched_autogroup_enabled` (root) lets "
            "nice work (docs/measuring.md)")


def revision_regressions(rows, pct: float) -> list:
    """`--fail-on-regression PCT` with `--rev`: the cases whose Ratio vs the first revision is surely
    above 1 (its whole interval) and above 1 + PCT %, with contention judged for the comparison
    (analysis.ratio_blocked). The ratio is the paired one of this run: both sides in the same rounds."""
    from ..analysis import ratio_blocked
    by_key = {r.key: r for r in rows}
    out = []
    for row in rows:
        r, base = row.runtime_ratio, by_key.get(row.runtime_baseline_key or "")
        if r is None or base is None or base is row or not row.result.case.runtime.revision:
            continue
        if r.ci_low > 1.0 and r.value > 1 + pct / 100 and not ratio_blocked(row, base, r, same_code=True):
            out.append((row, r))
    return out


def profile_text(profile: dict) -> str:
    """The progress line's word on a case's profile."""
    if profile.get("error"):
        return str(profile["error"])
    return f"profile: {profile.get('samples', 0)} samples"


def check_measures(args) -> tuple[str, ...]:
    """--measure (or `measure` in the project's settings), checked; valgrind found if it counts."""
    measures = parse_measure(getattr(args, "measure", None))
    if "instructions" in measures:
        if getattr(args, "cluster", None):
            raise UsageError("--measure instructions: not available with --cluster; count on this machine")
        try:
            valgrind_path()
        except ValgrindMissing as exc:
            raise UsageError(str(exc)) from None
    return measures


def measure_here(engine: Engine, groups: list, job, progress, total: TotalBudget | None) -> None:
    """The plan's groups one after the other on this machine."""
    for i, group in enumerate(groups):
        progress.current(group[0].benchmark.full_name)
        # a group is one language's: a JVM process costs ten times a CPython one, and a budget
        # that pays for a dozen of one pays for two or three of the other
        language = group[0].runtime.language
        engine.job = job.for_language(language)
        if total is not None:
            engine.job = total.job_for(job, groups[i:])
        t0 = time.monotonic()
        engine.run_group(group)
        if total is not None:  # what the group really took: launches, warm-up and time-outs too
            total.charge(group, engine.job, time.monotonic() - t0)


def baseline_groups(plan) -> set[tuple[str, str]]:
    """(language, group) of the groups that have a baseline method: their methods pair with it."""
    cases = [c for g in plan.groups for c in g] + [c for c, _ in plan.failed + plan.absent]
    return {(c.runtime.language, c.benchmark.group) for c in cases if c.benchmark.baseline}
