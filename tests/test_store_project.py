"""The history follows the project, records where each run came from, and a store of an earlier
schema migrates without losing a run (SQLite and PostgreSQL)."""
import json
import subprocess

import pytest
from test_store import PG_URL, _reset_pg, store_url  # noqa: F401  (store_url is a fixture)

from perflab.environment import git_commit
from perflab.provenance import provenance
from perflab.store import SCHEMA_VERSION, default_url, open_store, project_root
from perflab.store.base import _migrations


def test_default_history_is_at_the_root_of_the_benchmarks_git_repository(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "bench" / "deep").mkdir(parents=True)
    (repo / "bench" / "deep" / "bench_x.py").write_text("")
    monkeypatch.chdir(tmp_path)
    assert project_root(repo / "bench" / "deep" / "bench_x.py") == repo.resolve()
    assert default_url(repo / "bench") == f"sqlite://{repo.resolve()}/.perflab/history.db"
    elsewhere = tmp_path / "plain"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # outside any repository: the working directory
    assert default_url() == f"sqlite://{elsewhere.resolve()}/.perflab/history.db"


def test_two_projects_keep_separate_histories(tmp_path, monkeypatch):
    monkeypatch.delenv("PERFLAB_STORE", raising=False)
    for name in ("a", "b"):
        (tmp_path / name / ".git").mkdir(parents=True)
    a = open_store(None, project=tmp_path / "a")
    a.begin_run(command=["perflab"], args={}, job={}, environment={}, fingerprint="f", label="in a")
    b = open_store(None, project=tmp_path / "b")
    assert b.runs() == [] and [r["label"] for r in a.runs()] == ["in a"]
    monkeypatch.setenv("PERFLAB_STORE", f"sqlite://{tmp_path / 'shared.db'}")  # still overrides
    assert open_store(None, project=tmp_path / "a").url.endswith("shared.db")


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t", *args],
                   check=True, capture_output=True)


def test_git_commit_branch_and_dirty_flag_are_recorded(tmp_path):
    repo = tmp_path / "repo"
    (repo / "bench").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "feature/x")
    (repo / "bench" / "bench_a.py").write_text("a = 1\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "one")
    info = git_commit(repo / "bench")
    assert info["branch"] == "feature/x" and len(info["commit"]) == 40 and not info["dirty"]
    assert info["root"] == str(repo.resolve())
    (repo / "bench" / "bench_a.py").write_text("a = 2\n")
    assert git_commit(repo / "bench")["dirty"]
    _git(repo, "checkout", "-q", "--detach")
    assert git_commit(repo / "bench")["branch"] is None
    assert git_commit(tmp_path) is None  # not a repository


def test_provenance_reads_a_stored_run():
    run = {"command": ["perflab", "run", "b dir", "-r", "py"], "args": {"paths": ["b dir"]},
           "job": {"name": "short"}, "label": "x", "fingerprint": "fp",
           "environment": {"git": {"b dir": {"commit": "c" * 40, "branch": "main", "dirty": True}},
                           "runtimes": [{"label": "py3.11"}, {"label": "py3.12"}]}}
    p = provenance(run)
    assert p.command == "perflab run 'b dir' -r py"  # shell-quoted: copy-paste runs it again
    assert p.revision == "cccccccccc+dirty (main)" and p.runtimes == ["py3.11", "py3.12"]
    assert p.paths == ["b dir"] and p.job == "short"
    assert provenance({}).revision == ""  # a run outside a repository, or of an older perflab


def test_a_version_1_store_migrates_and_keeps_every_run(store_url):  # noqa: F811
    """A history written by perflab before the dashboard (schema v1) opens with the params and
    interval columns filled from each case's document, and the pages' indices."""
    if store_url.startswith("sqlite://"):
        import sqlite3
        conn = sqlite3.connect(store_url[len("sqlite://"):])
        serial, ph = "INTEGER PRIMARY KEY AUTOINCREMENT", "?"
    else:
        import psycopg
        conn = psycopg.connect(PG_URL)
        serial, ph = "BIGSERIAL PRIMARY KEY", "%s"
    cur = conn.cursor()
    cur.execute("CREATE TABLE perflab_schema (version INTEGER NOT NULL)")
    cur.execute("INSERT INTO perflab_schema (version) VALUES (1)")
    for sql in _migrations(serial)[1]:
        cur.execute(sql)
    doc = {"key": "g.b[n=1]@py", "benchmark": {"group": "g", "name": "b"}, "params": {"n": "1"},
           "runtime": {"label": "py"}, "status": "ok",
           "estimate": {"mean": 10.0, "error": 1.0, "ci_low": 9.0, "ci_high": 11.0}}
    cur.execute(f"INSERT INTO runs (started, label, command, args, job, environment, fingerprint) "
                f"VALUES ({ph}, {ph}, {ph}, {ph}, {ph}, {ph}, {ph})",
                ("2024-01-01T00:00:00+00:00", "old", "[]", "{}", "{}", "{}", "f"))
    cur.execute(f"INSERT INTO cases (run_id, case_key, benchmark, runtime, status, mean_ns, "
                f"error_ns, written, doc) VALUES (1, {ph}, 'g.b', 'py', 'ok', 10.0, 1.0, 'x', {ph})",
                (doc["key"], json.dumps(doc)))
    conn.commit()
    conn.close()
    s = open_store(store_url)
    cur = s.conn.cursor()
    cur.execute("SELECT version FROM perflab_schema")
    assert cur.fetchone()[0] == SCHEMA_VERSION
    [point] = s.benchmark_series("g.b")
    assert point["params"] == {"n": "1"} and (point["ci_low_ns"], point["ci_high_ns"]) == (9.0, 11.0)
    assert [r["label"] for r in s.runs()] == ["old"] and s.document(1)["cases"] == [doc]
    if store_url.startswith("sqlite://"):
        cur.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
    else:
        cur.execute("SELECT indexname FROM pg_indexes WHERE tablename IN ('runs', 'cases')")
    names = {r[0] for r in cur.fetchall()}
    s.conn.commit()
    assert {"cases_by_benchmark", "cases_by_run_status", "runs_by_started"} <= names


def test_page_queries_bind_user_text_as_data(store_url):  # noqa: F811
    """A benchmark named like SQL is looked up as a name (bound parameter), never executed."""
    s = open_store(store_url)
    rid = s.begin_run(command=["perflab"], args={}, job={}, environment={}, fingerprint="f")
    name = "x'; DROP TABLE runs; --"
    s.add_cases(rid, [{"key": f"{name}[]@py", "benchmark": {"group": "x'; DROP TABLE runs", "name": " --"},
                       "params": {"p": "'\"\n<>"}, "runtime": {"label": "py"}, "status": "ok",
                       "estimate": {"mean": 1.0}}])
    [point] = s.benchmark_series("x'; DROP TABLE runs. --")
    assert point["params"] == {"p": "'\"\n<>"}
    assert s.case_counts() == {rid: (1, 0)} and len(s.run_records()) == 1


def test_the_project_history_stays_out_of_git_status(tmp_path, monkeypatch):
    """Its own history file must not make the next run's commit look dirty."""
    monkeypatch.delenv("PERFLAB_STORE", raising=False)
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "bench_a.py").write_text("")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "one")
    open_store(None, project=repo / "bench_a.py").close()
    assert (repo / ".perflab" / "history.db").is_file()
    assert git_commit(repo)["dirty"] is False


def test_history_lists_provenance_and_series_show_params(tmp_path, capsys):
    from history_fixture import make_history

    from perflab.cli import main
    url = f"sqlite://{tmp_path / 'h.db'}"
    make_history(open_store(url), runs=2, cases=8, hostile=False)
    assert main(["history", "--store", url]) == 0
    shown = capsys.readouterr().out
    for text in ("Commit (branch)", "0000ababab (main)", "perflab run bench -r py-a,py-b", "py-a, py-b",
                 "nightly 1", "short", "fake-machine"):
        assert text in shown, text
    assert main(["history", "Load.N0", "--store", url]) == 0
    shown = capsys.readouterr().out
    assert "Params" in shown and "size=10" in shown and "size=1 " in shown
