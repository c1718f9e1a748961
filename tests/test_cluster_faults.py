"""What the Ray documentation of `--cluster` promises (docs/cluster.md), checked: `pip install
perflab[ray]` brings what a ray:// address needs; a driver pointed at a loopback cluster works without
any Ray environment variable; a worker process that dies is told apart from a machine that dies, and a
group whose task keeps dying fails instead of being sent out again forever."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from workerkit import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ray = pytest.importorskip("ray")

from loopback_cluster import ENV, loopback_cluster  # noqa: E402
from perflab.cluster import driver  # noqa: E402
from perflab.policy import DEFAULT  # noqa: E402
from perflab.errors import UsageError  # noqa: E402


def test_the_ray_extra_brings_ray_client():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(r.replace(" ", "").startswith("ray[client]") for r in extras["ray"]), extras["ray"]
    import grpc  # noqa: F401 - installed with the extra: Ray Client's transport


def test_a_ray_address_without_ray_client_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "grpc", None)  # as if only `ray` were installed
    with pytest.raises(UsageError, match=r"ray:// address needs Ray Client: pip install 'perflab\[ray\]'"):
        driver.Driver("ray://10.0.0.1:10001", job=None).connect()


def test_addresses_name_their_host():
    assert driver.host_of("127.0.0.1:6379") == "127.0.0.1"
    assert driver.host_of("ray://localhost:10001") == "localhost"
    assert driver.host_of("[::1]:6379") == "::1"
    assert driver.host_of("auto") == ""


class FakeRay:
    """What the driver asks of Ray to connect and to tell a lost worker from a lost machine."""

    class exceptions:
        class RayError(Exception):
            pass

        class NodeDiedError(RayError):
            pass

        class WorkerCrashedError(RayError):
            pass

    def __init__(self, nodes=()):
        self._nodes, self.init_calls = list(nodes), []

    def is_initialized(self):
        return False

    def init(self, **kw):
        from ray._private import ray_constants
        self.init_calls.append({**kw, "enable_ray_cluster": ray_constants.ENABLE_RAY_CLUSTER})

    def cluster_resources(self):
        return {driver.SLOT: 1}

    def nodes(self):
        return self._nodes


def fake_driver(monkeypatch, fake, address="10.0.0.1:6379"):
    monkeypatch.setattr(driver, "require_ray", lambda: fake)
    return driver.Driver(address, job=None)


def test_a_loopback_address_keeps_ray_on_loopback_without_environment(monkeypatch):
    from ray._private import ray_constants
    monkeypatch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", True)  # as without the variable
    fake = FakeRay()
    fake_driver(monkeypatch, fake, "127.0.0.1:6379").connect()
    assert fake.init_calls == [{"address": "127.0.0.1:6379", "log_to_driver": False, "logging_level": "ERROR",
                                "_node_ip_address": "127.0.0.1", "enable_ray_cluster": False}]
    monkeypatch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", True)
    fake = FakeRay()
    fake_driver(monkeypatch, fake, "10.0.0.1:6379").connect()  # a real network: left as Ray has it
    assert fake.init_calls[0]["enable_ray_cluster"] and "_node_ip_address" not in fake.init_calls[0]


def test_a_lost_task_on_a_machine_whose_raylet_answers_lost_only_its_worker(monkeypatch):
    import socket
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen(1)
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    closed.close()
    try:
        fake = FakeRay([{"NodeID": "up", "Alive": True, "NodeManagerAddress": "127.0.0.1",
                         "NodeManagerPort": listening.getsockname()[1]},
                        {"NodeID": "gone", "Alive": True, "NodeManagerAddress": "127.0.0.1",
                         "NodeManagerPort": closed_port},
                        {"NodeID": "dead", "Alive": False}])
        d = fake_driver(monkeypatch, fake)
        crashed = fake.exceptions.WorkerCrashedError("The worker died unexpectedly")
        assert d._what_was_lost(crashed, "up") == "its worker process was lost (its machine is still up)"
        assert d._what_was_lost(crashed, "gone") == "its first machine was lost"  # raylet silent
        assert d._what_was_lost(crashed, "dead") == "its first machine was lost"
        assert d._what_was_lost(crashed, "") == "its first machine was lost"  # never said where
        assert d._what_was_lost(fake.exceptions.NodeDiedError("node died"), "up") == "its first machine was lost"
    finally:
        listening.close()


# -- on a loopback cluster ----------------------------------------------------------------------

KILLS_ITS_HOST = """
import os, signal
from pathlib import Path

import perflab

ONCE = Path({marker!r})


@perflab.benchmark
def once():
    # the first time: kill the Ray worker process that runs this group (the perflab worker's
    # parent); the machine, its raylet, stay up
    if not ONCE.exists():
        ONCE.write_text("killed")
        os.kill(os.getppid(), signal.SIGKILL)
    return 1


@perflab.benchmark
def always():
    os.kill(os.getppid(), signal.SIGKILL)
"""


@pytest.fixture(scope="module")
def cluster():
    with loopback_cluster("1") as (proc, address):
        yield address


def run(*args, env):
    return subprocess.run([sys.executable, "-m", "perflab.cli", "run", *args], capture_output=True,
                          text=True, env=env, timeout=600)


def test_a_loopback_driver_needs_no_ray_environment(cluster, tmp_path):
    bench = tmp_path / "bench_plain.py"
    bench.write_text("def bench_a():\n    return 1\n\ndef bench_b():\n    return 2\n")
    env = {k: v for k, v in ENV.items() if k != "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"}
    r = run(str(bench), "--job", "dry", "--cluster", cluster, "--store", "none", "-o",
            str(tmp_path / "out"), "--json", "--quiet", env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert [c["status"] for c in json.loads(r.stdout)["cases"]] == ["ok", "ok"]


def test_a_lost_worker_process_is_not_a_lost_machine(cluster, tmp_path):
    bench = tmp_path / "bench_kills.py"
    bench.write_text(KILLS_ITS_HOST.format(marker=str(tmp_path / "killed-once")))
    r = run(str(bench), "--job", "dry", "--cluster", cluster, "--store", "none", "-o",
            str(tmp_path / "out"), "--exporters", "json", "--json", env=ENV)
    assert r.returncode == 1, r.stderr[-3000:]
    # stdout is the document alone: Ray's "(raylet) A worker died…" lines went to stderr (they
    # came first on stdout and the document did not parse)
    cases = {c["benchmark"]["name"]: c for c in json.loads(r.stdout)["cases"]}
    once, always = cases["once"], cases["always"]
    assert once["status"] == "ok"
    assert once["rerun"].startswith("measured again: its worker process was lost (its machine is "
                                    "still up) mid-group"), once["rerun"]
    assert always["status"] == "failed"
    assert always["error"].startswith(f"lost {DEFAULT.cluster.max_losses} times mid-group, last: its worker "
                                      "process was lost"), always["error"]
    assert "0 lost with their machine" in r.stderr
