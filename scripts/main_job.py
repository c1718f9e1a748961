"""perflab's main job (`./run.sh`): the seed corpus on every language family's oldest and newest
runtime, side by side, within ONE total budget, and a report per family.

1. Runtimes: scripts/main_job_runtimes.py (provisions Node and Go versions that are missing).
2. Pass 1: the short job over every case of the slice (`--category quick`), with PASS1_SHARE of the
   time left (`perflab run --budget-total`).
3. Pass 2, while time is left: the comparisons that stand for a seed claim and are still
   inconclusive (their interval straddles the claim's threshold) are measured again, family by
   family, with the default job (±2 %) and a larger budget per case — the time goes where the
   answer is not known yet, not evenly to every case. Up to MAX_ROUNDS rounds. The report merges
   the result files; a case measured again replaces its pass-1 result (the later file wins).
4. The report (index + a page per family) and, on the console, one line per family; the claims'
   tally (and the wall time) goes to `<out>/main-job.json` too (bench/main_job.py reads it).

    python scripts/main_job.py [--budget-total SECONDS] [--category quick] [--families node,go]
                               [--out DIR] [--no-provision] [extra `perflab run` arguments…]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

DEFAULT_BUDGET_TOTAL = 1200.0  # 20 minutes for the whole main job, provisioning and builds included
# of the time left after provisioning: pass 1 must cover every case (a launch each, ~0.4 s beyond
# its budget) but its reference cases get a quarter share; the rest goes to the undecided claims
PASS1_SHARE = 0.4
REPORT_RESERVE = 30.0          # seconds kept for the report
MIN_PASS2 = 60.0               # a pass-2 round needs at least this much time left
MAX_ROUNDS = 4
PASS2_CASE_BUDGET = (4.0, 60.0)  # seconds per case in pass 2: at least (round 1, doubling), at most
NEED_MARGIN = 0.8  # a check's time is planned for an interval a fifth inside the width that decides
NEED_MAX_FACTOR = 1e4  # need_s looks no further than this multiple of the time a case took
INTERRUPTED = 130             # perflab's status after Ctrl-C: the job stops measuring, still reports
PASS1_ARGS = ["--job", "short", "--budget", "java=6"]  # a JVM process costs 0.3 s: 6 s buys ~12 a side


@dataclass
class Check:
    """One inconclusive deciding comparison: its two cases' benchmarks and what they need."""
    benchmarks: list[str]
    need_s: float | None  # measuring seconds a case needs to decide (None: not known)
    cases: int = 2        # cases a run filtered on its benchmarks measures (parameters: more)
    runtimes: list[str] = field(default_factory=list)  # its sides' (one for a methods/param check)


@dataclass
class Remeasure:
    """One family's comparisons to measure again: the runtimes and benchmarks they involve."""
    language: str
    runtimes: list[str] = field(default_factory=list)
    benchmarks: list[str] = field(default_factory=list)   # benchmark ids
    checks: int = 0                                       # inconclusive deciding checks
    items: list[Check] = field(default_factory=list)      # one per check

    def filters(self) -> list[str]:
        out = []
        for b in self.benchmarks:
            out += ["--filter", _glob_escape(b)]
        return out

    def only(self, items: list[Check]) -> "Remeasure":
        """The same family restricted to some of its checks: their benchmarks on their runtimes
        (a check without runtimes: the family's)."""
        benchmarks = [b for b in self.benchmarks if any(b in c.benchmarks for c in items)]
        runtimes = [rt for rt in self.runtimes if any(rt in (c.runtimes or self.runtimes) for c in items)]
        return Remeasure(self.language, runtimes, benchmarks, len(items), list(items))


def _glob_escape(name: str) -> str:
    """A benchmark id as a `--filter` glob that matches only itself."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def room(centre: float, expect: str | None) -> float:
    """The widest log half-width at which an interval around `centre` (a log ratio) decides a claim
    of `expect` (report/claims.py `verdict`, solved for the width); 0 when no width does (the
    centre sits on an edge)."""
    from perflab.report.results_view import SAME_BAND
    low, high = math.log(SAME_BAND[0]), math.log(SAME_BAND[1])
    if expect == "faster":     # confirmed: hi < 1; contradicted: lo >= 0.95
        options = [-centre, centre - low]
    elif expect == "slower":   # confirmed: lo > 1; contradicted: hi <= 1.05
        options = [centre, high - centre]
    else:                      # same: inside the band, or entirely outside it
        options = [min(centre - low, high - centre), low - centre, centre - high]
    return max(0.0, *options)


def need_s(ratio, expect: str | None, spent_s: float | None, df: float | None = None) -> float | None:
    """Measuring seconds a case of a comparison needs for its interval to decide, from its last
    measurement (`spent_s` a case, the interval's t on `df` degrees of freedom, None: normal).
    More time buys more processes (units) and iterations: the standard error falls as
    1/sqrt(time), and the degrees of freedom grow with the processes — with two processes a side
    (df 1) the 99.9 % t is 637, with four 12.9 — so the plan is the smallest multiple k of the
    time taken at which t(df_k)·se/sqrt(k) fits in NEED_MARGIN of the room that decides (`room`;
    a margin, as a new measurement's centre moves too). None when not known (no interval, a centre
    on an edge, no time recorded)."""
    if ratio is None or not ratio.has_interval or not spent_s or spent_s <= 0:
        return None
    if not (ratio.low > 0 and math.isfinite(ratio.high)):
        return None
    from perflab.report.results_view import _quantile
    centre = (math.log(ratio.low) + math.log(ratio.high)) / 2
    half = (math.log(ratio.high) - math.log(ratio.low)) / 2
    target = room(centre, expect) * NEED_MARGIN
    if target <= 1e-9:  # a centre on an edge (rounding leaves it a hair of room)
        return None
    if df is None:
        return spent_s * (half / target) ** 2
    se = half / _quantile(df)
    k = 1.0
    while k < NEED_MAX_FACTOR and _quantile((df + 1) * k - 1) * se / math.sqrt(k) > target:
        k *= 1.1
    return spent_s * k


def degrees_of_freedom(after, before) -> float | None:
    """The degrees of freedom of after/before's interval: launch pairs − 1 for the run's own paired
    ratio, else the fewer of the two estimates' (as report/results_view computes them)."""
    for field, base_field in (("ratio", "baseline"), ("runtime_ratio", "runtime_baseline")):
        r = after.raw.get(field)
        if (isinstance(r, dict) and after.doc == before.doc
                and after.raw.get(base_field) == before.raw.get("key")):
            if r.get("paired") and (r.get("units") or 0) >= 2:
                return float(r["units"] - 1)
            break
    dfs = [after.df, before.df]
    return min(dfs) if all(dfs) else None


def inconclusive(report) -> list[Remeasure]:
    """Per family, the deciding claim checks whose verdict is still inconclusive (both sides measured:
    a failed case would fail again), with the time each needs (`need_s`)."""
    from perflab.report.families import pairs_of
    from perflab.report.family import summarize
    out = []
    for lang, pair in pairs_of(report).items():
        r = Remeasure(lang)
        for _, claim in summarize(report, pair).claims:
            for ch in claim.deciding:
                if ch.verdict != "inconclusive" or not (ch.before.ok and ch.after.ok):
                    continue
                r.checks += 1
                spent = [c.raw.get("wall_seconds") for c in (ch.before, ch.after)]
                spent_s = max((x for x in spent if isinstance(x, (int, float))), default=None)
                r.items.append(Check(sorted({ch.before.bench_id, ch.after.bench_id}),
                                     need_s(ch.ratio, claim.expect, spent_s,
                                            degrees_of_freedom(ch.after, ch.before)),
                                     runtimes=sorted({ch.before.runtime, ch.after.runtime},
                                                     key=report.runtimes.index)))
                for c in (ch.before, ch.after):
                    if c.runtime not in r.runtimes:
                        r.runtimes.append(c.runtime)
                    if c.bench_id not in r.benchmarks:
                        r.benchmarks.append(c.bench_id)
        if r.checks:
            # runtimes in the report's order: the older one stays the baseline of the pass-2 run
            r.runtimes.sort(key=report.runtimes.index)
            for item in r.items:  # what a run filtered on its benchmarks measures: every parameter
                # case of them on its runtimes
                item.cases = max(2, sum(c.bench_id in item.benchmarks and c.runtime in item.runtimes
                                        for c in report.cases))
            out.append(r)
    return out


def pass2_plan(todo: list[Remeasure], time_left: float, round_: int,
               last: bool = True) -> list[tuple[Remeasure, float, float]]:
    """(what, seconds for that run, budget per case): the `perflab run`s of one round of pass 2.

    1. Each check's cases get the time it needs (`need_s`), at least the round's floor (doubling
       each round: what was not decided needs more) and at most the cap; not known: the cap.
    2. The checks that need least come first, as many as fit in the time left (at least one, with
       the time left if it needs more): a check that needs a minute a case must not starve ten
       that need five seconds.
    3. Unless no round can follow (`last`), a round spends only what its checks need, and what is
       left pays for the next round, on what is then still inconclusive. The last round spreads
       all the time left over its checks (each still at most the cap).
    A family's checks are measured in one run per budget tier (the floor times a power of two, up
    to the cap; a check gets the tier at or above its need), so that a check needing 4 s a case is
    not given the minute its family's slowest one needs."""
    lo, hi = PASS2_CASE_BUDGET
    floor = min(hi, lo * 2 ** (round_ - 1))
    ranked = sorted(((min(hi, max(floor, c.need_s if c.need_s is not None else hi)), i, c)
                     for i, r in enumerate(todo) for c in r.items), key=lambda x: (x[0], x[1]))
    chosen, spent = [], 0.0
    for need, i, c in ranked:
        if spent + need * c.cases > time_left:
            if chosen:
                break  # ranked by need: what follows costs more
            need = time_left / c.cases  # the one check a round always measures: what time there is
        chosen.append((need, i, c))
        spent += need * c.cases
    stretch = max(1.0, time_left / spent) if last and spent > 0 else 1.0
    tiers: dict[tuple[int, float], list[tuple[float, Check]]] = {}
    for need, i, c in chosen:
        need = min(hi, need * stretch)
        tiers.setdefault((i, _tier(need, floor, hi)), []).append((need, c))
    # a run's cases get its largest need; its total, what its checks need (perflab's --budget-total
    # then holds the run to it)
    return [(todo[i].only([c for _, c in group]), sum(n * c.cases for n, c in group), max(n for n, _ in group))
            for (i, _), group in sorted(tiers.items(), key=lambda x: x[0])]


def _tier(need: float, floor: float, cap: float) -> float:
    """The smallest of floor, 2·floor, 4·floor, … (and the cap) at or above `need`."""
    budget = floor
    while budget < need and budget < cap:
        budget *= 2
    return min(budget, cap)


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


def main(argv: list[str] | None = None, run: Callable[[list[str]], int] | None = None,
         clock: Callable[[], float] = time.monotonic, say: Callable[[str], None] | None = None,
         choose=None) -> int:
    say = say or (lambda m: print(m, file=sys.stderr, flush=True))
    run = run or (lambda cmd: subprocess.call(cmd, cwd=str(ROOT)))
    ap = argparse.ArgumentParser(prog="main_job", description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget-total", type=float, default=DEFAULT_BUDGET_TOTAL, metavar="SECONDS",
                    help=f"seconds for the whole job, provisioning and builds included (default "
                         f"{DEFAULT_BUDGET_TOTAL:g}): a target, not a hard stop")
    ap.add_argument("--category", action="append", default=None, help="corpus slice (default: quick)")
    ap.add_argument("--families", default=None, help="only these languages, e.g. node,go")
    ap.add_argument("--out", default=None, help="folder (default perflab-results/seeds-<UTC time>)")
    ap.add_argument("--no-provision", action="store_true", help="use only the runtimes installed")
    ap.add_argument("--suite", default=str(ROOT / "suites" / "seeds"), help=argparse.SUPPRESS)
    args, extra = ap.parse_known_args(argv)
    if not args.budget_total > 0:
        say(f"error: --budget-total {args.budget_total:g}: give a number of seconds above 0")
        return 2
    started = clock()
    left = lambda: args.budget_total - (clock() - started)  # noqa: E731
    out = Path(args.out or ROOT / "perflab-results" / f"seeds-{dt.datetime.now(dt.timezone.utc):%Y%m%d-%H%M%S}")
    categories = [x for c in (args.category or ["quick"]) for x in ("--category", c)]
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
        plan = pass2_plan(todo, time_left, round_, last=round_ == MAX_ROUNDS)
        if time_left - sum(seconds for _, seconds, _ in plan) < MIN_PASS2:
            plan = pass2_plan(todo, time_left, round_, last=True)  # no round could follow: spend it all
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
            rc = run(_perflab("run", args.suite, *categories, "--runtimes", ",".join(r.runtimes),
                              *r.filters(), "--job", "default", "--budget", f"{per_case:.1f}",
                              "--budget-total", f"{seconds:.0f}", "--exporters", "json",
                              "--label", f"main job pass 2.{round_}", "--out", str(folder), *pass2_extra))
            got = _newest_json(folder)
            if got is not None:
                files.append(got)
            elif rc == 2:
                return rc
            if rc == INTERRUPTED:
                interrupted = True
                break

    # 4. the report
    title = "perflab seed corpus — " + ", ".join(args.category or ["quick"]) + " slice"
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
