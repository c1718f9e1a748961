"""`perflab history` on instruction counts: the series shows per-op Ir beside the time, and
`--changes` finds a step in the counts deterministically, listed beside time changes with its measure."""
import numpy as np
from count_docs import counts_record

from perflab.cli import main
from perflab.history import count_steps, find_changes, find_count_changes
from perflab.store import open_store


def fill(url, irs, *, launch_irs=None, means=None, key="g.b[]@c"):
    """A store of len(irs) runs of one case counted at irs[i] (None: not counted that run)."""
    store = open_store(url)
    for i, ir in enumerate(irs):
        rid = store.begin_run(command=[], args={}, job={}, environment={}, fingerprint="f")
        mean = means[i] if means else 100.0 * (1 + 0.01 * (i % 3))
        counts = None if ir is None else counts_record(ir, launch_irs[i] if launch_irs else None)
        store.add_case(rid, {"key": key, "benchmark": {"group": "g", "name": "b"}, "params": {},
                             "runtime": {"label": "c"}, "status": "ok",
                             "estimate": {"mean": mean, "error": 1}, "counts": counts})
        store.finish_run(rid)
    return store


def test_a_planted_step_in_counts_is_found_between_the_runs_it_lies_between(tmp_path):
    rng = np.random.default_rng(30)
    irs = [1000.0 * (1 + rng.uniform(-2e-5, 2e-5)) for _ in range(6)]
    irs += [1010.0 * (1 + rng.uniform(-2e-5, 2e-5)) for _ in range(5)]  # +1 % from run 7
    store = fill(f"sqlite://{tmp_path / 'h.db'}", irs)
    [ch] = find_count_changes(store.series("g.b"))
    assert ch.measure == "instructions" and (ch.before_run, ch.after_run) == (6, 7)
    assert ch.runs_before == [1, 2, 3, 4, 5, 6] and ch.runs_after == [7, 8, 9, 10, 11]
    assert abs(ch.change - 0.01) < 1e-4
    assert find_changes(store.series("g.b")) == []  # the time did not move: no time change


def test_a_flat_count_series_has_no_step(tmp_path):
    rng = np.random.default_rng(31)
    irs = [5000.0 * (1 + rng.uniform(-2e-4, 2e-4)) for _ in range(30)]  # wiggles below 0.1 %
    store = fill(f"sqlite://{tmp_path / 'h.db'}", irs)
    assert find_count_changes(store.series("g.b")) == []


def test_a_step_the_launches_spread_covers_is_not_a_change():
    wide = counts_record(1000.0, [985.0, 1015.0], agreed=False)  # 3 % spread
    points = [{"counts": counts_record(1000.0)}, {"counts": wide},
              {"counts": counts_record(1020.0, [1015.0, 1025.0], agreed=False)}]
    assert count_steps(points, 0.001) == []
    assert count_steps(points + [{"counts": counts_record(1100.0)}], 0.001) == [3]


def test_runs_not_counted_are_skipped_and_two_steps_split_the_runs(tmp_path):
    irs = [100.0, None, 100.0, 102.0, 102.0, None, 101.0]
    store = fill(f"sqlite://{tmp_path / 'h.db'}", irs)
    steps = find_count_changes(store.series("g.b"))
    assert [(c.before_run, c.after_run) for c in steps] == [(3, 4), (5, 7)]
    assert steps[0].runs_before == [1, 3] and steps[0].runs_after == [4, 5]
    assert steps[1].runs_after == [7]


def test_history_lists_counts_and_changes_name_the_measure(tmp_path, capsys):
    url = f"sqlite://{tmp_path / 'h.db'}"
    irs = [1000.0] * 8 + [1010.0] * 8
    means = [200.0] * 8 + [150.0] * 8  # and a time change at the same run
    fill(url, irs, means=means)
    assert main(["history", "g.b", "--store", url]) == 0
    shown = capsys.readouterr().out
    assert "Ir/op" in shown and "1,000" in shown and "1,010" in shown
    assert main(["history", "g.b", "--changes", "--store", url]) == 0
    shown = capsys.readouterr().out
    assert "Measure" in shown and "instructions" in shown and "time" in shown
    assert "1,000 Ir" in shown and "+1.00%" in shown and "-25.0%" in shown
    assert main(["history", "g.b", "--changes", "--count-threshold", "2", "--store", url]) == 0
    assert "instructions" not in capsys.readouterr().out


def test_a_flat_history_says_no_step_in_counts(tmp_path, capsys):
    url = f"sqlite://{tmp_path / 'h.db'}"
    fill(url, [1000.0] * 6)
    assert main(["history", "g.b", "--changes", "--store", url]) == 0
    shown = capsys.readouterr().out
    assert "no step in the instruction counts of 1 counted series" in shown
