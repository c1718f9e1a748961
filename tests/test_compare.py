"""`perflab compare`: verdicts on synthetic results with known truth, and its bad input."""
import json
import subprocess
import sys

import numpy as np
import pytest

from perflab.compare import compare_docs, regressions, summary, to_markdown
from perflab.errors import UsageError

ENV = {"cpu": {"model": "cpu", "flags_sha256": "f", "logical_cores": 2},
       "os": {"release": "6.1", "machine": "x86_64"}, "perflab_version": "0.1.0"}


def doc(cases, env=ENV):
    return {"schema": "perflab.results", "version": 1, "environment": env, "job": {"overhead": False},
            "cases": cases}


def case(name, mean, rng, launches=3, n=20, sd=0.02, launch_sd=0.01, status="ok"):
    lns = []
    for i in range(launches):
        level = mean * (1 + rng.normal(0, launch_sd))
        lns.append({"index": i, "invocations": 1000,
                    "workload": [int(level * 1000 * (1 + rng.normal(0, sd))) for _ in range(n)]})
    return {"key": f"g.{name}[]@py", "benchmark": {"group": "g", "name": name, "ops_per_invoke": 1},
            "params": {}, "runtime": {"label": "py"}, "status": status,
            "estimate": {"mean": mean}, "launches": lns}


def test_identical_code_is_called_same_in_fifty_comparisons():
    rng = np.random.default_rng(11)
    calls = []
    for _ in range(50):
        old = doc([case("a", 100.0, rng), case("b", 5000.0, rng)])
        new = doc([case("a", 100.0, rng), case("b", 5000.0, rng)])
        calls += [c.verdict for c in compare_docs(("old", old), ("new", new)).cases]
    assert calls.count("same") == len(calls)


def test_a_ten_percent_slowdown_is_caught_and_fails_the_ci_gate():
    rng = np.random.default_rng(12)
    old = doc([case("a", 100.0, rng), case("b", 200.0, rng)])
    new = doc([case("a", 110.0, rng), case("b", 200.0, rng)])
    result = compare_docs(("old", old), ("new", new))
    verdicts = {c.benchmark: c for c in result.cases}
    assert verdicts["g.a"].verdict == "slower"
    assert verdicts["g.a"].ci_low > 1.0 and 1.05 < verdicts["g.a"].ratio < 1.15
    assert verdicts["g.b"].verdict == "same"
    assert 1.0 < result.geomean < 1.1
    assert [c.benchmark for c in regressions(result, 5)] == ["g.a"]
    assert regressions(result, 20) == []
    md = to_markdown(result)
    assert md.startswith("### perflab") and "🔴 slower" in md and "geometric mean" in md


def test_no_common_case_says_so():
    rng = np.random.default_rng(1)
    with pytest.raises(UsageError, match="no case in common"):
        compare_docs(("old", doc([case("a", 1, rng)])), ("new", doc([case("b", 1, rng)])))


def test_different_machines_are_refused_unless_forced():
    rng = np.random.default_rng(2)
    other = {**ENV, "cpu": {**ENV["cpu"], "model": "another cpu"}}
    old, new = doc([case("a", 100, rng)]), doc([case("a", 100, rng)], env=other)
    with pytest.raises(UsageError, match="different machines.*cpu_model"):
        compare_docs(("old", old), ("new", new))
    forced = compare_docs(("old", old), ("new", new), force=True)
    assert forced.forced_mismatch == ["cpu_model"]


def test_failed_and_single_sample_cases_are_not_judged():
    rng = np.random.default_rng(3)
    old = doc([case("a", 100, rng), case("b", 100, rng, launches=1, n=1)])
    new = doc([case("a", 100, rng, status="failed"), case("b", 300, rng, launches=1, n=1)])
    verdicts = {c.benchmark: c for c in compare_docs(("old", old), ("new", new)).cases}
    assert verdicts["g.a"].verdict == "n/a" and "failed in new" in verdicts["g.a"].note
    assert verdicts["g.b"].verdict == "n/a" and "too few samples" in verdicts["g.b"].note


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "perflab.cli", *args], capture_output=True, text=True)


def test_cli_exit_codes_and_bad_files(tmp_path):
    rng = np.random.default_rng(4)
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(doc([case("a", 100, rng)])))
    new.write_text(json.dumps(doc([case("a", 130, rng)])))
    r = run_cli("compare", str(old), str(new), "--fail-on-regression", "10", "--store", "none")
    assert r.returncode == 1 and "slower" in r.stdout and "regression" in r.stderr
    assert run_cli("compare", str(old), str(new), "--store", "none").returncode == 0
    truncated = tmp_path / "cut.json"
    truncated.write_text(new.read_text()[:200])
    r = run_cli("compare", str(old), str(truncated), "--store", "none")
    assert r.returncode == 2 and "cut.json: not valid JSON" in r.stderr and "truncated" in r.stderr
    future = tmp_path / "future.json"
    future.write_text(json.dumps({**doc([]), "version": 7}))
    r = run_cli("compare", str(old), str(future), "--store", "none")
    assert r.returncode == 2 and "newer perflab" in r.stderr
    r = run_cli("compare", str(old), str(tmp_path / "missing.json"), "--store", "none")
    assert r.returncode == 2 and "missing.json: cannot read" in r.stderr


def test_one_wild_sample_cannot_turn_the_ratio_against_the_columns():
    """The finding: New/Old 1.531 [0.838, 4.783] printed beside New 3.87 µs < Old 4.04 µs — the ratio
    came from raw pooled samples (one 212 µs sample decided it), the columns from trimmed estimates.
    Both now come from the same cleaned estimates."""
    rng = np.random.default_rng(5)
    for _ in range(10):
        old = case("a", 4040.0, rng)
        new = case("a", 3870.0, rng)
        new["launches"][1]["workload"][7] = 212_000 * 1000  # one iteration of 212 µs per call
        c = compare_docs(("old", doc([old])), ("new", doc([new]))).cases[0]
        assert c.new_mean < c.old_mean and c.ratio < 1
        assert c.ratio == pytest.approx(c.new_mean / c.old_mean)
        assert c.ci_low <= c.ratio <= c.ci_high


def test_contention_makes_a_change_inconclusive_and_a_difference_between_runs_is_warned():
    rng = np.random.default_rng(6)
    heavy = {"level": "heavy", "reasons": ["load 3.2 per CPU"]}
    old = doc([case("a", 100.0, rng)], env={**ENV, "contention": {"level": "quiet", "load_per_cpu_max": 0.4}})
    slow = case("a", 130.0, rng)
    slow["contention"] = heavy
    new = doc([slow], env={**ENV, "contention": {"level": "heavy", "load_per_cpu_max": 3.2}})
    result = compare_docs(("old", old), ("new", new))
    c = result.cases[0]
    assert c.ratio > 1.2 and c.verdict == "inconclusive" and "contention in new" in c.note
    assert regressions(result, 10) == []
    assert any("different contention" in line for line in summary(result))
    # no change under contention is no "same" either: interference can hide a change as well (#38)
    same = case("a", 100.0, rng)
    same["contention"] = heavy
    c = compare_docs(("old", old), ("new", doc([same], env=new["environment"]))).cases[0]
    assert c.verdict == "inconclusive" and "contention in new" in c.note
