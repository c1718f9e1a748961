"""perflab.cluster.node without Ray: a machine that cannot run a group's runtime says why and
measures nothing (the driver then sends the group to another machine, or fails it with the reasons)."""
import pytest

from perflab.cluster import node
from perflab.cluster.node import RuntimeMissing, measure_group
from perflab.jobs import get_job
from perflab.model import Benchmark, Case, Runtime


def test_a_machine_without_the_benchmarks_refuses_the_group_and_sends_nothing(tmp_path):
    rt = Runtime(name="python3.11", language="python", version="3.11", executable="/usr/bin/python3")
    bench = Benchmark(id="bench_x.f", name="f", group="bench_x", language="python",
                      file=str(tmp_path / "bench_x.py"))
    sent = []
    with pytest.raises(RuntimeMissing, match="bench_x.py: not on this machine"):
        measure_group([Case(bench, (), rt)], {"python": (str(tmp_path / "bench_x.py"),)},
                      get_job("dry"), 1, sent.append, {"host": "m1", "node": "abcdef0123"})
    assert sent == []
    node._PREPARED.clear()


def test_the_machine_record_names_the_node_and_its_fingerprint():
    who = node.machine("n1")
    assert who["node"] == "n1" and who["host"] and len(who["fingerprint"]) == 16
    assert set(who["fingerprint_parts"]) >= {"cpu_model", "kernel", "logical_cores"}


def test_without_ray_the_error_names_the_install(monkeypatch):
    import sys

    from perflab.cluster import require_ray
    from perflab.errors import UsageError
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    with pytest.raises(UsageError, match=r"pip install perflab\[ray\]"):
        require_ray()
