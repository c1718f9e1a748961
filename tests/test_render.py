"""What a run prints and writes: ratios with one meaning, tables per group, progress lines, and user
data (names, parameters, labels) that is never markup — through the engine with fake workers."""
import csv
import datetime as dt
import io
import json
import random
import re
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from perflab.analysis import analyse
from perflab.engine.runner import Engine
from perflab.jobs import get_job
from perflab.model import Benchmark, Case, ParamAxis, Runtime
from perflab.progress import CaseProgress, Reporter, case_summary, duration
from perflab.report.exporters import aligned_lines, to_csv, to_markdown, to_terminal
from perflab.report.header import header_lines
from perflab.report.table import build_tables
from perflab.results import document
from perflab.units import number

from fakes import FakeClock, FakeWorker

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ["[/bogus]closing", "[bold red]x", "a|b", "new\nline", "<script>alert(1)</script>",
           "=1+2", "@cmd", "[size=10]", "back\\slash"]


def case(name, runtime, group="g", baseline=False, params=()):
    bench = Benchmark(id=f"{group}.{name}", name=name, group=group, language="fake",
                      baseline=baseline, params=tuple(ParamAxis(n, (v,)) for n, v in params),
                      file="bench_fake.py")
    rt = Runtime(name=runtime, language="fake", version="1.0", executable="/bin/true")
    return Case(bench, tuple((n, 0) for n, _ in params), rt)


def measure(cases, cost, job="dry", fail=()):
    """Run `cases` through the engine; `cost(case)` is the fake per-call time in ns."""
    clock = FakeClock()

    def launch(c, i):
        return FakeWorker(clock, per_call_ns=cost(c), seed=i,
                          fail_stage="workload" if (c.benchmark.name, c.runtime.label) in fail else None)
    engine = Engine(get_job(job), launch, clock=clock, rng=random.Random(1))
    results = engine.run_group(cases)
    return analyse(results, runtime_order=sorted({c.runtime.label for c in cases}))


def env_of(rows):
    labels = list(dict.fromkeys(r.result.case.runtime.label for r in rows))
    return {"perflab_version": "0", "os": {"system": "Linux", "release": "6", "machine": "x86_64"},
            "cpu": {"model": "Fake CPU", "logical_cores": 2},
            "runtimes": [{"label": lb, "name": lb, "language": "fake", "version": "1.0"} for lb in labels]}


# -- one meaning of Ratio ---------------------------------------------------------------------------

COSTS = {("base", "rt1"): 100.0, ("other", "rt1"): 300.0, ("base", "rt2"): 200.0,
         ("other", "rt2"): 300.0, ("sized", "rt1"): 1000.0, ("sized", "rt2"): 500.0}


def two_runtime_rows():
    cases = [case("base", rt, baseline=True) for rt in ("rt1", "rt2")]
    cases += [case("other", rt) for rt in ("rt1", "rt2")]
    cases += [case("sized", rt, params=[("size", "10")]) for rt in ("rt1", "rt2")]
    return measure(cases, lambda c: COSTS[(c.benchmark.name, c.runtime.label)])


def test_ratio_is_against_the_baseline_method_on_the_same_runtime_and_ratio_vs_against_the_first_runtime():
    rows = {(r.result.case.benchmark.name, r.result.case.runtime.label): r for r in two_runtime_rows()}
    other2 = rows[("other", "rt2")]
    assert abs(other2.ratio.value - 1.5) < 0.01  # 300 / 200: base on rt2, not on rt1 (which gave 3.0)
    assert abs(other2.runtime_ratio.value - 1.0) < 0.01  # 300 / 300: other on rt1
    assert rows[("base", "rt2")].ratio.value == 1.0 and rows[("base", "rt2")].is_baseline
    assert abs(rows[("base", "rt2")].runtime_ratio.value - 2.0) < 0.01
    assert rows[("other", "rt1")].runtime_ratio.value == 1.0
    # a method whose parameters the baseline method lacks still has its ratio against the first runtime
    sized = rows[("sized", "rt2")]
    assert sized.ratio is None and sized.baseline_key is None
    assert abs(sized.runtime_ratio.value - 0.5) < 0.01


def test_every_row_with_a_baseline_shows_its_ratio_and_the_baseline_shows_one():
    rows = two_runtime_rows()
    [table] = build_tables(rows)
    assert "Ratio" in table.columns and "Ratio vs rt1" in table.columns
    col = {c: i for i, c in enumerate(table.columns)}
    by = {(r[col["Method"]], r[col["Runtime"]]): r for r in table.rows}
    assert by[("base", "rt1")][col["Ratio"]] == "1.00" and by[("base", "rt1")][col["Ratio vs rt1"]] == "1.00"
    assert by[("other", "rt2")][col["Ratio"]] == "1.50" and by[("other", "rt2")][col["Ratio vs rt1"]] == "1.00"
    assert by[("sized", "rt2")][col["Ratio"]] == "" and by[("sized", "rt2")][col["Ratio vs rt1"]] == "0.50"
    # the same pairs in the csv and the json
    data = {(r["Method"], r["Runtime"]): r for r in csv.DictReader(io.StringIO(to_csv(rows)))}
    assert float(data[("other", "rt2")]["ratio"]) == rows_by(rows)[("other", "rt2")].ratio.value
    assert data[("other", "rt2")]["ratio_baseline_method"] == "base"
    assert data[("other", "rt2")]["ratio_baseline_runtime"] == "rt1"
    assert data[("sized", "rt2")]["ratio"] == "" and abs(float(data[("sized", "rt2")]["runtime_ratio"]) - 0.5) < 0.01
    doc = document(rows, get_job("dry"), env_of(rows), [], dt.datetime.now(dt.timezone.utc), True)
    other2 = next(c for c in doc["cases"] if c["key"] == rows_by(rows)[("other", "rt2")].key)
    assert other2["ratio"]["value"] == rows_by(rows)[("other", "rt2")].ratio.value
    assert other2["runtime_baseline"] == rows_by(rows)[("other", "rt1")].key


def rows_by(rows):
    return {(r.result.case.benchmark.name, r.result.case.runtime.label): r for r in rows}


def test_report_shows_the_same_ratios_as_the_run(tmp_path):
    from perflab.report.results_view import load_report, section_rows, sections_of, table_cells
    rows = two_runtime_rows()
    path = tmp_path / "r.json"
    path.write_text(json.dumps(document(rows, get_job("dry"), env_of(rows), ["perflab"],
                                        dt.datetime.now(dt.timezone.utc), True)))
    report = load_report([str(path)], "t")
    [section] = sections_of(report)
    cols, cells = table_cells(section_rows(report, section))
    assert "Ratio" in cols and "Ratio vs rt1" in cols
    [table] = build_tables(rows)
    run = {(r[0], r[1]): (r[table.columns.index("Ratio")], r[table.columns.index("Ratio vs rt1")])
           for r in table.rows}
    rep = {(r[0], r[1]): (r[cols.index("Ratio")], r[cols.index("Ratio vs rt1")]) for r in cells}
    assert rep == run


def test_one_runtime_and_no_baseline_method_means_no_ratio_column_anywhere(tmp_path):
    from perflab.report.results_view import load_report, section_rows, sections_of, table_cells
    rows = measure([case("a", "rt1"), case("b", "rt1")], lambda c: 50.0)
    [table] = build_tables(rows)
    assert not any(c.startswith("Ratio") for c in table.columns)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(document(rows, get_job("dry"), env_of(rows), [], dt.datetime.now(), True)))
    report = load_report([str(path)], "t")
    cols, _ = table_cells(section_rows(report, sections_of(report)[0]))
    assert not any(c.startswith("Ratio") for c in cols)


# -- tables per group, units, numbers ---------------------------------------------------------------

def test_one_table_per_group_with_only_its_parameters_and_its_own_units():
    cases = [case("read", "rt1", group="Files", params=[("fileSize", "1024")]),
             case("write", "rt1", group="Streams", params=[("FileSize", "4096")]),
             case("slow", "rt1", group="Streams", params=[("FileSize", "4096")])]
    costs = {"read": 12.0, "write": 2_500.0, "slow": 90_000_000.0}
    tables = build_tables(measure(cases, lambda c: costs[c.benchmark.name]))
    assert [t.title.split(" ")[0] for t in tables] == ["Files", "Streams"]
    assert [p for p in tables[0].columns if "ize" in p] == ["fileSize"]
    assert [p for p in tables[1].columns if "ize" in p] == ["FileSize"]
    mean = lambda t: [r[t.columns.index("Mean")] for r in t.rows]  # noqa: E731
    assert mean(tables[0]) == ["12.00 ns"]
    assert mean(tables[1]) == ["2.500 μs", "90,000 μs"]  # one unit per column: the smallest ≥ 1


def test_numbers_have_about_four_significant_figures():
    assert [number(x) for x in (1.23456, 12.3456, 123.456, 1234.56, 12345.6, 0.0123456)] == \
        ["1.235", "12.35", "123.5", "1235", "12,346", "0.01235"]


def test_off_a_terminal_the_table_is_pipe_separated_and_never_wrapped():
    rows = measure([case("m" * 150, "rt1", params=[("n", "x" * 200)])], lambda c: 10.0)
    buf = io.StringIO()
    to_terminal(build_tables(rows), header_lines(env_of(rows), {"name": "dry"}),
                Console(file=buf, width=80, force_terminal=False))
    lines = buf.getvalue().splitlines()
    table = [ln for ln in lines if ln.startswith("|")]
    assert len(table) == 3 and all(len(ln) > 350 for ln in table)  # header, rule, one row: unwrapped
    assert not any(ch in buf.getvalue() for ch in "─│┃━")  # no box drawing
    assert lines[0].startswith("perflab 0, OS=Linux") and any("Fake CPU" in ln for ln in lines)
    assert any(ln.strip().startswith("rt1") and "fake 1.0" in ln for ln in lines)


def test_notes_are_footnote_markers_with_the_text_in_a_legend():
    rows = measure([case("ok", "rt1"), case("bad", "rt1")], lambda c: 10.0, fail={("bad", "rt1")})
    [table] = build_tables(rows)
    notes = [r[table.columns.index("Notes")] for r in table.rows]
    assert notes == ["", "FAILED [1]"]
    assert table.legend == ["[1] bad() rt1: FAILED: ValueError: planted failure"]


def test_csv_parameters_never_collide_with_stats_columns():
    rows = measure([case("sum_list", "rt1", params=[("n", "100")])], lambda c: 10.0)
    [row] = list(csv.DictReader(io.StringIO(to_csv(rows))))
    assert row["param:n"] == "100"
    assert row["n"] == str(rows[0].estimate.n) != "100"


# -- progress ---------------------------------------------------------------------------------------

def test_off_a_terminal_each_step_and_each_case_is_one_line_and_quiet_prints_nothing():
    clock = FakeClock()
    buf = io.StringIO()
    rep = Reporter(Console(file=buf, force_terminal=False), clock=clock)
    with rep.step("go1.21: building the worker"):
        clock.t += 73.2
    with CaseProgress(rep, 4, "default job") as p:
        clock.t += 10
        p.advance("Hash(size=[/x]) go1.21", "1.23 μs ±1.1%")
    assert buf.getvalue().splitlines() == [
        "go1.21: building the worker…", "go1.21: building the worker: done in 1m13s",
        "[1/4] Hash(size=[/x]) go1.21: 1.23 μs ±1.1% (ETA 30.0s)"]
    quiet = io.StringIO()
    rep = Reporter(Console(file=quiet, force_terminal=False), quiet=True, clock=clock)
    with rep.step("x"):
        pass
    with CaseProgress(rep, 1, "j") as p:
        p.advance("a", "b")
    assert quiet.getvalue() == ""
    assert duration(3725) == "1h02m" and case_summary(False, "boom", None) == "FAILED: boom"


# -- user data is never markup ----------------------------------------------------------------------

def hostile_rows():
    cases = []
    for i, name in enumerate(HOSTILE):
        for rt in ("rt1", "[red]rt2"):
            cases.append(case(name, rt, group="[/bogus]closing", baseline=i == 0,
                              params=[("n", "100"), ("[/p]=x", "=cmd|' /C calc'!A0\n-2")]))
    return measure(cases, lambda c: 100.0 + 10 * HOSTILE.index(c.benchmark.name),
                   fail={("@cmd", "[red]rt2")})


def test_hostile_names_come_out_verbatim_or_escaped_in_every_output(tmp_path):
    rows = hostile_rows()
    tables = build_tables(rows)
    header = header_lines(env_of(rows), get_job("dry").__dict__)
    [table] = tables
    # terminal, with colours: nothing is taken for markup, nothing splits a row
    buf = io.StringIO()
    to_terminal(tables, header, Console(file=buf, width=100, force_terminal=True, color_system="truecolor"))
    plain = re.sub(r"\x1b\[[0-9;]*m", "", buf.getvalue())
    for name in HOSTILE:
        assert name.replace("\n", "\\n") in plain
    assert "[red]rt2" in plain and "[/p]=x" in plain
    assert len([ln for ln in plain.splitlines() if ln.startswith("|")]) == 2 + len(rows)
    assert len(aligned_lines(table)) == 2 + len(rows)
    # piped: the same lines, each with as many unescaped pipes as columns + 1
    buf = io.StringIO()
    to_terminal(tables, header, Console(file=buf, width=100, force_terminal=False))
    piped = [ln for ln in buf.getvalue().splitlines() if ln.startswith("|")]
    assert len(piped) == 2 + len(rows) and "a\\|b" in buf.getvalue()
    assert {len(re.findall(r"(?<!\\)\|", ln)) for ln in piped} == {len(table.columns) + 1}, piped
    # markdown: every row one line with as many unescaped pipes as columns + 1; no live HTML
    md = to_markdown(tables, header)
    table_lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    assert len(table_lines) == 2 + len(rows)
    for ln in table_lines:
        assert len(re.findall(r"(?<!\\)\|", ln)) == len(table.columns) + 1, ln
    assert "<script>" not in md and "&lt;script&gt;alert(1)&lt;/script&gt;" in md
    assert "a\\|b" in md and "new<br>line" in md and "back\\\\slash" in md
    # csv: formulas neutralised in user cells, the sample count under `n`, the parameter under `param:n`
    data = list(csv.DictReader(io.StringIO(to_csv(rows))))
    assert len(data) == len(rows)
    methods = {r["Method"] for r in data}
    assert {"'=1+2", "'@cmd", "new\nline", "a|b", "[bold red]x"} <= methods
    assert all(r["param:[/p]=x"] == "'=cmd|' /C calc'!A0\n-2" and r["param:n"] == "100" for r in data)
    assert all(r["n"] in ("", str(rows[0].estimate.n)) for r in data)
    assert not any(r["mean_ns"].startswith("'") for r in data)
    # json: verbatim
    doc = document(rows, get_job("dry"), env_of(rows), ["perflab"], dt.datetime.now(dt.timezone.utc), True)
    back = json.loads(json.dumps(doc))
    assert {c["benchmark"]["name"] for c in back["cases"]} == set(HOSTILE)
    # the report: markdown and HTML
    from perflab.report.results_view import load_report
    from perflab.report.seeds_report import render
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(doc))
    rendered = render(load_report([str(path)], "<script>alert(1)</script> [bold]t"), "plots")
    assert "<script>" not in rendered.html and "&lt;script&gt;alert(1)&lt;/script&gt;" in rendered.html
    assert "<script>" not in rendered.markdown
    md_rows = [ln for ln in rendered.markdown.splitlines() if ln.startswith("| ")]
    assert all("new<br>line" in ln or "new" not in ln for ln in md_rows)


def test_compare_markdown_escapes_cells(tmp_path):
    from perflab.compare import compare_docs, to_markdown as compare_md
    rows = hostile_rows()
    doc = document(rows, get_job("dry"), env_of(rows), [], dt.datetime.now(dt.timezone.utc), True)
    md = compare_md(compare_docs(("a|old", doc), ("new", doc)))
    lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    ncols = len(re.findall(r"(?<!\\)\|", lines[0]))
    assert len(lines) == 2 + len(rows) and all(len(re.findall(r"(?<!\\)\|", ln)) == ncols for ln in lines)
    assert "<script>" not in md and "a\\|old" in md


def test_a_path_with_markup_is_named_verbatim_in_the_error(tmp_path):
    bad = tmp_path / "x[/x]" / "[bold]nope"
    r = subprocess.run([sys.executable, "-m", "perflab.cli", "run", str(bad), "--store", "none"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "[/x]" in r.stderr and "[bold]nope" in r.stderr


HOSTILE_BENCH = '''import perflab

@perflab.benchmark(name="[/bogus]closing", baseline=True)
def a():
    return 1

@perflab.params(n=["[size=10]", "=1+2"])
@perflab.benchmark(name="[bold red]x|y")
def b(n):
    return n
'''


def test_a_real_run_list_and_json_with_hostile_names(tmp_path):
    """The trial's crash: a benchmark named `[/bogus]closing` stopped `run` and `list` with a MarkupError,
    and the .md and .csv were never written."""
    folder = tmp_path / "dir[x]" / "[bold]y"
    folder.mkdir(parents=True)
    (folder / "bench_hostile.py").write_text(HOSTILE_BENCH)
    out = tmp_path / "out"
    cli = [sys.executable, "-m", "perflab.cli"]
    r = subprocess.run(cli + ["run", str(folder), "--job", "dry", "--store", "none", "-o", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    # piped: a '|' in a name is escaped so the columns stay put (on a terminal it is verbatim)
    assert "[/bogus]closing" in r.stdout and "[bold red]x\\|y" in r.stdout and "[size=10]" in r.stdout
    # off a terminal: a line per finished case, with its position and the total
    assert re.search(r"^\[1/3\] \[/bogus\]closing\(\) python", r.stderr, flags=re.M), r.stderr
    md = next(out.glob("*.md")).read_text()
    assert "\\[/bogus\\]closing" in md and "\\[bold red\\]x\\|y" in md
    rows = list(csv.DictReader(io.StringIO(next(out.glob("*.csv")).read_text())))
    assert sorted(r_["param:n"] for r_ in rows) == ["", "'=1+2", "[size=10]"]
    r = subprocess.run(cli + ["list", str(folder)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "[/bogus]closing" in r.stdout and "[size=10]" in r.stdout, r.stderr
    # --json: the document alone on stdout, progress and table on stderr; --quiet: no progress lines
    r = subprocess.run(cli + ["run", str(folder), "--job", "dry", "--store", "none", "-o", str(out),
                              "--json", "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert {c["benchmark"]["name"] for c in doc["cases"]} == {"[/bogus]closing", "[bold red]x|y"}
    assert not re.search(r"^\[\d+/3\]", r.stderr, flags=re.M)


def test_compare_and_history_print_hostile_names_as_text(tmp_path, capsys):
    from perflab.cli import main
    from perflab.results import row_to_json
    from perflab.store import open_store
    rows = hostile_rows()
    doc = document(rows, get_job("dry"), env_of(rows), [], dt.datetime.now(dt.timezone.utc), True)
    old, new = tmp_path / "[bold]old.json", tmp_path / "new.json"
    old.write_text(json.dumps(doc))
    new.write_text(json.dumps(doc))
    assert main(["compare", str(old), str(new), "--store", "none"]) == 0
    shown = capsys.readouterr().out
    assert "[/bogus]closing" in shown and "[bold red]x" in shown and "[bold]old.json" in shown
    url = f"sqlite:///{tmp_path / 'h.db'}"
    store = open_store(url)
    rid = store.begin_run(command=["perflab"], args={}, job={}, environment=env_of(rows),
                          fingerprint="f", label="[/bogus]label")
    for r in rows:
        store.add_case(rid, row_to_json(r))
    store.finish_run(rid)
    assert main(["history", "--store", url]) == 0
    assert "[/bogus]label" in capsys.readouterr().out
    assert main(["history", "*closing*", "--store", url]) == 0
    shown = capsys.readouterr().out
    assert "[/bogus]closing" in shown and "[red]rt2" in shown


def test_a_note_that_several_rows_share_is_one_legend_line():
    """Contention over a whole run put the same sentence under every row, one legend line each;
    now rows that share a note share its marker, and the legend says whose it is."""
    rows = measure([case("a", "rt1"), case("b", "rt1"), case("c", "rt1")], lambda c: 10.0)
    for r in rows:
        r.warnings.append("measured under heavy contention")
    rows[2].warnings.append("only mine")
    [table] = build_tables(rows)
    notes = [r[table.columns.index("Notes")] for r in table.rows]
    assert notes == ["[1]", "[1]", "[1] [2]"]
    assert table.legend == ["[1] every row: measured under heavy contention", "[2] c() rt1: only mine"]
