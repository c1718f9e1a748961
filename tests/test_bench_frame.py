"""The frame the bench/ trust studies share: how trials are interleaved across conditions, how the
results document is read, and the contamination bench/coverage.py plants in fake samples."""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import _conditions  # noqa: E402
from _common import inconclusive, ratio_of  # noqa: E402


def study(tmp_path, *argv):
    ap = argparse.ArgumentParser()
    _conditions.add_arguments(ap, repeat=5, quick=2)
    return _conditions.Study("t", ap.parse_args([*argv, "--out", str(tmp_path)]))


def test_conditions_are_interleaved_and_each_comes_first_equally_often(tmp_path):
    s = study(tmp_path, "--repeat", "3")
    sched = s.schedule()
    assert sched == [(0, "quiet"), (0, "busy"), (0, "stress"), (1, "busy"), (1, "stress"), (1, "quiet"),
                     (2, "stress"), (2, "quiet"), (2, "busy")]
    assert (tmp_path / "command.txt").read_text().strip()


def test_quick_and_one_condition(tmp_path):
    s = study(tmp_path, "--quick", "--condition", "busy")
    assert (s.repeat, s.conditions) == (2, ["busy"])


def test_an_unknown_condition_is_refused(tmp_path):
    with pytest.raises(SystemExit, match="unknown noisy"):
        study(tmp_path, "--conditions", "quiet,noisy")


def test_the_loads_are_summarised_from_what_was_measured():
    assert _conditions.load_summary(["stress: measured level 2.10 × 2 CPUs (1 s)", "stress: measured level "
                                     "1.90 × 2 CPUs (1 s)"]) == "measured level 2.00 (1.90–2.10)"
    assert _conditions.load_summary(["quiet, load average 0.50"]) == "load average 0.50 (0.50–0.50)"
    assert _conditions.load_summary(["busy: no report"]) == "not measured"


def test_a_ratio_and_its_verdict_are_read_from_the_case():
    case = {"is_baseline": False, "status": "ok", "stop_reason": "ratio target reached",
            "ratio": {"value": 1.10, "ci_low": 1.07, "ci_high": 1.13}}
    r = ratio_of(case)
    assert (r.value, r.low, r.high, r.different, r.holds(1.1), r.holds(1.0)) == (1.10, 1.07, 1.13, True, True, False)
    assert not inconclusive(case)
    assert inconclusive({**case, "stop_reason": "budget exhausted"})
    assert ratio_of({**case, "is_baseline": True}) is None
    assert not ratio_of({**case, "ratio": {"value": 1.01, "ci_low": 1.005, "ci_high": 1.015}}).different


def test_a_bench_verdict_under_contention_is_the_judges():
    """bench/ studies call a case inconclusive under contention as the run's table does
    (perflab.judge.contention_reason): either side contended, unless the ratio is the paired
    CPU-timed one of the same code, which stands."""
    def side(key, level, cpu=True):
        return {"key": key, "status": "ok", "stop_reason": "ratio target reached", "runtime_baseline": "A",
                "contention": {"level": level}, "estimate": {"cpu_timed": cpu},
                "runtime_ratio": {"value": 1.1, "ci_low": 1.05, "ci_high": 1.15, "paired": True}}
    base, case = side("A", "none"), side("B", "none")
    doc = {"cases": [base, case]}
    assert not inconclusive(case, doc)
    # the baseline side heavily contended, the ratio not the one that stands: inconclusive
    unpaired = {**case, "runtime_ratio": {**case["runtime_ratio"], "paired": False}}
    assert inconclusive(unpaired, {"cases": [side("A", "heavy"), unpaired]})
    assert inconclusive({**unpaired, "contention": {"level": "changing"}}, doc)
    # paired, both sides CPU-timed: it stands; one side on the wall clock: it does not
    assert not inconclusive(case, {"cases": [side("A", "heavy"), case]})
    assert inconclusive(case, {"cases": [side("A", "heavy", cpu=False), case]})


def test_the_contamination_has_the_planted_shares():
    import importlib.util  # by path: a module named `coverage` may already be the coverage.py package
    path = Path(__file__).resolve().parents[1] / "bench" / "coverage.py"
    spec = importlib.util.spec_from_file_location("bench_coverage", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    b = mod.Bursts(random.Random(4))
    factors = [b(0.0) for _ in range(40000)]
    slow = sum(f >= 2.0 for f in factors) / len(factors)
    fast = sum(f == 0.6 for f in factors) / len(factors)
    assert slow == pytest.approx(0.25, abs=0.02) and fast == pytest.approx(0.10, abs=0.02)
    assert all(f == 1.0 or f == 0.6 or 2.0 <= f <= 3.0 for f in factors)
    runs = sum(1 for a, c in zip(factors, factors[1:]) if a != c)
    assert runs < len(factors) / 3  # in bursts, not iteration by iteration
