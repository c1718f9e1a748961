"""Pinning launches to one quiet CPU: the engine's use of it with a fake placement, the real thing on Linux."""
import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from perflab.engine import affinity
from perflab.engine.affinity import Placement
from perflab.engine.runner import Engine
from perflab.errors import UsageError
from perflab.jobs import get_job
from perflab.policy import DEFAULT

from fakes import FakeClock, FakeWorker, InlineExecutor, make_case

ROOT = Path(__file__).resolve().parents[1]


class FakePlacement(Placement):
    """Launch pids listed in `parallel` use two CPUs; those in `compiling` use two in their first
    window only (a JIT finishing its work); the others one."""

    def __init__(self, parallel=(), compiling=(), spare=True):
        super().__init__(cpu=1)
        self.parallel, self.compiling = set(parallel), set(compiling)
        self.spare = spare
        self.events = []
        self.windows = {}
        self.held = False
        self.joined = {}  # pid: whether it joined on the measuring CPU

    def can_start_aside(self):
        return self.spare

    def join(self, pid, single):
        self.events.append(("join", pid))
        self.joined[pid] = single

    def probe(self, pid):
        return (0.0, 0.0)

    def pin_if_single(self, pid, start, busy_s):
        self.windows[pid] = self.windows.get(pid, 0) + 1
        busy = pid in self.parallel or (pid in self.compiling and self.windows[pid] == 1)
        share = 1.9 if busy else 0.97
        pinned = None if share > DEFAULT.placement.cpu_share_limit else self.cpu
        self.events.append(("pin", pid, pinned))
        return pinned, share

    def move_off(self, pid):
        self.events.append(("off", pid))

    def unpin(self, pid):
        self.events.append(("anywhere", pid))

    def hold_host(self):
        self.events.append(("hold",))
        self.held = True

    def release_host(self):
        self.events.append(("release",))
        self.held = False


def test_single_threaded_launches_are_pinned_after_warmup_and_parallel_ones_are_not():
    clock = FakeClock()
    placement = FakePlacement(parallel={101}, compiling={102})
    pids = iter(range(100, 200))

    def launch(case, i):
        w = FakeWorker(clock, 1000.0, noise=0.3, seed=i)  # noisy: measured long enough for 3 windows
        w.hello.pid = next(pids)
        return w

    # three launches, none retired: each is watched for as long as it needs
    [res] = Engine(get_job("default", launches_max=3), launch, clock=clock, rng=random.Random(1),
                   placement=placement).run_group([make_case()])
    by_pid = {ln.pid: ln for ln in res.launches}
    assert by_pid[100].cpu == 1 and by_pid[100].cpu_share == pytest.approx(0.97)
    assert by_pid[101].cpu is None and by_pid[101].cpu_share == pytest.approx(1.9)
    assert placement.windows[101] == DEFAULT.placement.probe_tries  # looked at again, then left alone
    assert by_pid[102].cpu == 1 and placement.windows[102] == 2  # pinned once its JIT was done
    # perflab's own process is given back every CPU before workers start (they inherit its affinity)
    # and at the end of the group
    kinds = [e[0] for e in placement.events]
    assert kinds[0] == "release" and kinds[-1] == "release"
    assert kinds.index("hold") < kinds.index("pin")  # held off the measuring CPU while measuring


def test_a_case_whose_first_launch_used_two_cpus_leaves_every_later_launch_on_every_cpu():
    """Launches of one case are placed alike: the first was watched Placement.probe_tries times and left
    alone, so the later ones (which would each look single-threaded here) are neither watched nor
    pinned — a pinned launch of a two-thread I/O case measures another thing (Java's HttpDownload:
    40 ms a call with every CPU, 100 ms pinned)."""
    clock = FakeClock()
    placement = FakePlacement(parallel={100})
    pids = iter(range(100, 200))

    def launch(case, i):
        w = FakeWorker(clock, 1000.0, noise=0.3, seed=i)
        w.hello.pid = next(pids)
        return w

    [res] = Engine(get_job("default", launches_max=3), launch, clock=clock, rng=random.Random(1),
                   placement=placement).run_group([make_case()])
    assert len(res.launches) >= 2
    assert placement.windows == {100: DEFAULT.placement.probe_tries}  # only the first was watched
    assert all(ln.cpu is None for ln in res.launches)
    assert not any(placement.joined.get(ln.pid) for ln in res.launches[1:])


def test_samples_keep_where_they_ran_in_the_results_document():
    from perflab.model import LaunchSamples
    ls = LaunchSamples(index=0, pid=7, cpu=1, cpu_share=0.95)
    assert ls.to_json()["cpu"] == 1 and ls.to_json()["cpu_share"] == 0.95


def test_off_never_pins():
    assert Placement.choose("off").cpu is None


def test_a_cpu_that_is_not_usable_is_a_clear_error():
    if not affinity.supported():
        with pytest.raises(UsageError, match="needs Linux"):
            affinity.check_mode("0")
        return
    with pytest.raises(UsageError, match="--affinity: 'banana'"):
        affinity.check_mode("banana")
    with pytest.raises(UsageError, match="usable CPUs"):
        affinity.check_mode("4096")
    affinity.check_mode("auto")
    affinity.check_mode(str(min(os.sched_getaffinity(0))))


SOURCE = '''
    import hashlib
    import threading
    import perflab

    DATA = b"x" * (1 << 20)

    @perflab.benchmark
    def single():
        return hashlib.sha256(DATA[:4096]).digest()

    @perflab.benchmark
    def parallel():
        # hashlib releases the GIL on large inputs: two threads really use two CPUs
        threads = [threading.Thread(target=lambda: [hashlib.sha256(DATA).digest() for _ in range(32)])
                   for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
'''


@pytest.mark.skipif(not affinity.supported() or len(os.sched_getaffinity(0)) < 2,
                    reason="pinning needs Linux and two CPUs")
def test_real_launches_are_pinned_when_they_use_one_cpu(tmp_path):
    """End to end: launches are watched, decided and pinned. Whether the two-thread benchmark really
    ran in parallel depends on the other CPU being free (on a busy machine it could not, and is
    rightly pinned), so for it the test checks that the decision follows the measured share."""
    (tmp_path / "bench_threads.py").write_text(textwrap.dedent(SOURCE))
    cpu = str(max(os.sched_getaffinity(0)))
    r = subprocess.run([sys.executable, "-m", "perflab.cli", "run", str(tmp_path), "--job", "short",
                        "--iteration-time", "0.02",  # warmup alone is watched long enough to decide
                        "--affinity", cpu, "--store", "none", "-e", "json", "-o", str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    [doc_path] = (tmp_path / "out").glob("perflab-*.json")
    cases = {c["benchmark"]["name"]: c for c in json.loads(doc_path.read_text())["cases"]}
    single = cases["single"]["launches"]
    assert all(ln["cpu"] == int(cpu) and ln["cpu_share"] <= DEFAULT.placement.cpu_share_limit for ln in single), \
        [(ln["cpu"], ln["cpu_share"]) for ln in single]
    # the first launch decides on its share; a later one follows a first that was left alone,
    # unwatched (engine/runner._left_alone), and decides on its own share after a pinned first
    par = sorted(cases["parallel"]["launches"], key=lambda ln: ln["index"])
    first = par[0]
    assert first["cpu_share"] is not None
    assert (first["cpu"] is None) == (first["cpu_share"] > DEFAULT.placement.cpu_share_limit), first
    for ln in par[1:]:
        if first["cpu"] is None:
            assert ln["cpu"] is None, ln
        elif ln["cpu_share"] is not None:
            assert (ln["cpu"] is None) == (ln["cpu_share"] > DEFAULT.placement.cpu_share_limit), ln


def test_a_process_using_two_cpus_is_not_pinned_and_one_using_one_is(monkeypatch):
    """The decision itself, with the CPU-time reader and the pinning call replaced."""
    readings = {}
    pinned = []
    monkeypatch.setattr(affinity, "cpu_seconds", lambda pid: readings[pid])
    monkeypatch.setattr(affinity, "pin_launch", lambda pid, cpus: pinned.append((pid, cpus)) or True)
    place = Placement(cpu=1)
    readings.update({10: (0.0, 0.0), 20: (0.0, 0.0)})
    start = {pid: place.probe(pid) for pid in (10, 20)}
    # over 0.1 s of iterations: pid 10 used 0.095 s of CPU on live threads; pid 20 used 0.19 s in all,
    # most of it on threads that have ended (only the whole-process reading sees them)
    readings.update({10: (0.095, 0.09), 20: (0.04, 0.19)})
    assert place.pin_if_single(10, start[10], 0.1)[:2] == (1, pytest.approx(0.95))
    cpu, share, _ = place.pin_if_single(20, start[20], 0.1)
    assert cpu is None and share == pytest.approx(1.8)  # (0.19 − one tick) / 0.1
    assert pinned == [(10, {1})]


def test_threads_that_hand_work_to_each_other_are_not_pinned(monkeypatch):
    """Two threads each scheduled in thousands of times a second while using one CPU between them
    (a ping-pong): pinned, every hand-off would wait for the scheduler. A busy thread beside threads
    that are woken often but barely run (Go's sysmon and idle Ms) is still pinned."""
    readings = {}
    pinned = []
    monkeypatch.setattr(affinity, "cpu_seconds", lambda pid: readings[pid])
    monkeypatch.setattr(affinity, "pin_launch", lambda pid, cpus: pinned.append(pid) or True)
    place = Placement(cpu=0)
    base = {1: (100, 0), 2: (100, 0), 3: (5, 0)}
    readings.update({10: (0.0, 0.0, dict(base)), 20: (0.0, 0.0, dict(base))})
    start = {pid: place.probe(pid) for pid in (10, 20)}
    ms = 1_000_000
    # over 0.1 s: pid 10's threads 1 and 2 were each scheduled in 2 800 times (28 000/s), each
    # running 49 ms; pid 20's thread 1 ran 95 ms (woken 150 times), threads 2 and 3 were woken
    # 400 times each but ran 1 ms (runtime threads), thread 4 is new since the start
    readings[10] = (0.098, 0.09, {1: (2900, 49 * ms), 2: (2900, 49 * ms), 3: (6, 0)})
    readings[20] = (0.098, 0.09, {1: (250, 95 * ms), 2: (500, ms), 3: (405, ms), 4: (9000, 50 * ms)})
    handoff = place.pin_if_single(10, start[10], 0.1)
    assert handoff.cpu is None and handoff.share == pytest.approx(0.98)
    assert handoff.handoff == pytest.approx(28000) and handoff.handoff >= DEFAULT.placement.handoff_rate
    busy = place.pin_if_single(20, start[20], 0.1)
    assert busy.cpu == 0 and busy.handoff == 0.0  # one thread did the work
    assert pinned == [20]
    # readings without wake-ups (another reader): decided on the CPU share alone
    assert affinity.handoff_rate((0.0, 0.0), (0.1, 0.1), 0.1) is None


@pytest.mark.skipif(not affinity.supported(), reason="Linux only")
def test_cpu_seconds_of_a_process_grow_as_it_works_and_vanish_with_it():
    proc = subprocess.Popen([sys.executable, "-c", "import sys\nfor line in sys.stdin: print(sum(range(10**6)), flush=True)"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        proc.stdin.write("warm\n")
        proc.stdin.flush()
        proc.stdout.readline()
        before = affinity.cpu_seconds(proc.pid)
        for _ in range(30):
            proc.stdin.write("go\n")
            proc.stdin.flush()
            proc.stdout.readline()
        after = affinity.cpu_seconds(proc.pid)
        proc.stdin.close()
        proc.wait(timeout=60)
    finally:
        proc.kill()
    assert before is not None and after is not None
    assert after[0] - before[0] > 0.05  # 30 sums of a million numbers take well over 50 ms of CPU
    assert after[1] >= before[1]
    assert affinity.cpu_share(before, after, after[0] - before[0]) == pytest.approx(1.0, abs=0.5)
    assert affinity.cpu_seconds(proc.pid) is None  # gone


def test_a_launch_leaves_the_measuring_cpu_before_it_is_closed():
    """A retired launch's exit must not run beside launches still measured; once the group is done,
    the last ones may exit anywhere."""
    clock = FakeClock()
    placement = FakePlacement()
    pids = iter(range(100, 400))
    closed_while_on_cpu = []

    def launch(case, i):
        w = FakeWorker(clock, 2000.0, noise=0.002, seed=i, launch_offset_ns=300.0 * (i % 5 - 2))
        w.hello.pid = next(pids)
        close = w.close

        def checked_close(w=w):
            if not {("off", w.hello.pid), ("anywhere", w.hello.pid)} & set(placement.events):
                closed_while_on_cpu.append(w.hello.pid)
            close()
        w.close = checked_close
        return w

    job = get_job("default")
    [res] = Engine(job, launch, clock=clock, rng=random.Random(1), placement=placement).run_group([make_case()])
    assert len(res.launches) > job.launches_live  # launches were retired and renewed
    assert closed_while_on_cpu == []
    moved_off = {e[1] for e in placement.events if e[0] == "off"}
    anywhere = {e[1] for e in placement.events if e[0] == "anywhere"}
    assert len(anywhere) <= job.launches_live and moved_off and not moved_off & anywhere


def _differing_launches(clock, placement):
    """A launcher of processes that differ by a few percent (so the case renews its launches), which
    records each worker, whether perflab's process was held off the measuring CPU when it started,
    and, at its setup, whether it had been given every CPU back."""
    pids = iter(range(100, 400))
    started = []

    def launch(case, i):
        w = FakeWorker(clock, 2000.0, noise=0.002, seed=i, launch_offset_ns=300.0 * (i % 5 - 2))
        w.hello.pid = next(pids)
        w.aside = placement.held
        setup = w.setup

        def checked_setup(*args, w=w):
            w.freed = ("join", w.hello.pid) in placement.events
            setup(*args)
        w.setup = checked_setup
        started.append(w)
        return w
    return launch, started


def test_later_launches_are_on_the_measuring_cpu_from_their_warmup_when_the_first_was_pinned():
    """A launch lives for a dozen iterations: left to the scheduler until a probe window of its own
    pinned it, whole processes came out 10-35 % slow. Launches of renewals (here started then, not
    ahead) join before their setup, pinned when the case's first launch was pinned, else not."""
    for parallel in (False, True):
        clock = FakeClock()
        placement = FakePlacement(parallel=range(100, 400) if parallel else ())
        launch, started = _differing_launches(clock, placement)
        job = get_job("default")
        [res] = Engine(job, launch, clock=clock, rng=random.Random(1), placement=placement,
                       starts_aside=lambda case: False).run_group([make_case()])
        assert len(res.launches) > job.launches_min
        # the first launches attach together, before the first one's probe window has decided
        first, later = res.launches[0], {ln.pid for ln in res.launches[job.launches_min:]}
        assert (first.cpu is None) == parallel
        for w in started:
            if w.hello.pid in later:
                assert w.freed and placement.joined[w.hello.pid] == (not parallel)


def test_processes_for_the_next_renewal_start_ahead_off_the_measuring_cpu():
    clock, placement = FakeClock(), FakePlacement()
    launch, started = _differing_launches(clock, placement)
    job = get_job("default")
    [res] = Engine(job, launch, clock=clock, rng=random.Random(1), placement=placement,
                   starts_aside=lambda case: True, executor=InlineExecutor).run_group([make_case()])
    used = {ln.pid for ln in res.launches}
    assert len(used) > job.launches_live  # renewed, several times
    aside = [w for w in started if w.aside]
    # every renewal after the first judgement was served by processes started ahead, while the
    # others were measured (perflab's process held off the measuring CPU, so they started off it too)
    assert len([w for w in started if not w.aside]) == job.launches_min
    # each got every CPU back before its setup; the ones never used were closed, unset up
    for w in aside:
        if w.hello.pid in used:
            assert w.freed
        else:
            assert not any(c[0] == "setup" for c in w.calls)
    assert all(w.closed for w in started)


def test_no_process_starts_ahead_for_a_runtime_that_sizes_itself_by_its_cpus_or_without_a_spare_cpu():
    for starts_aside, spare in ((False, True), (True, False)):
        clock, placement = FakeClock(), FakePlacement(spare=spare)
        launch, started = _differing_launches(clock, placement)
        [res] = Engine(get_job("default"), launch, clock=clock, rng=random.Random(1), placement=placement,
                       starts_aside=lambda case: starts_aside, executor=InlineExecutor).run_group([make_case()])
        assert len(res.launches) > get_job("default").launches_live
        assert not any(w.aside for w in started) and all(w.closed for w in started)


def test_starts_ahead_pause_while_they_slow_perflab_and_are_tried_again_later():
    """On a machine whose other CPU is busy, a start ahead shares perflab's CPU with that load, and
    perflab answers every iteration later: then starting ahead costs more than it saves."""
    from perflab.engine import runner
    clock = FakeClock()
    engine = Engine(get_job("default"), lambda case, i: None, clock=clock, placement=FakePlacement(),
                    starts_aside=lambda case: True)
    engine._lag_n = {True: 30, False: 300}
    engine._lag = {True: 0.0012, False: 0.0010}  # 0.2 ms more per iteration: worth it
    assert not engine._ahead_hurts()
    engine._lag = {True: 0.0035, False: 0.0010}  # as measured with the other core busy
    engine._lag_n[True] = 5
    assert not engine._ahead_hurts()  # too few iterations to tell
    engine._lag_n[True] = 30
    assert engine._ahead_hurts()
    clock.t += DEFAULT.starts.ahead_pause_s / 2
    engine._lag[False] = 0.0010
    assert engine._ahead_hurts()  # still paused, though nothing was measured while starting
    clock.t += DEFAULT.starts.ahead_pause_s
    assert not engine._ahead_hurts()  # tried afresh
    assert engine._lag_n[True] == 0


def test_a_launch_given_every_cpu_gets_the_runs_cpus_not_the_held_hosts(monkeypatch):
    """While measuring, the host holds itself on the other CPU; `sched_getaffinity(0)` is then that
    one CPU. A launch left on every CPU (a ping-pong) must still get every CPU of the run: read at
    that moment, its threads ran together on the host's CPU — another measurement than its first
    launch's."""
    held = [False]
    monkeypatch.setattr(affinity, "allowed_cpus", lambda: {1} if held[0] else {0, 1})
    monkeypatch.setattr(affinity, "pin_process", lambda pid, cpus: held.__setitem__(0, set(cpus) == {1}) or True)
    pinned = []
    monkeypatch.setattr(affinity, "pin_launch", lambda pid, cpus: pinned.append((pid, set(cpus))) or True)
    place = Placement.choose("0")
    place.hold_host()
    assert held[0] and place.can_start_aside()
    place.join(10, single=False)  # left alone: every CPU
    place.join(11, single=True)  # one CPU at a time: the measuring CPU
    place.move_off(12)  # done measuring: off the measuring CPU
    place.unpin(13)
    assert pinned == [(10, {0, 1}), (11, {0}), (12, {1}), (13, {0, 1})]
    place.release_host()
    assert not held[0]


@pytest.mark.skipif(not affinity.supported() or len(affinity.allowed_cpus()) < 2, reason="needs Linux and two CPUs")
def test_a_real_process_joined_while_the_host_is_held_has_every_cpu():
    cpus = affinity.allowed_cpus()
    place = Placement.choose(str(min(cpus)))
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        place.hold_host()
        assert os.sched_getaffinity(0) == cpus - {min(cpus)}
        place.join(child.pid, single=False)
        assert os.sched_getaffinity(child.pid) == cpus
    finally:
        place.release_host()
        child.kill()
        child.wait()
    assert os.sched_getaffinity(0) == cpus
