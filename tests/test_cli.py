"""`perflab` end to end with the real Python worker: faults, bad input, outputs."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures"


def perflab(*args, cwd=ROOT, timeout=300):
    return subprocess.run([sys.executable, "-m", "perflab.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)


def only_json(folder: Path) -> dict:
    [path] = list(folder.glob("perflab-*.json"))
    return json.loads(path.read_text())


def test_each_faulty_benchmark_fails_alone_with_its_reason(tmp_path):
    r = perflab("run", str(FIX / "faults"), "--job", "dry", "--timeout", "3", "-o", str(tmp_path))
    assert r.returncode == 1, r.stderr  # something failed, and the exit status says so
    doc = only_json(tmp_path)
    cases = {c["benchmark"]["name"]: c for c in doc["cases"]}
    assert set(cases) == {"fine", "raises", "hard_exit", "hangs", "prints", "segfaults", "also_fine"}
    assert cases["fine"]["status"] == "ok" and cases["also_fine"]["status"] == "ok"
    assert "ZeroDivisionError" in cases["raises"]["error"]
    assert "bench_faults.py:" in cases["raises"]["error"]
    assert cases["hard_exit"]["error"] == "worker exited with status 3"
    assert cases["hangs"]["error"].startswith("timed out after 3")
    assert cases["segfaults"]["error"] == "worker crashed (SIGSEGV)"
    assert cases["prints"]["status"] == "ok"
    assert any("stdout/stderr" in w for w in cases["prints"]["warnings"])
    assert doc["complete"] is True
    for name in ("raises", "hard_exit", "hangs", "segfaults"):
        assert f"FAILED: {cases[name]['error'].split(' (')[0]}" in r.stdout


def test_syntax_error_names_file_and_line(tmp_path):
    # the file fails alone, as a row of the table (#36): exit 1, not a usage error
    r = perflab("run", str(FIX / "bad"), "--job", "dry", "-o", str(tmp_path), "--store", "none")
    assert r.returncode == 1, r.stderr
    assert "bench_syntax.py:5: SyntaxError" in r.stdout


def test_unknown_runtime_lists_the_available_names():
    r = perflab("run", "examples/python", "--runtimes", "python2.1")
    assert r.returncode == 2
    line = r.stderr.strip()
    assert "unknown runtime 'python2.1'" in line and "python3." in line and "\n" not in line


def test_empty_and_oversized_parameter_spaces_are_refused_before_running(tmp_path):
    r = perflab("run", str(FIX / "params" / "bench_empty_params.py"), "-o", str(tmp_path))
    assert r.returncode == 2 and "empty list of values" in r.stderr and "bench_empty_params.py:" in r.stderr
    r = perflab("run", str(FIX / "params" / "bench_huge_params.py"), "-o", str(tmp_path))
    assert r.returncode == 2 and "10000 cases (limit 1000)" in r.stderr
    assert not list(tmp_path.glob("perflab-*.json"))  # nothing ran


def test_unwritable_out_is_refused_before_running(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    r = perflab("run", "examples/python", "--job", "dry", "-o", str(blocker / "sub"))
    assert r.returncode == 2 and "--out" in r.stderr and "not writable" in r.stderr


def test_unknown_exporter_and_job_are_usage_errors():
    assert perflab("run", "examples/python", "--exporters", "xml").returncode == 2
    assert perflab("run", "examples/python", "--job", "forever").returncode == 2


def test_two_runtimes_give_one_table_with_ratio_against_the_first(tmp_path):
    from perflab.runtimes.python import discover
    names = [r.name for r in discover() if r.implementation == "CPython"]
    if len(names) < 2:
        pytest.fail("this test needs two CPython versions; .ci/run installs them")
    first, second = names[0], names[-1]
    r = perflab("run", "examples/python", "--runtimes", f"{first},{second}", "--job", "dry",
                "--filter", "*join*", "-o", str(tmp_path))
    assert r.returncode == 0, r.stderr
    header = next(line for line in r.stdout.splitlines() if "Method" in line)
    for col in ("Method", "Runtime", "Mean", "Error", "StdDev", "Median", f"Ratio vs {first}",
                f"RatioSD vs {first}"):
        assert col in header
    doc = only_json(tmp_path)
    runtimes = [c["runtime"]["name"] for c in doc["cases"]]
    assert runtimes.count(first) == runtimes.count(second) >= 1
    base = next(c for c in doc["cases"] if c["runtime"]["name"] == first and c["benchmark"]["name"] == "join")
    other = next(c for c in doc["cases"] if c["runtime"]["name"] == second and c["benchmark"]["name"] == "join")
    assert other["runtime_baseline"] == base["key"] and base["is_runtime_baseline"]
    # join is its module's baseline method: its "Ratio" is against itself on the same runtime
    assert other["baseline"] == other["key"] and other["ratio"]["value"] == 1.0
    assert "\n| Method" in (tmp_path / Path(next(tmp_path.glob("*.md")).name)).read_text()


def test_json_document_keeps_raw_samples_and_environment(tmp_path):
    r = perflab("run", "examples/python/bench_strings.py", "--job", "short", "--filter", "*find*",
                "--budget", "0.5", "-o", str(tmp_path))
    assert r.returncode == 0, r.stderr
    doc = only_json(tmp_path)
    assert doc["schema"] == "perflab.results" and doc["version"] == 1
    env = doc["environment"]
    assert env["cpu"]["logical_cores"] and env["os"]["release"] and env["perflab_version"]
    assert any(v and len(v["commit"]) == 40 for v in env["git"].values())  # this repo's commit
    [case] = doc["cases"]
    assert case["runtime"]["version"].count(".") == 2
    launch = case["launches"][0]
    assert launch["pilot"] and launch["warmup"] and launch["overhead"] and launch["workload"]
    n = sum(len(ln["workload"]) for ln in case["launches"])
    est = case["estimate"]  # every iteration is kept or set aside for a reason (stats/clean.py);
    # a CPU-timed case keeps its preempted iterations at their CPU time
    aside = est["outliers_upper_removed"] + est["outliers_lower"] + (0 if est["cpu_timed"] else est["preempted"])
    assert est["n"] + aside == n
    assert case["contention"]["level"] in ("quiet", "heavy", "changing")
    assert doc["environment"]["contention"]["cases"] == 1
    assert case["benchmark"]["ops_per_invoke"] == 10
    assert case["diagnostics"]["alloc_bytes_per_op"] is not None
    csv_text = next(tmp_path.glob("*.csv")).read_text()
    assert csv_text.splitlines()[0].startswith("Method,Group,Runtime")


def test_hide_removes_columns(tmp_path):
    r = perflab("run", "examples/python/bench_empty.py", "--job", "dry", "--hide", "Error,StdDev",
                "-o", str(tmp_path))
    header = next(line for line in r.stdout.splitlines() if "Method" in line)
    assert "Mean" in header and "Error" not in header and "StdDev" not in header


def test_list_and_runtimes():
    r = perflab("list", "examples/python")
    assert r.returncode == 0 and "Dictionary.lookup" in r.stdout and "size ∈ {10, 1000}" in r.stdout
    # every method of a class with a baseline is listed, not only the first (they run as one group)
    assert "Dictionary.copy" in r.stdout and "Dictionary.build" in r.stdout
    r = perflab("runtimes")
    assert r.returncode == 0 and "python3." in r.stdout


def test_methods_compared_with_a_baseline_are_interleaved_and_paired(tmp_path):
    bench = tmp_path / "bench_pair.py"
    bench.write_text("import perflab\nDATA = list(range(100))\n"
                     "class Pair:\n"
                     "    @perflab.benchmark(baseline=True)\n    def once(self):\n        return sum(DATA)\n"
                     "    @perflab.benchmark\n    def twice(self):\n        return sum(DATA) + sum(DATA)\n")
    # an unreachable target and short iterations: the whole budget is spent in many rounds and
    # processes, so there are launch pairs for the paired interval (it needs two); the budget is
    # Python's own (the 600 s for the other languages would not end before the test's timeout)
    r = perflab("run", str(bench), "--job", "short", "--budget", "600,python=2", "--target", "0.0001",
                "--iteration-time", "0.002", "-o", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    doc = only_json(tmp_path / "out")
    once, twice = sorted(doc["cases"], key=lambda c: c["benchmark"]["name"])
    assert once["status"] == twice["status"] == "ok"
    assert once["round_group"] == twice["round_group"]
    rounds = lambda c: sorted({x for ln in c["launches"] for x in ln["workload_rounds"]})
    assert rounds(once) == rounds(twice)
    assert twice["ratio"]["paired"] is True and twice["ratio"]["units"] >= 2
    assert max(c["wall_seconds"] for c in doc["cases"]) < 60


def test_a_bad_budget_is_a_usage_error_naming_the_flag():
    for bad in ("soon", "0", "java=", "=6", "2,jvm=6"):
        r = perflab("run", "examples/python", "--budget", bad)
        assert r.returncode == 2 and "--budget" in r.stderr and len(r.stderr.strip().splitlines()) == 1, (bad, r.stderr)
    from perflab.jobs import parse_budget
    assert parse_budget("2,java=6") == (2.0, {"java": 6.0})
    assert parse_budget("java=6") == (None, {"java": 6.0})
    assert parse_budget(None) == (None, {})


def test_the_short_job_gives_java_its_own_budget_and_budget_overrides_it():
    """A JVM process costs ~0.3 s: the short job's 2 s would buy two a side, so Java has 6 s there.
    A plain --budget is every language's budget; a named language's figure is that language's."""
    from perflab.jobs import get_job
    short = get_job("short")
    assert short.budget_for("java") == 6.0 and short.budget_for("python") == 2.0
    assert short.for_language("java").budget_s == 6.0 and short.for_language("go") is short
    assert get_job("default").budget_for("java") == 10.0
    plain = short.with_budgets(3.0, {})
    assert plain.budget_for("java") == 3.0 and plain.budget_for("python") == 3.0
    named = short.with_budgets(None, {"java": 4.0, "node": 5.0})
    assert (named.budget_for("java"), named.budget_for("node"), named.budget_for("rust")) == (4.0, 5.0, 2.0)
    both = short.with_budgets(1.0, {"java": 8.0})
    assert (both.budget_for("java"), both.budget_for("cpp")) == (8.0, 1.0)


def test_without_runtimes_a_language_with_no_runtime_is_skipped_not_fatal(monkeypatch):
    """A folder holding Python and, say, Java benchmarks runs the Python ones on a machine without a
    JDK (with a note); only when no language has a runtime is it an error."""
    from types import SimpleNamespace

    from perflab import toolchains
    from perflab.commands.common import select_runtimes
    from perflab.errors import UsageError
    real_get = toolchains.get
    none = SimpleNamespace(language="nolang", discover_runtimes=lambda: [])
    monkeypatch.setattr(toolchains, "get", lambda lang: none if lang == "nolang" else real_get(lang))
    chosen = select_runtimes(None, ["python", "nolang"])
    assert [r.language for r in chosen] == ["python"]
    with pytest.raises(UsageError, match="no runtime found for nolang"):
        select_runtimes(None, ["nolang"])


def test_the_header_names_a_language_budget():
    from perflab.jobs import get_job
    from perflab.report.header import header_lines
    line = [ln for ln in header_lines({}, get_job("short").__dict__) if ln.startswith("Job=")][0]
    assert "Budget=2 s/case (java 6 s)" in line
    line = [ln for ln in header_lines({}, get_job("default").__dict__) if ln.startswith("Job=")][0]
    assert "Budget=10 s/case " in line and "java" not in line
