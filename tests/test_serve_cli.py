"""`perflab serve` at start: a store it cannot serve is a one-line error (exit 2), an address other
than loopback needs --host and is warned about, a busy port is named."""
import socket
import sqlite3
import subprocess
import sys

import pytest
from history_fixture import make_history

from perflab.commands.serve import is_loopback
from perflab.store import open_store


def serve(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "perflab.cli", "serve", *args], capture_output=True,
                          text=True, timeout=timeout)


def one_line_error(r, *words):
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), r.stderr
    for w in words:
        assert w in lines[0], r.stderr


def test_a_missing_store_is_an_error_and_not_created(tmp_path):
    path = tmp_path / "nothing" / "history.db"
    one_line_error(serve("--store", f"sqlite://{path}", "--port", "0"), "no history at", "perflab run")
    assert not path.parent.exists()


def test_a_store_from_a_newer_perflab_is_an_error(tmp_path):
    path = tmp_path / "h.db"
    open_store(f"sqlite://{path}").close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE perflab_schema SET version = 99")
    one_line_error(serve("--store", f"sqlite://{path}", "--port", "0"), "newer than this perflab")


def test_a_file_that_is_not_a_history_is_an_error(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not sqlite" * 200)
    one_line_error(serve("--store", f"sqlite://{junk}", "--port", "0"), "not a perflab history")


def test_a_busy_port_is_named(tmp_path):
    path = tmp_path / "h.db"
    make_history(open_store(f"sqlite://{path}"), runs=1, cases=2, hostile=False)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        one_line_error(serve("--store", f"sqlite://{path}", "--port", str(port)), f"--port {port}",
                       "choose another --port")


def test_store_none_is_refused():
    one_line_error(serve("--store", "none"), "needs a history store")


@pytest.mark.parametrize("host,loopback", [("127.0.0.1", True), ("localhost", True), ("::1", True),
                                           ("127.0.0.2", True), ("0.0.0.0", False),
                                           ("192.168.1.10", False), ("example.org", False)])
def test_only_loopback_addresses_count_as_private(host, loopback):
    assert is_loopback(host) is loopback


def test_another_address_is_served_with_a_warning(tmp_path):
    path = tmp_path / "h.db"
    make_history(open_store(f"sqlite://{path}"), runs=1, cases=2, hostile=False)
    proc = subprocess.Popen([sys.executable, "-m", "perflab.cli", "serve", "--store", f"sqlite://{path}",
                             "--host", "0.0.0.0", "--port", "0"], stderr=subprocess.PIPE, text=True)
    try:
        warning, started = proc.stderr.readline(), proc.stderr.readline()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert warning.startswith("warning: listening on 0.0.0.0") and "no login" in warning
    assert started.startswith("perflab serve: http://0.0.0.0:")


def test_a_store_locked_while_it_needs_migrating_is_an_error(tmp_path):
    """A store of an older schema is migrated at start; while a run holds its write lock, that
    waits (5 s) and then says so in one line. (A current store serves during a run: readers of a
    WAL database are not blocked.)"""
    from perflab.store.base import _migrations
    path = tmp_path / "h.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE perflab_schema (version INTEGER NOT NULL)")
    conn.execute("INSERT INTO perflab_schema (version) VALUES (1)")
    for sql in _migrations("INTEGER PRIMARY KEY AUTOINCREMENT")[1]:
        conn.execute(sql)
    conn.commit()
    conn.execute("BEGIN EXCLUSIVE")
    try:
        one_line_error(serve("--store", f"sqlite://{path}", "--port", "0"), "locked by another process")
    finally:
        conn.rollback()
        conn.close()
