"""Pass 2 of the main job (scripts/main_job.py): which claim comparisons are still inconclusive,
how much measuring each needs to decide, and how one round's time is shared among them."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

PASS2_CASE_BUDGET = (4.0, 60.0)  # seconds per case in pass 2: at least (round 1, doubling), at most
NEED_MARGIN = 0.8  # a check's time is planned for an interval a fifth inside the width that decides
NEED_MAX_FACTOR = 1e4  # need_s looks no further than this multiple of the time a case took
# A ratio measured without an interval (too few processes: a JVM or Node process a side within the
# short budget) gets this multiple of its time: about that many times the processes, from two a
# side to eight (the 99.9 % t falls from 637 to 5.4). Not the cap: ranked last, such a check never
# got a round's time, although a ×2 ratio decides with a handful of processes.
NO_INTERVAL_FACTOR = 4.0
# An interval on fewer processes than this a side is planned like one without: its spread comes
# from two or three processes (t = 637 or 31.6), so the time it "needs" was the cap, and such
# checks (Go's and Java's PingPong, Java's ConnectAcceptAsync: [5e-38, 2e37]) never got a round.
MIN_PLANNING_UNITS = 4


@dataclass
class Check:
    """One inconclusive deciding comparison: its two cases' benchmarks and what they need."""
    benchmarks: list[str]
    need_s: float | None  # measuring seconds a case needs to decide (None: not known)
    cases: int = 2        # cases a run filtered on its benchmarks measures (parameters: more)
    runtimes: list[str] = field(default_factory=list)  # its sides' (one for a methods/param check)
    tries: int = 0        # times pass 2 has measured it already (its floor doubles with each)

    @property
    def key(self) -> tuple:
        return tuple(self.benchmarks), tuple(self.runtimes)


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
    df_k: k times the processes, whole ones, as the new run measures afresh;
    a margin, as a new measurement's centre moves too). A ratio without an interval, or with one on
    fewer than MIN_PLANNING_UNITS processes a side: NO_INTERVAL_FACTOR times the time taken. None
    when not known (no ratio, a centre on an edge, no time recorded)."""
    if ratio is None or not spent_s or spent_s <= 0:
        return None
    if (not ratio.has_interval or not (ratio.low > 0 and math.isfinite(ratio.high))
            or (df is not None and df < MIN_PLANNING_UNITS - 1)):
        return spent_s * NO_INTERVAL_FACTOR if ratio.value else None
    from perflab.judge.interval import t_factor
    from perflab.report.results_view import CONFIDENCE

    def _quantile(df):
        return t_factor(df, CONFIDENCE)
    centre = (math.log(ratio.low) + math.log(ratio.high)) / 2
    half = (math.log(ratio.high) - math.log(ratio.low)) / 2
    target = room(centre, expect) * NEED_MARGIN
    if target <= 1e-9:  # a centre on an edge (rounding leaves it a hair of room)
        return None
    if df is None:
        return spent_s * (half / target) ** 2
    se = half / _quantile(df)
    k = 1.0
    # a new run starts afresh: k times the time buys about k times the processes, whole ones
    while k < NEED_MAX_FACTOR and _quantile(max(1, math.floor((df + 1) * k) - 1)) * se / math.sqrt(k) > target:
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
            if claim.expect not in ("faster", "slower", "same"):
                continue  # no measurement decides a claim that says neither (claims.py verdict)
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


def pass2_plan(todo: list[Remeasure], time_left: float,
               last: bool = True) -> list[tuple[Remeasure, float, float]]:
    """(what, seconds for that run, budget per case): the `perflab run`s of one round of pass 2.

    1. Each check's cases get the time it needs (`need_s`), at least its floor and at most the cap;
       not known: the cap. The floor doubles each time pass 2 measured the check (`tries`): what
       its last measurement did not decide needs more. It is the check's own, not the round's: a
       round-wide floor (32 s a case by round 4) let a late round afford one check while ten that
       needed 15-25 s a case, never measured in pass 2, waited.
    2. The checks that need least come first, as many as fit in the time left (at least one, with
       the time left if it needs more): a check that needs a minute a case must not starve ten
       that need five seconds.
    3. Unless no round can follow (`last`), a round spends only what its checks need, and what is
       left pays for the next round, on what is then still inconclusive. The last round spreads
       all the time left over its checks (each still at most the cap).
    A family's checks are measured in one run per budget tier (the first floor times a power of two,
    up to the cap; a check gets the tier at or above its need), so that a check needing 4 s a case is
    not given the minute its family's slowest one needs."""
    lo, hi = PASS2_CASE_BUDGET
    ranked = sorted(((min(hi, max(floor_of(c), c.need_s if c.need_s is not None else hi)), i, c)
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
        tiers.setdefault((i, _tier(need, lo, hi)), []).append((need, c))
    # a run's cases get its largest need; its total, what its checks need (perflab's --budget-total
    # then holds the run to it)
    return [(todo[i].only([c for _, c in group]), sum(n * c.cases for n, c in group), max(n for n, _ in group))
            for (i, _), group in sorted(tiers.items(), key=lambda x: x[0])]


def floor_of(check: Check) -> float:
    """The least a check's case gets: PASS2_CASE_BUDGET's first, doubled for each time before."""
    lo, hi = PASS2_CASE_BUDGET
    return min(hi, lo * 2 ** check.tries)


def _tier(need: float, floor: float, cap: float) -> float:
    """The smallest of floor, 2·floor, 4·floor, … (and the cap) at or above `need`."""
    budget = floor
    while budget < need and budget < cap:
        budget *= 2
    return min(budget, cap)
