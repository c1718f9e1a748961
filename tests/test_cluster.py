"""perflab run --cluster on a real Ray cluster of two nodes on this machine, every process on loopback.

One cluster for the module (a Ray node takes seconds to start), run by perflab.cluster.loopback in its
own process; `kill 1` there kills every process of the second node at once, as a machine that dies."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from loopback_cluster import ENV, loopback_cluster
from perflab.store import open_store

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def cluster():
    with loopback_cluster("2") as (proc, address):
        assert address.startswith("127.0.0.1:")

        def kill_second_node():
            proc.stdin.write("kill 1\n")
            proc.stdin.flush()
            assert proc.stdout.readline().strip() == "killed"
        yield {"address": address, "kill_second_node": kill_second_node}


BENCH = """
import time, perflab

{benchmarks}
"""


def write_benchmarks(folder: Path, n: int, sleep_s: float) -> Path:
    body = "\n".join(f"@perflab.benchmark\ndef b{i:02d}():\n    time.sleep({sleep_s})\n" for i in range(n))
    path = folder / "bench_cluster.py"
    path.write_text(BENCH.format(benchmarks=body))
    return path


def perflab(*args, **kw):
    return subprocess.run([sys.executable, "-m", "perflab.cli", *args], capture_output=True, text=True,
                          env=ENV, **kw)


def test_a_run_across_two_machines_fills_one_document_and_store(cluster, tmp_path):
    bench = write_benchmarks(tmp_path, 6, 0.0)
    url = f"sqlite:///{tmp_path / 'h.db'}"
    r = perflab("run", str(bench), "--job", "dry", "--cluster", cluster["address"], "--store", url,
                "-o", str(tmp_path / "out"), "--exporters", "json", timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    [doc_path] = (tmp_path / "out").glob("perflab-*.json")
    doc = json.loads(doc_path.read_text())
    keys = [c["key"] for c in doc["cases"]]
    assert len(keys) == 6 and len(set(keys)) == 6
    assert all(c["status"] == "ok" and c["machine"]["node"] and c["machine"]["fingerprint"]
               for c in doc["cases"])
    [run] = open_store(url).runs()
    assert run["complete"] and run["cases"] == 6


def test_a_machine_killed_mid_run_loses_nothing_and_measures_nothing_twice(cluster, tmp_path):
    bench = write_benchmarks(tmp_path, 8, 0.002)
    url = f"sqlite:///{tmp_path / 'h.db'}"
    # a target no case reaches: every group measures its whole 2 s
    proc = subprocess.Popen([sys.executable, "-m", "perflab.cli", "run", str(bench), "--job", "short",
                             "--budget", "2", "--target", "0.00001", "--cluster", cluster["address"], "--store", url,
                             "-o", str(tmp_path / "out"), "--exporters", "json"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV)
    store = open_store(url)
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        runs = store.runs()
        if runs and runs[0]["cases"] >= 2:
            break
        time.sleep(0.1)
    # the first two groups end together, one on each machine; the machine dies halfway through its next
    # group, not in the moment Ray takes to hand it one (killed then, it lost nothing)
    time.sleep(1.0)
    cluster["kill_second_node"]()  # the machine dies: its raylet and processes, kill -9
    _, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 0, stderr[-3000:]
    [doc_path] = (tmp_path / "out").glob("perflab-*.json")
    doc = json.loads(doc_path.read_text())
    keys = [c["key"] for c in doc["cases"]]
    assert len(keys) == 8 and len(set(keys)) == 8  # every case, once
    assert all(c["status"] == "ok" for c in doc["cases"]), [c["error"] for c in doc["cases"]]
    [run] = store.runs()
    assert run["complete"] and run["cases"] == 8
    # a case marked as measured again was measured after the loss, on a machine still alive
    for c in doc["cases"]:
        if c["rerun"]:
            assert "lost" in c["rerun"]
    [line] = [ln for ln in stderr.splitlines() if ln.startswith("cluster:")]
    lost = int(line.split(";")[1].split()[0])
    rerun = sum(1 for c in doc["cases"] if c["rerun"])
    assert f"{rerun} case(s) measured again elsewhere" in line
    # the node was measuring (8 groups of 2 s on two slots): its group task is lost; its case is
    # measured again unless it had come back before the node died
    assert lost >= 1, (line, [(c["key"], c["machine"]["node"][:8]) for c in doc["cases"]])


GATED = """
import os, time, perflab

GATES = {gates!r}


def gate(name):
    # a case starts held: it says so, and waits until the test lets it (or every case) go on
    if not os.path.exists(os.path.join(GATES, "go-" + name)):
        open(os.path.join(GATES, "started-" + name), "w").close()
        while not (os.path.exists(os.path.join(GATES, "go-" + name)) or os.path.exists(os.path.join(GATES, "go-all"))):
            time.sleep(0.01)

{benchmarks}
"""


def write_gated_benchmarks(folder: Path, n: int, sleep_s: float) -> tuple[Path, Path]:
    """`n` benchmarks that each wait, when they start, for the test to let them go (`gates`/go-NAME)."""
    gates = folder / "gates"
    gates.mkdir()
    body = "\n".join(f"@perflab.benchmark\ndef b{i:02d}():\n    gate('b{i:02d}')\n    time.sleep({sleep_s})\n"
                     for i in range(n))
    path = folder / "bench_gated.py"
    path.write_text(GATED.format(gates=str(gates), benchmarks=body))
    return path, gates


def test_a_killed_driver_resumes_and_submits_only_what_is_missing(cluster, tmp_path):
    # the test lets two cases finish, whichever Ray starts first, and kills the driver while the
    # others are held: mid-run however fast the machine (waiting for the store to hold two cases
    # raced the run's end, as fast cases reach the store in batches)
    bench, gates = write_gated_benchmarks(tmp_path, 6, 0.002)
    url = f"sqlite:///{tmp_path / 'h.db'}"
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "perflab.cli", "run", str(bench), "--job", "short",
                             "--budget", "2", "--cluster", cluster["address"], "--store", url,
                             "-o", str(out), "--exporters", "json"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV,
                            start_new_session=True)
    deadline = time.time() + 300
    released, logged = set(), []
    while time.time() < deadline and proc.poll() is None and len(logged) < 2:
        for started in gates.glob("started-*"):
            name = started.name.removeprefix("started-")
            if len(released) < 2 and name not in released:
                (gates / f"go-{name}").write_text("")
                released.add(name)
        logs = list(out.glob("perflab-*.jsonl"))
        logged = logs[0].read_text().splitlines() if logs else []
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # kill -9 the driver
    proc.wait()
    before = {c["key"]: c for c in map(json.loads, logged)}
    assert len(before) == 2 and {c["benchmark"]["name"] for c in before.values()} == released
    store = open_store(url)
    [run] = store.runs()
    assert not run["complete"]
    assert {c["key"] for c in store.cases(run["id"])} <= set(before)  # nothing stored that was not logged
    (gates / "go-all").write_text("")
    r = perflab("run", "--resume", "--store", url, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert f"resuming run #{run['id']}" in r.stderr
    line = next(ln for ln in r.stderr.splitlines() if ln.startswith("cluster:"))
    assert int(line.split()[1]) == 6 - len(before)  # one group task per missing case's group
    [run] = store.runs()
    after = {c["key"]: c for c in store.cases(run["id"])}
    assert run["complete"] and len(after) == 6
    for key, c in before.items():  # measured before the kill: kept, not measured again
        assert after[key]["launches"] == c["launches"]
