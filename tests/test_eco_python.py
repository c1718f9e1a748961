"""bench/eco/python_bench.py: where a CPU-timed perflab mean is below pyperf's wall-clock one, the
cause is named only when pyperf's own file (its short calibration loops) or its process tree's CPU
share shows it; otherwise nothing is named. Fake pyperf JSON files, no timing."""
from __future__ import annotations

import json
import sys

from workerkit import REPO

sys.path.insert(0, str(REPO / "bench"))

from eco import python_bench  # noqa: E402


def pyperf_file(tmp_path, calibration, values, name="dict[str]", inner_loops=10, load=21.7):
    """A pyperf JSON of one benchmark: a calibration run with (loops, seconds per inner loop) warmups,
    and value runs."""
    runs = [{"metadata": {"calibrate_loops": 131072, "load_avg_1min": load}, "warmups": calibration}]
    runs += [{"metadata": {"load_avg_1min": load}, "warmups": [[131072, v]], "values": [v, v]} for v in values]
    doc = {"version": "1.0", "metadata": {"name": name, "inner_loops": inner_loops, "cpu_count": 2, "loops": 131072},
           "benchmarks": [{"runs": runs}]}
    target = tmp_path / "pyperf-examples-bench_time_func.json"
    target.write_text(json.dumps(doc))
    return target


def test_short_calibration_loops_that_agree_with_perflab_name_the_wall_clock(tmp_path):
    # 16-17 ns in loops under a millisecond, 150 ns in 21 ms values: the long ones waited for a CPU
    target = pyperf_file(tmp_path, [[1, 2.3e-7], [16, 1.63e-8], [64, 1.54e-8], [256, 1.65e-8], [131072, 1.5e-7]],
                         [1.5e-7, 1.6e-7])
    found = python_bench._read_pyperf(target, tmp_path / "bench_time_func.py")
    name = "bench_time_func.dict[str]"
    cause = python_bench._cause_pyperf(name, {"mean": 15.6, "gross_mean": 15.6}, found[name][0])
    assert "calibration loops shorter than 1 ms" in cause
    assert "load average of 21.7 on 2 CPUs" in cause


def test_nothing_is_named_when_pyperf_s_own_short_loops_disagree_too(tmp_path):
    # pyperf's short loops read what its values read: perflab differs for another reason
    target = pyperf_file(tmp_path, [[16, 1.5e-7], [64, 1.52e-7], [131072, 1.5e-7]], [1.5e-7])
    found = python_bench._read_pyperf(target, tmp_path / "bench_time_func.py")
    name = "bench_time_func.dict[str]"
    assert python_bench._cause_pyperf(name, {"mean": 15.6, "gross_mean": 15.6}, found[name][0]) == ""


def test_the_cpu_share_of_pyperf_s_processes_names_it_without_short_loops(tmp_path):
    # values of 30 ms (no calibration under a millisecond); pyperf's processes got 10 % of a CPU
    target = pyperf_file(tmp_path, [[1, 3e-2]], [3.0e-2], name="nested", inner_loops=1)
    python_bench._share_path(target).write_text(json.dumps({"cpu_s": 1.0, "wall_s": 10.0, "share": 0.1}))
    found = python_bench._read_pyperf(target, tmp_path / "bench_time_func.py")
    name = "bench_time_func.nested"
    cause = python_bench._cause_pyperf(name, {"mean": 3.1e6, "gross_mean": 3.1e6}, found[name][0])
    assert "got 10% of a CPU" in cause
    assert python_bench._cause_pyperf(name, {"mean": 9e6, "gross_mean": 9e6}, found[name][0]) == ""
