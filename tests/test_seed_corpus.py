"""The seed corpus (suites/seeds): every file loads, every benchmark says where it comes from, and a
fast subset runs (`--job dry`) on the host Python and on the oldest and newest CPython found; every
other language's port builds, loads with the same tags, and its quick slice runs dry."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import seed_audit

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "suites" / "seeds"
WORKER = ROOT / "workers" / "python"
SEED_FILES = {"000", "001", "002", "003", "004"}

# A fast slice: one or two benchmarks per section, none of them slow in a dry run.
FAST = ["SeekForward", "GetLength", "CreateTokenDispose", "WithTimeout", "Clone", "IndexOf",
        "ParseGuid", "Deserialize", "Pbkdf2", "RegexCompiled", "ConnectAcceptAsync", "HelloWorld"]


def perflab(*args, timeout=900):  # a cold cache compiles every language's worker and benchmarks
    return subprocess.run([sys.executable, "-m", "perflab.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def test_layout_is_section_folder_per_language():
    files = sorted(SEEDS.glob("*/python/bench_*.py"))
    assert len(files) >= 10
    assert {f.parts[-3] for f in files} >= {"file_io", "threading", "collections_linq",
                                             "arrays_strings", "parsing_formatting", "json",
                                             "crypto", "regex", "networking", "startup"}
    assert (SEEDS / "README.md").is_file()


DISCOVER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import perflab
out = []
for path in sys.argv[2:]:
    found, errors = perflab._load_file(path, None)
    out.append({"file": path, "errors": errors,
                "benchmarks": [b.describe() for b in found]})
print(json.dumps(out))
"""


def _audit_problems(benchmarks):
    """(id, name, meta, categories, params) of every benchmark → the audit's rules they break
    (seed_audit: method names and [Params] values from the seeds' committed C#, the seed's rows)."""
    from perflab.report.claims import registry
    methods = seed_audit.seed_methods()
    claimed = set(registry())
    out = [f"{bid}: {p}" for bid, name, meta, cats, params in benchmarks
           for p in seed_audit.problems(name, meta, cats, methods, claimed, params)]
    return out + seed_audit.row_problems([(bid, name, meta, params) for bid, name, meta, _, params in benchmarks])


def test_every_benchmark_loads_and_carries_seed_and_section():
    files = [str(f) for f in sorted(SEEDS.glob("*/python/bench_*.py"))]
    r = subprocess.run([sys.executable, "-c", DISCOVER, str(WORKER), *files], capture_output=True,
                       text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    total = 0
    found = []
    for entry in json.loads(r.stdout):
        assert entry["errors"] == [], entry
        assert entry["benchmarks"], f"{entry['file']}: no benchmarks"
        for b in entry["benchmarks"]:
            total += 1
            meta = b["meta"]
            found.append((b["id"], b["name"], meta, b["categories"],
                          {a["name"]: list(a["values"]) for a in b.get("params") or []}))
            assert meta.get("seed") in SEED_FILES or meta.get("extra") is True, (b["id"], meta)
            assert b["name"][0].isupper(), f"{b['id']}: named after the seed's method"
            assert b["categories"], f"{b['id']}: needs a section category"
            claim = meta.get("claim")
            if isinstance(claim, dict):
                assert claim.get("text") and claim.get("expect") in ("faster", "slower", "same")
    assert total >= 80
    assert _audit_problems(found) == []
    assert _audit_table_misses(found) == []


def _audit_table_misses(benchmarks):
    """Seed-tagged benchmarks whose seed · section · method has no row in the README's audit table."""
    table = (SEEDS / "README.md").read_text(encoding="utf-8")
    misses = []
    for bid, name, meta, *_ in benchmarks:
        if "seed" not in meta:
            continue
        row = f"| {meta['seed']} · {meta['section']} · `{seed_audit.row_name(name, meta)}`"
        if row not in table:
            misses.append(f"{bid}: no row {row} in suites/seeds/README.md")
    return misses


def test_nothing_reads_the_seed_documents_beside_the_checkout():
    """The corpus is self-contained (issue 39): the seeds are named by their public titles, and no code
    or test reads `../shared` at run or test time (the extractor reads the documents only when told
    where they are, to re-extract)."""
    for path in (SEEDS / "README.md", ROOT / "src" / "perflab" / "report" / "seed_claims.json"):
        text = path.read_text(encoding="utf-8")
        assert "/work/shared" not in text and "../shared" not in text, path
    for path in [*ROOT.glob("src/perflab/**/*.py"), *ROOT.glob("tests/*.py"), *ROOT.glob("scripts/*.py")]:
        text = path.read_text(encoding="utf-8")
        if path.name == "test_seed_corpus.py":  # names what it looks for
            continue
        assert '"shared"' not in text and "'shared'" not in text and "../shared" not in text, path
    assert "Performance Improvements in .NET 6" in (SEEDS / "README.md").read_text(encoding="utf-8")


def test_perflab_list_finds_the_corpus():
    r = perflab("list", "suites/seeds")
    assert r.returncode == 0, r.stderr
    for name in ("SeekForward", "PreallocationSize", "ThreadPoolStarvation", "RegexCompiled",
                 "HttpDownload", "Pbkdf2", "HelloWorld"):
        assert name in r.stdout


def test_large_cases_are_only_in_the_large_category():
    r = perflab("list", "suites/seeds", "--category", "large")
    assert r.returncode == 0, r.stderr
    assert "104857600" in r.stdout and "100000000" in r.stdout
    r = perflab("list", "suites/seeds", "--category", "quick")
    assert r.returncode == 0, r.stderr
    assert "104857600" not in r.stdout and "100000000" not in r.stdout


def _runtime_available(name):
    r = perflab("runtimes")
    # off a terminal the listing is plain columns: the name is the first word of its row
    return r.returncode == 0 and any(line.split()[:1] == [name] for line in r.stdout.splitlines())


def _dry(tmp_path, runtimes):
    # the host Python unless told otherwise (the folder also holds the other languages' ports)
    args = ["run", "suites/seeds", "--job", "dry", "-o", str(tmp_path), "--exporters", "json",
            "--runtimes", runtimes or sys.executable]
    for f in FAST:
        args += ["--filter", f]
    r = perflab(*args, timeout=180)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    [path] = list(tmp_path.glob("perflab-*.json"))
    doc = json.loads(path.read_text())
    names = {c["benchmark"]["name"] for c in doc["cases"]}
    assert set(FAST) <= names
    assert all(c["status"] == "ok" for c in doc["cases"])
    return path


def test_fast_subset_runs_dry_on_the_host_python_and_reports(tmp_path):
    path = _dry(tmp_path, runtimes=None)
    out = tmp_path / "report"
    from perflab.report.seeds_report import main
    assert main([str(path), "--title", "Seed corpus dry", "--out", str(out)]) == 0
    md = (out / "seed-corpus-dry-python.md").read_text()  # the family page; the index is seed-corpus-dry.md
    assert "## Seed 002 — File IO improvements in .NET 6" in md and "### Seek/Position" in md


@pytest.mark.parametrize("runtimes", ["python3.8,python3.13"])
def test_fast_subset_runs_dry_on_oldest_and_newest_cpython(tmp_path, runtimes):
    missing = [r for r in runtimes.split(",") if not _runtime_available(r)]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")
    _dry(tmp_path, runtimes)


# -- the other languages' ports ------------------------------------------------------------------

PORTS = {"node": "node", "go": "go", "java": "java", "rust": "rust", "cpp": "cpp"}


def _newest_installed(language):
    from perflab import toolchains
    found = [r for r in toolchains.get(language).discover_runtimes() if r.installed]
    return found[-1] if found else None


@pytest.mark.parametrize("language", sorted(PORTS))
def test_port_loads_with_seed_tags_and_its_quick_slice_runs_dry(language, tmp_path):
    folders = sorted(SEEDS.glob(f"*/{PORTS[language]}"))
    if not folders:
        pytest.skip(f"no {language} port yet")
    rt = _newest_installed(language)
    if rt is None:
        pytest.skip(f"no {language} runtime installed")
    from perflab.commands.common import prepare_all
    from perflab.report.claims import registry
    [prep] = prepare_all([SEEDS], rt.name, 120, tmp_path / "work")
    assert prep.error is None, prep.error
    assert prep.load_errors == []
    assert len(prep.benchmarks) >= 20
    claimed = {method for (_, _, method) in registry()}
    for b in prep.benchmarks:
        assert b.categories, f"{b.id}: needs a section category"
    found = [(b.id, b.name, b.meta, list(b.categories), {a.name: list(a.values) for a in b.params})
             for b in prep.benchmarks]
    assert _audit_problems(found) == []
    assert _audit_table_misses(found) == []
    names = {b.name.split(".")[-1] for b in prep.benchmarks}
    assert len(names & claimed) >= 8, f"{language}: few benchmarks named after claimed seed methods"
    quick = [b for b in prep.benchmarks if "quick" in b.categories]
    assert 8 <= len(quick) <= 25
    r = perflab("run", "suites/seeds", "--category", "quick", "--runtimes", rt.name, "--job", "dry",
                "-o", str(tmp_path), "--exporters", "json", "--store", "none", timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    [path] = list(tmp_path.glob("perflab-*.json"))
    cases = json.loads(path.read_text())["cases"]
    assert cases and all(c["status"] == "ok" for c in cases), [c.get("error") for c in cases]
