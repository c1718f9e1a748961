"""How fast `perflab serve` answers over a large history: the runs page and a benchmark page, timed
server-side (the HTTP response, over loopback) and rendered in Debian's Chromium (Playwright).

Targets (issue #21): over 1,000 runs × 500 cases, each page answers in < 300 ms and renders in < 1 s.

    .venv/bin/python bench/serve.py                      # a smaller history: 200 runs × 100 cases
    .venv/bin/python bench/serve.py --runs 1000 --cases 500 --db /tmp/perflab-serve-1000x500.db
        # the full size; the history is generated once into --db and reused by later runs
    .venv/bin/python bench/serve.py --runs 1000 --cases 500 --stub-docs --db /tmp/perflab-serve-stub.db
        # the same rows with stub documents: generated in a fraction of the time

Prints every figure it measured: a page's first (uncached) answer apart, then the median and the
slowest of the repetitions; a target is "met" only when the uncached answer and the slowest
repetition are under it.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "tests"))  # the generated history of the dashboard's tests

from history_fixture import SHIFTING, make_history  # noqa: E402

from perflab.store import open_store  # noqa: E402

SERVER_TARGET_S, RENDER_TARGET_S = 0.300, 1.0
# Chromium 156 headless opens its address bar's WebUI popup in every new window: a second renderer
# that took as much CPU as the page itself (a Chrome trace), a cost a user's browser pays once
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup"]


def stub_history(store, runs: int, cases: int) -> None:
    """The full size quickly: the rows the runs and benchmark pages read (means, intervals, params,
    status, provenance) written directly, each case's document a stub. Those pages never open a
    document; the run and compare pages need real ones (make_history)."""
    import json

    from history_fixture import cases_of_run, make_history
    import numpy as np
    make_history(store, runs=1, cases=cases, hostile=False)  # run 1: real documents, provenance
    template = store.run_records()[0]
    rng = np.random.default_rng(2)
    cur = store.conn.cursor()
    for r in range(1, runs):
        cur.execute(store._q("INSERT INTO runs (started, finished, complete, label, command, args, job, "
                             "environment, fingerprint) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?)"),
                    (template["started"], template["finished"], f"nightly {r}",
                     json.dumps(template["command"]), json.dumps(template["args"]),
                     json.dumps(template["job"]), json.dumps(template["environment"]), "fake-machine"))
        rid = cur.lastrowid
        rows = []
        for c in cases_of_run(r, cases, runs // 2, rng, hostile=False):
            e = c.get("estimate") or {}
            rows.append((rid, c["key"], f"{c['benchmark']['group']}.{c['benchmark']['name']}",
                         c["runtime"]["label"], c["status"], e.get("mean"), e.get("error"), "", "{}",
                         json.dumps(c["params"], sort_keys=True), e.get("ci_low"), e.get("ci_high")))
        cur.executemany("INSERT INTO cases (run_id, case_key, benchmark, runtime, status, mean_ns, "
                        "error_ns, written, doc, params, ci_low_ns, ci_high_ns) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        if r % 100 == 0:
            store.conn.commit()
    store.conn.commit()


def history(db: Path, runs: int, cases: int, stub: bool = False) -> None:
    store = open_store(f"sqlite://{db}")
    have = store.runs() if db.stat().st_size else []
    if have and len(have) == runs and have[0]["cases"] == cases:
        print(f"history: reusing {db} ({runs} runs × {cases} cases)")
        return
    if have:
        raise SystemExit(f"{db} holds another history ({len(have)} runs); give another --db")
    t = time.perf_counter()
    if stub:
        stub_history(store, runs, cases)
    else:
        make_history(store, runs=runs, cases=cases, hostile=False)
    print(f"history: generated {runs} runs × {cases} cases{' (stub documents)' if stub else ''} into {db} in {time.perf_counter() - t:.1f} s "
          f"({db.stat().st_size / 1e6:.0f} MB)")
    store.close()


def get(url: str) -> float:
    t = time.perf_counter()
    with urllib.request.urlopen(url) as r:
        r.read()
        assert r.status == 200, url
    return time.perf_counter() - t


def report(name: str, cold: float, warm: list[float], target: float) -> bool:
    worst = max(warm)
    met = worst < target and cold < target
    print(f"  {name:<38} first {cold * 1000:6.0f} ms   warm median {statistics.median(warm) * 1000:6.0f} ms"
          f"   slowest {worst * 1000:6.0f} ms   target < {target * 1000:.0f} ms: "
          f"{'met' if met else 'MISSED'}")
    return met


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--db", type=Path, help="history file to generate once and reuse")
    ap.add_argument("--repeat", type=int, default=5, help="warm repetitions of each page")
    ap.add_argument("--no-browser", action="store_true", help="server-side figures only")
    ap.add_argument("--stub-docs", action="store_true",
                    help="write the cases' columns only (documents are stubs): the full size in a "
                         "fraction of the time; the pages measured never read a document")
    a = ap.parse_args()
    db = a.db or Path(tempfile.mkdtemp(prefix="perflab-serve-bench-")) / "history.db"
    db.touch()
    history(db, a.runs, a.cases, a.stub_docs)
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
          f"({os.cpu_count()} CPUs; the machine is shared)")
    proc = subprocess.Popen([sys.executable, "-m", "perflab.cli", "serve", "--store", f"sqlite://{db}",
                             "--port", "0"], stderr=subprocess.PIPE, text=True)
    ok = True
    try:
        m = re.search(r"(http://127\.0\.0\.1:\d+)/", proc.stderr.readline())
        assert m, "perflab serve did not start"
        base = m.group(1)
        ready = proc.stderr.readline().strip()  # the warm-up: imports, then every change point
        print(f"server: {ready}")
        print(f"server-side (HTTP response over loopback), {a.runs} runs × {a.cases} cases:")
        cold = get(base + "/")
        ok &= report("runs page", cold, [get(base + "/") for _ in range(a.repeat)], SERVER_TARGET_S)
        names = [f"Load.N{i}" for i in range(1, 1 + a.repeat)]
        firsts = [get(f"{base}/benchmark?name={n}") for n in names]
        print(f"  benchmark pages, first visits ({', '.join(names)}): median "
              f"{statistics.median(firsts) * 1000:.0f} ms, slowest {max(firsts) * 1000:.0f} ms; "
              f"target < {SERVER_TARGET_S * 1000:.0f} ms: {'met' if max(firsts) < SERVER_TARGET_S else 'MISSED'}")
        ok &= max(firsts) < SERVER_TARGET_S
        cold = get(f"{base}/benchmark?name={SHIFTING}")
        ok &= report(f"benchmark page {SHIFTING} (a change)", cold,
                     [get(f"{base}/benchmark?name={SHIFTING}") for _ in range(a.repeat)], SERVER_TARGET_S)
        uncached(db, names + [SHIFTING])
        pages = {"runs page": "/", f"benchmark page ({SHIFTING}, 2 series)": f"/benchmark?name={SHIFTING}",
                 "benchmark page (Load.N0, 4 series)": "/benchmark?name=Load.N0"}
        if not a.no_browser:
            ok &= render(base, pages, a.repeat)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print(f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0 if ok else 1


def uncached(db: Path, names: list[str]) -> None:
    """What a benchmark page costs without the server's warm-up (in-process, nothing remembered):
    the query, every series' change points and the chart data. Not a target: the warm-up exists
    so that visitors do not pay it."""
    from perflab.web.app import _charts
    from perflab.web.queries import History
    store = open_store(f"sqlite://{db}")
    from perflab.history import find_changes
    find_changes([{"key": "k", "run_id": i, "status": "ok", "mean_ns": 1.0 + (i > 5)} for i in range(12)])
    History(store).runs()  # imports (ruptures) and the runs' provenance are not a benchmark page's
    times = []
    for n in names:
        t = time.perf_counter()
        _charts(History(store).benchmark(n))
        times.append(time.perf_counter() - t)
    print("  without warm-up, in-process (query + change points + chart data): "
          + ", ".join(f"{n} {t * 1000:.0f} ms" for n, t in zip(names, times)))
    store.close()


def render(base: str, pages: dict[str, str], repeat: int) -> bool:
    """The target is the page as the visitor sees it: the load event and the charts in the viewport
    (1300 × 900) painted; perflab.js draws the charts below the fold after that, one per frame, and
    the time until every chart is painted is printed beside it."""
    from playwright.sync_api import sync_playwright
    ok = True
    print("rendered in Chromium, as the page's own clock says (from the navigation's start to the load "
          "event and the charts in view painted; then every chart painted):")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": 900})

        def once(path: str) -> tuple[float, float]:
            """(in view, every chart): the later of the load event and the frame that showed the
            charts (perflab.js notes the time after that frame: canvases are rasterised after the
            script that draws them); not Playwright's round trips."""
            page.goto(base + path, wait_until="load")
            if "/benchmark" in path:
                page.wait_for_selector("body[data-charts-painted-ms]")
            return tuple(t / 1000 for t in page.evaluate("""() => {
                const load = performance.getEntriesByType('navigation')[0].loadEventEnd;
                const d = document.body.dataset;
                return [Math.max(load, Number(d.chartsInViewPaintedMs || 0)),
                        Math.max(load, Number(d.chartsPaintedMs || 0))]; }"""))
        for name, path in pages.items():
            cold = once(path)
            warm = [once(path) for _ in range(repeat)]
            ok &= report(name, cold[0], [w[0] for w in warm], RENDER_TARGET_S)
            if "/benchmark" in path:
                every = [cold[1]] + [w[1] for w in warm]
                print(f"    every chart painted (below the fold too): first {cold[1] * 1000:.0f} ms, median "
                      f"{statistics.median(every[1:]) * 1000:.0f} ms, slowest {max(every[1:]) * 1000:.0f} ms")
        browser.close()
    return ok


if __name__ == "__main__":
    sys.exit(main())
