"""The driver sends a group that one machine cannot run to another: on a real Ray cluster of two nodes
on loopback, where the second node lacks the runtime (its Python is a wrapper that fails there, set by
an environment variable of that node only).

Deterministic: while the group is submitted, the only free slot is the lacking node's (the test holds
the other node's slot with a task of its own), so the group must go there first and be refused; the
test frees the other slot only once the driver has recorded the refusal."""
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from rich.console import Console

ray = pytest.importorskip("ray")

from loopback_cluster import loopback_cluster  # noqa: E402
from perflab.cluster import SLOT  # noqa: E402
from perflab.cluster.driver import Driver  # noqa: E402
from perflab.commands.common import prepare_all  # noqa: E402
from perflab.engine.plan import build_plan  # noqa: E402
from perflab.jobs import get_job  # noqa: E402
from perflab.progress import Reporter  # noqa: E402

LACKS = "PERFLAB_TEST_NO_PYTHON_HERE"
WRAPPER = f"""#!/bin/sh
# a Python that exists on some machines only: where {LACKS} is set, it cannot start
if [ -n "${LACKS}" ]; then echo "no python on this machine" >&2; exit 127; fi
exec {sys.executable} "$@"
"""
BENCH = """
import perflab

@perflab.benchmark
def one():
    return 1

@perflab.benchmark
def two():
    return 2
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Two loopback nodes: the head (node 0) has the runtime, node 1 does not."""
    with loopback_cluster("2", "--env", f"1:{LACKS}=1") as (_, address):
        yield address


class Progress:
    def current(self, name: str) -> None:
        pass


def wait_for(condition, what: str, seconds: float = 120.0) -> None:
    deadline = time.time() + seconds
    while not condition():
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_a_group_refused_by_a_machine_without_its_runtime_is_measured_on_another(cluster, tmp_path,
                                                                                 monkeypatch):
    # this process joins the cluster on loopback too: Ray reads RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER when
    # it is first imported (by any test module), so the switch it sets is set here
    from ray._private import ray_constants
    monkeypatch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", False)
    python = tmp_path / "python-on-some-machines"
    python.write_text(WRAPPER)
    python.chmod(0o755)
    (tmp_path / "bench_refusal.py").write_text(BENCH)
    job = get_job("dry")
    prepared = prepare_all([tmp_path / "bench_refusal.py"], str(python), job.timeout_s, tmp_path / "work",
                           reporter=Reporter(Console(quiet=True)))
    assert not any(p.error for p in prepared)  # this machine (the driver's) has the runtime
    plan = build_plan(prepared, [], [])
    assert len(plan.groups) == 2  # two benchmarks on one runtime: two groups

    ray.init(address=cluster, _node_ip_address="127.0.0.1", log_to_driver=False, logging_level="ERROR")
    try:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
        head = next(n["NodeID"] for n in ray.nodes()
                    if n["Alive"] and "node:__internal_head__" in n["Resources"])
        release = tmp_path / "release"

        def hold_slot(seconds: float, path: str) -> None:
            """Holds a slot until the file `path` exists (or `seconds` pass: a test that failed).
            Nested, so that Ray sends it by value: the workers cannot import this test module."""
            deadline = time.time() + seconds
            while not os.path.exists(path) and time.time() < deadline:
                time.sleep(0.05)
        holder = ray.remote(hold_slot).options(
            resources={SLOT: 1}, num_cpus=0,
            scheduling_strategy=NodeAffinitySchedulingStrategy(head, soft=False)).remote(300, str(release))
        def holding() -> bool:
            if ray.wait([holder], timeout=0)[0]:
                ray.get(holder)  # it ended at once: its error
            return ray.available_resources().get(SLOT, 0) <= 1
        wait_for(holding, "the test's task to hold the head's slot")

        driver = Driver(cluster, job, seed=1)
        results, failures = [], []

        def run():
            try:
                driver.run(plan, prepared, results.append, Progress())
            except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
                failures.append(exc)
        thread = threading.Thread(target=run)
        thread.start()
        # both groups can only go to node 1, which lacks the runtime: each is refused there
        wait_for(lambda: driver.stats["refused"] >= 2 or failures, "node 1 to refuse both groups")
        release.touch()  # the head's slot frees: the refused groups go there
        thread.join(timeout=300)
        assert not thread.is_alive() and not failures, failures
        ray.get(holder)
    finally:
        ray.shutdown()

    assert driver.stats["refused"] == 2 and driver.stats["lost_groups"] == 0
    assert sorted(r.case.benchmark.name for r in results) == ["one", "two"]  # each once
    for r in results:
        assert r.ok, r.error
        assert r.machine["node"] == head  # measured on the machine that has the runtime
