"""perflab.recording: per case the host judges the case among its neighbours and appends one log line;
the whole document is rewritten only at its interval and at the end."""
import datetime as dt
import json
import random

from fakes import FakeClock, make_case
from perflab.analysis import analyse
from perflab.jobs import get_job
from perflab.model import CaseResult, LaunchSamples
from perflab.recording import Recorder, neighbourhood, read_log
from perflab.policy import DEFAULT


def result(name, runtime="rt1", params=(), baseline=False, mean=1000.0, seed=0):
    rng = random.Random(seed)
    launches = []
    for i in range(3):
        ln = LaunchSamples(index=i, invocations=10)
        ln.workload = [int(10 * mean * rng.uniform(0.98, 1.02)) for _ in range(20)]
        ln.workload_rounds = list(range(20))
        launches.append(ln)
    return CaseResult(case=make_case(name, runtime, params, baseline), launches=launches,
                      stop_reason="iteration limit")


def recorder(tmp_path, clock, interval=30.0, rows=None):
    job = get_job("short")
    return Recorder(job=job, environment={}, command=["perflab"], started=dt.datetime.now(dt.timezone.utc),
                    runtime_order=["rt1", "rt2"], json_path=tmp_path / "r.json",
                    on_cases=(rows.extend if rows is not None else lambda r: None), interval_s=interval,
                    baseline_groups={("fake", "g")},
                    clock=clock)


def test_the_document_waits_for_its_interval_and_the_log_has_every_case(tmp_path):
    clock = FakeClock()
    rec = recorder(tmp_path, clock)
    for i in range(5):
        rec.add(result(f"m{i}", seed=i))
        clock.t += 1.0
    assert not (tmp_path / "r.json").exists()  # 5 s in: not yet
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 5
    clock.t += 30.0
    rec.add(result("m5"))
    doc = json.loads((tmp_path / "r.json").read_text())
    assert len(doc["cases"]) == 6 and doc["complete"] is False
    rec.add(result("m6"))
    assert rec.document_writes == 1  # the next write waits for the next interval
    rows = rec.finish()
    assert len(rows) == 7
    assert json.loads((tmp_path / "r.json").read_text())["complete"] is True
    assert not (tmp_path / "r.jsonl").exists()  # the complete document holds it all


def test_a_slow_document_write_is_spaced_to_a_tenth_of_the_time(tmp_path):
    clock = FakeClock()
    rec = recorder(tmp_path, clock, interval=1.0)
    original = rec._analyse

    def slow(*args, **kwargs):
        clock.t += 5.0  # judging what changed takes 5 s
        return original(*args, **kwargs)
    rec.write(complete=False)
    rec._analyse = slow
    rec.extend([result("m0")])
    rec.write(complete=False)
    assert rec._next_write - clock.t >= 50.0 - 1e-9


def test_a_case_is_judged_with_its_neighbours_as_the_whole_run_judges_it(tmp_path):
    clock = FakeClock()
    stored = []
    rec = recorder(tmp_path, clock, rows=stored)
    cases = [result("base", baseline=True, mean=1000, seed=1), result("other", mean=2000, seed=2),
             result("base", runtime="rt2", baseline=True, mean=500, seed=3),
             result("unrelated", params=(("n", ("1", "2")),), mean=10, seed=4)]
    rows = [rec.add(c) for c in cases]
    assert neighbourhood(cases[3], rec.baseline_groups) != neighbourhood(cases[0], rec.baseline_groups)
    # without a baseline method in the group, a method pairs only with itself on other runtimes
    assert neighbourhood(cases[1]) != neighbourhood(cases[0])
    assert neighbourhood(cases[2]) == neighbourhood(cases[0])
    full = {r.key: r for r in analyse(cases, rec.job.confidence, rec.job.target_rel_error,
                                      rec.job.overhead, ["rt1", "rt2"])}
    for r in rows:
        f = full[r.key]
        assert r.estimate.mean == f.estimate.mean
        assert r.baseline_key == f.baseline_key
        assert (r.ratio.value if r.ratio else None) == (f.ratio.value if f.ratio else None)
    assert rows[1].ratio is not None and abs(rows[1].ratio.value - 2.0) < 0.1
    rec.close()  # fast cases go to the store in batches: the rest of this one
    assert [c["key"] for c in stored] == [c.case.key for c in cases]  # the store gets each case once


def test_read_log_skips_a_line_cut_short_and_keeps_the_last_of_a_key(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"key": "a", "v": 1}\n{"key": "b", "v": 1}\n{"key": "a", "v": 2}\n{"key": "c", "v"')
    cases = read_log(path)
    assert {c["key"]: c["v"] for c in cases} == {"a": 2, "b": 1}
    assert read_log(tmp_path / "missing.jsonl") == []


def _cases_of(path):
    return {c["key"]: c for c in json.loads(path.read_text())["cases"]}


def test_the_interval_document_judges_every_case_as_the_whole_run_does(tmp_path):
    # the interval write judges only the neighbourhoods that changed; a runtime that appears later
    # (a language's second runtime: every case of it gets a runtime ratio) changes them all
    clock = FakeClock()
    rec = recorder(tmp_path, clock)
    first = [result("base", baseline=True, mean=1000, seed=1), result("other", mean=2000, seed=2),
             result("x", params=(("n", ("1", "2")),), mean=10, seed=3),
             result("alone", params=(("n", ("3",)),), mean=10, seed=7)]  # no case joins it later
    later = [result("base", runtime="rt2", baseline=True, mean=500, seed=4),
             result("x", runtime="rt2", params=(("n", ("1", "2")),), mean=20, seed=5),
             result("x", params=(("n", ("2", "1")),), mean=30, seed=6)]
    failed = CaseResult(case=make_case("other", "rt2"), error="boom", stop_reason="failed")
    for c in first:
        rec.add(c)
    rec.write(complete=False)
    rec.extend([failed])
    for c in later:
        rec.add(c)
    rec.write(complete=False)
    written = _cases_of(tmp_path / "r.json")
    everything = first + [failed] + later
    rows = analyse(everything, rec.job.confidence, rec.job.target_rel_error, rec.job.overhead,
                   ["rt1", "rt2"])
    from perflab.results import row_to_json
    whole = {r.key: json.loads(json.dumps(row_to_json(r))) for r in rows}
    assert list(written) == [c.case.key for c in first + [failed] + later]  # the run's order
    assert written == whole
    assert written[first[3].case.key]["is_runtime_baseline"]  # judged again once rt2 came


def test_an_interval_write_judges_only_what_changed_since_the_last(tmp_path):
    clock = FakeClock()
    rec = recorder(tmp_path, clock)
    def one(i):  # a neighbourhood of its own: its parameters (the group has a baseline method)
        return result("m", params=(("n", (str(i),)),), seed=i)
    for i in range(20):
        rec.add(one(i))
    assert len(rec.write(complete=False)) == 20  # every neighbourhood is new
    rec.add(one(20))
    assert [r.key for r in rec.write(complete=False)] == [one(20).case.key]
    assert len(_cases_of(tmp_path / "r.json")) == 21
    assert len(rec.finish()) == 21  # the end judges the whole run


def test_fast_cases_are_stored_in_batches_and_a_killed_run_resumes_every_finished_one(tmp_path):
    from perflab.recording import resumable
    clock = FakeClock()
    batches = []
    rec = Recorder(job=get_job("short"), environment={}, command=["perflab"],
                   started=dt.datetime.now(dt.timezone.utc), runtime_order=["rt1"],
                   json_path=tmp_path / "r.json", on_cases=batches.append, clock=clock)

    def one(i):
        return result("m", params=(("n", (str(i),)),), seed=i)
    rec.add(one(0))  # the first goes at once
    for i in range(1, 10):  # nine more within the interval: held
        clock.t += DEFAULT.recording.store_interval_s / 20
        rec.add(one(i))
    assert [len(b) for b in batches] == [1]
    clock.t += DEFAULT.recording.store_interval_s
    rec.add(one(10))  # the interval is up: the held ones and this one, together
    assert [len(b) for b in batches] == [1, 10]
    for i in range(11, 14):  # then killed before the next interval (no close: kill -9)
        rec.add(one(i))
    stored = [c for b in batches for c in b]
    assert len(stored) == 11
    cases = resumable(stored, tmp_path / "r.jsonl")  # what --resume finds: the store, then the log
    assert [c["key"] for c in cases] == [one(i).case.key for i in range(14)]
    assert resumable(stored, None) == stored and resumable(stored, tmp_path / "missing.jsonl") == stored
    rec.close()  # a run that ends (or is interrupted by an exception) stores what it held
    assert [len(b) for b in batches] == [1, 10, 3]


def test_slow_cases_and_cases_without_a_log_are_stored_one_by_one(tmp_path):
    clock = FakeClock()
    batches = []
    slow = recorder(tmp_path, clock, rows=None)
    slow.on_cases = batches.append
    for i in range(3):
        clock.t += DEFAULT.recording.store_interval_s
        slow.add(result(f"m{i}", seed=i))
    assert [len(b) for b in batches] == [1, 1, 1]
    unlogged = []
    rec = Recorder(job=get_job("short"), environment={}, command=["perflab"],
                   started=dt.datetime.now(dt.timezone.utc), runtime_order=["rt1"], json_path=None,
                   on_cases=unlogged.append, clock=clock)
    for i in range(3):
        rec.add(result(f"m{i}", seed=i))  # no time passes, but nothing else would keep them
    assert [len(b) for b in unlogged] == [1, 1, 1]


def test_interval_rewrites_wait_for_the_run_to_grow_so_bytes_written_stay_linear(tmp_path):
    """A rewrite is O(run) bytes: one per interval would be O(run) per case over a long run. Each
    waits until the run has Recording.document_growth more cases than the last held, so the rewrites of a run
    of n cases hold O(n) cases in all, whatever the interval."""
    clock = FakeClock()
    rec = recorder(tmp_path, clock, interval=1.0)
    held, n = [], 400
    for i in range(n):
        rec.add(result(f"m{i}", seed=i))
        clock.t += 2.0  # every case past the interval: only the growth rule spaces the rewrites
        if rec.document_writes > len(held):
            held.append(len(json.loads((tmp_path / "r.json").read_text())["cases"]))
    assert held[0] <= 2 and all(b >= a * (1 + DEFAULT.recording.document_growth) for a, b in zip(held, held[1:]))
    assert sum(held) <= n * (1 + 1 / DEFAULT.recording.document_growth)
    assert len(held) < 30  # one per interval would have been 400
    rec.finish()
    assert len(_cases_of(tmp_path / "r.json")) == n
