"""The defects a new user hit in their first hour (issue #36, host side): each test failed before its
fix. Bad input is one line and exit 2, a command that only reads creates nothing, the history of a
project file's store stays out of git, a piped table keeps its columns, `history PATTERN` finds a
benchmark by its method, `compare` takes a folder's glob, and a young history has its steps."""
import gzip
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from history_fixture import SHIFTING, make_history

from perflab.store import open_store

BENCH = '''import perflab

@perflab.params(s=["a|b", "c"])
@perflab.benchmark
def pipe(s):
    return s * 2
'''


def perflab(*args, cwd=None, timeout=300, env=None):
    return subprocess.run([sys.executable, "-m", "perflab.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                          env={**{k: v for k, v in os.environ.items() if k != "PERFLAB_STORE"},
                               **(env or {})})


def one_line_error(r, *words):
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    for w in words:
        assert w in lines[0], lines[0]


def _git(repo, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false",
                    *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path):
    """A user's project: a git repository with one benchmark file, committed."""
    root = tmp_path / "proj"
    root.mkdir()
    _git(root, "init", "-q")
    (root / "bench_pipe.py").write_text(BENCH)
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "one")
    return root


# -- bad input -------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["compare", "report"])
def test_a_gzipped_results_file_is_one_line(tmp_path, command):
    art = tmp_path / "perflab-results.json.gz"
    art.write_bytes(gzip.compress(b'{"schema": "perflab.results"}'))
    binary = tmp_path / "latin1.json"
    binary.write_bytes(b'{"name": "caf\xe9"}')
    args = [str(art), str(art), "--store", "none"] if command == "compare" else [str(art)]
    one_line_error(perflab(command, *args, cwd=tmp_path), str(art), "gzip")
    args = [str(binary), str(binary), "--store", "none"] if command == "compare" else [str(binary)]
    one_line_error(perflab(command, *args, cwd=tmp_path), str(binary), "not UTF-8")


def test_an_empty_runtimes_list_is_refused(repo):
    one_line_error(perflab("run", "--runtimes", "", "--store", "none", cwd=repo), "--runtimes", "no runtime")
    one_line_error(perflab("list", "-r", ",", cwd=repo), "--runtimes")


def test_an_unknown_hidden_column_is_refused_before_measuring(repo):
    # parameters are known once the benchmarks are loaded: the error follows the loading's progress
    # lines (--quiet: none), before anything is measured
    r = perflab("run", "bench_pipe.py", "--hide", "Error,Bogus", "--job", "dry", "--store", "none",
                "--out", "out", "--quiet", cwd=repo)
    one_line_error(r, "--hide", "'Bogus'", "StdDev", "parameter (s)")
    assert not (repo / "out").exists() or not list((repo / "out").glob("perflab-*.json"))
    # a column and a parameter are both fine
    r = perflab("run", "bench_pipe.py", "--hide", "StdDev,s", "--job", "dry", "--store", "none",
                "--out", "out", "--quiet", cwd=repo)
    assert r.returncode == 0, r.stderr
    # the table's rows (the notes below it may name the case: they are no columns to shift)
    rows = "\n".join(line for line in r.stdout.splitlines() if line.startswith("|"))
    assert rows and "StdDev" not in rows and "a|b" not in rows.replace("a\\|b", "")


def test_commands_that_only_read_create_no_store(tmp_path, repo):
    missing = tmp_path / "nonexistent" / "dir" / "x.db"
    one_line_error(perflab("history", "--store", f"sqlite://{missing}", cwd=repo), str(missing))
    one_line_error(perflab("compare", "latest~1", "latest", "--store", f"sqlite://{missing}", cwd=repo),
                   str(missing))
    assert not (tmp_path / "nonexistent").exists()
    # the project's default history is not made by reading it either
    one_line_error(perflab("history", cwd=repo), "no history at")
    one_line_error(perflab("history", "--changes", cwd=repo), "no history at")
    assert not (repo / ".perflab").exists()


# -- housekeeping ----------------------------------------------------------------------------------

def test_a_project_file_store_ignores_itself_and_a_piped_table_escapes_pipes(repo):
    (repo / "pyproject.toml").write_text('[tool.perflab]\nstore = "sqlite://.perflab/history.db"\n')
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "settings")
    r = perflab("run", "bench_pipe.py", "--job", "dry", "--out", "out", "--quiet", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert (repo / ".perflab" / "history.db").is_file()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True,
                            check=True).stdout
    assert ".perflab" not in status, status
    # off a terminal: every table line has as many column separators as the header
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("| ")]
    assert len(lines) >= 3 and any("a\\|b" in ln for ln in lines), r.stdout
    separators = {len(re.findall(r"(?<!\\)\|", ln)) for ln in lines}
    assert len(separators) == 1, lines


def test_a_folder_the_user_made_gets_no_gitignore(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    open_store(f"sqlite://{folder / 'h.db'}").close()
    assert not (folder / ".gitignore").exists()


# -- history patterns and compare over a folder's glob -------------------------------------------

def test_a_pattern_matches_the_full_name_the_method_or_the_key():
    from perflab.store.base import name_matches
    assert name_matches("Sort*", "textproc.Sort", "textproc.Sort[n=10]@go1.26")
    assert name_matches("sort", "textproc.Sort", "textproc.Sort[n=10]@go1.26")
    assert name_matches("textproc.*", "textproc.Sort", "textproc.Sort[n=10]@go1.26")
    assert name_matches("*@go1.26", "textproc.Sort", "textproc.Sort[n=10]@go1.26")
    assert not name_matches("Sort*", "textproc.JoinPlus", "textproc.JoinPlus[]@go1.26")


def test_history_finds_a_benchmark_by_its_method(tmp_path):
    url = f"sqlite://{tmp_path / 'h.db'}"
    make_history(open_store(url), runs=2, cases=6, hostile=False)
    r = perflab("history", "Work*", "--store", url, cwd=tmp_path)
    assert r.returncode == 0 and "Shift.Work" in r.stdout, r.stderr
    one_line_error(perflab("history", "Nothing.*", "--store", url, cwd=tmp_path), "'Nothing.*'", "'Sort*'")


def test_compare_judges_the_newest_of_several_new_files(repo):
    out = repo / "results"
    for _ in range(2):
        r = perflab("run", "bench_pipe.py", "--job", "dry", "--store", "none", "--out", "results",
                    "--quiet", cwd=repo)
        assert r.returncode == 0, r.stderr
        time.sleep(1.1)  # results files are named by the second their run started
    first, second = sorted(out.glob("perflab-*.json"))
    main = repo / "main.json"
    main.write_text(first.read_text())
    files = sorted(str(p) for p in out.glob("perflab-*.json"))
    r = perflab("compare", str(main), *files, "--format", "md", "--fail-on-regression", "5",
                "--store", "none", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert f"### perflab: {second}" in r.stdout.replace("\\", "")
    assert "judging the newest run" in r.stderr and str(first) in r.stderr
    one_line_error(perflab("compare", str(main), str(second), "latest", "--store", "none", cwd=repo),
                   "results files")


# -- young histories --------------------------------------------------------------------------------

@pytest.mark.parametrize("runs", [1, 2, 3, 4, 5, 6])
def test_history_changes_work_from_the_second_run(tmp_path, runs):
    """Change-point detection needs more runs than these; the step between consecutive runs is
    judged as compare judges it (4 and 5 runs printed a traceback, 6 found nothing)."""
    url = f"sqlite://{tmp_path / 'h.db'}"
    shift = min(2, runs - 1)
    ids = make_history(open_store(url), runs=runs, cases=6, shift_run=max(shift, 1), hostile=False)
    r = perflab("history", "--changes", "--store", url, cwd=tmp_path)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    if runs == 1:
        assert "no shift of 2% or more" in r.stdout
        return
    rows = [ln.split() for ln in r.stdout.splitlines() if ln.strip().startswith("Shift.Work")]
    assert len(rows) == 1, r.stdout
    row = rows[0]
    assert row[0] == f"{SHIFTING}[]@py-a" and row[3] == "step"
    assert row[4:6] == [f"#{ids[shift - 1]}", f"#{ids[shift]}"]
    assert re.fullmatch(r"\+(29|30)\.\d%", row[10])


def test_a_flat_young_history_has_no_step(tmp_path):
    url = f"sqlite://{tmp_path / 'h.db'}"
    make_history(open_store(url), runs=5, cases=6, shift_run=99, hostile=False)
    r = perflab("history", "--changes", "--store", url, cwd=tmp_path)
    assert r.returncode == 0 and "no shift of 2% or more in 6 series" in r.stdout, (r.stdout, r.stderr)
