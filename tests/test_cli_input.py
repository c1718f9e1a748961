"""Bad input is one line and exit status 2; every command and option explains itself; a project's
[tool.perflab] settings are defaults the command line overrides."""
import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from perflab import cli, config
from perflab.errors import UsageError

ROOT = Path(__file__).resolve().parents[1]


def perflab(*args, cwd=ROOT, timeout=300):
    return subprocess.run([sys.executable, "-m", "perflab.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)


def _walk(parser: argparse.ArgumentParser, path: str):
    for action in parser._actions:
        yield path, action
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, f"{path} {name}")


def test_every_command_and_option_has_help():
    parser = cli._parser()
    missing = [f"{path}: {action.option_strings or action.dest}" for path, action in _walk(parser, "perflab")
               if not (action.help or "").strip() and action.help != argparse.SUPPRESS]
    assert missing == []
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help for a in subs._choices_actions}
    assert all(helps.get(name) for name in subs.choices), helps


def test_top_level_help_is_for_users_and_lists_the_commands():
    text = cli._parser().format_help()
    for name in ("run", "list", "compare", "history", "runtimes", "report"):
        assert f"\n    {name}" in text
    assert "dispatches" not in text and "This module" not in text


@pytest.mark.parametrize("argv", [
    ["run", "--timeout", "nan"], ["run", "--timeout", "-5"], ["run", "--timeout", "0"],
    ["run", "--iteration-time", "inf"], ["run", "--target", "-1"], ["run", "--target", "nan"],
    ["run", "--budget", "java=abc"], ["run", "--budget", "inf"], ["run", "--budget", "nan"],
    ["run", "--max-cases", "0"], ["history", "--min-shift", "-1"], ["compare", "a", "b", "--threshold", "nan"],
    ["compare", "a", "b", "--fail-on-regression", "-3"],
])
def test_bad_numbers_are_one_line_and_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        cli._parser().parse_args(argv)
    assert exc.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and argv[-2] in lines[0], lines


def test_good_numbers_pass():
    args = cli._parser().parse_args(["run", "--timeout", "5", "--target", "0.02", "--budget", "2,java=6",
                                     "--iteration-time", "0.01"])
    assert (args.timeout, args.target, args.budget, args.iteration_time) == (5.0, 0.02, "2,java=6", 0.01)


# -- project settings ------------------------------------------------------------------------------

def _project(tmp_path, text, name="pyproject.toml"):
    (tmp_path / ".git").mkdir()
    (tmp_path / name).write_text(text)
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    return sub


def test_project_settings_are_found_upwards_and_flags_win(tmp_path):
    sub = _project(tmp_path, '[tool.perflab]\npaths = ["benches"]\nruntimes = ["python3.11", "python3.13"]\n'
                   'job = "short"\nout = "res"\nexclude = ["old/*"]\n')
    cfg = config.load(sub)
    assert cfg.file == tmp_path / "pyproject.toml"
    args = cli._parser().parse_args(["run"])
    config.apply(args, cfg)
    assert args.paths == [str(tmp_path / "benches")] and args.runtimes == "python3.11,python3.13"
    assert args.job == "short" and args.out == str(tmp_path / "res") and args.exclude == ["old/*"]
    args = cli._parser().parse_args(["run", "x", "-j", "dry", "-r", "python3.12", "--exclude", "y"])
    config.apply(args, cfg)
    assert args.paths == ["x"] and args.job == "dry" and args.runtimes == "python3.12"
    assert args.exclude == ["old/*", "y"]


def test_a_relative_sqlite_store_is_relative_to_the_settings_file(tmp_path):
    sub = _project(tmp_path, 'store = "sqlite://.perflab/history.db"\n', name="perflab.toml")
    args = cli._parser().parse_args(["history"])
    config.apply(args, config.load(sub))
    assert args.store == f"sqlite://{tmp_path}/.perflab/history.db"


def test_perflab_toml_and_the_search_stops_at_the_repository_root(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.perflab]\njob = "long"\n')  # above the repo: ignored
    repo = tmp_path / "repo"
    repo.mkdir()
    sub = _project(repo, 'job = "short"\n', name="perflab.toml")
    assert config.load(sub).get("job") == "short"
    (repo / "perflab.toml").unlink()
    assert config.load(sub).file is None


@pytest.mark.parametrize("text, words", [
    ('[tool.perflab]\njobs = "short"\n', ["'jobs'", "unknown key"]),
    ('[tool.perflab]\npaths = "benches"\n', ["'paths'", "list"]),
    ('[tool.perflab]\njob = 3\n', ["'job'", "string"]),
    ('[tool.perflab\n', ["not valid TOML"]),
])
def test_a_bad_settings_file_is_one_line_naming_file_and_key(tmp_path, text, words):
    sub = _project(tmp_path, text)
    with pytest.raises(UsageError) as exc:
        config.load(sub)
    msg = str(exc.value)
    assert str(tmp_path / "pyproject.toml") in msg and "\n" not in msg
    assert all(w in msg for w in words), msg
    r = perflab("list", cwd=sub)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_exclude_globs_match_whole_folder_names_below_the_folder_walked():
    from perflab.excludes import matches
    base = Path("/home/oldman/proj")
    f = base / "benches" / "old" / "bench_x.py"
    assert matches(f, base, "old") and matches(f, base, "benches/old") and matches(f, base, "ol*")
    assert matches(f, base, "**/bench_*.py") and matches(f, base, "benches/*/bench_x.py")
    assert not matches(base / "benches" / "bench_y.py", base, "ol*")  # not /home/oldman above it
    assert not matches(f, base, "proj") and not matches(f, base, "bench")
    assert not matches(f, base / "benches" / "old", "old")  # the folder walked is not excluded


def test_walks_skip_fixtures_excludes_and_git_ignored_files(tmp_path):
    from perflab.engine.plan import find_sources
    from perflab.toolchains import all_toolchains
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("scratch/\n")
    for rel in ("benches/bench_a.py", "tests/fixtures/bad/bench_bad.py", "scratch/bench_tmp.py",
                "old/bench_old.py", "node_modules/x/bench_n.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("def bench_x():\n    pass\n")
    found = find_sources([tmp_path], all_toolchains(), ["old"])
    assert [p.name for p in found["python"]] == ["bench_a.py"]
    # a folder named explicitly is measured even if a walk from above would skip it
    found = find_sources([tmp_path / "tests" / "fixtures" / "bad"], all_toolchains())
    assert [p.name for p in found["python"]] == ["bench_bad.py"]


def test_perflab_lists_its_own_examples_from_its_root():
    cfg = config.load(ROOT)
    assert cfg.file == ROOT / "pyproject.toml" and cfg.get("paths")
    from perflab.engine.plan import find_sources
    from perflab.toolchains import all_toolchains
    found = find_sources([ROOT / p for p in cfg.get("paths")], all_toolchains(), cfg.get("exclude") or [])
    files = [p for lst in found.values() for p in lst]
    assert files and not any("fixtures" in p.parts for p in files)


# -- results files -----------------------------------------------------------------------------------

def _results(cases):
    return {"schema": "perflab.results", "version": 1, "environment": {}, "job": {}, "cases": cases}


def _case(**changes):
    c = {"key": "g.a[]@py", "benchmark": {"group": "g", "name": "a", "ops_per_invoke": 1}, "params": {},
         "runtime": {"label": "py"}, "status": "ok", "estimate": {"mean": 1.0},
         "launches": [{"index": 0, "invocations": 10, "workload": [10, 11, 12, 10, 11, 12]}]}
    for k, v in changes.items():
        if v is ...:
            del c[k]
        else:
            c[k] = v
    return c


@pytest.mark.parametrize("bad, words", [
    (_case(key=...), "case 2 lacks 'key'"),
    (_case(status=None), "case 2 has 'status' null"),
    (_case(benchmark=None), "case 2 lacks 'benchmark'"),
    (_case(runtime={"label": 3}), "case 2 has 'runtime.label' int"),
    (_case(estimate={"mean": "fast"}), "case 2 has 'estimate.mean' str"),
    (_case(launches=[{"index": 0, "invocations": None}]), "case 2 launch 1 has 'invocations' null"),
    (_case(params=[1]), "case 2 has 'params' list"),
    ("oops", "case 2 is str"),
])
def test_compare_names_the_file_and_case_of_a_malformed_results_file(tmp_path, bad, words):
    good, broken = tmp_path / "good.json", tmp_path / "broken.json"
    good.write_text(json.dumps(_results([_case()])))
    broken.write_text(json.dumps(_results([_case(key="g.b[]@py"), bad])))
    r = perflab("compare", str(good), str(broken), "--store", "none")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "broken.json: " + words in lines[0], lines


def test_results_files_written_before_keys_were_quoted_read_with_todays_keys(tmp_path):
    from perflab.results import load_document
    c = _case(key="g.a[p=x,q=y,q=z]@py", params={"p": "x", "q": "y,q=z"})
    (tmp_path / "old.json").write_text(json.dumps(_results([c])))
    doc = load_document(tmp_path / "old.json")
    assert doc["cases"][0]["key"] == 'g.a[p=x,q="y,q=z"]@py'


def test_results_json_is_an_ordinary_file_not_a_private_one(tmp_path):
    import os
    from perflab.results import write_atomic
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "r.json", _results([]))
        os.umask(0o027)
        write_atomic(tmp_path / "s.json", _results([]))
    finally:
        os.umask(old)
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "s.json").stat().st_mode & 0o777 == 0o640


# -- a benchmark that cannot be described, a file that hangs at import --------------------------------

FIX = ROOT / "tests" / "fixtures"


@pytest.mark.parametrize("folder, fine, unprintable, why", [
    ("describe", "bench_fine", "bench_unprintable", "RuntimeError: no text for you"),
    ("describe_node", "fine", "unprintable", "Error: no text for you"),
])
def test_a_benchmark_whose_parameters_cannot_be_printed_fails_alone(tmp_path, folder, fine, unprintable, why):
    if folder.endswith("node"):
        import shutil
        if not shutil.which("node"):
            pytest.skip("no node on PATH")
    r = perflab("run", str(FIX / folder), "-j", "dry", "-o", str(tmp_path), "--store", "none")
    assert r.returncode == 1, r.stderr
    [path] = tmp_path.glob("perflab-*.json")
    cases = {c["benchmark"]["name"]: c for c in json.loads(path.read_text())["cases"]}
    assert cases[fine]["status"] == "ok"
    assert cases[unprintable]["status"] == "failed"
    assert f"cannot describe its parameters ({why})" in cases[unprintable]["error"]


def test_a_file_that_hangs_at_import_is_named(tmp_path):
    # the worker cuts the import at its load deadline, where it hangs: that file fails alone (#36)
    r = perflab("run", str(FIX / "hang"), "-j", "dry", "--timeout", "2", "-o", str(tmp_path),
                "--store", "none", "--quiet")
    assert r.returncode == 1, r.stderr
    [path] = tmp_path.glob("perflab-*.json")
    cases = {c["benchmark"]["name"]: c for c in json.loads(path.read_text())["cases"]}
    assert cases["bench_fine"]["status"] == "ok"
    error = cases["bench_hangs_at_import.py"]["error"]
    # the line of its loop it was on: `while True:` or the sleep inside it
    assert re.search(r"bench_hangs_at_import.py:[56]: ImportTimeout: import did not finish", error)
    r = perflab("run", str(FIX / "hang" / "bench_hangs_at_import.py"), "-j", "dry", "--timeout", "2",
                "-o", str(tmp_path / "alone"), "--store", "none")
    assert r.returncode == 1 and re.search(r"bench_hangs_at_import.py:[56]: ImportTimeout", r.stdout)


def test_run_with_no_arguments_does_the_projects_run(tmp_path):
    sub = _project(tmp_path, 'paths = ["benches"]\njob = "dry"\nout = "res"\nstore = "none"\n'
                   'exclude = ["benches/old"]\n', name="perflab.toml")
    for rel in ("benches/bench_a.py", "benches/old/bench_old.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("def bench_x():\n    return 1\n")
    r = perflab("run", cwd=sub)
    assert r.returncode == 0, r.stderr
    [path] = (tmp_path / "res").glob("perflab-*.json")
    doc = json.loads(path.read_text())
    assert [c["benchmark"]["file"] for c in doc["cases"]] == [str(tmp_path / "benches" / "bench_a.py")]
    assert doc["job"]["name"] == "dry"
