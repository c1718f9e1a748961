"""`perflab compare` on instruction counts: a verdict of their own beside the time's, from the
launches' spread and a count threshold, with no interval. Hand-made results documents (count_docs)."""
import json
import subprocess
import sys

import numpy as np
import pytest
from count_docs import counts_record

from perflab.compare import compare_docs, count_regressions, regressions, summary, to_markdown, to_rows
from perflab.count_verdicts import judge_counts, spread

ENV = {"cpu": {"model": "cpu", "flags_sha256": "f", "logical_cores": 2},
       "os": {"release": "6.1", "machine": "x86_64"}, "perflab_version": "0.1.0"}


def doc(cases):
    return {"schema": "perflab.results", "version": 1, "environment": ENV, "job": {"overhead": False},
            "cases": cases}


def case(name, counts, mean=100.0, rng=None, timed=True):
    """A case with counts and (unless `timed` is False) time samples of one level in three launches."""
    rng = rng or np.random.default_rng(0)
    lns = [{"index": i, "invocations": 1000,
            "workload": [int(mean * 1000 * (1 + rng.normal(0, 0.01))) for _ in range(20)]}
           for i in range(3)] if timed else []
    return {"key": f"g.{name}[]@c", "benchmark": {"group": "g", "name": name, "ops_per_invoke": 1},
            "params": {}, "runtime": {"label": "c"}, "status": "ok", "estimate": {"mean": mean},
            "launches": lns, "counts": counts}


def one(old_counts, new_counts, **kw):
    result = compare_docs(("old", doc([case("a", old_counts)])), ("new", doc([case("a", new_counts)])), **kw)
    return result, result.cases[0].counts


def test_a_planted_one_percent_more_instructions_is_called_slower_every_time():
    rng = np.random.default_rng(20)
    for _ in range(20):
        base = 1000.0 * (1 + rng.uniform(-0.5, 0.5))
        # launches repeat to 0.005 %: what native code under valgrind does
        jitter = lambda x: [x * (1 + rng.uniform(-2.5e-5, 2.5e-5)) for _ in range(2)]  # noqa: E731
        _, cv = one(counts_record(base, jitter(base)), counts_record(base * 1.01, jitter(base * 1.01)))
        assert cv.verdict == "slower" and cv.ratio == pytest.approx(1.01, abs=1e-4)
        _, cv = one(counts_record(base * 1.01, jitter(base * 1.01)), counts_record(base, jitter(base)))
        assert cv.verdict == "faster"


def test_identical_counts_are_the_same_in_every_a_a_comparison():
    rng = np.random.default_rng(21)
    calls = []
    for _ in range(20):
        ir = float(rng.integers(10, 100_000))
        _, cv = one(counts_record(ir), counts_record(ir))
        calls.append(cv.verdict)
        assert cv.ratio == 1.0
    assert calls == ["same"] * 20


def test_a_change_within_the_threshold_is_the_same():
    _, cv = one(counts_record(1000.0), counts_record(1000.5))  # +0.05 % < 0.1 %
    assert cv.verdict == "same"
    _, cv = one(counts_record(1000.0), counts_record(1000.5), count_threshold=0.0001)
    assert cv.verdict == "slower"  # the threshold is the count's own flag


def test_launches_that_did_not_agree_make_a_change_their_spread_covers_inconclusive():
    wide = counts_record(1000.0, [990.0, 1010.0, 1000.0], agreed=False)  # 2 % spread: a JIT's timing
    assert spread(wide) == pytest.approx(0.02)
    _, cv = one(wide, counts_record(1015.0))
    assert cv.verdict == "inconclusive"
    assert cv.note == "old's launches did not agree: their spread 2.00% covers the +1.50% change"
    _, cv = one(wide, counts_record(1050.0))  # beyond the spread: a change even so
    assert cv.verdict == "slower"


def test_a_spread_within_the_threshold_does_not_stop_a_verdict():
    close = counts_record(1000.0, [1000.0, 1000.3], agreed=False)  # 0.03 %: below the 0.1 % threshold
    _, cv = one(close, counts_record(1000.2))
    assert cv.verdict == "same"


def test_one_launch_is_inconclusive_whatever_the_change():
    _, cv = one(counts_record(1000.0, [1000.0]), counts_record(2000.0))
    assert cv.verdict == "inconclusive" and "old counted in one launch" in cv.note


def test_a_runtime_that_could_not_be_counted_is_not_judged_and_says_why():
    _, cv = one(counts_record(0, error="PyPy: no marker callgrind can see"), counts_record(1000.0))
    assert cv.verdict == "n/a" and "old not counted: PyPy: no marker" in cv.note
    _, cv = one(counts_record(1000.0), None)
    assert cv.verdict == "n/a" and "new not counted" in cv.note
    assert judge_counts(None, None) is None


def test_counts_have_their_own_columns_and_time_keeps_its_verdict():
    rng = np.random.default_rng(22)
    old = doc([case("a", counts_record(500.0), 100.0, rng), case("b", counts_record(800.0), 100.0, rng)])
    new = doc([case("a", counts_record(505.0), 100.0, rng), case("b", counts_record(800.0), 100.0, rng)])
    result = compare_docs(("old", old), ("new", new))
    cols, rows = to_rows(result)
    assert cols[-5:] == ["Verdict", "Old Ir/op", "New Ir/op", "Ir New/Old", "Ir verdict"]
    a = dict(zip(cols, rows[0]))
    assert a["Verdict"].startswith("same") and a["Ir verdict"] == "slower"
    assert (a["Old Ir/op"], a["New Ir/op"], a["Ir New/Old"]) == ("500.0", "505.0", "1.0100")
    assert "ns" not in a["Old Ir/op"] and "Ir" not in a["Old"]  # never mixed
    assert dict(zip(cols, rows[-1]))["Benchmark"] == "geometric mean"
    lines = summary(result)
    assert any(line.startswith("instructions: 0 fewer, 1 more, 1 same") and "0.10%" in line
               for line in lines)
    md = to_markdown(result)
    assert "🔴 slower" in md and "Ir verdict" in md


def test_a_time_only_comparison_has_no_count_columns():
    rng = np.random.default_rng(23)
    result = compare_docs(("old", doc([case("a", None, rng=rng)])), ("new", doc([case("a", None, rng=rng)])))
    cols, _ = to_rows(result)
    assert "Ir verdict" not in cols and not any(line.startswith("instructions") for line in summary(result))


def test_a_run_that_only_counted_is_judged_on_counts_without_a_time_verdict():
    old = doc([case("a", counts_record(100.0), timed=False)])
    new = doc([case("a", counts_record(90.0), timed=False)])
    result = compare_docs(("old", old), ("new", new))
    c = result.cases[0]
    # not "n/a (too few samples (a dry run?))": nothing was timed, so there is no time verdict
    assert c.verdict == "not timed" and not c.timed and c.counts.verdict == "faster"
    cols, rows = to_rows(result)
    assert cols == ["Benchmark", "Runtime", "Old Ir/op", "New Ir/op", "Ir New/Old", "Ir verdict"]
    assert rows[0][-1].startswith("faster")
    text = "\n".join(summary(result))
    assert "counted only (--measure instructions), no time to compare" in text
    assert "dry run" not in text and "dry run" not in to_markdown(result)
    # beside a timed case, a counted-only one shows "not timed" in the time columns
    mixed = compare_docs(("old", doc([case("a", counts_record(100.0)), case("b", counts_record(5.0), timed=False)])),
                         ("new", doc([case("a", counts_record(100.0)), case("b", counts_record(5.0), timed=False)])))
    cols, rows = to_rows(mixed)
    assert "Verdict" in cols and rows[1][cols.index("Verdict")] == "not timed"


def test_count_regressions_above_the_gate():
    result, _ = one(counts_record(1000.0), counts_record(1020.0))
    assert [c.key for c in count_regressions(result, 1)] == ["g.a[]@c"]
    assert count_regressions(result, 5) == [] and regressions(result, 1) == []


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "perflab.cli", *args], capture_output=True, text=True)


def test_fail_on_regression_fails_on_a_count_regression_and_names_the_measure(tmp_path):
    rng = np.random.default_rng(24)
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(doc([case("a", counts_record(1000.0), 100.0, rng)])))
    new.write_text(json.dumps(doc([case("a", counts_record(1010.0), 100.0, rng)])))
    r = run_cli("compare", str(old), str(new), "--fail-on-regression", "0.5", "--store", "none")
    assert r.returncode == 1, r.stderr
    assert "g.a[]@c (instructions +1.00%)" in r.stderr and "Ir verdict" in r.stdout
    r = run_cli("compare", str(old), str(new), "--fail-on-regression", "0.5", "--fail-measure", "time",
                "--store", "none")
    assert r.returncode == 0, r.stderr  # the time did not change
    r = run_cli("compare", str(old), str(new), "--fail-on-regression", "2", "--store", "none")
    assert r.returncode == 0  # +1 % is below the gate
    r = run_cli("compare", str(old), str(new), "--count-threshold", "1.5", "--fail-on-regression", "0.5",
                "--store", "none")
    assert r.returncode == 0 and "same" in r.stdout  # within a wider count threshold


@pytest.mark.parametrize("counts, words", [
    ("lots", "has 'counts' str, not an object"),
    ({"per_op": {"Ir": "many"}}, "has 'counts.per_op' that is not an object of numbers"),
    ({"per_op": {"Ir": 1.0}, "spread": "0"}, "has 'counts.spread' str, not a number"),
    ({"per_op": {"Ir": 1.0}, "launches": [{"per_op": {"Ir": [1]}}]},
     "counts launch 1 has 'per_op' that is not an object of numbers"),
])
def test_a_malformed_counts_record_names_the_file_and_case(tmp_path, counts, words):
    good, broken = tmp_path / "good.json", tmp_path / "broken.json"
    good.write_text(json.dumps(doc([case("a", counts_record(1.0))])))
    broken.write_text(json.dumps(doc([case("a", counts)])))
    r = run_cli("compare", str(good), str(broken), "--store", "none")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "broken.json: case 1 " + words in lines[0], lines
