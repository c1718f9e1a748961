"""The flame graph page in a real browser (Debian's Chromium, Playwright): a 5,000-frame profile is
drawn whole, a click zooms, a hostile frame name is text (no dialog, no injected element), and the
page logs no error. How long the drawing takes is measured by bench/flame_draw.py, not asserted here."""
from __future__ import annotations

import shutil

import pytest

from perflab.report.flame import page

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
HOSTILE = '<img src=x onerror="alert(1)">'


def wide_profile(frames: int = 5000) -> dict[str, int]:
    """`frames` distinct frames, every one wide enough to draw: 50 call chains 100 deep under one
    root, each chain with a side branch at every level, plus a hostile leaf."""
    stacks = {}
    for i in range(frames // 98 + 1):
        chain = [f"caller{i} (b.py)"]
        for d in range(49):
            chain.append(f"f{i}_{d} (b.py)")
            stacks[";".join(["main (b.py)", *chain, f"leaf{i}_{d} (b.py)"])] = 10
    stacks[f"main (b.py);{HOSTILE}"] = 2000  # wide enough to show its name
    return stacks


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    if not shutil.which(CHROMIUM):
        pytest.fail("no /usr/bin/chromium: apt-get install chromium")
    pw = sync_api.sync_playwright().start()
    b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    yield b
    b.close()
    pw.stop()


def test_a_5000_frame_flame_graph_draws_whole_zooms_and_keeps_names_as_text(browser, tmp_path):
    path = tmp_path / "flame.html"
    path.write_text(page("5,000 frames", wide_profile(), ["main (b.py)"]))
    p = browser.new_page(viewport={"width": 1600, "height": 900})
    dialogs, errors = [], []
    p.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    p.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    p.on("pageerror", lambda e: errors.append(str(e)))
    p.goto(path.as_uri())
    p.wait_for_selector(".perflab-flame[data-frames]")
    drawn = int(p.get_attribute(".perflab-flame", "data-frames"))
    assert drawn >= 5000  # every frame, each wide enough for half a pixel
    assert p.locator(".perflab-flame img").count() == 0 and not dialogs
    assert p.locator(".flame-frame", has_text=HOSTILE).count() == 1
    p.locator('.flame-frame[title^="caller7 (b.py) "]').first.click()  # zoom in: fewer, wider frames
    assert int(p.get_attribute(".perflab-flame", "data-frames")) < drawn
    p.screenshot(path=str(tmp_path / "flame.png"))
    assert not errors, errors
