"""pytest-benchmark tests and pyperf scripts run unchanged by the Python worker, and a broken Python file
fails alone (#35, #36)."""
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from perflab.engine.plan import open_worker
from perflab.engine.worker import BenchmarkError
from perflab.runtimes.python import describe
from perflab.toolchains.python import PythonToolchain

ROOT = Path(__file__).resolve().parents[1]
# the host's own interpreter has pytest (the test extras): the runtime under test for pytest files
WITH_PYTEST = describe(sys.executable)


def write(folder: Path, files: dict) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def perflab(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "perflab.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def cases_of(out: Path) -> dict:
    [path] = out.glob("perflab-*.json")
    doc = json.loads(path.read_text())
    return {(c["benchmark"]["name"], tuple(sorted(c["params"].items()))): c for c in doc["cases"]}


PYTEST_FILES = {
    "conftest.py": """
        import pytest

        @pytest.fixture
        def numbers():                      # a conftest fixture: resolved by pytest itself
            return list(range(200))[::-1]

        def pytest_benchmark_group_stats(config, benchmarks, group_by):
            return None                     # a pytest-benchmark hook: loads without pytest-benchmark
    """,
    "test_compat.py": """
        import pytest

        CALLS = []

        def test_sorting(benchmark, numbers):
            result = benchmark(sorted, numbers)
            assert result[0] == 0           # the test goes on with the function's result

        @pytest.mark.benchmark(group="sums")
        @pytest.mark.parametrize("n", [10, 1000])
        def test_sum(benchmark, n):
            benchmark.extra_info["n"] = n
            assert benchmark(sum, range(n)) == n * (n - 1) // 2

        def test_pedantic_setup(benchmark, tmp_path):
            def setup():                    # fresh arguments for every call, untimed
                CALLS.append(1)
                return ([3, 1, 2],), {}
            benchmark.pedantic(lambda xs: xs.pop(), setup=setup, rounds=50, iterations=1)
            assert tmp_path.is_dir()

        def test_keywords(benchmark):
            assert benchmark(dict, a=1) == {"a": 1}

        def test_weave(benchmark):
            benchmark.weave(sorted)

        def test_plain():                   # no benchmark fixture: not a benchmark
            pass
    """,
    "bench_native.py": """
        def bench_native():
            return sum(range(10))
    """,
}


def test_pytest_benchmark_tests_run_unchanged(tmp_path):
    write(tmp_path / "b", PYTEST_FILES)
    out = tmp_path / "out"
    r = perflab("run", str(tmp_path / "b"), "--job", "dry", "--store", "none", "-o", str(out),
                "--runtimes", WITH_PYTEST.executable)
    assert r.returncode == 1, r.stderr  # test_weave fails, alone
    cases = cases_of(out)
    assert {k[0] for k in cases} == {"test_sorting", "test_sum", "test_pedantic_setup",
                                     "test_keywords", "test_weave", "bench_native"}
    for key, case in cases.items():
        if key[0] != "test_weave":
            assert case["status"] == "ok", (key, case["error"])
    sums = {k[1]: c for k, c in cases.items() if k[0] == "test_sum"}
    assert set(sums) == {(("n", "10"),), (("n", "1000"),)}       # parametrize: Params columns
    assert all(c["benchmark"]["group"] == "sums" for c in sums.values())   # the marker's group
    [pedantic] = [c for k, c in cases.items() if k[0] == "test_pedantic_setup"]
    assert pedantic["benchmark"]["iteration_setup"] is True       # one call per setup
    [weave] = [c for k, c in cases.items() if k[0] == "test_weave"]
    assert weave["status"] == "failed"
    assert "benchmark.weave" in weave["error"] and "test_compat.py:" in weave["error"]


def test_pedantic_setup_runs_before_every_call_and_hands_its_arguments(tmp_path):
    write(tmp_path, {"test_p.py": """
        LOG = []
        def test_p(benchmark):
            def setup():
                LOG.append("setup")
                return (len(LOG),), {"k": 2}
            benchmark.pedantic(lambda a, k: LOG.append(("call", a, k)), setup=setup, rounds=3)
            print(LOG)
    """})
    spec = PythonToolchain().prepare(WITH_PYTEST, [tmp_path / "test_p.py"], tmp_path)
    w, loaded = open_worker(spec, 60)
    try:
        [b] = loaded["benchmarks"]
        assert b["iteration_setup"] is True and b["name"] == "test_p"
        w.setup(b["id"], {}, 60)
        w.run("workload", 1, 3, 60)
        with pytest.raises(BenchmarkError, match="one call per iteration"):
            w.run("workload", 4, 1, 60)   # a setup's arguments serve one call
        w.teardown(60)
    finally:
        w.close()


def test_a_test_file_fails_alone_when_the_runtime_has_no_pytest(tmp_path):
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    write(tmp_path / "b", {"test_x.py": "def test_x(benchmark):\n    benchmark(sum, [1])\n",
                           "bench_ok.py": "def bench_ok():\n    return 1\n"})
    out = tmp_path / "out"
    r = perflab("run", str(tmp_path / "b"), "--job", "dry", "--store", "none", "-o", str(out),
                "--runtimes", str(venv / "bin" / "python"))
    assert r.returncode == 1, r.stderr
    cases = cases_of(out)
    assert cases[("bench_ok", ())]["status"] == "ok"
    failed = cases[("test_x.py", ())]
    assert failed["status"] == "failed"
    assert "pytest is not installed" in failed["error"] and "test_x.py:1" in failed["error"]


PYPERF_SCRIPT = """
    import asyncio, sys
    import pyperf

    def work(n):
        return sum(range(n))

    def timed(loops, per_loop):
        return loops * per_loop      # reports its own time: a fake clock, 1 us a loop

    async def nap():
        await asyncio.sleep(0)

    if __name__ == "__main__":
        runner = pyperf.Runner()
        runner.argparser.add_argument("--size", type=int, default=50)
        args = runner.parse_args()
        runner.bench_func("func", work, args.size)
        runner.bench_time_func("time_func", timed, 1e-6, inner_loops=4)
        runner.timeit("timeit", stmt="sorted(x)", setup="x = list(range(30))")
        runner.bench_async_func("async", nap)
        runner.bench_command("command", [sys.executable, "-c", "pass"])
"""


def test_pyperf_runner_benchmarks_run_and_bench_command_fails_alone(tmp_path):
    write(tmp_path, {"bench_pp.py": PYPERF_SCRIPT})
    spec = PythonToolchain().prepare(WITH_PYTEST, [tmp_path / "bench_pp.py"], tmp_path)
    w, loaded = open_worker(spec, 60)
    try:
        assert loaded["errors"] == []
        b = {x["name"]: x for x in loaded["benchmarks"]}
        assert set(b) == {"func", "time_func", "timeit", "async", "command"}
        assert b["time_func"]["ops_per_invoke"] == 4 and b["func"]["line"] == 18
        w.setup(b["time_func"]["id"], {}, 60)
        # the function's own figure is the sample: loops x 1 us, exactly
        assert w.run("workload", 8, 3, 60).ns == [8000, 8000, 8000]
        assert w.run("overhead", 8, 2, 60).ns == [0, 0]     # it timed only its own work
        w.teardown(60)
        for name in ("func", "timeit", "async"):
            w.setup(b[name]["id"], {}, 60)
            assert all(ns > 0 for ns in w.run("workload", 16, 2, 60).ns)
            w.teardown(60)
        with pytest.raises(BenchmarkError, match=r"bench_command is not supported"):
            w.setup(b["command"]["id"], {}, 60)
    finally:
        w.close()


def test_pyperf_scripts_are_found_by_what_they_import(tmp_path):
    write(tmp_path, {"benchmarks/run_benchmark.py": "import pyperf\nrunner = pyperf.Runner()\n",
                     "lib/uses_pyperf.py": "import pyperf\nprint(pyperf.__version__)\n",
                     "tests/test_plain.py": "def test_a(tmp_path):\n    pass\n",
                     "tests/test_bench.py": "def test_b(\n    tmp_path,\n    benchmark,\n):\n    pass\n"})
    found = {p.name for p in PythonToolchain().find_sources(tmp_path)}
    assert found == {"run_benchmark.py", "test_bench.py"}


BROKEN = {
    "bench_fine.py": "def bench_fine():\n    return sum(range(10))\n",
    "bench_syntax.py": "import perflab\n\ndef bench_x():\n    return 1 +\n",
    "bench_import.py": "import os\nimport no_such_module_perflab\n\ndef bench_y():\n    pass\n",
    "bench_hangs.py": "import time\n\nwhile True:\n    time.sleep(0.05)\n",
    "test_broken.py": "import no_such_module_either\n\ndef test_z(benchmark):\n    benchmark(sum, [1])\n",
}


def test_a_broken_python_file_fails_alone_and_the_rest_is_measured(tmp_path):
    write(tmp_path / "b", BROKEN)
    out = tmp_path / "out"
    r = perflab("run", str(tmp_path / "b"), "--job", "dry", "--store", "none", "-o", str(out),
                "--timeout", "10", "--runtimes", WITH_PYTEST.executable)
    assert r.returncode == 1, r.stderr
    cases = cases_of(out)
    assert cases[("bench_fine", ())]["status"] == "ok"
    errors = {name: c["error"] for (name, _), c in cases.items() if c["status"] == "failed"}
    assert set(errors) == {"bench_syntax.py", "bench_import.py", "bench_hangs.py", "test_broken.py"}
    assert "bench_syntax.py:4: SyntaxError" in errors["bench_syntax.py"]
    assert "bench_import.py:2: ModuleNotFoundError" in errors["bench_import.py"]
    assert re.search(r"bench_hangs.py:[34]: ImportTimeout", errors["bench_hangs.py"])  # where it hung
    assert "test_broken.py:1" in errors["test_broken.py"]
    assert "no_such_module_either" in errors["test_broken.py"]
    assert "FAILED" in r.stdout


def test_the_python_corpus_slice_runs_dry():
    r = subprocess.run([sys.executable, "bench/ecosystems.py", "--ecosystems", "python", "--slice",
                        "--job", "dry", "--no-native", "--out", str(ROOT / "bench-out" / "test-eco-python")],
                       cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "python: 1 package(s)" in r.stdout
    assert "protocol errors 0" in r.stdout
