"""perflab.judge: each verdict rule on hand-made numbers, and the two code-wide promises of issue #37
(verdict words come from perflab.judge only; no other module computes a ratio's interval)."""
from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import numpy as np
import pytest

from perflab.judge import (ClaimVerdict, Thresholds, Verdict, claim_verdict, compare, contention_reason,
                           decide_change, geometric_mean, processes_disagree)
from perflab.judge.interval import delta, paired
from perflab.model import LaunchSamples
from perflab.stats import estimate

SRC = Path(__file__).resolve().parent.parent / "src" / "perflab"


def _launches(level: float, n_launches: int = 6, n: int = 30, sd: float = 0.01, seed: int = 0):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_launches):
        ls = LaunchSamples(index=i, invocations=1)
        ls.workload = [int(round(x)) for x in level * 1000 * (1 + sd * rng.standard_normal(n))]
        ls.workload_rounds = list(range(1, n + 1))
        out.append(ls)
    return out


# -- the change rule ---------------------------------------------------------------------------

def test_p_below_alpha_is_the_interval_excluding_one():
    """One confidence: α = 1 − confidence, so "p < α" and "the interval excludes 1" agree."""
    for centre, se, df in ((0.05, 0.02, 5), (0.05, 0.0125, 9), (-0.1, 0.03, 3), (0.001, 0.01, 30)):
        lr = delta(math.exp(centre), math.exp(centre) * se / math.sqrt(2), df, 1.0, se / math.sqrt(2), df)
        for conf in (0.99, 0.999):
            low, high = lr.interval(conf)
            assert (lr.p < 1 - conf) == (low > 1 or high < 1)


def test_a_change_needs_significance_and_the_threshold():
    th = Thresholds(0.99, 0.02)
    assert decide_change(1.10, 0.001, th) == Verdict.SLOWER
    assert decide_change(0.90, 0.001, th) == Verdict.FASTER
    assert decide_change(1.01, 0.001, th) == Verdict.SAME  # sure, but under the noise threshold
    assert decide_change(1.10, 0.05, th) == Verdict.SAME  # large, but not sure


def test_compare_of_two_estimates_measured_apart():
    a, b = estimate(_launches(110.0, seed=1)), estimate(_launches(100.0, seed=2))
    c = compare(a, b, None, Thresholds(0.999))
    assert c.verdict == Verdict.SLOWER and c.low < c.ratio < c.high and not c.paired
    assert compare(b, b, None, Thresholds(0.999)).verdict == Verdict.SAME


def test_one_process_a_side_is_inconclusive_with_its_reason():
    a, b = estimate(_launches(110.0, n_launches=1)), estimate(_launches(100.0, seed=2))
    c = compare(a, b)
    assert c.verdict == Verdict.INCONCLUSIVE and c.reasons == ["one process: no interval"]


# -- contention, judged once for the comparison ---------------------------------------------------

def test_contention_on_either_side_makes_a_comparison_inconclusive():
    a, b = estimate(_launches(110.0, seed=1)), estimate(_launches(100.0, seed=2))
    for levels in (("heavy", None), (None, "changing"), ("heavy", "heavy")):
        c = compare(a, b, None, contention=levels)
        assert c.verdict == Verdict.INCONCLUSIVE and c.reasons[0].startswith("contention in ")
    assert contention_reason("heavy", None) == "contention in new"
    assert contention_reason(None, "heavy", names=("X", "its baseline")) == "contention in its baseline"


def test_a_paired_cpu_timed_ratio_of_the_same_code_stands_under_contention():
    assert contention_reason("heavy", "heavy", paired=True, same_code=True, cpu_new=True, cpu_old=True) == ""
    assert contention_reason("heavy", "heavy", paired=True, same_code=False, cpu_new=True, cpu_old=True)
    assert contention_reason("heavy", None, paired=False, same_code=True, cpu_new=True, cpu_old=True)


# -- claims, disagreement, the geometric mean --------------------------------------------------

@pytest.mark.parametrize("low,high,expect,want", [
    (0.5, 0.9, "faster", ClaimVerdict.CONFIRMED), (0.96, 1.2, "faster", ClaimVerdict.CONTRADICTED),
    (0.9, 1.1, "faster", ClaimVerdict.INCONCLUSIVE), (1.1, 1.3, "slower", ClaimVerdict.CONFIRMED),
    (0.8, 1.04, "slower", ClaimVerdict.CONTRADICTED), (0.97, 1.03, "same", ClaimVerdict.CONFIRMED),
    (1.2, 1.3, "same", ClaimVerdict.CONTRADICTED), (None, None, "faster", ClaimVerdict.INCONCLUSIVE)])
def test_claim_verdicts(low, high, expect, want):
    assert claim_verdict(low, high, expect) == want


def test_processes_disagree_is_one_rule():
    assert processes_disagree(0.8, 0.001)
    assert not processes_disagree(0.3, 0.001)  # most of the variance within processes
    assert not processes_disagree(0.8, 0.2)  # the ANOVA does not say they differ


def test_a_geometric_mean_with_a_meaningless_interval_says_so():
    g = geometric_mean([(0.85, 1e-4, 7000.0), (0.9, 0.8, 1.0)], 0.999)
    assert g.value is not None and not g.has_interval and "no meaningful interval" in g.why_none
    g = geometric_mean([(0.5, 0.45, 0.55), (2.0, 1.8, 2.2)], 0.999)
    assert g.has_interval and g.low < 1.0 < g.high


def test_verdicts_print_as_their_words():
    assert f"{Verdict.SLOWER}" == "slower" and str(ClaimVerdict.CONFIRMED) == "confirmed"
    assert Verdict.SLOWER == "slower" and Verdict("n/a") is Verdict.NA


# -- the code-wide promises -------------------------------------------------------------------

VERDICT_WORDS = {"faster", "slower", "same", "inconclusive", "confirmed", "contradicted"}


def _string_constants(tree: ast.AST):
    """String constants that are values (not docstrings, not parts of an f-string's text)."""
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docs.add(id(body[0].value))
    in_fstring = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
                and id(node) not in in_fstring):
            yield node


def test_verdict_words_as_values_come_from_perflab_judge_only():
    """No module outside perflab.judge spells a verdict as a bare string value ("slower", "same"...):
    it names perflab.judge's Verdict or ClaimVerdict. Prose (docstrings, messages) may use the words."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        if rel.parts[0] in ("judge", "_workers"):
            continue
        for node in _string_constants(ast.parse(path.read_text(encoding="utf-8"))):
            if node.value in VERDICT_WORDS:
                found.append(f"{rel}:{node.lineno}: {node.value!r}")
    assert not found, "verdict words outside perflab.judge:\n" + "\n".join(found)


# the modules that may take a quantile outside perflab.judge, and why: none of them is a ratio's
QUANTILE_ALLOWED = {
    "stats/distributions.py": "the distribution functions themselves",
    "stats/estimate.py": "a case's mean and its interval",
    "engine/allocation.py": "how many processes a target needs (planning, no interval printed)",
    "importers/common.py": "an imported side's mean interval, from the other tool's figures",
    "importers/google_benchmark.py": "an imported side's mean interval, from the other tool's figures",
}


def test_no_module_outside_perflab_judge_computes_a_ratio_interval(tmp_path):
    """A ratio's interval (exp(centre ± q·se)) is computed in perflab.judge.interval only: outside
    perflab.judge, only the modules of QUANTILE_ALLOWED take a t or normal quantile at all (on main
    before #37, compare.py, report/results_view.py, report/family.py and stats/ratio.py did)."""
    quantile = re.compile(r"\b(t_quantile|normal_quantile|ppf|inv_cdf|stdtrit|ndtri|NormalDist)\b")
    found = [str(rel) for path in sorted(SRC.rglob("*.py"))
             for rel in [path.relative_to(SRC).as_posix()]
             if not rel.startswith(("judge/", "_workers/")) and rel not in QUANTILE_ALLOWED
             and quantile.search(path.read_text(encoding="utf-8"))]
    assert not found, "a quantile outside perflab.judge (a ratio's interval belongs there): " + ", ".join(found)
    for rel in QUANTILE_ALLOWED:  # and those that may, still compute no ratio's
        text = (SRC / rel).read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = ast.get_source_segment(text, node) or ""
                assert not (quantile.search(body) and re.search(r"ratio", body, re.I)), f"{rel}: {node.name}"


def test_paired_intervals_have_p_minus_one_degrees_of_freedom():
    assert paired(0.0, 0.01, 8).df == 7
