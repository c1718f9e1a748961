"""The protocol vectors: the host against protocol/vectors/host, the Python worker against
protocol/vectors/worker on every CPython 3.8+ and PyPy found on the machine."""
import json
import tempfile
from pathlib import Path

import pytest

from perflab.conformance import FIXTURES, VECTORS, VectorFailed, run_vector
from perflab.engine.worker import (BenchmarkError, parse_cpu_clock, expected_reply, validate_hello,
                                   validate_reply)
from perflab.errors import ProtocolError
from perflab.model import PROTOCOL_VERSION
from perflab.runtimes import python as pyruntimes
from perflab.toolchains.python import PythonToolchain

ROOT = Path(__file__).resolve().parents[1]
HOST = json.loads((ROOT / "protocol/vectors/host/vectors.json").read_text())["cases"]
ERRORS = {"ProtocolError": ProtocolError, "BenchmarkError": BenchmarkError}


@pytest.mark.parametrize("case", HOST, ids=[c["name"] for c in HOST])
def test_host_treats_worker_messages_as_the_vectors_say(case):
    def check():
        if case["kind"] == "hello":
            return validate_hello(case["message"], "T")
        request = {"v": PROTOCOL_VERSION, "id": 7, **case["request"]}
        return validate_reply(case["message"], 7, expected_reply(request), request,
                              parse_cpu_clock(case.get("cpu_clock")))

    if case["expect"] == "ok":
        check()
    else:
        with pytest.raises(ERRORS[case["expect"]["error"]]) as info:
            check()
        assert case["expect"]["contains"] in str(info.value)


PYTHONS = [rt for rt in pyruntimes.discover()]
WORKER_VECTORS = sorted(VECTORS.glob("*.json"))


def test_there_are_pythons_to_check():
    names = {rt.name for rt in PYTHONS}
    assert names, "no Python runtime found"


@pytest.mark.parametrize("runtime", PYTHONS, ids=[r.name for r in PYTHONS])
def test_python_worker_passes_every_worker_vector(runtime):
    tc = PythonToolchain()
    sources = tc.find_sources(FIXTURES / "python")
    spec = tc.prepare(runtime, sources, Path(tempfile.mkdtemp()))
    failures = []
    for path in WORKER_VECTORS:
        try:
            run_vector(spec, json.loads(path.read_text()))
        except VectorFailed as exc:
            failures.append(f"{path.stem}: {exc}")
    assert not failures, "\n".join(failures)


def test_a_worker_that_breaks_a_vector_is_caught(tmp_path):
    """The conformance runner itself must be able to fail: a fixture whose `sized` axis is wrong."""
    (tmp_path / "bench_conformance.py").write_text(
        (FIXTURES / "python" / "bench_conformance.py").read_text().replace("[1, 10, 100]", "[1, 10]"))
    tc = PythonToolchain()
    spec = tc.prepare(PYTHONS[0], tc.find_sources(tmp_path), tmp_path)
    with pytest.raises(VectorFailed, match="sized.params"):
        run_vector(spec, json.loads((VECTORS / "01-load.json").read_text()))
