"""docs/screenshots/seeds-index.png and seeds-family-python.png: the first screen of a seeds report's index
and of one family page in Chromium (issue 39: it shows the summary and the claims, nothing of other
families). Built from a synthetic fixture in the shape of the main job's results (the helpers of
tests/test_seeds_report.py; its figures are made up and its title says so): a layout check, not a result.

Usage (from the repository, with the test extras: Playwright; chromium at /usr/bin/chromium):
    .venv/bin/python scripts/seeds_screenshots.py"""
import json
import os
import pathlib
import random
import sys
import tempfile

os.chdir(pathlib.Path(__file__).resolve().parents[1])
sys.path.insert(0, "tests")
import test_seeds_report as t
from perflab.report import seeds_report as sr

rng = random.Random(39)
cases = []
FAM = {"python": ("python3.8", "python3.13"), "node": ("node18", "node24"), "go": ("go1.21", "go1.26"),
       "java": ("jdk17", "jdk25")}
PORTS = [("GetBytes", "000", "Cryptography", {}, "faithful"), ("SeekForward", "002", "Seek/Position", {"buffering": "4096"}, "faithful"),
         ("HttpDownload", "003", "Networking", {}, "faithful"), ("RegexCompiled", "003", "Regular Expressions", {}, "faithful"),
         ("ParseR", "003", "Parsing/Formatting", {}, "faithful"), ("ParseO", "003", "Parsing/Formatting", {}, "faithful"),
         ("ParseInt32Dec", "003", "Parsing/Formatting", {}, "faithful"), ("ParseInt32Hex", "003", "Parsing/Formatting", {}, "faithful"),
         ("CreateTokenDispose", "000", "Threading", {}, "faithful"), ("HelloWorld", "000", "Startup", {}, "faithful"),
         ("Clone", "000", "Collections and LINQ", {}, "faithful")]
for lang, (old, new) in FAM.items():
    for name, seed, section, params, fid in PORTS:
        base = rng.uniform(50, 5e6)
        r = rng.choice([0.6, 0.8, 0.97, 1.0, 1.1])
        meta = {"seed": seed, "section": section, "fidelity": fid}
        cases.append(t.case(name, old, base, params=params, meta=meta, group=f"{lang}_{section[:4]}"))
        cases.append(t.case(name, new, base * r, params=params, meta=meta, group=f"{lang}_{section[:4]}"))
runtimes = [r for pair in FAM.values() for r in pair]
out = pathlib.Path(tempfile.mkdtemp(prefix="perflab-seeds-shots-"))
p = out / "fixture.json"
p.write_text(json.dumps(t.doc(cases, runtimes=runtimes)), encoding="utf-8")
assert sr.main([str(p), "--title", "Seed corpus (synthetic fixture: layout only)", "--out", str(out / "report")]) == 0
from playwright.sync_api import sync_playwright
shots = pathlib.Path("docs/screenshots")
with sync_playwright() as pw:
    b = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"])
    pg = b.new_page(viewport={"width": 1280, "height": 900})
    stem = "seed-corpus-synthetic-fixture-layout-only"
    for page, name in ((f"{stem}.html", "seeds-index.png"), (f"{stem}-python.html", "seeds-family-python.png")):
        pg.goto((out / "report" / page).resolve().as_uri())
        pg.screenshot(path=str(shots / name))  # the first screen only: what a reader sees on opening it
        print(name, pg.evaluate("document.body.innerText.slice(0, 600)").replace("\n", " | ")[:600])
    b.close()
