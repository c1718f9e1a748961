"""bench/stress.py, the interference the bench studies measure under: its schedule is reproducible,
it delivers the level it claims, and it leaves no process behind."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import stress  # noqa: E402

pytestmark = pytest.mark.skipif(not Path("/proc/self/schedstat").exists(), reason="needs Linux /proc schedstat")


def test_a_seed_gives_the_same_schedule_and_another_seed_another():
    a = stress.plan(2.0, seed=7, ncpu=2)
    assert a == stress.plan(2.0, seed=7, ncpu=2)
    assert [c.phase for c in a] != [c.phase for c in stress.plan(2.0, seed=8, ncpu=2)]


@pytest.mark.parametrize("level, ncpu", [(2.0, 2), (0.3, 2), (1.7, 4), (2.0, 1)])
def test_the_counted_duties_add_up_to_the_level(level, ncpu):
    comps = stress.plan(level, seed=1, ncpu=ncpu)
    assert stress.claimed_level(comps, ncpu) == pytest.approx(level)
    assert sum(c.kind == "memory" for c in comps) == (1 if level * ncpu >= 1 else 0)
    assert sum(c.kind == "fork" for c in comps) == 1
    assert all(0 < c.on <= c.period for c in comps if c.kind == "burst")


def test_a_level_of_zero_is_refused():
    with pytest.raises(ValueError, match="--level"):
        stress.plan(0, seed=1, ncpu=2)


def _runnable(pids):
    return sum(stress.runnable_seconds(p) for p in pids)


def _group_after_exit(pgid):
    """The group's live processes once the kernel had a moment to reap them (≤ 2 s)."""
    deadline = time.monotonic() + 2.0
    while stress.group_pids(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return stress.group_pids(pgid)


def test_it_delivers_its_level_and_leaves_no_process_behind():
    # Level 0.4 on 2 CPUs without the hog: bursts of 3 ms every 10 and 50 every 100. A window of whole
    # periods (1 s) holds each burst's duty exactly; runnable time (on a CPU or waiting for one) is what
    # the load asks for, however loaded the machine running the test is.
    with stress.Stress(level=0.4, seed=3, hog_mb=0, ncpu=2) as load:
        counted = [p for kind, pids in load.pids.items() if kind != "fork" for p in pids]
        assert sorted(load.pids) == ["burst", "fork"]
        time.sleep(0.2)
        r0, w0 = _runnable(counted), time.monotonic()
        time.sleep(1.0)
        level = (_runnable(counted) - r0) / (time.monotonic() - w0) / 2
        assert stress.group_pids(load.pgid), "the load runs as its own process group"
    assert level == pytest.approx(0.4, rel=0.2)
    assert "measured level" in load.report
    assert _group_after_exit(load.pgid) == []


def test_the_busy_loop_is_one_always_runnable_process():
    with stress.Stress(busy=True) as load:
        assert list(load.pids) == ["spin"]
        [pid] = load.pids["spin"]
        r0, w0 = stress.runnable_seconds(pid), time.monotonic()
        time.sleep(0.3)
        share = (stress.runnable_seconds(pid) - r0) / (time.monotonic() - w0)
    assert share == pytest.approx(1.0, rel=0.2)
    assert _group_after_exit(load.pgid) == []


def test_a_killed_supervisor_takes_its_children_with_it():
    load = stress.Stress(level=0.5, seed=1, hog_mb=0, ncpu=2).__enter__()
    children = [p for pids in load.pids.values() for p in pids]
    os.kill(load.pgid, 9)  # no chance to clean up: the kernel's parent-death signal must do it
    load.proc.wait()
    assert children and _group_after_exit(load.pgid) == []
    load.__exit__(None, None, None)


def test_the_load_stops_when_the_script_that_started_it_is_killed(tmp_path):
    import subprocess
    script = tmp_path / "study.py"
    script.write_text(f"import sys, time; sys.path.insert(0, {str(Path(stress.__file__).parent)!r})\n"
                      "import stress\n"
                      "with stress.Stress(level=0.4, seed=1, hog_mb=0, ncpu=2) as load:\n"
                      "    print(load.pgid, flush=True)\n"
                      "    time.sleep(60)\n")
    study = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    pgid = int(study.stdout.readline())
    assert stress.group_pids(pgid)
    study.kill()  # no __exit__: the supervisor's parent-death signal must stop the load
    study.wait()
    assert _group_after_exit(pgid) == []
