"""Flame graphs in the dashboard and in `compare`: a profiled case links its flame graph from its row,
a slower case profiled on both sides links its difference flame graph (compare page, regressions page,
`perflab compare`), and a hostile frame name stays text."""
from __future__ import annotations

import json
from urllib.parse import urlencode

import numpy as np
import pytest
from history_fixture import ENV, _runtime, case_doc
from starlette.testclient import TestClient

from perflab.cli import main
from perflab.store import open_store
from perflab.web.app import create_app

HOSTILE = "<img src=x onerror=alert(1)>"


def _profile(hot: int) -> dict:
    return {"tool": "fake", "calls": 100, "samples": 100 + hot, "own": ["bench (bench_demo.py)"],
            "stacks": [["bench (bench_demo.py);planted_hot (bench_demo.py)", hot],
                       [f"bench (bench_demo.py);{HOSTILE}", 100]], "raw": "", "collapsed": "", "wall_s": 0.1,
            "note": ""}


def _run_docs(slow: float, hot: int, rng) -> list[dict]:
    a = case_doc("Hot", "Work", {}, "py-a", 1000.0 * slow, rng)
    a["profile"] = _profile(hot)
    a["counts"] = {"per_op": {"Ir": 100.0 + hot}, "agreed": True, "launches": [],
                   "functions": [["planted_hot", float(hot), float(hot)], [HOSTILE, 1.0, 1.0]]}
    b = case_doc("Cold", "Work", {}, "py-a", 1000.0, rng)
    b["profile"] = {"error": "no profile: the kernel refuses perf events"}
    return [a, b]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    store = open_store(f"sqlite://{tmp_path_factory.mktemp('flame') / 'history.db'}")
    rng = np.random.default_rng(3)
    ids = []
    for slow, hot in ((1.0, 10), (1.3, 60)):
        rid = store.begin_run(command=["perflab", "run"], args={}, job={"name": "short", "overhead": False},
                              environment={**ENV, "runtimes": [_runtime("py-a")]}, fingerprint="fake-machine")
        store.add_cases(rid, _run_docs(slow, hot, rng))
        store.finish_run(rid)
        ids.append(rid)
    return store, TestClient(create_app(store, allowed_hosts=["testserver"])), ids


def test_the_run_page_links_a_profiled_case_and_says_why_another_has_none(site):
    store, client, (old, new) = site
    page = client.get(f"/run/{new}").text
    key = "Hot.Work[]@py-a"
    assert f'href="/run/{new}/flame?{urlencode({"case": key})}"' in page.replace("&amp;", "&")
    assert "(no profile)" in page and "the kernel refuses perf events" in page
    flame = client.get(f"/run/{new}/flame?{urlencode({'case': key})}")
    assert flame.status_code == 200 and "script-src 'self'" in flame.headers["content-security-policy"]
    assert HOSTILE not in flame.text and '<script src="/static/flamegraph.js">' in flame.text
    assert client.get(f"/run/{new}/flame?{urlencode({'case': 'Cold.Work[]@py-a'})}").status_code == 404
    assert client.get("/static/flamegraph.js").status_code == 200


def test_compare_and_regressions_link_the_difference_of_a_slower_profiled_case(site):
    store, client, (old, new) = site
    diff = f"/flame-diff?{urlencode({'old': old, 'new': new, 'case': 'Hot.Work[]@py-a'})}"
    assert diff in client.get(f"/compare?old={old}&new={new}").text.replace("&amp;", "&")
    assert diff in client.get("/regressions").text.replace("&amp;", "&")
    page = client.get(diff)
    assert page.status_code == 200 and HOSTILE not in page.text
    data = page.text.split('id="flame-data">', 1)[1].split("</script>", 1)[0]
    doc = json.loads(data)
    assert doc["base"] and doc["stacks"]  # widths from the new run, colours against the old


def test_perflab_compare_writes_the_difference_of_a_slower_profiled_case(site, tmp_path, capsys):
    store, _, (old, new) = site
    code = main(["compare", str(old), str(new), "--store", store.url, "--flame-dir", str(tmp_path)])
    assert code == 0
    pages = list((tmp_path / "flame-diff").glob("diff-*.html"))
    assert len(pages) == 1 and "Hot.Work" in pages[0].name
    assert HOSTILE not in pages[0].read_text()
    assert "why Hot.Work[]@py-a is slower" in capsys.readouterr().err.replace("\n", "")


def test_the_run_page_links_instructions_by_function(site):
    store, client, (old, new) = site
    key = "Hot.Work[]@py-a"
    url = f"/run/{new}/functions?{urlencode({'case': key})}"
    assert url in client.get(f"/run/{new}").text.replace("&amp;", "&")
    page = client.get(url)
    assert page.status_code == 200 and "planted_hot" in page.text and HOSTILE not in page.text
    assert client.get(f"/run/{new}/functions?{urlencode({'case': 'Cold.Work[]@py-a'})}").status_code == 404
