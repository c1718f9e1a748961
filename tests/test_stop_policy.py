"""The stop policy (engine/stop.py) on hand-built snapshots: no engine, no worker, no clock."""
import math
from dataclasses import replace

from perflab.engine.stop import CaseSnapshot, case_status, judge_group, may_renew, ratio_met, target_met
from perflab.jobs import get_job
from perflab.stats.estimate import Estimate
from perflab.stats.ratio import Ratio

JOB = get_job("default")  # ±2 % at 99.9 %


def est(mean=100.0, rel=0.01, launches=6, n=60, between_share=0.0, anova_p=1.0, var_between=0.0,
        var_within=1.0, overhead=0.0, gross=None):
    err = abs(mean) * rel if mean else rel
    return Estimate(mean=mean, error=err, ci_low=mean - err, ci_high=mean + err, stddev=1.0, median=mean,
                    min=mean, max=mean, n=n, launches=launches, confidence=JOB.confidence, se=err / 4,
                    df=launches - 1, between_share=between_share, launch_anova_p=anova_p,
                    var_between=var_between, var_within=var_within, overhead_per_op=overhead,
                    gross_mean=mean + overhead if gross is None else gross)


def case(estimate=None, counts=(10,) * 6, spent=1.0, live=None, longest=None, c_launch=0.05,
         c_iteration=0.01):
    return CaseSnapshot(counts=tuple(counts), live=len(counts) if live is None else live,
                        longest_live=max(counts) if longest is None else longest, spent=spent,
                        estimate=estimate, c_launch=c_launch, c_iteration=c_iteration)


def ratio(value=1.0, rel=0.01, paired=True, units=6):
    return Ratio(value, 0.01, value * (1 - rel), value * (1 + rel), paired, n_pairs=60, units=units,
                 var_between=0.0, var_within=1e-4, anova_p=1.0)


def test_a_lone_case_whose_mean_is_within_the_target_stops_with_target_reached():
    d = judge_group([case(est(rel=0.01))], None, JOB, alone=True)
    assert (d.action, d.reasons, d.judged_by) == ("stop", ("target reached",), "mean")


def test_a_lone_case_short_of_the_target_goes_on():
    d = judge_group([case(est(rel=0.05))], None, JOB, alone=True)
    assert d.action == "continue"


def test_the_minimum_iterations_are_measured_before_the_target_can_stop_a_case():
    short = case(est(rel=0.001), counts=(JOB.iterations_min - 1,) * 6)
    assert case_status(short, JOB) != "met"


def test_a_comparison_stops_only_on_its_ratios_interval():
    precise_means = [case(est(rel=0.001)), case(est(rel=0.001))]
    assert judge_group(precise_means, [ratio(rel=0.05)], JOB, alone=False).action == "continue"
    noisy_means = [case(est(rel=0.2)), case(est(rel=0.2))]
    d = judge_group(noisy_means, [ratio(rel=0.01)], JOB, alone=False)
    assert (d.action, d.reasons, d.judged_by) == ("stop", ("ratio target reached",) * 2, "ratio")


def test_an_unpaired_ratio_never_meets_the_target():
    assert ratio_met(ratio(rel=0.01), JOB)
    assert not ratio_met(ratio(rel=0.01, paired=False), JOB)
    assert not ratio_met(None, JOB)


def test_a_comparison_whose_means_are_precise_stops_at_the_budget_not_by_its_means():
    cases = [case(est(rel=0.001), spent=JOB.budget_s), case(est(rel=0.001))]
    d = judge_group(cases, [ratio(rel=0.05)], JOB, alone=False)
    assert d.action == "stop" and d.judged_by == "ratio"
    assert d.reasons == ("budget exhausted", "budget exhausted")  # never "target reached"


def test_a_spent_budget_stops_the_case_and_says_so():
    d = judge_group([case(est(rel=0.05), spent=JOB.budget_s)], None, JOB, alone=True)
    assert (d.action, d.reasons) == ("stop", ("budget exhausted",))


def test_the_iteration_cap_stops_the_case_as_iteration_limit():
    n = JOB.iterations_max // 6 + 1
    d = judge_group([case(est(rel=0.05), counts=(n,) * 6)], None, JOB, alone=True)
    assert (d.action, d.reasons) == ("stop", ("iteration limit",))


def test_a_case_short_of_its_minimum_goes_past_its_budget_but_not_endlessly():
    short = (JOB.iterations_min - 1,) * 6
    assert case_status(case(est(rel=0.05), counts=short, spent=JOB.budget_s), JOB) != "spent"
    far = case(est(rel=0.05), counts=short, spent=5.0 * JOB.budget_s)
    assert case_status(far, JOB) == "spent"


def test_processes_that_disagree_renew_the_launches():
    disagree = est(rel=0.05, between_share=0.9, anova_p=1e-4, var_between=25.0)
    d = judge_group([case(disagree)], None, JOB, alone=True)
    assert d.action == "renew"
    # a large share the ANOVA does not believe, with launches far from what they are worth (a launch
    # costs much more than an iteration), in a comparison (its doubling is the ratio's to judge)
    doubtful = est(rel=0.05, between_share=0.9, anova_p=0.5, var_between=25.0)
    assert case_status(case(doubtful, c_launch=1000.0), JOB, alone=False) == "more"


def test_a_launch_that_measured_what_it_is_worth_asks_for_fresh_processes():
    # var_b = var_w, a launch costing as much as an iteration: n = sqrt(1) -> the floor (5 or the minimum)
    worth = est(rel=0.05, between_share=0.3, var_between=1.0, var_within=1.0)
    assert case_status(case(worth, counts=(4,) * 6, c_launch=0.01), JOB) == "grow"
    assert case_status(case(worth, counts=(30,) * 6, c_launch=0.01), JOB) == "grow"


def test_no_renewal_past_the_launch_cap_or_the_budget():
    disagree = est(rel=0.05, between_share=0.9, anova_p=1e-4, var_between=25.0)
    capped = case(disagree, counts=(10,) * JOB.launches_max)
    assert case_status(capped, JOB) == "more"
    assert case_status(case(disagree, spent=JOB.budget_s), JOB) == "spent"


def test_a_comparison_short_of_its_target_renews_its_launch_pairs_when_they_differ():
    cases = [case(est(rel=0.01)), case(est(rel=0.01))]
    differing = replace(ratio(rel=0.05), var_between=1e-2, var_within=1e-4, anova_p=1e-6)
    d = judge_group(cases, [differing], JOB, alone=False)
    assert d.action == "renew" and d.enough is not None and d.enough >= JOB.iterations_min


def test_an_empty_benchmark_stops_once_its_interval_is_narrow_against_what_was_timed():
    # net 0.1 ns ± 0.5 ns: no relative target can be met, but it cannot be told from empty and the
    # interval is within ±2 % of the 30 ns actually timed
    empty = est(mean=0.1, rel=5.0, overhead=30.0)
    assert target_met(empty, JOB)
    assert judge_group([case(empty)], None, JOB, alone=True).reasons == ("target reached",)


def test_dry_and_targetless_jobs_stop_after_their_iterations():
    dry = get_job("dry")
    assert judge_group([case(None, counts=(1,))], None, dry, alone=True).reasons == ("dry run",)
    fixed = replace(JOB, target_rel_error=0.0)
    assert judge_group([case(None, counts=(JOB.iterations_min,) * 3)], None, fixed,
                       alone=True).reasons == ("iterations done",)
    assert judge_group([case(None, counts=(1,) * 3)], None, fixed, alone=True).action == "continue"


def test_start_ahead_is_worth_it_before_the_first_judgement_and_while_processes_differ():
    assert may_renew(case(None), JOB)
    assert may_renew(case(est(between_share=0.2)), JOB)
    assert not may_renew(case(est(between_share=0.0), c_iteration=0.0), JOB)
    assert not may_renew(case(None), get_job("dry"))


def test_an_infinite_error_never_meets_the_target():
    assert not target_met(replace(est(), error=math.inf), JOB)
    assert not target_met(None, JOB)
