"""Change points over a stored history, and resuming an interrupted run."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from perflab.history import change_points, find_changes, permutation_p
from perflab.store import open_store
from perflab.policy import DEFAULT

ROOT = Path(__file__).resolve().parents[1]


def test_a_planted_shift_is_found_where_it_was_planted():
    rng = np.random.default_rng(5)
    means = list(100 * (1 + rng.normal(0, 0.01, 12))) + list(115 * (1 + rng.normal(0, 0.01, 10)))
    [(idx, before, after)] = change_points(list(range(1, 23)), means)
    assert idx == 12
    assert 0.13 < after / before - 1 < 0.17


def test_permutations_that_tie_with_the_observed_split_count_as_ties():
    """Six runs have one split of 3|3; of the C(6,3) = 20 ways to deal them, 2 give the observed
    halves (either way round) and so the same statistic: p = 2/20. Summed in another order, such a
    tie can come out an ulp below the observed value; counted with a bare `>=` it was lost and p came
    out 0.077 here (too small: a split looked more significant than it is)."""
    x = np.array([0.1, 0.2, 0.3, 0.7, 0.8, 0.9])
    sd = (0.1 * 0.9 / DEFAULT.history.permutations) ** 0.5
    assert abs(permutation_p(x) - 0.1) < 3 * sd
    # the same halves on another scale: the same p
    assert permutation_p(x * 1e-3 + 5.0) == permutation_p(x)


def test_noise_alone_is_not_a_change():
    rng = np.random.default_rng(6)
    for seed in range(20):
        means = list(100 * (1 + np.random.default_rng(seed).normal(0, 0.02, 30)))
        assert change_points(list(range(30)), means) == []


def test_history_changes_on_a_store(tmp_path):
    store = open_store(f"sqlite://{tmp_path / 'h.db'}")
    for i in range(16):
        rid = store.begin_run(command=[], args={}, job={}, environment={}, fingerprint="f")
        mean = 200.0 if i < 9 else 150.0
        store.add_case(rid, {"key": "g.b[]@py", "benchmark": {"group": "g", "name": "b"},
                             "runtime": {"label": "py"}, "status": "ok",
                             "estimate": {"mean": mean * (1 + 0.003 * (i % 3)), "error": 1}})
        store.finish_run(rid)
    [change] = find_changes(store.series("g.b"))
    assert (change.before_run, change.after_run) == (9, 10)
    assert round(change.change, 2) == -0.25
    r = subprocess.run([sys.executable, "-m", "perflab.cli", "history", "g.b", "--changes",
                        "--store", f"sqlite://{tmp_path / 'h.db'}"], capture_output=True, text=True)
    assert r.returncode == 0 and "#9" in r.stdout and "#10" in r.stdout and "-25" in r.stdout


def _resume_to_the_end(store, url: str, says: str, cases: int) -> dict:
    """`perflab run --resume`: it says `says`, completes the run with `cases` cases; returns them."""
    r = subprocess.run([sys.executable, "-m", "perflab.cli", "run", "--resume", "--store", url],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert says in r.stderr
    [run] = store.runs()
    assert run["complete"] and run["cases"] == cases
    return {c["key"]: c for c in store.cases(run["id"])}


def _killed_while_held(tmp_path, *run_args: str) -> tuple[str, Path, dict]:
    """A 4-case run (`perflab run … *run_args`) killed with `kill -9` once a_fast and b_fast are in its
    log, while c_held waits on a flag: mid-run however fast the machine (waiting for the store to
    hold two cases raced the run's end: fast cases reach the store in batches). Returns the store's
    url, the flag (unlink it to let c_held finish) and the logged cases by key."""
    flag = tmp_path / "hold"
    flag.write_text("")
    bench = tmp_path / "bench_resume.py"
    bench.write_text(
        "import os, time, perflab\n"
        "@perflab.benchmark\ndef a_fast():\n    return 1\n"
        "@perflab.benchmark\ndef b_fast():\n    return 2\n"
        f"@perflab.benchmark\ndef c_held():\n    while os.path.exists({str(flag)!r}): time.sleep(0.05)\n"
        "@perflab.benchmark\ndef d_fast():\n    return 4\n")
    url = f"sqlite://{tmp_path / 'h.db'}"
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "perflab.cli", "run", str(bench), *run_args,
                             "--store", url, "-o", str(out)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 120
    logged = []
    while time.time() < deadline and len(logged) < 2:
        logs = list(out.glob("perflab-*.jsonl"))
        logged = logs[0].read_text().splitlines() if logs else []
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the host and its workers, held in c_held
    proc.wait()
    before = {c["key"]: c for c in map(json.loads, logged)}
    assert len(before) == 2
    return url, flag, before


def test_a_killed_run_resumes_without_losing_or_repeating_cases(tmp_path):
    url, flag, before = _killed_while_held(tmp_path, "--job", "short", "--budget", "3")
    store = open_store(url)
    [run] = store.runs()
    assert not run["complete"]
    assert {c["key"] for c in store.cases(run["id"])} <= set(before)  # nothing stored that was not logged
    flag.unlink()
    after = _resume_to_the_end(store, url, f"resuming run #{run['id']}", 4)
    for key, c in before.items():  # what was measured before the kill is kept, not measured again
        assert after[key]["launches"] == c["launches"]


def test_a_resumed_run_takes_the_cases_its_store_had_not_received_from_its_log(tmp_path):
    # fast cases reach the store in batches (perflab.recording): a host killed before a batch leaves
    # them in the log only; --resume must keep them, not measure them again
    url, flag, logged = _killed_while_held(tmp_path, "--job", "dry")
    store = open_store(url)
    [run] = store.runs()
    store.conn.execute("DELETE FROM cases WHERE run_id = ?", (run["id"],))  # as if not received yet
    store.conn.commit()
    flag.unlink()
    after = _resume_to_the_end(store, url, f"resuming run #{run['id']}: 2 case(s) already measured", 4)
    for key, case in logged.items():  # kept as logged, not measured again
        assert after[key]["launches"] == case["launches"]
