"""`perflab serve` in a real browser: Debian's Chromium driven by Playwright, over a generated
history in SQLite (and in PostgreSQL when PERFLAB_TEST_PG_URL is set). Each test opens pages headless
and checks what only a browser shows: the charts drew their points and the change point, clicks and
filters lead where they say, hostile names stay text (no dialog, no injected element), and the page
logs no error (a blocked script or style would). Screenshots go to each test's tmp_path.
"""
import contextlib
import os
import re
import shutil
import subprocess
import sys

import pytest
from history_fixture import HOSTILE_GROUP, HOSTILE_LABEL, HOSTILE_NAME, SHIFTING, make_history

from perflab.store import open_store

CHROMIUM = "/usr/bin/chromium"
# Chromium 156 headless opens its address bar's WebUI popup in every new window: a second renderer
# that took as much CPU as the page itself (a Chrome trace), a cost a user's browser pays once
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup"]
PG_URL = os.environ.get("PERFLAB_TEST_PG_URL")
RUNS = 24


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    if not shutil.which(CHROMIUM):
        pytest.skip("no /usr/bin/chromium: apt-get install chromium")
    pw = sync_api.sync_playwright().start()
    b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield b
    b.close()
    pw.stop()


def _store_urls():
    return ["sqlite"] + (["postgresql"] if PG_URL else [])


@pytest.fixture(scope="module", params=_store_urls())
def server(request, tmp_path_factory):
    """`perflab serve` on a free loopback port over a fresh history; yields (base URL, run ids)."""
    if request.param == "sqlite":
        url = f"sqlite://{tmp_path_factory.mktemp('serve') / 'history.db'}"
    else:
        import psycopg
        with psycopg.connect(PG_URL) as conn:
            conn.execute("DROP TABLE IF EXISTS cases, runs, perflab_schema CASCADE")
        url = PG_URL
    store = open_store(url)
    ids = make_history(store, runs=RUNS, cases=10)
    store.close()
    with _serving(url) as base:
        yield base, ids


@contextlib.contextmanager
def _serving(url: str):
    """`perflab serve --store url` on a free loopback port; yields its base URL."""
    proc = subprocess.Popen([sys.executable, "-m", "perflab.cli", "serve", "--store", url, "--port", "0"],
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        m = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
        assert m, f"serve did not start: {line}{proc.stderr.read() if proc.poll() is not None else ''}"
        yield m.group(1)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def page(browser, tmp_path):
    """A fresh page that records dialogs (an injected script would open one) and console errors."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    p = context.new_page()
    p.dialogs, p.errors = [], []
    p.on("dialog", lambda d: (p.dialogs.append(d.message), d.dismiss()))
    p.on("console", lambda m: p.errors.append(m.text) if m.type == "error" else None)
    p.on("pageerror", lambda e: p.errors.append(str(e)))
    p.shoot = lambda name: p.screenshot(path=str(tmp_path / f"{name}.png"), full_page=True)
    yield p
    assert p.dialogs == [] and p.errors == [], (p.dialogs, p.errors)
    context.close()


def test_runs_page_filters_sorts_and_links_to_a_run(server, page):
    base, ids = server
    page.goto(base + "/")
    page.shoot("runs")
    assert page.locator("#runs tbody tr").count() == RUNS
    assert page.locator("#runs tbody tr").first.get_attribute("data-run") == str(ids[-1])
    page.fill("input[name=q]", "0017abab")  # the commit of the newest run
    page.press("input[name=q]", "Enter")
    page.wait_for_url(re.compile(r"q=0017abab"))
    assert page.locator("#runs tbody tr").count() == 1
    page.click("#runs thead a:has-text('Cases')")  # sorting keeps the filter: all state in the URL
    page.wait_for_url(re.compile(r"sort=cases"))
    assert "q=0017abab" in page.url and page.locator("#runs tbody tr").count() == 1
    page.click(f"#runs tbody a[href='/run/{ids[-1]}']")
    page.wait_for_url(f"{base}/run/{ids[-1]}")
    assert page.locator("h1").inner_text() == f"Run #{ids[-1]}"


def test_run_page_shows_hostile_names_as_text_with_tables_and_plots(server, page):
    base, ids = server
    page.goto(f"{base}/run/{ids[1]}")
    assert page.locator("dd.label").text_content() == HOSTILE_LABEL
    assert page.locator("section.group h2").nth(1).text_content() == f"{HOSTILE_GROUP} (python)"
    assert page.locator("section.group table td a").nth(2).text_content() == HOSTILE_NAME
    assert page.locator("img[src=x]").count() == 0 and page.locator("main script").count() == 0
    plot = page.locator("img.plot").first
    plot.scroll_into_view_if_needed()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=plot.element_handle())
    assert "Fake CPU, 2 logical cores" in page.locator("#environment").inner_text()
    page.shoot("run")
    page.click("text=Work >> nth=0")
    page.wait_for_url(re.compile(r"/benchmark\?name=Shift\.Work$"))


def _chart_state(page):
    return page.evaluate("""() => [...document.querySelectorAll('canvas[data-chart]')].map(canvas => {
        const chart = Chart.getChart(canvas);
        return chart.data.datasets.map((ds, i) => ({
            label: ds.label, role: ds.perflabRole,
            drawn: chart.getDatasetMeta(i).data.filter(p => !p.skip && Number.isFinite(p.y)).length,
            band: chart.getDatasetMeta(i).perflabBandDrawn,  // the interval band's runs, when drawn
            marks: ds.data.map(p => p.x)}));  // the positions on the axis of its points
    })""")


def test_benchmark_page_draws_points_bands_and_the_change_point_and_points_open_runs(server, page):
    base, ids = server
    page.goto(f"{base}/benchmark?name={SHIFTING}")
    page.wait_for_selector("body[data-charts-drawn='1']")
    page.shoot("benchmark")
    [datasets] = _chart_state(page)
    by_label = {d["label"]: d for d in datasets}
    assert by_label["py-a"]["drawn"] == RUNS and by_label["py-b"]["drawn"] == RUNS
    assert by_label["py-a"]["band"] == RUNS and by_label["py-b"]["band"] == RUNS  # the intervals
    assert by_label["py-a change point"]["marks"] == [RUNS // 2]  # the first run after the shift
    assert by_label["py-a change point"]["drawn"] == 1 and by_label["py-b change point"]["drawn"] == 0
    # a click on a point opens its run
    x, y = page.evaluate("""() => { const c = Chart.getChart(document.querySelector('canvas'));
        const i = c.data.datasets.findIndex(d => d.label === 'py-b');
        const p = c.getDatasetMeta(i).data[3]; return [p.x, p.y]; }""")
    box = page.locator("canvas").bounding_box()
    page.mouse.click(box["x"] + x, box["y"] + y)
    page.wait_for_url(f"{base}/run/{ids[3]}")
    # the axis by commit, from the URL
    page.goto(f"{base}/benchmark?name={SHIFTING}&x=commit")
    page.wait_for_selector("body[data-charts-drawn='1']")
    first = page.evaluate("() => Chart.getChart(document.querySelector('canvas')).data.labels[0]")
    assert first == f"#{ids[0]} 0000ababab"


def test_charts_below_the_fold_are_drawn_after_those_in_view(server, page):
    base, ids = server
    page.set_viewport_size({"width": 1000, "height": 700})  # the first chart in view, three below
    page.goto(f"{base}/benchmark?name=Load.N0")
    page.wait_for_selector("body[data-charts-drawn='4']")
    charts = _chart_state(page)
    assert len(charts) == 4 and all(by[0]["drawn"] == RUNS and by[0]["band"] == RUNS for by in charts)
    in_view, every = page.evaluate("() => [Number(document.body.dataset.chartsInViewPaintedMs),"
                                   " Number(document.body.dataset.chartsPaintedMs)]")
    assert 0 < in_view < every  # three more frames: one per chart below the fold


def test_hostile_benchmark_page_keeps_its_name_as_text(server, page):
    base, ids = server
    from urllib.parse import urlencode
    page.goto(f"{base}/benchmark?{urlencode({'name': f'{HOSTILE_GROUP}.{HOSTILE_NAME}'})}")
    page.wait_for_selector("body[data-charts-drawn='1']")
    assert page.locator("h1").text_content() == f"{HOSTILE_GROUP}.{HOSTILE_NAME}"
    [datasets] = _chart_state(page)
    assert max(d["drawn"] for d in datasets) == RUNS
    page.shoot("hostile-benchmark")


def test_regressions_lead_to_the_benchmark_and_the_comparison(server, page):
    base, ids = server
    page.goto(f"{base}/regressions")
    page.shoot("regressions")
    first = page.locator("#regressions tbody tr").first
    assert first.locator("td").first.text_content() == SHIFTING
    assert re.fullmatch(r"\+(29|30)\.\d%", first.locator("td").nth(8).text_content())
    first.locator("a:has-text('compare')").click()
    page.wait_for_url(re.compile(rf"/compare\?old={ids[RUNS // 2 - 1]}&new={ids[RUNS // 2]}$"))
    row = page.locator("#comparison tbody tr", has_text="py-a").first
    assert row.get_attribute("class") == "slower" and SHIFTING in row.text_content()
    page.shoot("compare")


def test_compare_form_puts_its_choice_in_the_url(server, page):
    base, ids = server
    page.goto(f"{base}/compare")
    page.select_option("select[name=old]", str(ids[0]))
    page.select_option("select[name=new]", str(ids[2]))
    page.click("#compare-form button")
    page.wait_for_url(re.compile(rf"old={ids[0]}&new={ids[2]}"))
    assert page.locator("#comparison tbody tr").count() > 1
    assert "slower" not in [page.locator("#comparison tbody tr").nth(i).get_attribute("class")
                            for i in range(page.locator("#comparison tbody tr").count())]


@pytest.mark.parametrize("runs", [2, 3, 4, 5, 6])
def test_a_young_history_shows_its_step_on_the_benchmark_and_regressions_pages(runs, page, tmp_path):
    """2 to 6 stored runs, py-a 30 % slower from the third run (the second with 2 runs): fewer runs
    than change-point detection can judge, so the step between consecutive runs is judged as compare
    judges it, drawn on the chart, listed on both pages (these pages answered HTTP 500 with 4 or 5
    runs, and said "No shift" with 6)."""
    shift = min(2, runs - 1)
    url = f"sqlite://{tmp_path / 'young.db'}"
    store = open_store(url)
    ids = make_history(store, runs=runs, cases=6, shift_run=shift, hostile=False)
    store.close()
    with _serving(url) as base:
        assert page.goto(f"{base}/benchmark?name={SHIFTING}").status == 200
        page.wait_for_selector("body[data-charts-drawn='1']")
        page.shoot(f"young-{runs}")
        [datasets] = _chart_state(page)
        by_label = {d["label"]: d for d in datasets}
        assert by_label["py-a"]["drawn"] == runs and by_label["py-b"]["drawn"] == runs
        assert by_label["py-a change point"]["marks"] == [shift]
        assert by_label["py-b change point"]["drawn"] == 0
        assert page.locator("#no-changes").count() == 0
        row = page.locator("#changes tbody tr")
        assert row.count() == 1 and row.get_attribute("class") == "slower"
        cells = row.locator("td").all_text_contents()
        assert cells[:5] == ["py-a", "-", "step", f"#{ids[shift - 1]}", f"#{ids[shift]}"]
        assert re.fullmatch(r"\+(29|30)\.\d%", cells[7])
        assert page.goto(f"{base}/regressions").status == 200
        rows = page.locator("#regressions tbody tr")
        assert rows.count() == 1
        assert rows.first.locator("td").all_text_contents()[:4] == [SHIFTING, "-", "py-a", "step"]
        rows.first.locator("a:has-text('compare')").click()
        page.wait_for_url(re.compile(rf"/compare\?old={ids[shift - 1]}&new={ids[shift]}$"))
        assert page.locator("#comparison tbody tr", has_text="py-a").first.get_attribute("class") == "slower"
