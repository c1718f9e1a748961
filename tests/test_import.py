"""`perflab import`: each format's real output (tests/fixtures/import, README there says how each was
made) becomes a run of the history that `history`, `compare`, `report` and the dashboard read, its
cases naming the tool; files of another shape are refused (exit 2, nothing stored) and a damaged
file of a known format fails alone (exit 1)."""
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from history_fixture import ENV, case_doc
from starlette.testclient import TestClient

from perflab.cli import main
from perflab.compare import compare_docs, load_side, to_rows
from perflab.errors import UsageError
from perflab.store import open_store
from perflab.web.app import create_app
from test_store import store_url  # noqa: F401  (a fixture: SQLite and PostgreSQL)

FIX = Path(__file__).parent / "fixtures" / "import"

# file, tool, runtime label, cases, (a case key, its units (launches), self-compare verdict, note part)
FORMATS = [
    ("criterion", "criterion", "criterion", 3,
     ("criterion.sum[value=10]@criterion", 1, "same", "criterion's own interval")),
    ("google-benchmark.json", "google-benchmark", "google-benchmark", 3,
     ("sums_bench.BM_Sum[arg0=10]@google-benchmark", 1, "inconclusive", "one run (1 sample(s))")),
    ("google-benchmark-reps.json", "google-benchmark", "google-benchmark", 3,
     ("sums_bench.BM_Sum[arg0=10]@google-benchmark", 4, "same", "repetitions in one process")),
    ("pyperf.json.gz", "pyperf", "python3.11", 2, ("pyperf.sort_100[]@python3.11", 4, "same", "")),
    ("pytest-benchmark.json", "pytest-benchmark", "python3.11", 3,
     ("test_bench.test_sorted[n=10]@python3.11", 1, "inconclusive", "no interval in the file")),
    ("benchmarkdotnet-report-full.json", "BenchmarkDotNet", "net8.0", 3,
     ("SumBench.Sum[N=10]@net8.0", 1, "same", "BenchmarkDotNet's own interval")),
    ("jmh.json", "JMH", "jdk17", 4, ("SumBench.sum[n=10]@jdk17", 2, "same", "")),
    ("jmh-one-fork.json", "JMH", "jdk17", 2, ("SumBench.sum[n=1000]@jdk17", 1, "same", "JMH's own interval")),
    ("hyperfine.json", "hyperfine", "hyperfine", 2, ("hyperfine.sleep 0.01[]@hyperfine", 5, "same", "")),
    ("go-bench.txt", "go test", "go", 3, ("sums.Sum[n=10]@go", 5, "same", "repetitions in one process")),
]


def run_cli(argv, capsys):
    rc = main(argv)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


@pytest.mark.parametrize("name,tool,runtime,count,probe", FORMATS, ids=[f[0] for f in FORMATS])
def test_each_format_becomes_a_run_that_history_compare_and_report_read(tmp_path, capsys, name, tool,
                                                                       runtime, count, probe):
    url = f"sqlite://{tmp_path / 'h.db'}"
    rc, out, err = run_cli(["import", str(FIX / name), "--store", url, "--out", str(tmp_path / "out")], capsys)
    assert rc == 0, err
    store = open_store(url)
    [run] = store.runs()
    meta = store.run(run["id"])
    assert meta["environment"]["imported"]["tool"] == tool and meta["label"] == f"import: {tool}"
    cases = {c["key"]: c for c in store.cases(run["id"])}
    assert len(cases) == count
    key, units, verdict, note = probe
    case = cases[key]
    assert case["source"]["tool"] == tool and case["runtime"]["label"] == runtime
    assert len(case["launches"]) == units
    assert case["estimate"]["mean"] > 0
    # the interval is perflab's over two or more units, else the file's own, else none (and why)
    by = case["estimate"]["by"]
    assert by == ("perflab" if units >= 2 else tool) or case["estimate"]["se"] is None
    # history lists it
    rc, out, _ = run_cli(["history", "--store", url], capsys)
    assert rc == 0 and f"import: {tool}" in out
    # compare: the run against itself
    result = compare_docs(load_side(str(run["id"]), url), load_side(str(run["id"]), url))
    cc = next(c for c in result.cases if c.key == key)
    assert cc.verdict == verdict and note in cc.note
    if verdict == "inconclusive":
        assert cc.ci_low is None  # no interval was made up
    # report: the results file written by --out
    [written] = (tmp_path / "out").glob("*.perflab.json")
    rc, out, err = run_cli(["report", str(written), "--out", str(tmp_path / "report")], capsys)
    assert rc == 0, err
    pages = "".join(p.read_text() for p in (tmp_path / "report").glob("*.md"))
    assert case["benchmark"]["name"].replace("_", "\\_") in pages  # Markdown escapes _
    assert f"imported ({tool})" in pages  # the report's set-up names the tool that measured it


def test_criterion_files_of_one_tree_are_one_run(tmp_path, capsys):
    url = f"sqlite://{tmp_path / 'h.db'}"
    files = [FIX / "criterion/sum/10/new/estimates.json", FIX / "criterion/sum/10/new/sample.json",
             FIX / "criterion/sum_1000/new/benchmark.json"]
    rc, _, err = run_cli(["import", *map(str, files), "--store", url], capsys)
    assert rc == 0, err
    store = open_store(url)
    [run] = store.runs()
    assert sorted(c["key"] for c in store.cases(run["id"])) == ["criterion.sum[value=10]@criterion",
                                                               "criterion.sum_1000[]@criterion"]


def test_samples_are_the_files_own_and_the_tools_figures_are_kept(tmp_path, capsys):
    url = f"sqlite://{tmp_path / 'h.db'}"
    assert run_cli(["import", str(FIX / "go-bench.txt"), str(FIX / "hyperfine.json"), "--store", url],
                   capsys)[0] == 0
    store = open_store(url)
    go, hf = (store.cases(r["id"]) for r in store.runs())
    sum10 = next(c for c in go if c["key"] == "sums.Sum[n=10]@go")
    assert [ln["workload"] for ln in sum10["launches"]] == [[64.13], [25.09], [53.94], [50.31], [54.06]]
    concat = next(c for c in go if c["key"] == "sums.Concat[]@go")
    assert concat["diagnostics"]["alloc_bytes_per_op"] == 64 and concat["diagnostics"]["allocs_per_op"] == 9
    doc = json.loads((FIX / "hyperfine.json").read_text())["results"][0]
    sleep = next(c for c in hf if c["key"] == "hyperfine.sleep 0.01[]@hyperfine")
    assert [ln["workload"][0] for ln in sleep["launches"]] == pytest.approx([t * 1e9 for t in doc["times"]])
    assert sleep["imported"]["mean"] == pytest.approx(doc["mean"] * 1e9)
    assert sleep["imported"]["stddev"] == pytest.approx(doc["stddev"] * 1e9)


def test_hyperfine_parameter_scan_is_one_benchmark_with_a_parameter(tmp_path, capsys):
    url = f"sqlite://{tmp_path / 'h.db'}"
    assert run_cli(["import", str(FIX / "hyperfine-params.json"), "--store", url], capsys)[0] == 0
    store = open_store(url)
    keys = sorted(c["key"] for c in store.cases(store.runs()[0]["id"]))
    assert keys == ["hyperfine.sleep 0.0{n}[n=1]@hyperfine", "hyperfine.sleep 0.0{n}[n=2]@hyperfine"]


def test_a_case_the_tool_failed_fails_alone_with_its_reason(tmp_path, capsys):
    url = f"sqlite://{tmp_path / 'h.db'}"
    assert run_cli(["import", str(FIX / "benchmarkdotnet-report-full.json"), "--store", url], capsys)[0] == 0
    store = open_store(url)
    cases = {c["key"]: c for c in store.cases(store.runs()[0]["id"])}
    broken = cases["SumBench.Broken[]@net8.0"]
    assert broken["status"] == "failed" and "no statistics" in broken["error"]
    assert cases["SumBench.Sum[N=1000]@net8.0"]["estimate"]["by"] == "perflab"  # two launches


def _perflab_doc(key_runtime: str, mean: float, env: dict) -> dict:
    rng = np.random.default_rng(3)
    case = case_doc("sums", "Sum", {"n": "10"}, key_runtime, mean, rng, samples=30, launches=6)
    return {"schema": "perflab.results", "version": 1, "environment": env,
            "job": {"name": "short", "overhead": False}, "cases": [case]}


def test_compare_an_imported_run_with_a_perflab_run(tmp_path, capsys):
    url = f"sqlite://{tmp_path / 'h.db'}"
    # --runtime gives the imported cases a perflab run's runtime label, so their keys meet
    assert run_cli(["import", str(FIX / "go-bench.txt"), "--runtime", "go1.26", "--store", url],
                   capsys)[0] == 0
    imported = load_side("1", url)
    ours = ("perflab.json", _perflab_doc("go1.26", 50.0,
                                         {**ENV, "cpu": {**ENV["cpu"], "model": "Intel(R) Xeon(R) Processor"}}))
    result = compare_docs(imported, ours)
    [cc] = result.cases
    assert cc.key == "sums.Sum[n=10]@go1.26" and cc.ratio is not None and cc.ci_low is not None
    assert cc.verdict in ("same", "faster", "slower") and "go test" in cc.note
    # the machine the file states must match: another CPU is refused, as between two perflab runs
    other = ("perflab.json", _perflab_doc("go1.26", 50.0, ENV))
    with pytest.raises(UsageError, match="cpu_model"):
        compare_docs(imported, other)
    # a side with a mean and no spread (one Google Benchmark run) makes the verdict inconclusive, and why
    assert run_cli(["import", str(FIX / "google-benchmark.json"), "--store", url], capsys)[0] == 0
    rng = np.random.default_rng(4)
    theirs = {"schema": "perflab.results", "version": 1, "job": {"name": "short", "overhead": False},
              "environment": {**ENV, "cpu": {**ENV["cpu"], "logical_cores": 2}},
              "cases": [case_doc("sums_bench", "BM_Sum", {"arg0": "10"}, "google-benchmark", 60.0, rng)]}
    [cc] = compare_docs(load_side("2", url), ("perflab.json", theirs)).cases
    assert cc.verdict == "inconclusive" and cc.ci_low is None and cc.p is None
    assert cc.note == "old: google-benchmark: one run (1 sample(s)), no interval in the file"
    assert "inconclusive" in to_rows(compare_docs(load_side("2", url), ("perflab.json", theirs)))[1][0][-1]


def test_two_imported_runs_compare_through_the_cli(tmp_path, capsys):
    url = f"sqlite://{tmp_path / 'h.db'}"
    assert run_cli(["import", str(FIX / "go-bench.txt"), str(FIX / "go-bench-count2.txt"), "--store", url],
                   capsys)[0] == 0
    rc, out, err = run_cli(["compare", "latest~1", "latest", "--store", url], capsys)
    assert rc == 0, err
    assert "sums.Sum" in out and "units: go test's repetitions in one process" in out
    flat = " ".join(out.split())
    assert "run #1: imported from go test (" in flat and "go-bench-count2.txt)" in flat


def test_report_sets_two_imported_runtimes_side_by_side(tmp_path, capsys):
    out_a, out_b = tmp_path / "a", tmp_path / "b"
    for path, label, out in ((FIX / "go-bench.txt", "go-a", out_a), (FIX / "go-bench-count2.txt", "go-b", out_b)):
        assert run_cli(["import", str(path), "--runtime", label, "--store", "none", "--out", str(out)],
                       capsys)[0] == 0
    files = [str(next(out_a.glob("*.json"))), str(next(out_b.glob("*.json")))]
    rc, _, err = run_cli(["report", *files, "--out", str(tmp_path / "report"), "--title", "go"], capsys)
    assert rc == 0, err
    text = "".join(p.read_text() for p in (tmp_path / "report").glob("*.md"))
    assert "go-a" in text and "go-b" in text and "Sum" in text


def test_dashboard_shows_an_imported_benchmark_beside_perflabs_own_runs(tmp_path, capsys):
    url = f"sqlite://{tmp_path / 'h.db'}"
    store = open_store(url)
    rid = store.begin_run(command=["perflab", "run", "."], args={"paths": ["."], "runtimes": "go1.26"},
                          job={"name": "short", "overhead": False}, environment=ENV,
                          fingerprint="fake", label="ours")
    store.add_cases(rid, _perflab_doc("go1.26", 50.0, ENV)["cases"])
    store.finish_run(rid)
    assert run_cli(["import", str(FIX / "go-bench.txt"), "--runtime", "go1.26", "--store", url],
                   capsys)[0] == 0
    client = TestClient(create_app(open_store(url), allowed_hosts=["testserver"]))
    page = client.get("/benchmark?name=sums.Sum").text
    data = json.loads(__import__("html").unescape(re.search(r'id="chart-data">(.*?)</script>', page, re.S).group(1)))
    chart = next(c for c in data if c["params"] == "n=10")
    [line] = [ln for ln in chart["lines"] if ln["runtime"] == "go1.26"]
    assert chart["runs"] == [1, 2] and all(m is not None for m in line["mean"])  # both runs, one line
    assert chart["labels"][1].endswith("(go test)") and not chart["labels"][0].endswith(")")
    sources = re.search(r'<p class="sources">(.*?)</p>', page, re.S).group(1)
    assert "perflab" in sources and "go test" in sources
    runs_page = client.get("/").text
    assert "import: go test" in runs_page and "perflab import" in runs_page


def test_a_file_of_another_shape_is_refused_and_nothing_is_imported(tmp_path, capsys):
    url = f"sqlite://{tmp_path / 'h.db'}"
    for bad in ("other-shape.json", "notes.txt"):
        rc, out, err = run_cli(["import", str(FIX / "hyperfine.json"), str(FIX / "bad" / bad), "--store", url],
                               capsys)
        assert rc == 2
        line = " ".join(err.split())  # one message, however the console wraps it
        assert bad in line and "perflab import reads criterion" in line and "go test -bench" in line
        assert "JMH" in line and "BenchmarkDotNet" in line
    assert open_store(url).runs() == []  # refused before anything was stored
    rc, _, err = run_cli(["import", str(tmp_path / "missing.json"), "--store", url], capsys)
    assert rc == 2 and "no such file" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    rc, _, err = run_cli(["import", str(empty), "--store", url], capsys)
    assert rc == 2 and "without criterion results" in " ".join(err.split())


def test_a_damaged_file_of_a_known_format_fails_alone(tmp_path, capsys):
    url = f"sqlite://{tmp_path / 'h.db'}"
    bad = FIX / "bad"
    rc, out, err = run_cli(["import", str(bad / "jmh-truncated.json"), str(FIX / "hyperfine.json"),
                            str(bad / "hyperfine-bad-time.json"), str(bad / "go-bench-bad-value.txt"),
                            "--store", url], capsys)
    assert rc == 1
    lines = [" ".join(x.split()) for x in re.split(r"\n(?=error:)", err.strip())]
    assert len(lines) == 3
    assert any("jmh-truncated.json: JMH file that is not valid JSON" in x and "line" in x for x in lines)
    assert any("hyperfine-bad-time.json: hyperfine file: results[1].times[2] is 'fast'" in x for x in lines)
    assert any("go-bench-bad-value.txt: go test file: line 4: '2x.09'" in x for x in lines)
    [run] = open_store(url).runs()  # the good file still went in
    assert run["label"] == "import: hyperfine"


def test_a_damaged_criterion_benchmark_fails_alone_in_its_tree(tmp_path, capsys):
    tree = tmp_path / "criterion"
    shutil.copytree(FIX / "criterion", tree)
    (tree / "sum/100/new/estimates.json").write_text('{"mean": {"point_estimate": ')
    url = f"sqlite://{tmp_path / 'h.db'}"
    rc, _, err = run_cli(["import", str(tree), "--store", url], capsys)
    assert rc == 1 and "sum/100/new/estimates.json: not valid JSON" in " ".join(err.split())
    store = open_store(url)
    assert len(store.cases(store.runs()[0]["id"])) == 2


def test_the_json_and_gzip_pyperf_files_read_the_same(tmp_path, capsys):
    import gzip
    plain = tmp_path / "pyperf.json"
    plain.write_bytes(gzip.decompress((FIX / "pyperf.json.gz").read_bytes()))
    docs = []
    for path in (plain, FIX / "pyperf.json.gz"):
        out = tmp_path / path.name.replace(".", "_")
        assert run_cli(["import", str(path), "--store", "none", "--out", str(out)], capsys)[0] == 0
        docs.append(json.loads(next(out.glob("*.json")).read_text()))
    assert [c["estimate"]["mean"] for c in docs[0]["cases"]] == [c["estimate"]["mean"] for c in docs[1]["cases"]]
    assert docs[0]["environment"]["imported"]["tool_version"] == "2.11.0"


def test_google_benchmark_errors_fail_alone_and_aggregates_alone_give_a_t_interval(tmp_path, capsys):
    doc = json.loads((FIX / "google-benchmark-reps.json").read_text())
    # what --benchmark_report_aggregates_only writes: the same file without its iteration entries
    doc["benchmarks"] = [b for b in doc["benchmarks"] if b["run_type"] == "aggregate"]
    doc["benchmarks"].append({"name": "BM_Fails", "run_name": "BM_Fails", "run_type": "iteration",
                              "error_occurred": True, "error_message": "setup failed <b>"})
    path = tmp_path / "aggregates.json"
    path.write_text(json.dumps(doc))
    url = f"sqlite://{tmp_path / 'h.db'}"
    assert run_cli(["import", str(path), "--store", url], capsys)[0] == 0
    store = open_store(url)
    cases = {c["key"]: c for c in store.cases(store.runs()[0]["id"])}
    fails = cases["sums_bench.BM_Fails[]@google-benchmark"]
    assert fails["status"] == "failed" and fails["error"] == "google-benchmark: setup failed <b>"
    s10 = cases["sums_bench.BM_Sum[arg0=10]@google-benchmark"]
    mean = next(b["real_time"] for b in doc["benchmarks"] if b.get("aggregate_name") == "mean"
                and b["run_name"] == "BM_Sum/10")
    assert s10["launches"] == [] and s10["estimate"]["mean"] == pytest.approx(mean)
    assert s10["estimate"]["by"] == "google-benchmark" and s10["estimate"]["df"] == 3


def test_imported_runs_round_trip_through_either_store(store_url, capsys):  # noqa: F811
    """SQLite and PostgreSQL keep an imported run alike: its cases, samples and source, and compare."""
    rc, _, err = run_cli(["import", str(FIX / "jmh.json"), str(FIX / "criterion"), "--store", store_url], capsys)
    assert rc == 0, err
    store = open_store(store_url)
    jmh_run, crit_run = (r["id"] for r in store.runs())
    cases = {c["key"]: c for c in store.cases(jmh_run)}
    assert cases["SumBench.sum[n=10]@jdk17"]["source"]["tool"] == "JMH"
    assert len(cases["SumBench.sum[n=10]@jdk17"]["launches"]) == 2
    assert store.run(crit_run)["environment"]["imported"]["tool"] == "criterion"
    [cc] = [c for c in compare_docs(load_side(str(crit_run), store_url), load_side(str(crit_run), store_url)).cases
            if c.key == "criterion.sum[value=10]@criterion"]
    assert cc.verdict == "same" and "criterion's own interval" in cc.note
