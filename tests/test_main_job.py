"""The main job's driver (scripts/main_job.py) with a fake `perflab run`, a fake clock and fake
runtime choices: pass 1 over everything, then the time left to the claims still inconclusive."""
import importlib.util
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from perflab.engine.total_budget import MIN_BUDGET_SCALE, budget_scale
from perflab.report.results_view import load_report
from test_seeds_report import HTTP, case, doc

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
    rc, calls, said, summary = drive(tmp_path, 150)   # pass 1 costs 100 s of the fake clock: 20 s left
    assert [c[3] for c in calls] == ["run", "report"]
    assert any("still inconclusive, but only" in s for s in said)
    assert summary["inconclusive"] == 1 and summary["decided"] == 0
    rc, calls, said, summary = drive(tmp_path / "b", 5000, cost=10.0, narrow_in_pass2=False)
    assert [c[3] for c in calls] == ["run", "run", "run", "run", "report"]  # pass 1 and MAX_ROUNDS
    budgets = [float(_arg(c, "--budget")) for c in calls[1:4]]
    assert budgets == sorted(budgets)  # each round gives a case at least as much as the last
    assert summary["inconclusive"] == 1


def test_inconclusive_ignores_ports_that_cannot_decide(tmp_path):
    mj = load("main_job")
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
    mj = load("main_job")
    pat = mj._glob_escape("Seek[1].Read*")
    assert fnmatch.fnmatchcase("seek[1].read*", pat.lower())
    assert not fnmatch.fnmatchcase("seek1.readx", pat.lower())


def _groups(*spec):
    return [[SimpleNamespace(runtime=SimpleNamespace(language=lang))] * n for lang, n in spec]


def test_budget_total_scales_the_remaining_cases_budgets():
    groups = _groups(("python", 2), ("java", 2))      # nominal: 2×2 + 2×6 = 16 s
    assert budget_scale(100.0, groups, 2.0, {"java": 6.0}) == 1.0
    assert budget_scale(8.0, groups, 2.0, {"java": 6.0}) == pytest.approx(0.5)
    assert budget_scale(-5.0, groups, 2.0, {"java": 6.0}) == MIN_BUDGET_SCALE  # overrun: still measured


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
