"""A delegating worker (Go's multiplexer) measures in its children: the host's own CPU time, the
pinning probe and the pin follow them (engine/proctree.py)."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from perflab.engine import affinity, host, proctree

pytestmark = pytest.mark.skipif(not affinity.supported(), reason="needs Linux /proc")

# a parent that starts a child which burns CPU until told to stop (stdin closes), and waits for it
PARENT = r"""
import subprocess, sys
child = subprocess.Popen([sys.executable, "-c",
    "import sys, threading\n"
    "stop = []\n"
    "threading.Thread(target=lambda: (sys.stdin.read(), stop.append(1)), daemon=True).start()\n"
    "print('busy', flush=True)\n"
    "while not stop: sum(range(1000))\n"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
print(child.pid, flush=True)
print(child.stdout.readline().strip(), flush=True)
sys.stdin.read()
child.stdin.close()
child.wait()
"""


@pytest.fixture
def tree():
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
        assert parent.stdout.readline().strip() == "busy"
        yield parent, child
    finally:
        proctree.forget(parent.pid)
        parent.stdin.close()
        parent.wait(timeout=30)


def _cpu_of(pid: int) -> float:
    """A process's own CPU time (user + system) from /proc: the ground truth the readings follow."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _while_child_burns(read, child: int, cpu: float = 0.3, limit: float = 120.0) -> tuple[float, float]:
    """(what `read` grew by, what the child's own CPU time grew by) over a window that lasts until the
    child has used `cpu` seconds of CPU: on a busy machine that takes longer, never less CPU. The
    reads of `read` bracket those of the child, so a reading that counts the child grew at least as
    much as the child did (less one clock tick of each)."""
    before = read()
    start = _cpu_of(child)
    deadline = time.monotonic() + limit
    while _cpu_of(child) - start < cpu:
        assert time.monotonic() < deadline, f"the child got under {cpu} s of CPU in {limit} s"
        time.sleep(0.05)
    grew = _cpu_of(child) - start
    return read() - before, grew


TICK = 2 / os.sysconf("SC_CLK_TCK")  # /proc counts CPU time in clock ticks: one on each reading


def test_only_a_delegating_worker_is_followed_to_its_children(tree):
    parent, child = tree
    assert proctree.family(parent.pid) == [parent.pid]
    proctree.delegate(parent.pid)
    assert proctree.family(parent.pid) == [parent.pid, child]
    proctree.forget(parent.pid)
    assert proctree.family(parent.pid) == [parent.pid]


def test_the_hosts_own_cpu_time_counts_a_delegating_workers_busy_child(tree):
    parent, child = tree
    proctree.started(parent.pid)  # as engine/worker.py registers a worker it starts
    assert parent.pid in proctree.host_children()
    # not followed: the busy grandchild's CPU time shows nowhere in the host's own (it would be
    # counted as other work's); the host itself only polls meanwhile
    host_grew, child_grew = _while_child_burns(host.own_cpu_seconds, child)
    assert host_grew < child_grew / 2, (host_grew, child_grew)
    proctree.delegate(parent.pid)
    host_grew, child_grew = _while_child_burns(host.own_cpu_seconds, child)
    assert host_grew >= child_grew - TICK, (host_grew, child_grew)
    proctree.forget(parent.pid)  # reaped: no longer read (its pid may be reused)
    assert parent.pid not in proctree.host_children()


def test_a_worker_registers_itself_and_is_forgotten_once_closed(tmp_path):
    """The host's readings read the children it started (engine/worker.py registers each worker),
    not every host thread's /proc children file; a closed worker is no longer read."""
    import shutil

    from perflab.engine.plan import open_worker
    from perflab.runtimes.python import describe
    from perflab.toolchains.python import PythonToolchain
    path = tmp_path / "bench_x.py"
    path.write_text("import perflab\n\n@perflab.benchmark\ndef noop():\n    pass\n")
    spec = PythonToolchain().prepare(describe(shutil.which("python3") or sys.executable), [path], tmp_path)
    w, _ = open_worker(spec, 30)
    pid = w.proc.pid
    try:
        assert pid in proctree.host_children()
    finally:
        w.close()
    assert pid not in proctree.host_children()


def test_the_pinning_probe_sees_the_childs_cpu_time_and_the_pin_reaches_it(tree):
    parent, child = tree
    reading = lambda: affinity.cpu_seconds(parent.pid)[0]  # noqa: E731
    probe_grew, child_grew = _while_child_burns(reading, child)
    assert probe_grew < child_grew / 2, (probe_grew, child_grew)  # the parent itself only waits
    proctree.delegate(parent.pid)
    probe_grew, child_grew = _while_child_burns(reading, child)
    assert probe_grew >= child_grew - TICK, (probe_grew, child_grew)
    cpus = affinity.allowed_cpus()
    if len(cpus) < 2:
        pytest.skip("pinning to one of several CPUs needs two")
    one = {min(cpus)}
    try:
        assert affinity.pin_launch(parent.pid, one)
        assert os.sched_getaffinity(child) == one
    finally:
        affinity.pin_launch(parent.pid, cpus)
