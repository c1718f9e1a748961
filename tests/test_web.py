"""The dashboard's pages over a generated history, through Starlette's test client: what each page
says, that user data stays text, that nothing writes, and the errors. The browser tests
(test_serve_browser.py) check what only a browser can: charts drawn, clicks, filters."""
import html
import json
import re
from urllib.parse import urlencode

import pytest
from markupsafe import escape
from history_fixture import (HOSTILE_GROUP, HOSTILE_LABEL, HOSTILE_NAME, HOSTILE_PARAMS, SHIFTING,
                             make_history)
from starlette.testclient import TestClient

from perflab.compare import compare_docs, to_rows
from perflab.store import open_store
from perflab.web.app import create_app

RUNS = 24  # enough points on each side of the shift for the change-point test to call it


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    store = open_store(f"sqlite://{tmp_path_factory.mktemp('web') / 'history.db'}")
    ids = make_history(store, runs=RUNS, cases=10)
    client = TestClient(create_app(store, allowed_hosts=["testserver"]))
    return store, client, ids


def get(client, url, status=200):
    r = client.get(url)
    assert r.status_code == status, (url, r.status_code, r.text[:500])
    return r.text


def test_every_page_answers_with_a_strict_content_security_policy(site):
    store, client, ids = site
    for url in ["/", f"/run/{ids[1]}", "/benchmarks", f"/benchmark?name={SHIFTING}", "/regressions",
                f"/compare?old={ids[0]}&new={ids[-1]}"]:
        r = client.get(url)
        assert r.status_code == 200, url
        assert "script-src 'self'" in r.headers["content-security-policy"]
        assert "<script>" not in r.text  # no inline script at all: the CSP would block one anyway


def test_runs_page_lists_provenance_and_filters_and_sorts_from_the_url(site):
    store, client, ids = site
    page = get(client, "/")
    assert page.count('<tr data-run="') == RUNS
    assert "perflab run bench -r py-a,py-b" in page and "(main)" in page and "+dirty" in page
    assert re.findall(r'data-run="(\d+)"', page)[0] == str(ids[-1])  # newest first by default
    only = get(client, "/?q=0017abab")  # the commit of the 24th run
    assert re.findall(r'data-run="(\d+)"', only) == [str(ids[23])]
    asc = get(client, "/?sort=started&order=asc")
    assert re.findall(r'data-run="(\d+)"', asc)[0] == str(ids[0])
    failing = get(client, "/?status=failures")
    assert failing.count('<tr data-run="') == RUNS  # every fixture run has the failing case
    assert get(client, "/?status=incomplete").count('<tr data-run="') == 0


def test_hostile_names_params_and_labels_render_as_text_and_stay_intact(site):
    store, client, ids = site
    run = get(client, f"/run/{ids[1]}")
    for text in (HOSTILE_GROUP, HOSTILE_NAME, HOSTILE_LABEL, *HOSTILE_PARAMS.values()):
        assert str(escape(text)) in run  # markupsafe, what Jinja2 autoescaping applies
    assert "<script>alert" not in run and "<img src=x" not in run and "<b>bold" not in run
    bench = f"{HOSTILE_GROUP}.{HOSTILE_NAME}"
    series = get(client, "/benchmark?" + urlencode({"name": bench}))
    data = json.loads(html.unescape(re.search(r'id="chart-data">(.*?)</script>', series, re.S)
                                    .group(1)))
    assert data[0]["lines"][0]["key"].startswith(bench)  # the JSON block carries the name intact
    assert "<script>alert" not in series.split('id="chart-data">')[1].split("</script>")[0]
    assert store.run(ids[1])["label"] == HOSTILE_LABEL  # stored exactly as given


def test_run_page_has_the_environment_header_one_table_per_group_and_the_failure(site):
    store, client, ids = site
    page = get(client, f"/run/{ids[3]}")
    assert "Fake CPU, 2 logical cores" in page and "py-a : python CPython 3.11.2" in page
    assert page.count('<section class="group"') == 4  # Shift, hostile group, Fail, Load
    assert "FAILED: ValueError: boom &lt;b&gt;" in page and 'class="failed"' in page
    assert f'/run/{ids[3]}/plot/0.png' in page  # Shift has a ratio py-b vs py-a
    png = client.get(f"/run/{ids[3]}/plot/0.png")
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    assert client.get(f"/run/{ids[3]}/plot/99.png").status_code == 404


def test_benchmark_page_marks_the_change_point_where_the_series_shifted(site):
    store, client, ids = site
    page = get(client, f"/benchmark?name={SHIFTING}")
    data = json.loads(html.unescape(re.search(r'id="chart-data">(.*?)</script>', page, re.S).group(1)))
    [chart] = data
    lines = {line["runtime"]: line for line in chart["lines"]}
    shift_at = chart["runs"].index(ids[RUNS // 2])
    assert lines["py-a"]["changes"] == [shift_at] and lines["py-b"]["changes"] == []
    assert all(lo < m < hi for lo, m, hi in zip(lines["py-a"]["low"], lines["py-a"]["mean"],
                                                 lines["py-a"]["high"]))
    assert f'href="/run/{ids[RUNS // 2]}"' in page and re.search(r"\+(29|30)\.\d%", page)
    commit_axis = get(client, f"/benchmark?name={SHIFTING}&x=commit")
    labels = json.loads(html.unescape(re.search(r'id="chart-data">(.*?)</script>', commit_axis,
                                                re.S).group(1)))[0]["labels"]
    assert labels[0] == f"#{ids[0]} 0000ababab"  # axis by commit: run and short commit


def test_regressions_page_lists_the_shift_first_with_links(site):
    store, client, ids = site
    page = get(client, "/regressions")
    first = page.split("<tbody>")[1].split("</tr>")[0]
    assert f"?name={SHIFTING}" in first and "py-a" in first and re.search(r"\+(29|30)\.\d%", first)
    assert f'href="/compare?old={ids[RUNS // 2 - 1]}&amp;new={ids[RUNS // 2]}"' in first
    assert "No shift" in get(client, "/regressions?only=faster")


def test_compare_page_gives_the_verdicts_of_perflab_compare(site):
    store, client, ids = site
    old, new = ids[RUNS // 2 - 1], ids[RUNS // 2]
    page = get(client, f"/compare?old={old}&new={new}")
    _, rows = to_rows(compare_docs((f"run #{old}", store.document(old)),
                                   (f"run #{new}", store.document(new))))
    verdicts = re.findall(r'<tr class="([\w/]*)">', page)
    assert verdicts == [r[-1].split(" ")[0] for r in rows]
    assert "slower" in verdicts


def test_nothing_writes_and_only_get_is_answered(site):
    store, client, ids = site
    before = store.state()
    for method in ("post", "put", "delete", "patch"):
        assert getattr(client, method)("/").status_code == 405
        assert getattr(client, method)(f"/run/{ids[0]}").status_code == 405
    assert store.state() == before


def test_unknown_run_benchmark_and_page_are_clear_pages(site):
    store, client, ids = site
    assert "no run #9999" in get(client, "/run/9999", 404)
    assert "No stored case of the benchmark" in get(client, "/benchmark?name=nope", 404)
    assert "There is no such page" in get(client, "/nope", 404)


def test_a_foreign_host_header_is_refused(site):
    """A loopback server answers only its own names: a page elsewhere cannot read it through a
    DNS name that resolves to 127.0.0.1 (DNS rebinding)."""
    store, client, ids = site
    assert client.get("/", headers={"host": "evil.example"}).status_code == 400


def test_a_store_that_fails_while_serving_is_a_clear_page(tmp_path, monkeypatch):
    """Readers of a WAL database are not blocked by a writing run; what can still fail (a vanished
    PostgreSQL server, a corrupted file) is a page that says so, and the next request retries."""
    from perflab.store import StoreError
    store = open_store(f"sqlite://{tmp_path / 'h.db'}")
    make_history(store, runs=2, cases=4, hostile=False)
    client = TestClient(create_app(store))
    real = store.state

    def failing(*args, **kwargs):
        raise StoreError(f"{store.url}: the history database is locked by another process; wait")
    monkeypatch.setattr(store, "state", failing)
    r = client.get("/")
    assert r.status_code == 503 and "locked by another process" in r.text
    monkeypatch.setattr(store, "state", real)
    assert client.get("/").status_code == 200


def test_edge_histories_empty_one_run_no_case_and_a_benchmark_that_always_failed(tmp_path):
    store = open_store(f"sqlite://{tmp_path / 'h.db'}")
    client = TestClient(create_app(store))
    assert "The history is empty" in get(client, "/")
    assert "holds no runs yet" in get(client, "/compare")
    assert "No shift" in get(client, "/regressions")
    rid = store.begin_run(command=["perflab", "run"], args={}, job={}, environment={}, fingerprint="f")
    assert "This run stored no case." in get(client, f"/run/{rid}")
    assert "not in a git repository" in get(client, f"/run/{rid}")
    assert "incomplete" in get(client, f"/run/{rid}")
    assert "holds 1 run yet; a comparison needs two" in get(client, "/compare")
    make_history(store, runs=3, cases=4)
    page = get(client, "/benchmark?name=Fail.Broken")
    data = json.loads(html.unescape(re.search(r'id="chart-data">(.*?)</script>', page, re.S).group(1)))
    assert data[0]["lines"][0]["mean"] == [None, None, None]
    assert get(client, "/?page=999").count('<tr data-run="') == 4  # past the last page: the last
    assert get(client, "/?sort=nonsense&order=sideways").count('<tr data-run="') == 4
    assert get(client, "/regressions?min_shift=abc")  # a bad number is the default, not an error


def test_a_counted_benchmark_lists_its_instructions_beside_the_time_and_marks_a_step(tmp_path):
    """Counts get a table of their own (never in the time chart), a step where compare would call two
    runs different, the reason where a runtime was not counted; names and reasons stay text."""
    from count_docs import counts_record
    store = open_store(f"sqlite://{tmp_path / 'h.db'}")
    ids = make_history(store, runs=3, cases=2, hostile=False)
    group, name = "<i>G</i>", "W"
    for i, ir in enumerate((1000.0, 1000.0, 1010.0)):
        cases = [{"key": f"{group}.{name}[]@{rt}", "benchmark": {"group": group, "name": name},
                  "params": {}, "runtime": {"label": rt}, "status": "ok",
                  "estimate": {"mean": 100.0, "error": 1.0, "ci_low": 99.0, "ci_high": 101.0},
                  "counts": counts_record(ir) if rt == "py-a" else
                  counts_record(0, error="<script>no marker</script>")} for rt in ("py-a", "py-b")]
        store.add_cases(ids[i], cases)
    client = TestClient(create_app(store, allowed_hosts=["testserver"]))
    page = get(client, "/benchmark?" + urlencode({"name": f"{group}.{name}"}))
    table = page.split('<table id="counts">')[1].split("</table>")[0]
    assert table.count("<tr") == 1 + 6
    assert table.count('class="slower"') == 1 and "+1.00%" in table
    assert "1,010" in table and "0.000%" in table
    assert "not counted: &lt;script&gt;no marker&lt;/script&gt;" in table and "<script>" not in table
    assert "Instructions per operation" not in get(client, f"/benchmark?name={SHIFTING}")
    cmp_ = get(client, f"/compare?old={ids[1]}&new={ids[2]}")
    assert "<th>Ir verdict</th>" in cmp_ and "instructions: 0 fewer, 1 more" in cmp_


def test_a_benchmark_only_counted_gets_its_counts_and_no_empty_time_chart(tmp_path):
    """`--measure instructions` alone stores no time: the page draws no chart for it (it drew an
    empty one), says why, and lists the counts."""
    from count_docs import counts_record
    store = open_store(f"sqlite://{tmp_path / 'h.db'}")
    ids = make_history(store, runs=2, cases=1, hostile=False)
    for i, ir in enumerate((1000.0, 1000.0)):
        store.add_cases(ids[i], [{"key": "G.counted[]@py", "benchmark": {"group": "G", "name": "counted"},
                                  "params": {}, "runtime": {"label": "py"}, "status": "ok",
                                  "estimate": None, "launches": [], "counts": counts_record(ir)}])
    client = TestClient(create_app(store, allowed_hosts=["testserver"]))
    page = get(client, "/benchmark?name=G.counted")
    assert "<canvas" not in page and 'id="no-times"' in page
    assert '<table id="counts">' in page and "1,000" in page


def test_an_unbounded_interval_is_plotted_without_its_band_not_as_invalid_json():
    """A case measured in one process has no interval (high = inf): the chart data must stay JSON."""
    from perflab.web.app import _plotted
    assert _plotted(float("inf")) is None and _plotted(float("-inf")) is None and _plotted(float("nan")) is None
    assert _plotted(None) is None and _plotted(1234567.891) == 1234570.0
    json.loads(json.dumps([_plotted(v) for v in (1.0, float("inf"))], allow_nan=False))
