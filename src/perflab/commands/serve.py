"""`perflab serve`: the history as a read-only web dashboard (perflab.web), on loopback by default."""
from __future__ import annotations

import gc
import ipaddress
import socket
import threading
import time
from pathlib import Path

from rich.text import Text

from ..console import err
from ..errors import UsageError
from ..store import open_store, store_url

LOOPBACK_NAMES = ("localhost",)


def add_serve_parser(subparsers):
    sp = subparsers.add_parser("serve", help="browse the history in a web browser (read-only)")
    from ..cli import STORE_HELP
    sp.add_argument("--store", help=STORE_HELP)
    sp.add_argument("--host", default="127.0.0.1",
                    help="address to listen on (default 127.0.0.1: this machine only); another "
                    "address lets other machines read the history")
    sp.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    return sp


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_store_exists(url: str) -> None:
    """A missing SQLite file is an error here, not a new empty history (serve never writes one)."""
    if url.startswith("sqlite://"):
        path = Path(url[len("sqlite://"):]).expanduser()
        if not path.is_file():
            raise UsageError(f"no history at {path}: run `perflab run` in the project first, or give "
                             "--store sqlite:///path/to/history.db")


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before the server starts so a busy port is a one-line error."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)  # connections queue from here on: the printed URL answers at once
    except OSError as exc:
        raise UsageError(f"--host {host} --port {port}: cannot listen there ({exc.strerror or exc}); "
                         "choose another --port") from None
    return sock


def _warm_up(url: str, history) -> None:
    """Imports that take seconds (change points: ruptures; the run page's statistics: scipy; its
    plots: matplotlib), then the runs and every series' change points, on a connection of its own:
    the first visitor of a page finds them computed. Best effort: a failure here only leaves pages to compute
    them themselves."""
    import matplotlib.backends.backend_agg  # noqa: F401
    import ruptures  # noqa: F401
    import scipy.stats  # noqa: F401
    try:
        started = time.perf_counter()
        store = open_store(url)
        try:
            found = history.warm(store)
        finally:
            store.close()
        # what the warm-up built lives as long as the server: out of the collector's sight, a
        # page's thousands of new rows no longer make it walk all of that (a benchmark page's
        # first answer took twice as long, bench/serve.py)
        gc.freeze()
        err.print(Text(f"perflab serve: runs and change points ready ({found} change points, "
                       f"{time.perf_counter() - started:.1f} s)"), soft_wrap=True)
    except Exception:  # noqa: BLE001 - the pages compute what the warm-up could not
        pass


def cmd_serve(args) -> int:
    import uvicorn

    from ..web.app import create_app
    url = store_url(args.store)
    if url == "none":
        raise UsageError("serve needs a history store; --store is none")
    check_store_exists(url)
    store = open_store(url)  # a locked, foreign or newer store is a one-line error here
    loopback = is_loopback(args.host)
    if not loopback:
        err.print(Text.assemble(("warning:", "yellow"), f" listening on {args.host}: every machine "
                                "that can reach it can read this history (there is no login)"),
                  soft_wrap=True)
    sock = bind(args.host, args.port)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    app = create_app(store, allowed_hosts=["127.0.0.1", "localhost", "::1"] if loopback else None)
    err.print(Text(f"perflab serve: http://{shown}:{port}/  (history {store.url}; Ctrl-C stops)"),
              soft_wrap=True)
    threading.Thread(target=_warm_up, args=(url, app.state.history), daemon=True).start()
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        store.close()
    return 0
