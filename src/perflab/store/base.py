"""One SQL implementation of the history store; the SQLite and PostgreSQL classes only say how to
connect, how to write a placeholder and how to translate their errors.

Schema migrations are numbered; a database newer than this perflab is refused (never touched).
A migration step is SQL text or a function of a cursor (a backfill that needs Python).
Every write is its own transaction, so a killed run leaves every finished case stored.
"""
from __future__ import annotations

import datetime as dt
import json
from abc import ABC, abstractmethod
from typing import Any

from ..errors import TIMED_OUT

SCHEMA_VERSION = 4


class StoreError(Exception):
    """The history store cannot be used; the message is one line that says what to do."""


def _migrations(serial_pk: str) -> dict[int, list[str]]:
    return {
        1: [
            f"""CREATE TABLE runs (
                id {serial_pk},
                started TEXT NOT NULL,
                finished TEXT,
                complete INTEGER NOT NULL DEFAULT 0,
                label TEXT NOT NULL DEFAULT '',
                command TEXT NOT NULL,
                args TEXT NOT NULL,
                job TEXT NOT NULL,
                environment TEXT NOT NULL,
                fingerprint TEXT NOT NULL)""",
            f"""CREATE TABLE cases (
                id {serial_pk},
                run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
                case_key TEXT NOT NULL,
                benchmark TEXT NOT NULL,
                runtime TEXT NOT NULL,
                status TEXT NOT NULL,
                mean_ns DOUBLE PRECISION,
                error_ns DOUBLE PRECISION,
                written TEXT NOT NULL,
                doc TEXT NOT NULL,
                UNIQUE (run_id, case_key))""",
            "CREATE INDEX cases_by_key ON cases (case_key)",
        ],
        # v2: case keys quote parameter values holding , = [ ] " or \\ (model.case_key): re-key
        2: [_rekey_cases],
        # v3: what the dashboard's pages read without opening each case's document: the params and
        # the interval of each case as columns, and indices for their access paths (a benchmark's
        # series, a run's cases by status, runs by date).
        3: [
            "ALTER TABLE cases ADD COLUMN params TEXT NOT NULL DEFAULT '{}'",
            "ALTER TABLE cases ADD COLUMN ci_low_ns DOUBLE PRECISION",
            "ALTER TABLE cases ADD COLUMN ci_high_ns DOUBLE PRECISION",
            _backfill_case_columns,
            "CREATE INDEX cases_by_benchmark ON cases (benchmark, run_id)",
            "CREATE INDEX cases_by_run_status ON cases (run_id, status)",
            "CREATE INDEX runs_by_started ON runs (started)",
        ],
        # v4: instruction counts (`--measure instructions`) beside the time: per-op Ir as a column,
        # and the counts record without its raw events (thin_counts) for the verdicts on a series
        4: [
            "ALTER TABLE cases ADD COLUMN ir_per_op DOUBLE PRECISION",
            "ALTER TABLE cases ADD COLUMN counts TEXT",
            _backfill_count_columns,
        ],
    }


def _rekey_cases(store: "Store", cur) -> None:
    """Give every stored case today's key (ordinary keys do not change), in its column and its doc."""
    from ..model import case_key_of
    cur.execute("SELECT id, case_key, doc FROM cases")
    for row_id, old_key, text in cur.fetchall():
        doc = json.loads(text)
        try:
            new_key = case_key_of(doc)
        except (KeyError, TypeError, AttributeError):
            continue  # a document too damaged to re-key keeps its old key
        if new_key != old_key:
            doc["key"] = new_key
            cur.execute(store._q("UPDATE cases SET case_key = ?, doc = ? WHERE id = ?"),
                        (new_key, json.dumps(doc), row_id))


def _case_columns(case: dict[str, Any]) -> tuple[str, float | None, float | None]:
    """The columns of a case that come from its document: params (JSON) and its interval."""
    est = case.get("estimate") or {}
    params = case.get("params") if isinstance(case.get("params"), dict) else {}
    return json.dumps(params, sort_keys=True), est.get("ci_low"), est.get("ci_high")


def thin_counts(counts: Any) -> dict[str, Any] | None:
    """A case's counts record as the history's series carry it: every field of the schema
    (docs/instructions.md) but the launches' raw events, each launch keeping its per-op Ir, which is
    what a verdict between runs needs (the full record stays in the case's document)."""
    if not isinstance(counts, dict):
        return None
    raw = counts.get("launches")
    launches = [{k: ln.get(k) for k in ("invocations", "iterations")}
                | {"per_op": {"Ir": ln["per_op"].get("Ir") if isinstance(ln.get("per_op"), dict) else None}}
                for ln in (raw if isinstance(raw, list) else []) if isinstance(ln, dict)]
    return {**counts, "launches": launches}


def _count_columns(case: dict[str, Any]) -> tuple[float | None, str | None]:
    """The count columns of a case: per-op Ir (None when not counted, or it failed) and thin_counts."""
    from ..count_verdicts import per_op
    thin = thin_counts(case.get("counts"))
    return per_op(thin), json.dumps(thin) if thin is not None else None


def _backfill_count_columns(store: "Store", cur) -> None:
    # only documents that hold a counts record (json.dumps writes the key so, and escapes any quote
    # inside a string): the others keep NULL
    cur.execute("SELECT id, doc FROM cases WHERE doc LIKE '%\"counts\": {%'")
    for cid, doc in cur.fetchall():
        cur.execute(store._q("UPDATE cases SET ir_per_op = ?, counts = ? WHERE id = ?"),
                    (*_count_columns(json.loads(doc)), cid))


def _backfill_case_columns(store: "Store", cur) -> None:
    cur.execute("SELECT id, doc FROM cases")
    rows = cur.fetchall()
    for cid, doc in rows:
        cur.execute(store._q("UPDATE cases SET params = ?, ci_low_ns = ?, ci_high_ns = ? WHERE id = ?"),
                    (*_case_columns(json.loads(doc)), cid))


class _Decoded(dict):
    """JSON texts decoded once each: a series repeats its params' text in every run."""

    def __missing__(self, text: str) -> Any:
        value = self[text] = json.loads(text)
        return value


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


class Store(ABC):
    url: str
    placeholder = "?"
    serial_pk = "INTEGER PRIMARY KEY AUTOINCREMENT"

    def __init__(self) -> None:
        self.conn = self._guard(self._connect)
        self._guard(self._migrate)

    # -- dialect ---------------------------------------------------------------------------------
    @abstractmethod
    def _connect(self): ...

    @abstractmethod
    def _translate(self, exc: Exception) -> StoreError | None:
        """A StoreError for a driver error (locked, read-only, unreachable, bad credentials)."""

    def _insert_returning_id(self, cur, sql: str, values: tuple) -> int:
        cur.execute(sql + " RETURNING id", values)
        return int(cur.fetchone()[0])

    # -- plumbing --------------------------------------------------------------------------------
    def _guard(self, fn, *args):
        try:
            return fn(*args)
        except StoreError:
            raise
        except Exception as exc:  # driver errors become one-line StoreErrors
            translated = self._translate(exc)
            if translated is None:
                raise
            try:
                if getattr(self, "conn", None) is not None:
                    self.conn.rollback()
            except Exception:
                pass
            raise translated from None

    def _q(self, sql: str) -> str:
        return sql.replace("?", self.placeholder)

    def _tx(self, statements: list[tuple[str, tuple]]) -> list:
        cur = self.conn.cursor()
        out = []
        try:
            for sql, values in statements:
                cur.execute(self._q(sql), values)
                out.append(cur.fetchall() if cur.description else None)
            self.conn.commit()
        except BaseException:
            self.conn.rollback()
            raise
        return out

    def _query(self, sql: str, values: tuple = ()) -> list[tuple]:
        def run():
            cur = self.conn.cursor()
            cur.execute(self._q(sql), values)
            rows = cur.fetchall()
            self.conn.commit()
            return rows
        return self._guard(run)

    @abstractmethod
    def _lock_for_schema(self, cur) -> None:
        """Begin a transaction holding the database's write lock, so that processes opening a new
        store at once create (or migrate) its schema one after the other, never side by side."""

    def _migrate(self) -> None:
        cur = self.conn.cursor()
        self._lock_for_schema(cur)
        cur.execute("CREATE TABLE IF NOT EXISTS perflab_schema (version INTEGER NOT NULL)")
        cur.execute("SELECT version FROM perflab_schema")
        row = cur.fetchone()
        current = int(row[0]) if row else 0
        if current > SCHEMA_VERSION:
            self.conn.rollback()
            raise StoreError(f"{self.url}: history schema v{current} is newer than this perflab "
                             f"(v{SCHEMA_VERSION}); upgrade perflab to read it")
        for version, statements in sorted(_migrations(self.serial_pk).items()):
            if version <= current:
                continue
            for step in statements:
                if callable(step):
                    step(self, cur)
                else:
                    cur.execute(step)
            if current == 0 and version == 1:
                cur.execute(self._q("INSERT INTO perflab_schema (version) VALUES (?)"), (version,))
            else:
                cur.execute(self._q("UPDATE perflab_schema SET version = ?"), (version,))
            current = version
        self.conn.commit()

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:
            pass

    # -- runs ------------------------------------------------------------------------------------
    def begin_run(self, *, command: list[str], args: dict, job: dict, environment: dict,
                  fingerprint: str, label: str = "") -> int:
        def run():
            cur = self.conn.cursor()
            try:
                rid = self._insert_returning_id(cur, self._q(
                    "INSERT INTO runs (started, label, command, args, job, environment, fingerprint) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)"),
                    (now(), label, json.dumps(command), json.dumps(args), json.dumps(job),
                     json.dumps(environment), fingerprint))
                self.conn.commit()
                return rid
            except BaseException:
                self.conn.rollback()
                raise
        return self._guard(run)

    def add_case(self, run_id: int, case: dict[str, Any]) -> None:
        self.add_cases(run_id, [case])

    def add_cases(self, run_id: int, cases: list[dict[str, Any]]) -> None:
        """Store cases of a run in one transaction; a case stored before under its key is replaced."""
        statements = []
        for case in cases:
            est = case.get("estimate") or {}
            values = (run_id, case["key"], case["benchmark"]["group"] + "." + case["benchmark"]["name"],
                      case["runtime"]["label"], case["status"], est.get("mean"), est.get("error"),
                      now(), json.dumps(case), *_case_columns(case), *_count_columns(case))
            statements += [
                ("DELETE FROM cases WHERE run_id = ? AND case_key = ?", (run_id, case["key"])),
                ("INSERT INTO cases (run_id, case_key, benchmark, runtime, status, mean_ns, error_ns, "
                 "written, doc, params, ci_low_ns, ci_high_ns, ir_per_op, counts) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", values)]
        self._guard(self._tx, statements)

    def finish_run(self, run_id: int, complete: bool = True) -> None:
        self._guard(self._tx, [("UPDATE runs SET finished = ?, complete = ? WHERE id = ?",
                                (now(), 1 if complete else 0, run_id))])

    def runs(self) -> list[dict[str, Any]]:
        rows = self._query(
            "SELECT r.id, r.started, r.finished, r.complete, r.label, r.fingerprint, "
            "(SELECT COUNT(*) FROM cases c WHERE c.run_id = r.id), "
            "(SELECT COUNT(*) FROM cases c WHERE c.run_id = r.id AND c.status = 'failed') "
            "FROM runs r ORDER BY r.id")
        return [{"id": r[0], "started": r[1], "finished": r[2], "complete": bool(r[3]),
                 "label": r[4], "fingerprint": r[5], "cases": r[6], "failed": r[7]} for r in rows]

    def run(self, run_id: int) -> dict[str, Any]:
        rows = self._query("SELECT id, started, finished, complete, label, command, args, job, "
                           "environment, fingerprint FROM runs WHERE id = ?", (run_id,))
        if not rows:
            raise StoreError(f"{self.url}: no run #{run_id}; see `perflab history`")
        r = rows[0]
        return {"id": r[0], "started": r[1], "finished": r[2], "complete": bool(r[3]), "label": r[4],
                "command": json.loads(r[5]), "args": json.loads(r[6]), "job": json.loads(r[7]),
                "environment": json.loads(r[8]), "fingerprint": r[9]}

    def cases(self, run_id: int) -> list[dict[str, Any]]:
        rows = self._query("SELECT doc FROM cases WHERE run_id = ? ORDER BY id", (run_id,))
        return [json.loads(r[0]) for r in rows]

    def case(self, run_id: int, key: str) -> dict[str, Any] | None:
        """One stored case of a run, with its raw samples (None: the run has no such case)."""
        rows = self._query("SELECT doc FROM cases WHERE run_id = ? AND case_key = ? ORDER BY id DESC",
                           (run_id, key))
        return json.loads(rows[0][0]) if rows else None

    def document(self, run_id: int) -> dict[str, Any]:
        """A stored run as a results document (the same shape `perflab run` writes to JSON)."""
        from ..results import SCHEMA, SCHEMA_VERSION as DOC_VERSION
        meta = self.run(run_id)
        return {"schema": SCHEMA, "version": DOC_VERSION, "run_id": run_id,
                "started": meta["started"], "complete": meta["complete"],
                "command": meta["command"], "job": meta["job"],
                "environment": meta["environment"], "cases": self.cases(run_id)}

    def series(self, pattern: str | None = None) -> list[dict[str, Any]]:
        """`pattern`: see name_matches. Every stored measurement of matching cases, oldest run first: the time, and where the case
        was counted its per-op Ir and its counts record (thin_counts; None when not counted)."""
        rows = self._query(
            "SELECT c.run_id, r.started, c.case_key, c.benchmark, c.runtime, c.status, c.mean_ns, "
            "c.error_ns, c.params, c.ir_per_op, c.counts FROM cases c JOIN runs r ON r.id = c.run_id "
            "ORDER BY c.run_id, c.id")
        out = []
        for r in rows:
            if pattern and not name_matches(pattern, r[3], r[2]):
                continue
            out.append({"run_id": r[0], "started": r[1], "key": r[2], "benchmark": r[3],
                        "runtime": r[4], "status": r[5], "mean_ns": r[6], "error_ns": r[7],
                        "params": json.loads(r[8]), "ir_per_op": r[9],
                        "counts": json.loads(r[10]) if r[10] is not None else None})
        return out

    # -- what the dashboard reads (perflab.web.queries): one bound-parameter query per page part ----
    def run_states(self) -> list[tuple[int, str, str | None, bool]]:
        """(id, started, finished, complete) of every run, oldest first: what changes after a run began."""
        return [(int(r[0]), r[1], r[2], bool(r[3]))
                for r in self._query("SELECT id, started, finished, complete FROM runs ORDER BY id")]

    def run_records(self, after: int = 0) -> list[dict[str, Any]]:
        """Every run after id `after` with what it was (command, args, job, environment), oldest
        first; no cases."""
        rows = self._query("SELECT id, started, finished, complete, label, command, args, job, "
                           "environment, fingerprint FROM runs WHERE id > ? ORDER BY id", (after,))
        return [{"id": r[0], "started": r[1], "finished": r[2], "complete": bool(r[3]), "label": r[4],
                 "command": json.loads(r[5]), "args": json.loads(r[6]), "job": json.loads(r[7]),
                 "environment": json.loads(r[8]), "fingerprint": r[9]} for r in rows]

    def case_counts(self, since_run: int = 0) -> dict[int, tuple[int, int]]:
        """Per run id after `since_run`: (cases, cases that failed; a case absent from its runtime,
        status 'na', is not a failure); index cases_by_run_status."""
        rows = self._query("SELECT run_id, COUNT(*), SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) "
                           "FROM cases WHERE run_id > ? GROUP BY run_id", (since_run,))
        return {int(r[0]): (int(r[1]), int(r[2] or 0)) for r in rows}

    def benchmark_names(self) -> list[tuple[str, int]]:
        """Every stored benchmark (Group.method) with the number of runs that measured it."""
        rows = self._query("SELECT benchmark, COUNT(DISTINCT run_id) FROM cases GROUP BY benchmark "
                           "ORDER BY benchmark")
        return [(r[0], int(r[1])) for r in rows]

    def benchmark_series(self, benchmark: str) -> list[dict[str, Any]]:
        """Every measurement of one benchmark (all runtimes and params), oldest run first; index
        cases_by_benchmark. No raw samples: the page plots means and intervals (and lists the counts,
        thin_counts, where the case was counted)."""
        rows = self._query(
            "SELECT run_id, case_key, runtime, params, status, mean_ns, error_ns, ci_low_ns, "
            "ci_high_ns, ir_per_op, counts FROM cases WHERE benchmark = ? ORDER BY run_id, id",
            (benchmark,))
        params = _Decoded()
        return [{"run_id": r[0], "key": r[1], "benchmark": benchmark, "runtime": r[2],
                 "params": params[r[3]], "status": r[4], "mean_ns": r[5], "error_ns": r[6],
                 "ci_low_ns": r[7], "ci_high_ns": r[8], "ir_per_op": r[9],
                 "counts": json.loads(r[10]) if r[10] is not None else None} for r in rows]

    def all_means(self) -> list[dict[str, Any]]:
        """Every case's mean in every run (no documents), for change points across all series."""
        rows = self._query("SELECT run_id, case_key, benchmark, runtime, params, status, mean_ns "
                           "FROM cases ORDER BY run_id, id")
        params = _Decoded()
        return [{"run_id": r[0], "key": r[1], "benchmark": r[2], "runtime": r[3],
                 "params": params[r[4]], "status": r[5], "mean_ns": r[6]} for r in rows]

    def state(self) -> tuple[int, int, int]:
        """(latest run id, latest case row id, finished runs): changes whenever anything is written
        (a case rewritten gets a new row), so a reader can keep what it computed until then."""
        rows = self._query("SELECT (SELECT COALESCE(MAX(id), 0) FROM runs), "
                           "(SELECT COALESCE(MAX(id), 0) FROM cases), "
                           "(SELECT COUNT(*) FROM runs WHERE finished IS NOT NULL)")
        return int(rows[0][0]), int(rows[0][1]), int(rows[0][2])

    def last_timeouts(self, keys: list[str], skipped_prefix: str) -> dict[str, tuple[int, str, int]]:
        """Of these case keys, the ones whose latest attempt in the history failed on a reply
        time-out: key → (run id, error, runs that skipped it since). A row whose error starts with
        `skipped_prefix` was not an attempt (a run skipped the case): the one before it counts.
        Index cases_by_key."""
        latest: dict[str, list[tuple[int, str]]] = {}
        for i in range(0, len(keys), 500):  # bound the statement's parameters
            chunk = keys[i:i + 500]
            rows = self._query("SELECT run_id, case_key, status FROM cases WHERE case_key IN ("
                               + ", ".join("?" * len(chunk)) + ") ORDER BY run_id DESC", tuple(chunk))
            for run_id, key, status in rows:
                latest.setdefault(key, []).append((int(run_id), status))
        out = {}
        for key, attempts in latest.items():
            skips = 0
            for run_id, status in attempts:  # newest first
                if status != "failed":
                    break
                docs = self._query("SELECT doc FROM cases WHERE run_id = ? AND case_key = ?", (run_id, key))
                error = (json.loads(docs[0][0]).get("error") or "") if docs else ""
                if error.startswith(skipped_prefix):
                    skips += 1
                    continue
                if error.startswith(TIMED_OUT):
                    out[key] = (run_id, error, skips)
                break
        return out

    def latest_run_id(self, incomplete_only: bool = False) -> int | None:
        sql = "SELECT MAX(id) FROM runs" + (" WHERE complete = 0" if incomplete_only else "")
        rows = self._query(sql)
        return int(rows[0][0]) if rows and rows[0][0] is not None else None


def name_matches(pattern: str, benchmark: str, key: str) -> bool:
    """A glob (any case) on the benchmark's full name (Group.method), on its method alone (what
    BenchmarkDotNet's table and `go test -bench` call it: `Sort` of `textproc.Sort`), or on a case key."""
    import fnmatch
    p = pattern.lower()
    method = benchmark.rsplit(".", 1)[-1]
    return any(fnmatch.fnmatchcase(name.lower(), p) for name in (benchmark, method, key))
