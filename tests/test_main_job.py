"""The main job's driver (scripts/main_job.py) with a fake `perflab run`, a fake clock and fake
runtime choices: pass 1 over everything, then the time left to the claims still inconclusive."""
import importlib.util
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from perflab.engine.total_budget import budget_scale
from perflab.report.results_view import load_report
from perflab.policy import DEFAULT
from test_seeds_report import HTTP, PREALLOC, case, doc

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def load(name):
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _arg(cmd, flag):
    return cmd[cmd.index(flag) + 1] if flag in cmd else None


class FakePerflab:
    """`perflab run` writes a results file: HttpDownload (a claim: versions, faster) and a plain case
    on each runtime; the claim's interval is wide in pass 1 (inconclusive) and narrow when measured
    with the default job. Each call costs `cost` seconds of the fake clock."""

    def __init__(self, clock, cost=100.0, narrow_in_pass2=True, status=0):
        self.clock, self.cost, self.narrow, self.status = clock, cost, narrow_in_pass2, status
        self.calls = []

    def __call__(self, cmd):
        self.calls.append(cmd)
        self.clock.now += self.cost
        if cmd[3] != "run":
            return 0
        runtimes = _arg(cmd, "--runtimes").split(",")
        precise = _arg(cmd, "--job") == "default" and self.narrow
        se = 0.002 if precise else 0.3
        cs = []
        for rt, mean in zip(runtimes, (10e6, 8e6)):
            cs.append(case("HttpDownload", rt, mean, se=mean * se, meta=HTTP))
            if "--filter" not in cmd:
                cs.append(case("plain", rt, 100.0))
        out = Path(_arg(cmd, "--out"))
        out.mkdir(parents=True, exist_ok=True)
        (out / f"perflab-2026010{len(self.calls)}.json").write_text(json.dumps(doc(cs, runtimes=runtimes)))
        return self.status


def choices(mj_rt):
    return lambda provision, say, languages: [
        mj_rt.Choice("node", ["node18", "node24"], "versions"),
        mj_rt.Choice("java", ["jdk17"], "none", reason="jdk25 is not installed; only jdk17 is installed")]


def drive(tmp_path, budget, **fake):
    mj_rt, mj = load("main_job_runtimes"), load("main_job")
    clock = SimpleNamespace(now=0.0)
    perflab = FakePerflab(clock, **fake)
    said = []
    rc = mj.main(["--budget-total", str(budget), "--out", str(tmp_path / "out")], run=perflab,
                 clock=lambda: clock.now, say=said.append, choose=choices(mj_rt))
    return rc, perflab.calls, said, json.loads((tmp_path / "out" / "main-job.json").read_text())


def test_pass2_spends_the_time_left_on_the_inconclusive_claim_only(tmp_path):
    rc, calls, said, summary = drive(tmp_path, 1200)
    assert rc == 0
    run1, run2, report = calls
    assert _arg(run1, "--runtimes") == "node18,node24,jdk17"  # a lone runtime still gets its tables
    assert _arg(run1, "--budget-total") == str(round((1200 - 30) * sys.modules["main_job"].PASS1_SHARE)) and _arg(run1, "--job") == "short"
    # pass 2: only the claim's comparison, on the family's pair, with the default job
    assert _arg(run2, "--runtimes") == "node18,node24" and _arg(run2, "--job") == "default"
    assert run2[run2.index("--filter") + 1] == "bench_x.HttpDownload" and run2.count("--filter") == 1
    assert float(_arg(run2, "--budget")) == 60.0  # the per-case cap: 1 check, ~1000 s left
    # the report merges both passes, later file last; the family that could not be paired is named
    assert report[3] == "report" and report[4].endswith("pass1/perflab-20260101.json")
    assert "pass2-1-node" in report[5]
    assert "JDK: not compared — jdk25 is not installed; only jdk17 is installed" in report
    assert summary["judged"] == 1 and summary["confirmed"] == 1 and summary["inconclusive"] == 0
    assert any("every claim that can be judged is decided" in s for s in said)
    assert any(s.startswith("claims: 1 judged (per family), 1 decided (100 %)") for s in said)


def test_no_pass2_without_time_left_and_rounds_stop_when_nothing_changes(tmp_path):
    rc, calls, said, summary = drive(tmp_path, 140)   # pass 1 costs 100 s of the fake clock: 10 s left
    assert [c[3] for c in calls] == ["run", "report"]
    assert any("still inconclusive, but only" in s for s in said)
    assert summary["inconclusive"] == 1 and summary["decided"] == 0
    rc, calls, said, summary = drive(tmp_path / "b", 5000, cost=10.0, narrow_in_pass2=False)
    rounds = sys.modules["main_job"].MAX_ROUNDS
    assert [c[3] for c in calls] == ["run"] * (1 + rounds) + ["report"]  # pass 1 and MAX_ROUNDS
    budgets = [float(_arg(c, "--budget")) for c in calls[1:1 + rounds]]
    assert budgets == sorted(budgets)  # each round gives a case at least as much as the last
    assert summary["inconclusive"] == 1


def _ratio(low, high):
    from perflab.report.results_view import Ratio
    return Ratio((low * high) ** 0.5, low, high)


def test_need_is_the_time_taken_times_how_much_too_wide_the_interval_is_squared():
    """A claim of 'faster' measured 1.00 [0.92, 1.09] in 10 s: it decides (contradicted) once the
    interval's low end reaches 0.95, a log half-width of 0.051 (x NEED_MARGIN), from 0.085 now."""
    mj = load("main_job_plan")
    import math
    r = _ratio(0.92, 1.09)
    centre = math.log(r.value)
    assert mj.room(centre, "faster") == pytest.approx(centre - math.log(0.95))
    half = math.log(1.09 / 0.92) / 2
    expected = 10 * (half / (mj.NEED_MARGIN * (centre - math.log(0.95)))) ** 2
    assert mj.need_s(r, "faster", 10.0) == pytest.approx(expected)
    assert 30 < expected < 60
    # with its degrees of freedom: the fewer processes measured, the more a few more narrow the
    # interval (t = 637 on df 1, 12.9 on 3), so the less time it needs; many processes: the square
    needs = [mj.need_s(r, "faster", 10.0, df=df) for df in (3, 10, 200)]
    assert needs == sorted(needs) and needs[0] < 0.5 * expected
    assert needs[-1] == pytest.approx(expected, rel=0.15)
    # an interval on two or three processes a side (df 1 or 2) is planned as if it had none: more
    # processes first — its t (637, 31.6) made every such check need the cap, and it was never measured
    for df in (1, 2):
        assert mj.need_s(_ratio(1e-38, 1e37), "faster", 10.0, df=df) == pytest.approx(10 * mj.NO_INTERVAL_FACTOR)
    # the nearer decision counts: 0.90 [0.85, 0.95] needs less than 1.00 [0.95, 1.05]
    assert mj.need_s(_ratio(0.85, 0.95), "faster", 10) < mj.need_s(_ratio(0.95, 1.05), "faster", 10)
    # 'slower' is the mirror image of 'faster' (up to 1.05), 'same' needs the interval inside the band
    assert mj.room(centre, "slower") == pytest.approx(math.log(1.05) - centre)
    assert mj.room(-0.2, "slower") == pytest.approx(math.log(1.05) + 0.2)
    assert mj.room(0.0, "same") == pytest.approx(math.log(1.05))
    # a ratio without an interval (a process or two a side): a few times the time, for a few times
    # the processes — not "unknown", which ranked it last and it never got a round's time
    from perflab.report.results_view import Ratio
    assert mj.need_s(Ratio(2.16, None, None), "faster", 10) == pytest.approx(10 * mj.NO_INTERVAL_FACTOR)
    assert mj.need_s(Ratio(1.1, 0.0, float("inf")), "faster", 10) == pytest.approx(10 * mj.NO_INTERVAL_FACTOR)
    # not known: no ratio, a centre on an edge (nothing narrower decides it), no time recorded
    assert mj.need_s(None, "faster", 10) is None
    assert mj.need_s(_ratio(0.95 / 1.1, 0.95 * 1.1), "same", 10) is None
    assert mj.need_s(_ratio(0.92, 1.09), "faster", None) is None


def test_a_check_counts_every_case_its_run_measures_and_only_its_own_runtimes(tmp_path):
    """A parameter claim is judged on the newest runtime: its run measures the benchmark's
    parameter cases there (a run's cost counts them all), not on the family's older runtime."""
    mj = load("main_job_plan")
    cs = [case("PreallocationSize", rt, mean, params={"specifyPreallocationSize": flag},
               meta=PREALLOC, se=mean * 0.3)
          for rt in ("python3.8", "python3.13") for flag, mean in (("False", 10e6), ("True", 9e6))]
    p = tmp_path / "r.json"
    p.write_text(json.dumps(doc(cs, runtimes=["python3.8", "python3.13"])))
    [r] = mj.inconclusive(load_report([str(p)], "t"))
    [item] = r.items
    assert r.runtimes == item.runtimes == ["python3.13"] and item.cases == 2
    cs += [case("HttpDownload", "python3.8", 10e6, meta=HTTP, se=3e6),
           case("HttpDownload", "python3.13", 8e6, meta=HTTP, se=3e6)]
    p.write_text(json.dumps(doc(cs, runtimes=["python3.8", "python3.13"])))
    [r] = mj.inconclusive(load_report([str(p)], "t"))
    assert r.runtimes == ["python3.8", "python3.13"] and r.checks == 2
    alone = r.only([c for c in r.items if "bench_x.PreallocationSize" in c.benchmarks])
    assert alone.runtimes == ["python3.13"] and alone.benchmarks == ["bench_x.PreallocationSize"]


def test_a_claim_that_says_neither_faster_slower_nor_same_is_not_measured_again(tmp_path):
    mj = load("main_job_plan")
    vague = {"seed": "003", "section": "Networking", "claim": {"text": "HttpDownload changed"}}
    cs = [case("HttpDownload", "node18", 10e6, meta=vague, se=3e6),
          case("HttpDownload", "node24", 8e6, meta=vague, se=3e6)]
    p = tmp_path / "r.json"
    p.write_text(json.dumps(doc(cs, runtimes=["node18", "node24"])))
    report = load_report([str(p)], "t")
    assert load("main_job").tally(report).inconclusive == 1  # judged, and it stays undecided
    assert mj.inconclusive(report) == []


def _todo(mj, *needs):
    return [mj.Remeasure("node", ["node18", "node24"], [f"b{i}"], 1, [mj.Check([f"b{i}"], n)])
            for i, n in enumerate(needs)]


def test_a_round_measures_the_checks_that_need_least_first_and_keeps_the_rest_for_the_next():
    mj = load("main_job_plan")
    lo, hi = mj.PASS2_CASE_BUDGET
    # 150 s: the two cheap checks (2 x 5 s and 2 x 20 s a check) fit, the unknown one (the cap,
    # 2 x 60 s) waits; not the last round, so the round spends only what they need
    plan = mj.pass2_plan(_todo(mj, 20.0, None, 5.0), 150.0, last=False)
    assert [(r.benchmarks, seconds, per_case) for r, seconds, per_case in plan] == [
        (["b0"], 40.0, 20.0), (["b2"], 10.0, 5.0)]
    # measured once in pass 2 already: its floor has doubled (it needed 1 s, its 4 s did not decide)
    [again] = _todo(mj, 1.0)
    again.items[0].tries = 1
    [(r, seconds, per_case)] = mj.pass2_plan([again], 200.0, last=False)
    assert per_case == 2 * lo and seconds == 4 * lo
    # the last round spreads all the time left over what it measures, each case at most the cap
    plan = mj.pass2_plan(_todo(mj, 5.0, 10.0), 90.0, last=True)
    assert [per_case for _, _, per_case in plan] == [15.0, 30.0]
    assert mj.pass2_plan(_todo(mj, 50.0), 1000.0, last=True)[0][2] == hi
    # one family's checks that need 5 s and 50 s a case: a run each, not 50 s for both
    both = mj.Remeasure("node", ["node18", "node24"], ["a", "b"], 2,
                        [mj.Check(["a"], 5.0), mj.Check(["b"], 50.0)])
    plan = mj.pass2_plan([both], 1000.0, last=False)
    assert [(r.benchmarks, per_case) for r, _, per_case in plan] == [(["a"], 5.0), (["b"], 50.0)]
    # however short the time, a round measures one check
    [(r, seconds, per_case)] = mj.pass2_plan(_todo(mj, 30.0, 40.0), 100.0, last=False)
    assert r.benchmarks == ["b0"] and per_case == 30.0
    # …within the time left
    [(r, seconds, per_case)] = mj.pass2_plan(_todo(mj, 50.0, None), 70.0, last=True)
    assert r.benchmarks == ["b0"] and (seconds, per_case) == (70.0, 35.0)


def test_a_check_gets_its_own_floor_so_one_never_measured_in_pass_2_is_not_priced_out():
    """The floor doubles with each time pass 2 measured a check, not with the round: a late round
    that has 100 s measures the three checks that need 15 s a case and were never measured, where a
    round-wide floor (32 s a case in round 4) afforded one."""
    mj = load("main_job_plan")
    todo = _todo(mj, 15.0, 15.0, 15.0, 1.0)
    todo[3].items[0].tries = 3  # measured three times: its floor is 32 s a case
    plan = mj.pass2_plan(todo, 100.0, last=False)
    assert sorted(b for r, _, _ in plan for b in r.benchmarks) == ["b0", "b1", "b2"]
    assert {per_case for _, _, per_case in plan} == {15.0}


def test_rounds_go_on_while_time_is_left_not_for_a_fixed_number(tmp_path):
    """Each round spends what its check needs and re-plans: with time for more than four rounds the
    job does not stop after four (jobs used to end a minute early with checks waiting)."""
    rc, calls, said, summary = drive(tmp_path, 1000, cost=10.0, narrow_in_pass2=False)
    runs = [c for c in calls if c[3] == "run"][1:]
    assert len(runs) > 4
    assert summary["wall_s"] <= 1000


def test_pass2_keeps_time_for_a_second_round_when_the_first_does_not_need_it_all(tmp_path):
    """The claim's pass-1 interval needs ~10 s a case: round 1 gives it that, not all the time left;
    still inconclusive, it gets a second round (a larger floor) from the time round 1 left."""
    mj_rt, mj = load("main_job_runtimes"), load("main_job")
    clock = SimpleNamespace(now=0.0)
    perflab = FakePerflab(clock, cost=10.0, narrow_in_pass2=False)
    plain = perflab.__call__

    def run(cmd):  # pass 1's HttpDownload: 0.80 [0.61, 1.05], measured in 1 s a case
        rc = plain(cmd)
        if cmd[3] == "run":
            f = sorted(Path(_arg(cmd, "--out")).glob("*.json"))[-1]
            d = json.loads(f.read_text())
            for c in d["cases"]:
                c["wall_seconds"] = 1.0
                if _arg(cmd, "--job") == "short":
                    c["estimate"]["se"] = 0.05 * c["estimate"]["mean"]
            f.write_text(json.dumps(d))
        return rc
    said = []
    mj.main(["--budget-total", "2000", "--out", str(tmp_path / "out")], run=run,
            clock=lambda: clock.now, say=said.append, choose=choices(mj_rt))
    runs = [c for c in perflab.calls if c[3] == "run"][1:]
    assert len(runs) >= 2
    first = float(_arg(runs[0], "--budget"))
    assert first < load("main_job_plan").PASS2_CASE_BUDGET[1] and float(_arg(runs[0], "--budget-total")) < 1000
    assert float(_arg(runs[1], "--budget")) >= first


def test_inconclusive_ignores_ports_that_cannot_decide(tmp_path):
    mj = load("main_job_plan")
    meta = {**HTTP, "fidelity": "different: sockets, not HTTP"}
    cs = [case("HttpDownload", "node18", 10e6, se=3e6, meta=meta),
          case("HttpDownload", "node24", 8e6, se=3e6, meta=meta)]
    p = tmp_path / "r.json"
    p.write_text(json.dumps(doc(cs, runtimes=["node18", "node24"])))
    assert mj.inconclusive(load_report([str(p)], "t")) == []
    cs = [case("HttpDownload", "node18", 10e6, se=3e6, meta=HTTP),
          case("HttpDownload", "node24", 8e6, se=3e6, meta=HTTP)]
    p.write_text(json.dumps(doc(cs, runtimes=["node18", "node24"])))
    [r] = mj.inconclusive(load_report([str(p)], "t"))
    assert (r.language, r.runtimes, r.benchmarks, r.checks) == ("node", ["node18", "node24"],
                                                                 ["bench_x.HttpDownload"], 1)


def test_filters_match_exactly_one_benchmark():
    import fnmatch
    mj = load("main_job_plan")
    pat = mj._glob_escape("Seek[1].Read*")
    assert fnmatch.fnmatchcase("seek[1].read*", pat.lower())
    assert not fnmatch.fnmatchcase("seek1.readx", pat.lower())


def _groups(*spec):
    return [[SimpleNamespace(runtime=SimpleNamespace(language=lang))] * n for lang, n in spec]


def test_budget_total_scales_the_remaining_cases_budgets():
    groups = _groups(("python", 2), ("java", 2))      # nominal: 2×2 + 2×6 = 16 s
    assert budget_scale(100.0, groups, 2.0, {"java": 6.0}) == 1.0
    assert budget_scale(8.0, groups, 2.0, {"java": 6.0}) == pytest.approx(0.5)
    assert budget_scale(-5.0, groups, 2.0, {"java": 6.0}) == DEFAULT.budget.min_budget_scale  # overrun: still measured


def test_a_bad_budget_total_is_a_usage_error_naming_the_flag(capsys):
    from perflab.cli import main
    with pytest.raises(SystemExit) as exited:  # refused while parsing, as every numeric flag is
        main(["run", "examples/python", "--budget-total", "0", "--store", "none"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "--budget-total" in err and len(err.strip().splitlines()) == 1


def test_an_interrupted_pass_1_is_reported_without_pass_2(tmp_path):
    rc, calls, said, summary = drive(tmp_path, 1200, status=130)
    assert rc == 130 and [c[3] for c in calls] == ["run", "report"]
    assert summary["inconclusive"] == 1 and any(s.startswith("interrupted: no pass 2") for s in said)


def test_pass2_charges_each_runs_own_cost_so_the_job_ends_within_its_budget(tmp_path):
    """A `perflab run` takes a few seconds beyond its --budget-total (start, loading, writing): the
    first round charges a guess per run, later rounds what the runs took; the job then ends within
    its total (the report's reserve left), where an uncharged plan overran by a run's cost each."""
    mj_rt, mj = load("main_job_runtimes"), load("main_job")
    clock = SimpleNamespace(now=0.0)
    perflab = FakePerflab(clock, cost=0.0, narrow_in_pass2=False)
    plain = perflab.__call__
    budgets = []

    def run(cmd):
        rc = plain(cmd)
        if cmd[3] == "run":
            total = float(_arg(cmd, "--budget-total"))
            budgets.append(total)
            clock.now += total + (5.0 if _arg(cmd, "--job") == "default" else 0.0)
        return rc
    mj.main(["--budget-total", "600", "--out", str(tmp_path / "out")], run=run,
            clock=lambda: clock.now, say=lambda m: None, choose=choices(mj_rt))
    assert len(budgets) >= 3  # pass 1 and at least two rounds: the second knows the cost
    # the first round's last run: the time left less the guess; every run rounds to a second
    assert clock.now <= 600 - mj.REPORT_RESERVE + len(budgets) * 0.5


def test_a_round_that_another_can_follow_spends_at_most_its_share_of_the_time_left(tmp_path):
    """Round 1 used to plan nearly all the time left on its checks' needs: a round that another
    round can follow now spends at most ROUND_SHARE of it, and the next re-plans from fresher data."""
    rc, calls, said, summary = drive(tmp_path, 250, cost=10.0, narrow_in_pass2=False)
    mj = sys.modules["main_job"]
    runs = [c for c in calls if c[3] == "run"][1:]
    time_left = 250 - 10 - mj.REPORT_RESERVE  # after pass 1
    assert float(_arg(runs[0], "--budget-total")) <= time_left * mj.ROUND_SHARE  # the check needs 120 s
    assert len(runs) >= 2  # and a second round had the rest


def test_full_runs_every_category_and_says_how_long_before_it_starts(tmp_path):
    """`./run.sh --full`: no --category filter (every section, the large rows too); the cases are counted
    on each family's newest runtime and the time is said before pass 1 starts; without --budget-total
    the total gives pass 1 its estimate and pass 2 its usual share."""
    mj_rt, mj = load("main_job_runtimes"), load("main_job")
    clock = SimpleNamespace(now=0.0)
    perflab = FakePerflab(clock)
    said, counted = [], []

    def count(suite, specs):
        counted.append(list(specs))
        return {"node24": 300, "jdk17": 100}
    rc = mj.main(["--full", "--out", str(tmp_path / "out")], run=perflab, clock=lambda: clock.now,
                 say=said.append, choose=choices(mj_rt), count=count)
    assert rc == 0
    assert counted == [["node24", "jdk17"]]  # each family's newest runtime, once
    [line] = [s for s in said if s.startswith("--full:")]
    # node: 2 runtimes × 300 cases × (2 s + 0.4 s); jdk17: 100 × (6 s + 0.4 s) → 2080 s of pass 1
    assert "700 cases on 3 runtimes" in line and "pass 1 needs about 35 min" in line
    assert said.index(line) < next(i for i, s in enumerate(said) if s.startswith("pass 1:"))
    pass1 = perflab.calls[0]
    assert "--category" not in pass1  # every category
    total = 2080 / mj.PASS1_SHARE + mj.REPORT_RESERVE
    assert f"--budget-total {total:.0f} s" in line
    assert float(_arg(pass1, "--budget-total")) == pytest.approx(2080, abs=1)
    # a total given on the command line is kept, and the estimate says when it is too short
    said.clear()
    clock.now = 0.0
    mj.main(["--full", "--budget-total", "1200", "--out", str(tmp_path / "out2")], run=FakePerflab(clock),
            clock=lambda: clock.now, say=said.append, choose=choices(mj_rt), count=count)
    [line] = [s for s in said if s.startswith("--full:")]
    assert "--budget-total 1200 s" in line and "will not cover every case" in line


def test_full_and_a_category_are_not_both_given(tmp_path):
    mj = load("main_job")
    said = []
    assert mj.main(["--full", "--category", "quick"], say=said.append) == 2
    assert "give --full or --category, not both" in said[0]
