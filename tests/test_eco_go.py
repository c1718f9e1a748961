"""bench/eco/go_testing.py: the Go corpus study's parsing of `go test -bench` output, its naming of
sub-benchmark cases, and the CI slice (`bench/ecosystems.py --ecosystems go --slice --job dry
--no-native`) end to end: one pinned module from the Go module proxy, every benchmark run unchanged."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from workerkit import REPO

sys.path.insert(0, str(REPO / "bench"))

from eco import go_testing  # noqa: E402

GO_TEST_OUTPUT = """goos: linux
goarch: amd64
pkg: github.com/cespare/xxhash/v2
cpu: Intel(R) Xeon(R) Processor
BenchmarkSum64/4B-2         	369171541	         3.250 ns/op	1230.83 MB/s	       0 B/op	       0 allocs/op
BenchmarkSum64/4B-2         	360000000	         3.750 ns/op	1066.67 MB/s	       0 B/op	       0 allocs/op
BenchmarkParse              	 5000000	       241 ns/op
BenchmarkUUID_String-2      	 9000000	       130.5 ns/op	      48 B/op	       1 allocs/op
PASS
ok  	github.com/cespare/xxhash/v2	12.345s
"""


def test_native_samples_drop_the_gomaxprocs_suffix_and_the_prefix():
    got = go_testing.native_samples(GO_TEST_OUTPUT)
    assert got == {"Sum64/4B": [3.25, 3.75], "Parse": [241.0], "UUID_String": [130.5]}


def test_mean_interval_is_student_t_at_99_9():
    mean, lo, hi = go_testing.mean_interval([10.0] * 5 + [12.0] * 5)
    assert mean == 11.0 and lo < mean < hi
    assert hi - mean == pytest.approx(4.781 * (1.0540925533894598 / 10 ** 0.5))
    assert go_testing.mean_interval([5.0]) == (5.0, None, None)


def test_leaf_name_rebuilds_the_go_test_name():
    case = {"benchmark": {"name": "Sum64"}, "params": {"case": "4B"}}
    assert go_testing.leaf_name(case) == "Sum64/4B"
    case = {"benchmark": {"name": "Nested"}, "params": {"codec": "json", "n": "10"}}
    assert go_testing.leaf_name(case) == "Nested/codec=json/n=10"
    assert go_testing.leaf_name({"benchmark": {"name": "Parse"}, "params": {}}) == "Parse"


def test_manifest_is_pinned():
    assert len(go_testing.MANIFEST) >= 5
    for pkg in go_testing.MANIFEST:
        assert pkg.registry == "go" and len(pkg.sha256) == 64 and pkg.version.startswith("v")
        assert go_testing.GOSUM[pkg.name].startswith("h1:") and go_testing.SUBSETS[pkg.name]
    assert go_testing.SLICE in {p.name for p in go_testing.MANIFEST}


@pytest.mark.skipif(shutil.which("go") is None, reason="no go on PATH")
def test_ci_slice_runs_unchanged(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "ecosystems.py"), "--ecosystems", "go",
                           "--slice", "--job", "dry", "--no-native", "--out", str(out)],
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    [result] = json.loads((out / "ecosystems.json").read_text())["go"]
    assert result["package"] == go_testing.SLICE and not result["error"]
    assert result["benchmarks_found"] > 0 and result["ran_unchanged"] == result["benchmarks_found"]
    assert result["protocol_errors"] == 0 and result["failed_alone"] == []


def test_contention_is_named_only_when_the_cpu_share_shows_it():
    """The study named machine contention for every disagreement, even when go test's process had a
    whole CPU (share 1.0) or perflab was the slower: waiting cannot explain either."""
    from eco.common import Comparison

    def comp(perflab, native):
        return Comparison("m.B", perflab, perflab * 0.99, perflab * 1.01, native, native * 0.99, native * 1.01)

    faster, slower = comp(50.0, 100.0), comp(150.0, 100.0)
    assert "CPU s per wall s" in go_testing.cause_of(faster, {"cpu_timed": True}, 0.4)
    assert go_testing.cause_of(faster, {"cpu_timed": True}, 1.0) == ""
    assert go_testing.cause_of(faster, {}, 1.3) == ""   # GC workers beside the benchmark thread
    assert go_testing.cause_of(slower, {"cpu_timed": True}, 0.4) == ""
    assert go_testing.cause_of(comp(100.0, 101.0), {}, 0.4) == ""   # they agree: nothing to explain


def test_an_interval_reaching_zero_is_not_evidence_of_agreement():
    assert go_testing.informative_interval({"ci_low": -18080.0, "ci_high": 30353.0}) == (None, None)
    assert go_testing.informative_interval({"ci_low": 0.0, "ci_high": 3.0}) == (None, None)
    assert go_testing.informative_interval({"ci_low": 2.0, "ci_high": 3.0}) == (2.0, 3.0)
    assert go_testing.informative_interval({}) == (None, None)


def test_one_call_per_iteration_is_named_when_perflab_is_the_slower():
    from eco.common import Comparison
    slower = Comparison("x.Sum64/10MB", 7.6e6, 7.0e6, 8.2e6, 1.96e6, 1.9e6, 2.0e6)
    assert go_testing.few_calls_cause(slower, 1).startswith("what is timed: perflab timed 1 call(s)")
    assert go_testing.few_calls_cause(slower, 100) == ""
    faster = Comparison("x.Sum64/10MB", 1.0e6, 0.9e6, 1.1e6, 1.96e6, 1.9e6, 2.0e6)
    assert go_testing.few_calls_cause(faster, 1) == ""
