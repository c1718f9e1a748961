"""perflab's main job (`./run.sh`): the seed corpus on every language family's oldest and newest
runtime, side by side, within ONE total budget, and a report per family.

1. Runtimes: scripts/main_job_runtimes.py (provisions Node and Go versions that are missing).
2. Pass 1: the short job over every case of the slice (`--category quick`), with PASS1_SHARE of the
   time left (`perflab run --budget-total`).
3. Pass 2, while time is left: the comparisons that stand for a seed claim and are still
   inconclusive (their interval straddles the claim's threshold) are measured again, family by
   family, with the default job (±2 %) and a larger budget per case — the time goes where the
   answer is not known yet, not evenly to every case: each check gets the time its interval says
   it needs, cheapest first, and a round leaves what it does not need to the next
   (scripts/main_job_plan.py). Rounds go on while time is left (MAX_ROUNDS bounds only a job
   whose runs cost nothing). The report merges the result files; a case
   measured again replaces its earlier result (the later file wins), unless it failed there.
4. The report (index + a page per family) and, on the console, one line per family; the claims'
   tally (and the wall time) goes to `<out>/main-job.json` too (bench/main_job.py reads it).

    python scripts/main_job.py [--budget-total SECONDS] [--category quick | --full] [--families node,go]
                               [--out DIR] [--no-provision] [extra `perflab run` arguments…]

`--full` (`./run.sh --full`): the whole corpus — every seed section, the 100 MB/100 MiB rows included —
on every family, not the quick slice. Before it measures anything it counts the cases (loading the
corpus on each family's newest runtime) and says how long the job will take: pass 1 at the short job's
budget per case, and, unless --budget-total is given, a total that leaves pass 2 its usual share.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from main_job_plan import inconclusive, pass2_plan  # noqa: E402  (pass 2's plan: scripts/main_job_plan.py)

DEFAULT_BUDGET_TOTAL = 1200.0  # 20 minutes for the whole main job, provisioning and builds included
# of the time left after provisioning: pass 1 must cover every case (a launch each, ~0.4 s beyond
# its budget) but its reference cases get a quarter share; the rest goes to the undecided claims
PASS1_SHARE = 0.4
REPORT_RESERVE = 30.0          # seconds kept for the report
# a pass-2 round needs at least this much time left: one run of a check's two cases at the first
# round's floor (4 s a case) and the run's own cost. It was 60 s: a round that left 49 s ended the job
# early with two cheap checks still waiting for it
MIN_PASS2 = 15.0
# rounds end when the time does; this bounds only a job whose runs take none. It was 4, and jobs
# ended a minute early with checks that needed 15-25 s a case still waiting
MAX_ROUNDS = 12
# a round that is not the last spends at most this share of the time left: the rest is planned again
# from the round's new measurements. Round 1 used to plan nearly all of it (577 of 664 s), a third on
# hand-off checks (PingPong, loopback) that no round decided, and no second round was left for the
# five checks one more measurement would have decided (intervals within a few % of deciding)
ROUND_SHARE = 0.5
# what a `perflab run` takes beyond its --budget-total (Python's start, loading the benchmarks,
# writing the results: 2-4 s between pass-2 runs, 14 runs a round; a run that overran its total by
# 8 s) until pass 2's own runs say
RUN_COST_GUESS = 3.0
INTERRUPTED = 130             # perflab's status after Ctrl-C: the job stops measuring, still reports
PASS1_ARGS = ["--job", "short"]
# a case of the short job beyond its budget: the launch of its worker processes and their warm-up
CASE_COST = 0.4  # the short job gives Java its own 6 s (a JVM process costs 0.3 s)


@dataclass
class Tally:
    judged: int = 0        # claims a comparison of ours stands for, summed over families
    confirmed: int = 0
    contradicted: int = 0
    mixed: int = 0
    inconclusive: int = 0  # not decided (inconclusive or partly)

    @property
    def decided(self) -> int:
        return self.confirmed + self.contradicted + self.mixed

    def text(self) -> str:
        pct = f"{100 * self.decided / self.judged:.0f} %" if self.judged else "—"
        return (f"claims: {self.judged} judged (per family), {self.decided} decided ({pct}): "
                f"{self.confirmed} confirmed, {self.contradicted} contradicted"
                + (f", {self.mixed} mixed" if self.mixed else "") + f"; {self.inconclusive} inconclusive")


def tally(report) -> Tally:
    from perflab.report.families import pairs_of
    from perflab.report.family import summarize
    t = Tally()
    for pair in pairs_of(report).values():
        for _, claim in summarize(report, pair).claims:
            if not claim.deciding:
                continue
            t.judged += 1
            o = claim.overall
            if o in ("confirmed", "contradicted", "mixed"):
                setattr(t, o, getattr(t, o) + 1)
            else:
                t.inconclusive += 1
    return t


def _without_filters(args: list[str]) -> list[str]:
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in ("--filter", "-f"):
            skip = True
        elif not a.startswith(("--filter=", "-f")):
            out.append(a)
    return out


def _perflab(*args: str) -> list[str]:
    return [sys.executable, "-m", "perflab.cli", *args]


def _newest_json(folder: Path) -> Path | None:
    found = sorted(folder.glob("perflab-*.json"))
    return found[-1] if found else None


def count_cases(suite: str, specs: list[str]) -> dict[str, int]:
    """Cases per runtime spec of the corpus (`--full`: every category), loading it once per spec."""
    import tempfile

    from perflab.commands.common import prepare_all
    out = {}
    with tempfile.TemporaryDirectory(prefix="perflab-count-") as work:
        for spec in specs:
            for prep in prepare_all([Path(suite)], spec, 300, Path(work)):
                n = 0
                for b in prep.benchmarks:
                    k = 1
                    for axis in b.params:
                        k *= max(1, len(axis.values))
                    n += k
                out[spec] = n
    return out


def full_estimate(cases: dict[str, int], languages: dict[str, str]) -> float:
    """Seconds pass 1 needs for `cases` (spec → cases) at the short job: each case's budget in its
    language (Java's is longer: a JVM process costs 0.3 s) plus CASE_COST."""
    from perflab.jobs import get_job
    job = get_job(PASS1_ARGS[1])
    return sum(n * (job.budget_for(languages.get(spec, "")) + CASE_COST) for spec, n in cases.items())


def main(argv: list[str] | None = None, run: Callable[[list[str]], int] | None = None,
         clock: Callable[[], float] = time.monotonic, say: Callable[[str], None] | None = None,
         choose=None, count: Callable[[str, list[str]], dict[str, int]] | None = None) -> int:
    say = say or (lambda m: print(m, file=sys.stderr, flush=True))
    run = run or (lambda cmd: subprocess.call(cmd, cwd=str(ROOT)))
    ap = argparse.ArgumentParser(prog="main_job", description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget-total", type=float, default=DEFAULT_BUDGET_TOTAL, metavar="SECONDS",
                    help=f"seconds for the whole job, provisioning and builds included (default "
                         f"{DEFAULT_BUDGET_TOTAL:g}): a target, not a hard stop")
    ap.add_argument("--category", action="append", default=None, help="corpus slice (default: quick)")
    ap.add_argument("--full", action="store_true",
                    help="the whole corpus (every section, the large rows too), with an estimate of its time first")
    ap.add_argument("--families", default=None, help="only these languages, e.g. node,go")
    ap.add_argument("--out", default=None, help="folder (default perflab-results/seeds-<UTC time>)")
    ap.add_argument("--no-provision", action="store_true", help="use only the runtimes installed")
    ap.add_argument("--suite", default=str(ROOT / "suites" / "seeds"), help=argparse.SUPPRESS)
    budget_given = any(a == "--budget-total" or a.startswith("--budget-total=") for a in (argv or sys.argv[1:]))
    args, extra = ap.parse_known_args(argv)
    if args.full and args.category:
        say("error: --full runs every category; give --full or --category, not both")
        return 2
    if not args.budget_total > 0:
        say(f"error: --budget-total {args.budget_total:g}: give a number of seconds above 0")
        return 2
    started = clock()
    left = lambda: args.budget_total - (clock() - started)  # noqa: E731
    out = Path(args.out or ROOT / "perflab-results" / f"seeds-{dt.datetime.now(dt.timezone.utc):%Y%m%d-%H%M%S}")
    categories = [] if args.full else [x for c in (args.category or ["quick"]) for x in ("--category", c)]
    languages = [x.strip() for x in args.families.split(",")] if args.families else None

    # 1. runtimes
    if choose is None:
        import main_job_runtimes
        choose = main_job_runtimes.pick
    say("choosing runtimes: each family's oldest and newest version"
        + ("" if args.no_provision else " (provisioning the missing ones)"))
    choices = choose(provision=not args.no_provision, say=say, languages=languages)
    for c in choices:
        say("  " + c.describe())
    specs = [s for c in choices for s in c.specs]
    not_compared = [c.describe() for c in choices if not c.paired]
    if not specs:
        say("error: no runtime to run (see above)")
        return 2
    if args.full:  # count before measuring, and say how long it will take
        newest = {c.language: c.specs[-1] for c in choices}
        counted = (count or count_cases)(args.suite, list(newest.values()))
        per_spec = {s: counted.get(newest[c.language], 0) for c in choices for s in c.specs}
        pass1 = full_estimate(per_spec, {s: c.language for c in choices for s in c.specs})
        if not budget_given:  # pass 1 gets its estimate, pass 2 its usual share beside it
            args.budget_total = (clock() - started) + pass1 / PASS1_SHARE + REPORT_RESERVE
        say(f"--full: {sum(per_spec.values())} cases on {len(per_spec)} runtimes (counted on each family's newest: "
            + ", ".join(f"{lang} {counted.get(spec, 0)}" for lang, spec in newest.items())
            + f"); pass 1 needs about {pass1 / 60:.0f} min, the whole job about "
            f"{args.budget_total / 60:.0f} min (--budget-total {args.budget_total:.0f} s)"
            + ("; pass 1 will not cover every case at the short job's budget in that total"
               if pass1 > (left() - REPORT_RESERVE) * PASS1_SHARE + 1 else ""))

    # 2. pass 1
    pass1_total = max(1.0, (left() - REPORT_RESERVE) * PASS1_SHARE)
    say(f"pass 1: the short job over every case, {pass1_total:.0f} s of measurement at most "
        f"({left():.0f} s left of {args.budget_total:g} s)")
    rc = run(_perflab("run", args.suite, *categories, "--runtimes", ",".join(specs), *PASS1_ARGS,
                      "--budget-total", f"{pass1_total:.0f}", "--exporters", "json,md,csv",
                      "--label", "main job pass 1", "--out", str(out / "pass1"), *extra))
    first = _newest_json(out / "pass1")
    if rc == 2 or first is None:
        say(f"error: pass 1 produced no results (status {rc})")
        return rc or 1
    files = [first]
    interrupted = rc == INTERRUPTED

    # 3. pass 2: the undecided claims get the time left
    from perflab.report.results_view import load_report
    run_costs: list[float] = []
    tries: dict[tuple, int] = {}  # (family, check) → times pass 2 measured it

    def planned(todo, time_left: float, round_: int, last: bool):
        """The round's runs, each run's own cost (RUN_COST_GUESS, then the mean seen: what the clock
        pays, a run that ended early included) charged before the time left is shared: fourteen runs
        a round cost the job 40 s beyond their budgets."""
        cost = max(0.0, statistics.fmean(run_costs)) if run_costs else RUN_COST_GUESS
        for r in todo:
            for c in r.items:
                c.tries = tries.get((r.language, c.key), 0)
        first = pass2_plan(todo, time_left, last)
        return pass2_plan(todo, max(1.0, time_left - cost * len(first)), last) if first else first

    for round_ in range(1, MAX_ROUNDS + 1):
        if interrupted:
            say("interrupted: no pass 2; the report covers what was measured")
            break
        todo = inconclusive(load_report([str(f) for f in files], "main job"))
        time_left = left() - REPORT_RESERVE
        if not todo:
            say("pass 2: every claim that can be judged is decided")
            break
        if time_left < MIN_PASS2:
            say(f"pass 2: {sum(r.checks for r in todo)} claim comparison(s) still inconclusive, but only "
                f"{max(0.0, time_left):.0f} s left")
            break
        pass2_extra = _without_filters(extra)  # pass 2 names its own benchmarks
        plan = planned(todo, time_left, round_, last=True)
        if round_ < MAX_ROUNDS and time_left * (1 - ROUND_SHARE) >= MIN_PASS2:
            plan = planned(todo, time_left * ROUND_SHARE, round_, last=False)  # a round can follow
        waiting = sum(r.checks for r in todo) - sum(r.checks for r, _, _ in plan)
        if waiting:
            say(f"pass 2.{round_}: {waiting} claim comparison(s) that need more time wait for the next round")
        runs_of = {r.language: sum(x.language == r.language for x, _, _ in plan) for r, _, _ in plan}
        nth: dict[str, int] = {}
        for r, seconds, per_case in plan:
            say(f"pass 2.{round_}: {r.checks} inconclusive claim comparison(s) on {' → '.join(r.runtimes)}: "
                f"{len(r.benchmarks)} benchmark(s), {per_case:.0f} s a case, {seconds:.0f} s in all")
            nth[r.language] = nth.get(r.language, 0) + 1
            folder = out / (f"pass2-{round_}-{r.language}"
                            + (f"-{nth[r.language]}" if runs_of[r.language] > 1 else ""))
            began = clock()
            rc = run(_perflab("run", args.suite, *categories, "--runtimes", ",".join(r.runtimes),
                              *r.filters(), "--job", "default", "--budget", f"{per_case:.1f}",
                              "--budget-total", f"{seconds:.0f}", "--exporters", "json",
                              "--label", f"main job pass 2.{round_}", "--out", str(folder), *pass2_extra))
            run_costs.append(clock() - began - round(seconds))
            for c in r.items:
                tries[(r.language, c.key)] = tries.get((r.language, c.key), 0) + 1
            got = _newest_json(folder)
            if got is not None:
                files.append(got)
            elif rc == 2:
                return rc
            if rc == INTERRUPTED:
                interrupted = True
                break

    # 4. the report
    title = "perflab seed corpus — " + ("the whole corpus" if args.full
                                          else ", ".join(args.category or ["quick"]) + " slice")
    nc = [x for n in not_compared for x in ("--not-compared", n)]
    rc_report = run(_perflab("report", *map(str, files), "--title", title, "--out", str(out / "report"), *nc))
    t = tally(load_report([str(f) for f in files], title))
    wall = clock() - started
    say(f"{t.text()}; wall time {wall:.0f} s (budget {args.budget_total:g} s)")
    summary = {"judged": t.judged, "decided": t.decided, "confirmed": t.confirmed,
               "contradicted": t.contradicted, "mixed": t.mixed, "inconclusive": t.inconclusive,
               "wall_s": round(wall, 1), "budget_total_s": args.budget_total,
               "runtimes": specs, "not_compared": not_compared, "results": [str(f) for f in files],
               "report": str(out / "report")}
    out.mkdir(parents=True, exist_ok=True)
    (out / "main-job.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    say(f"report: {out / 'report'}")
    return INTERRUPTED if interrupted else rc_report or (1 if rc else 0)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # between runs: each `perflab run` already saved what it measured
        print("interrupted", file=sys.stderr)
        sys.exit(INTERRUPTED)
