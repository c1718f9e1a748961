"""Both history stores pass the same tests: SQLite (file) and PostgreSQL (a real server; test.sh and
.ci/run start one and set PERFLAB_TEST_PG_URL)."""
import json
import os
import sqlite3

import pytest

from perflab.store import SCHEMA_VERSION, StoreError, open_store

PG_URL = os.environ.get("PERFLAB_TEST_PG_URL")


def _reset_pg():
    import psycopg
    with psycopg.connect(PG_URL) as conn:
        conn.execute("DROP TABLE IF EXISTS cases, runs, perflab_schema CASCADE")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite://{tmp_path / 'history.db'}"
    assert PG_URL, "PERFLAB_TEST_PG_URL is not set: run the tests with ./test.sh (it starts PostgreSQL)"
    _reset_pg()
    return PG_URL


def case_doc(key="g.b[]@py", mean=100.0, status="ok"):
    return {"key": key, "benchmark": {"group": "g", "name": key.split("[")[0].split(".")[-1]},
            "runtime": {"label": "py"}, "status": status, "estimate": {"mean": mean, "error": 1.0},
            "launches": [{"index": 0, "invocations": 10, "workload": [1000, 1010, 990]}]}


def new_run(store, label=""):
    return store.begin_run(command=["perflab", "run"], args={"paths": ["."]}, job={"name": "short"},
                           environment={"cpu": {"model": "x"}}, fingerprint="f", label=label)


def test_runs_and_cases_round_trip_with_raw_samples(store_url):
    s = open_store(store_url)
    rid = new_run(s, "first")
    s.add_case(rid, case_doc("g.a[]@py", 100.0))
    s.add_case(rid, case_doc("g.b[]@py", 200.0))
    s.add_case(rid, case_doc("g.a[]@py", 101.0))  # a re-judged case replaces its earlier version
    s.finish_run(rid)
    [run] = s.runs()
    assert run["complete"] and run["cases"] == 2 and run["label"] == "first"
    doc = s.document(rid)
    assert [c["key"] for c in doc["cases"]] == ["g.b[]@py", "g.a[]@py"]
    assert doc["cases"][1]["estimate"]["mean"] == 101.0
    assert doc["cases"][0]["launches"][0]["workload"] == [1000, 1010, 990]
    assert [p["mean_ns"] for p in s.series("g.a")] == [101.0]
    s.close()
    again = open_store(store_url)  # reopening migrates nothing and loses nothing
    assert again.runs()[0]["cases"] == 2


def test_unfinished_runs_are_visible_for_resume(store_url):
    s = open_store(store_url)
    done = new_run(s)
    s.finish_run(done)
    open_ = new_run(s)
    s.add_case(open_, case_doc())
    assert s.latest_run_id(incomplete_only=True) == open_
    assert s.latest_run_id() == open_


def test_a_newer_schema_is_refused_and_left_alone(store_url):
    s = open_store(store_url)
    rid = new_run(s)
    cur = s.conn.cursor()
    cur.execute("UPDATE perflab_schema SET version = 99")
    s.conn.commit()
    s.close()
    with pytest.raises(StoreError, match="newer than this perflab"):
        open_store(store_url)


def test_unknown_run_is_a_clear_error(store_url):
    with pytest.raises(StoreError, match="no run #42"):
        open_store(store_url).run(42)


def test_sqlite_locked_database_fails_cleanly_and_keeps_what_was_stored(tmp_path):
    url = f"sqlite://{tmp_path / 'h.db'}"
    s = open_store(url)
    rid = new_run(s)
    s.add_case(rid, case_doc("g.a[]@py"))
    blocker = sqlite3.connect(str(tmp_path / "h.db"))
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        s.conn.execute("PRAGMA busy_timeout = 100")
        with pytest.raises(StoreError, match="locked"):
            s.add_case(rid, case_doc("g.b[]@py"))
    finally:
        blocker.rollback()
        blocker.close()
    assert [c["key"] for c in s.cases(rid)] == ["g.a[]@py"]  # nothing half-written, nothing lost


def test_sqlite_read_only_and_garbage_files_are_clear_errors(tmp_path):
    path = tmp_path / "h.db"
    open_store(f"sqlite://{path}").close()
    path.chmod(0o444)
    if os.geteuid() != 0:  # root may write anyway; then the check below covers garbage only
        with pytest.raises(StoreError, match="read-only"):
            open_store(f"sqlite://{path}")
    path.chmod(0o644)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a perflab history database"):
        open_store(f"sqlite://{junk}")


def test_read_only_folder(tmp_path):
    with pytest.raises(StoreError, match="cannot create its folder|read-only"):
        open_store("sqlite:///proc/perflab/history.db")


def test_postgres_wrong_credentials_and_unreachable_server():
    assert PG_URL, "PERFLAB_TEST_PG_URL is not set: run the tests with ./test.sh"
    bad = PG_URL.replace("perflab:perflab@", "perflab:wrong@")
    with pytest.raises(StoreError, match="refused the credentials") as info:
        open_store(bad)
    assert "wrong" not in str(info.value)  # the password is not echoed
    with pytest.raises(StoreError, match="cannot reach PostgreSQL"):
        open_store("postgresql://perflab:perflab@127.0.0.1:1/perflab_test")


def test_unknown_store_kind():
    with pytest.raises(StoreError, match="unknown kind of store"):
        open_store("mysql://x")
    assert open_store("none") is None


def _open_and_add(url, barrier, results, i):
    try:
        import perflab.store.postgres, perflab.store.sqlite  # noqa: F401  (imported before the race)
        barrier.wait(timeout=60)
        s = open_store(url)
        rid = new_run(s, f"p{i}")
        s.add_case(rid, case_doc(f"g.a[]@py{i}"))
        s.close()
        results.put((i, "ok"))
    except BaseException as exc:  # reported, not raised: the parent asserts
        results.put((i, f"{type(exc).__name__}: {exc}"))


def test_processes_opening_a_new_store_at_once_all_succeed(store_url):
    """Schema creation takes the write lock first (SQLite BEGIN IMMEDIATE, PostgreSQL an advisory
    lock): without it, `table runs already exists` in most tries."""
    import multiprocessing as mp
    ctx = mp.get_context("spawn")
    for attempt in range(3):
        if store_url.startswith("sqlite://"):
            url = store_url.replace("history.db", f"new{attempt}.db")
        else:
            _reset_pg()
            url = store_url
        barrier, results = ctx.Barrier(6), ctx.Queue()
        procs = [ctx.Process(target=_open_and_add, args=(url, barrier, results, i)) for i in range(6)]
        for p in procs:
            p.start()
        outcomes = dict(results.get(timeout=120) for _ in procs)
        for p in procs:
            p.join()
        assert outcomes == {i: "ok" for i in range(6)}
        s = open_store(url)
        assert sorted(r["label"] for r in s.runs()) == [f"p{i}" for i in range(6)]


V1_KEYS = ["coll[p=x,q=y,q=z]@py", "plain[n=10]@py"]


def _v1_store(path):
    """A history as perflab wrote it before keys were quoted (schema v1): the same SQL, old keys."""
    from perflab.store.base import _migrations
    conn = sqlite3.connect(str(path))
    conn.execute("CREATE TABLE perflab_schema (version INTEGER NOT NULL)")
    for sql in _migrations("INTEGER PRIMARY KEY AUTOINCREMENT")[1]:
        conn.execute(sql)
    conn.execute("INSERT INTO perflab_schema (version) VALUES (1)")
    conn.execute("INSERT INTO runs (started, command, args, job, environment, fingerprint) "
                 "VALUES ('2026-01-01', '[]', '{}', '{}', '{}', 'f')")
    docs = [
        {"key": V1_KEYS[0], "benchmark": {"group": "", "name": "coll",
                                          "params": [{"name": "p", "values": ["x"]},
                                                     {"name": "q", "values": ["y,q=z"]}]},
         "params": {"p": "x", "q": "y,q=z"}, "runtime": {"label": "py"}, "status": "ok"},
        {"key": V1_KEYS[1], "benchmark": {"group": "", "name": "plain",
                                          "params": [{"name": "n", "values": ["10"]}]},
         "params": {"n": "10"}, "runtime": {"label": "py"}, "status": "ok"},
    ]
    for d in docs:
        conn.execute("INSERT INTO cases (run_id, case_key, benchmark, runtime, status, written, doc) "
                     "VALUES (1, ?, ?, 'py', 'ok', '2026-01-01', ?)", (d["key"], d["benchmark"]["name"],
                                                                      json.dumps(d)))
    conn.commit()
    conn.close()


def test_a_v1_history_is_rekeyed_and_ordinary_keys_stay(tmp_path):
    _v1_store(tmp_path / "old.db")
    s = open_store(f"sqlite://{tmp_path / 'old.db'}")
    keys = [c["key"] for c in s.cases(1)]
    assert keys == ['coll[p=x,q="y,q=z"]@py', "plain[n=10]@py"]
    assert sorted(p["key"] for p in s.series()) == sorted(keys)  # the column too, not just the doc
    assert s.conn.execute("SELECT version FROM perflab_schema").fetchone()[0] == SCHEMA_VERSION


def test_cases_whose_params_once_printed_alike_are_stored_apart(store_url):
    from perflab.model import Benchmark, Case, ParamAxis, Runtime
    rt = Runtime("py", "python", "3.11", "python3")
    b = Benchmark("coll", "coll", "", "python", params=(ParamAxis("p", ("x,q=y", "x")),
                                                        ParamAxis("q", ("z", "y,q=z"))))
    keys = {Case(b, tuple(combo.items()), rt).key for combo in b.expand()}
    assert len(keys) == 4
    s = open_store(store_url)
    rid = new_run(s)
    for k in keys:
        s.add_case(rid, case_doc(k))
    assert s.runs()[0]["cases"] == 4


def test_counts_are_stored_with_their_case_and_read_back(store_url):
    """A counted case keeps its whole counts record in its document, and its per-op Ir and thin
    record (no raw events) in columns the series read; a case not counted reads None."""
    from count_docs import counts_record
    s = open_store(store_url)
    rid = new_run(s)
    counted = {**case_doc("g.a[]@c"), "counts": counts_record(1234.5, [1234.5, 1234.6])}
    failed = {**case_doc("g.b[]@c"), "counts": counts_record(0, error="not countable: no marker")}
    s.add_cases(rid, [counted, failed, case_doc("g.c[]@c")])
    assert s.document(rid)["cases"][0]["counts"] == counted["counts"]
    by_key = {p["key"]: p for p in s.series("g.*")}
    a = by_key["g.a[]@c"]
    assert a["ir_per_op"] == 1234.5 and a["counts"]["spread"] == counted["counts"]["spread"]
    assert [ln["per_op"] for ln in a["counts"]["launches"]] == [{"Ir": 1234.5}, {"Ir": 1234.6}]
    assert "workload" not in a["counts"]["launches"][0]
    assert by_key["g.b[]@c"]["ir_per_op"] is None
    assert by_key["g.b[]@c"]["counts"]["error"] == "not countable: no marker"
    assert by_key["g.c[]@c"]["counts"] is None and by_key["g.c[]@c"]["ir_per_op"] is None
    assert [p["ir_per_op"] for p in s.benchmark_series("g.a")] == [1234.5]


def _v3_store(url):
    """A history as perflab wrote it before counts (schema v3): two runs, one case each, one of whose
    documents holds a counts record (results imported by a newer perflab would)."""
    from count_docs import counts_record

    from perflab.store.base import _migrations
    if url.startswith("sqlite://"):
        conn = sqlite3.connect(url[len("sqlite://"):])
        serial, ph = "INTEGER PRIMARY KEY AUTOINCREMENT", "?"
    else:
        import psycopg
        conn = psycopg.connect(url)
        serial, ph = "BIGSERIAL PRIMARY KEY", "%s"
    cur = conn.cursor()
    cur.execute("CREATE TABLE perflab_schema (version INTEGER NOT NULL)")
    cur.execute("INSERT INTO perflab_schema (version) VALUES (3)")
    for version in (1, 2, 3):
        for step in _migrations(serial)[version]:
            if not callable(step):  # the backfills have nothing to fill in empty tables
                cur.execute(step)
    docs = [{**case_doc("g.a[]@c", 10.0), "params": {}},
            {**case_doc("g.a[]@c", 11.0), "params": {}, "counts": counts_record(500.0)}]
    for run, d in enumerate(docs, 1):
        cur.execute(f"INSERT INTO runs (started, label, command, args, job, environment, fingerprint) "
                    f"VALUES ({ph}, {ph}, '[]', '{{}}', '{{}}', '{{}}', 'f')", (f"2026-01-0{run}", f"v3 #{run}"))
        cur.execute(f"INSERT INTO cases (run_id, case_key, benchmark, runtime, status, mean_ns, error_ns, "
                    f"written, doc, params) VALUES ({ph}, {ph}, 'g.a', 'c', 'ok', {ph}, 1.0, 'x', {ph}, '{{}}')",
                    (run, d["key"], d["estimate"]["mean"], json.dumps(d)))
    conn.commit()
    conn.close()
    return docs


def test_a_v3_history_migrates_to_counts_and_keeps_every_run(store_url):
    docs = _v3_store(store_url)
    s = open_store(store_url)
    cur = s.conn.cursor()
    cur.execute("SELECT version FROM perflab_schema")
    assert cur.fetchone()[0] == SCHEMA_VERSION == 4
    s.conn.commit()
    assert [r["label"] for r in s.runs()] == ["v3 #1", "v3 #2"]
    assert [s.document(r)["cases"] for r in (1, 2)] == [[docs[0]], [docs[1]]]  # untouched
    points = s.series("g.a")
    assert [p["mean_ns"] for p in points] == [10.0, 11.0]
    assert [p["ir_per_op"] for p in points] == [None, 500.0]  # filled from the document that had it
    assert points[0]["counts"] is None and points[1]["counts"]["agreed"] is True
    rid = new_run(s)  # and it is written to as a v4 history
    s.add_case(rid, case_doc("g.a[]@c", 12.0))
    assert len(s.series("g.a")) == 3
