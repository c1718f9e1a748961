"""`perflab serve`: a read-only web dashboard over the history (an ASGI app: Starlette, Jinja2).

Pages: runs, a run, benchmarks, a benchmark's series, regressions (every change point), compare.
Every page's state is in its URL (query parameters), every endpoint is GET, and every user-supplied
text (names, params, labels, paths) reaches the page through Jinja2's autoescaping or as JSON data
that scripts put into the page as text, never as markup. The charts are Chart.js, shipped in static/.
"""
from __future__ import annotations

import math
from collections import OrderedDict
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..count_verdicts import format_count
from ..judge import Verdict
from ..model import Status
from ..errors import UsageError
from ..policy import DEFAULT
from ..store import Store, StoreError
from ..units import format_time
from . import run_page
from .queries import SORTS, History

STATIC = Path(__file__).parent / "static"
# scripts and styles only from this server: an injected <script> would not run even if one got through
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


def _templates() -> Environment:
    env = Environment(loader=PackageLoader("perflab.web", "templates"),
                      autoescape=select_autoescape(["html"], default=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["time"] = lambda ns: format_time(ns) if ns is not None else "NA"
    env.filters["pct"] = lambda x: f"{x:+.1%}"
    env.filters["count"] = lambda v: format_count(v) if v is not None else "not counted"
    return env


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value not in (None, "") else default
    except ValueError:
        return default


def _float(value: str | None, default: float) -> float:
    try:
        v = float(value) if value not in (None, "") else default
        return v if math.isfinite(v) else default
    except ValueError:
        return default


def create_app(store: Store, *, allowed_hosts: list[str] | None = None) -> Starlette:
    """The dashboard over an open store. `allowed_hosts`: Host headers to answer (a loopback server
    answers only its own names, so a web page elsewhere cannot reach it by DNS rebinding)."""
    history = History(store)
    templates = _templates()

    def page(template: str, status: int = 200, **context: Any) -> HTMLResponse:
        html = templates.get_template(template).render(store_url=store.url, **context)
        return HTMLResponse(html, status_code=status, headers={
            "Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"})

    def error(status: int, title: str, message: str) -> HTMLResponse:
        return page("error.html", status=status, title=title, message=message)

    async def runs(request: Request) -> Response:
        qp = request.query_params
        sort = qp.get("sort", "started") if qp.get("sort") in SORTS else "started"
        order = "asc" if qp.get("order") == "asc" else "desc"
        state = {"q": qp.get("q", ""), "status": qp.get("status", ""), "sort": sort, "order": order}
        rows, matched, pages = history.run_page(page=_int(qp.get("page"), 1), **state)
        page_no = min(max(_int(qp.get("page"), 1), 1), pages)
        return page("runs.html", title="Runs", rows=rows, matched=matched, pages=pages,
                    page_no=page_no, total=len(history.runs()), state=state, sorts=SORTS)

    async def run(request: Request) -> Response:
        run_id = request.path_params["run_id"]
        info = history.run_info(run_id)
        doc = store.document(run_id)
        report = run_page.run_report(doc, run_id)
        tables = run_page.tables(report) if report else []
        ids = [r.id for r in history.runs()]
        at = ids.index(run_id) if run_id in ids else -1
        return page("run.html", title=f"Run #{run_id}", run=info, prov=info["prov"], tables=tables,
                    environment=run_page.environment_lines(doc), notes=report.notes if report else [],
                    previous=ids[at - 1] if at > 0 else None,
                    next=ids[at + 1] if 0 <= at < len(ids) - 1 else None)

    async def run_plot(request: Request) -> Response:
        run_id, index = request.path_params["run_id"], request.path_params["index"]
        png = run_page.plot_png(store.document(run_id), run_id, index)
        if png is None:
            return Response(status_code=404)
        return Response(png, media_type="image/png", headers={"Cache-Control": "max-age=3600"})

    async def benchmarks(request: Request) -> Response:
        q = request.query_params.get("q", "")
        names = [b for b in history.benchmarks() if q.lower() in b[0].lower()]
        return page("benchmarks.html", title="Benchmarks", names=names, q=q)

    async def benchmark(request: Request) -> Response:
        qp = request.query_params
        name = qp.get("name", "")
        axis = "commit" if qp.get("x") == "commit" else "date"
        min_shift = _float(qp.get("min_shift"), DEFAULT.history.min_shift * 100)
        series = history.benchmark(name, axis, min_shift / 100)
        if not series:
            return error(404, "No such benchmark",
                         f"No stored case of the benchmark '{name}'. See the list of benchmarks.")
        return page("benchmark.html", title=name, name=name, axis=axis, min_shift=min_shift,
                    charts=_charts(series), series=series)

    async def regressions(request: Request) -> Response:
        min_shift = _float(request.query_params.get("min_shift"), DEFAULT.history.min_shift * 100)
        only = request.query_params.get("only", "")
        changes = history.changes(min_shift / 100)
        if only in (Verdict.SLOWER, Verdict.FASTER):
            changes = [c for c in changes if c[0].verdict == only]
        return page("regressions.html", title="Regressions", changes=changes, min_shift=min_shift,
                    only=only, flames=_profiled_changes(store, changes))

    async def compare(request: Request) -> Response:
        from ..compare import compare_docs, summary, to_rows, verdict_of
        qp = request.query_params
        ids = [r.id for r in history.runs()]
        old = _int(qp.get("old"), ids[-2] if len(ids) > 1 else 0)
        new = _int(qp.get("new"), ids[-1] if ids else 0)
        threshold = _float(qp.get("threshold"), 2.0)
        force = qp.get("force") == "1"
        state = {"old": old, "new": new, "threshold": threshold, "force": force}
        if len(ids) < 2 and not (qp.get("old") and qp.get("new")):
            return page("compare.html", title="Compare", state=state, runs=history.runs(),
                        message=f"The history holds {len(ids) or 'no'} run{'s' if len(ids) != 1 else ''}"
                                " yet; a comparison needs two.")
        try:
            result = compare_docs((f"run #{old}", store.document(old)),
                                  (f"run #{new}", store.document(new)),
                                  threshold=threshold / 100, force=force)
        except (UsageError, StoreError) as exc:
            return page("compare.html", title="Compare", state=state, runs=history.runs(),
                        message=str(exc), mismatch="different machines" in str(exc))
        from ..report.flame import slower_with_profiles
        cols, rows = to_rows(result)
        diffs = [k for k, _, _ in slower_with_profiles(result, store.document(old), store.document(new))]
        return page("compare.html", title="Compare", state=state, runs=history.runs(), columns=cols,
                    rows=rows, verdicts=[verdict_of(cols, r) for r in rows], summary=summary(result),
                    diffs=diffs)

    def flame_response(text: str) -> HTMLResponse:
        return HTMLResponse(text, headers={"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
                                           "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"})

    async def run_flame(request: Request) -> Response:
        """One case's flame graph (`run --profile`)."""
        from ..report.flame import case_page
        run_id, key = request.path_params["run_id"], request.query_params.get("case", "")
        case = run_page.case_of(store.document(run_id), key)
        prof = case.get("profile") if case else None
        if not isinstance(prof, dict) or prof.get("error") or not prof.get("stacks"):
            why = prof.get("error") if isinstance(prof, dict) and prof.get("error") else "it was not profiled"
            return error(404, "No profile", f"Run #{run_id} has no profile of '{key}': {why}.")
        return flame_response(case_page(f"{key} (run #{run_id})", prof, script_src="/static/flamegraph.js"))

    async def run_functions(request: Request) -> Response:
        """One counted case's instructions by function (`--measure instructions`)."""
        from ..report.flame import _function_rows, functions_page
        run_id, key = request.path_params["run_id"], request.query_params.get("case", "")
        case = run_page.case_of(store.document(run_id), key)
        counts = case.get("counts") if case else None
        if not _function_rows(counts):
            return error(404, "No instructions by function",
                         f"Run #{run_id} did not count '{key}' by function (run --measure instructions).")
        return flame_response(functions_page(f"{key} (run #{run_id})", counts))

    async def flame_diff(request: Request) -> Response:
        """The difference flame graph of one case between two runs (`old`, `new`; `old_case` when its
        key differs on the old side, as two runtimes of one run do)."""
        from ..report.flame import diff_page
        qp = request.query_params
        old, new, key = _int(qp.get("old"), 0), _int(qp.get("new"), 0), qp.get("case", "")
        old_key = qp.get("old_case") or key
        a, b = run_page.case_of(store.document(old), old_key), run_page.case_of(store.document(new), key)
        pa, pb = (a or {}).get("profile"), (b or {}).get("profile")
        if not (isinstance(pa, dict) and pa.get("stacks") and isinstance(pb, dict) and pb.get("stacks")):
            return error(404, "No profiles to compare",
                         f"Both run #{old} ('{old_key}') and run #{new} ('{key}') need a profile (run --profile).")
        return flame_response(diff_page(key, f"run #{old}", f"run #{new}", pa, pb,
                                        script_src="/static/flamegraph.js"))

    routes = [Route("/", runs), Route("/run/{run_id:int}", run),
              Route("/run/{run_id:int}/flame", run_flame), Route("/flame-diff", flame_diff),
              Route("/run/{run_id:int}/functions", run_functions),
              Route("/run/{run_id:int}/plot/{index:int}.png", run_plot),
              Route("/benchmarks", benchmarks), Route("/benchmark", benchmark),
              Route("/regressions", regressions), Route("/compare", compare),
              Route("/favicon.ico", lambda request: Response(status_code=204)),
              Mount("/static", StaticFiles(directory=STATIC), name="static")]

    async def store_failed(request: Request, exc: StoreError) -> Response:
        text = str(exc)
        if "no run #" in text:
            return error(404, "No such run", text)
        return error(503, "The history cannot be read", text)

    async def not_found(request: Request, exc: Exception) -> Response:
        return error(404, "Not found", "There is no such page. Start from the list of runs.")

    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)] if allowed_hosts else []
    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={StoreError: store_failed, 404: not_found})
    app.state.history = history  # serve's warm-up fills its change points from its own connection
    return app


def _profiled_changes(store: Store, changes) -> set[int]:
    """Indices of the slower changes whose runs before and after both profiled the case (their
    difference flame graph exists); each run's document read once."""
    docs: dict[int, dict] = {}

    def profiled(run_id: int, key: str) -> bool:
        if run_id not in docs:
            try:
                docs[run_id] = store.document(run_id)
            except StoreError:
                docs[run_id] = {}
        case = run_page.case_of(docs[run_id], key)
        return bool(case and isinstance(case.get("profile"), dict) and case["profile"].get("stacks"))

    return {i for i, (ch, _) in enumerate(changes)
            if ch.change > 0 and profiled(ch.before_run, ch.key) and profiled(ch.after_run, ch.key)}


def _plotted(ns: float | None) -> float | None:
    """A figure as the chart needs it: 6 significant digits are far below a pixel and the tooltip's
    4, and the page carries a third of the digits (bench/serve.py: 1,000 runs × 4 series)."""
    # an unbounded interval (one process: no interval) has no band; JSON has no Infinity, and the page's
    # JSON.parse failed on it, leaving every chart of the page blank
    return None if ns is None or not math.isfinite(ns) else float(f"{ns:.6g}")


def _charts(series) -> list[dict[str, Any]]:
    """One chart per parameter combination, one line (with its interval band) per runtime, on a
    shared axis of the runs that measured the benchmark. Plain data: the page's script draws it."""
    by_params: OrderedDict[str, list] = OrderedDict()
    for s in series:
        by_params.setdefault(s.params_text, []).append(s)
    charts = []
    for params, group in by_params.items():
        run_ids = sorted({p.run_id for s in group for p in s.points})
        at = {r: i for i, r in enumerate(run_ids)}
        labels = [""] * len(run_ids)
        lines = []
        for s in group:
            mean, low, high = ([None] * len(run_ids) for _ in range(3))
            for p in s.points:
                i = at[p.run_id]
                labels[i] = p.x
                if p.status == Status.OK and p.mean is not None:  # a failed case has no point to draw
                    mean[i], low[i], high[i] = _plotted(p.mean), _plotted(p.low), _plotted(p.high)
            changes = [at[c.after_run] for c in s.changes]
            lines.append({"runtime": s.runtime, "key": s.key, "mean": mean, "low": low,
                          "high": high, "changes": changes})
        timed = any(v is not None for line in lines for v in line["mean"])
        if timed or not any(s.counts for s in group):
            # a series only counted (--measure instructions) has no time to draw: no empty chart
            # (one that always failed keeps its empty chart, beside the failures of its runs)
            charts.append({"params": params, "runs": run_ids, "labels": labels, "lines": lines})
    return charts
