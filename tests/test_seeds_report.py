"""`perflab report`: the seeds' report from synthetic results documents (no benchmark is run)."""
import argparse
import base64
import json
import re

import pytest

from perflab.errors import UsageError
from perflab.report import claims as cl
from perflab.report import results_view as rv
from perflab.report import seeds_report as sr

RUNTIMES = ["python3.8", "python3.13"]


def case(name, runtime, mean_ns, *, group="bench_x", params=None, meta=None, se=None, df=20.0,
         status="ok", error=None, alloc=None, ratio=None, baseline=None, warnings=()):
    params = params or {}
    bid = f"{group}.{name}"
    key = f"{bid}[{','.join(f'{k}={v}' for k, v in params.items())}]@{runtime}"
    se = mean_ns * 0.002 if se is None else se
    return {
        "key": key,
        "benchmark": {"id": bid, "name": name, "group": group, "language": language_of(runtime),
                      "file": f"/x/{group}.py", "meta": meta or {}},
        "params": params,
        "runtime": {"name": runtime, "label": runtime, "version": runtime[6:], "implementation": "CPython"},
        "status": status, "error": error,
        "diagnostics": {"alloc_bytes_per_op": alloc} if alloc is not None else None,
        "estimate": None if status != "ok" else {
            "mean": mean_ns, "se": se, "df": df, "error": se * 3.5,
            "ci_low": mean_ns - se * 3.5, "ci_high": mean_ns + se * 3.5},
        "baseline": baseline, "ratio": ratio, "warnings": list(warnings),
    }


def language_of(runtime):
    for prefix, lang in (("python", "python"), ("pypy", "python"), ("node", "node"), ("go", "go"),
                         ("jdk", "java"), ("rust", "rust"), ("gcc", "cpp"), ("clang", "cpp")):
        if runtime.startswith(prefix):
            return lang
    return "python"


def doc(cases, runtimes=RUNTIMES, complete=True):
    return {"schema": "perflab.results", "version": 1, "complete": complete,
            "job": {"name": "short"},
            "environment": {"cpu": {"model": "Test CPU", "logical_cores": 2},
                            "os": {"system": "Linux", "release": "6", "machine": "x86_64"},
                            "runtimes": [{"label": r, "name": r, "version": r[6:]} for r in runtimes]},
            "cases": cases}


def write(tmp_path, name, d):
    p = tmp_path / name
    p.write_text(json.dumps(d, allow_nan=True), encoding="utf-8")
    return p


PREALLOC = {"seed": "002", "section": "Preallocation", "claim": {
    "text": "Ubuntu: PreallocationSize False 96.65 ms → True 43.70 ms", "before_ms": 96.65,
    "after_ms": 43.70, "expect": "faster",
    "compare": {"param": "specifyPreallocationSize", "before": "False", "after": "True"}}}
SEEK = {"seed": "002", "section": "Seek/Position", "claim": {
    "text": "SeekForward: 447.915 μs → 19.083 μs", "before_us": 447.915, "after_us": 19.083,
    "expect": "faster"}}
GATHER = {"seed": "002", "section": "Scatter/Gather", "claim": {
    "text": "Ubuntu: Write 96.62 ms → WriteGather 89.87 ms", "before_ms": 96.62, "after_ms": 89.87,
    "expect": "faster", "compare": {"before": "Write", "after": "WriteGather"}}}


def sample_cases():
    cs = []
    for rt, f in (("python3.8", 1.0), ("python3.13", 1.0)):
        cs.append(case("PreallocationSize", rt, 96e6 * f, params={"specifyPreallocationSize": "False"}, meta=PREALLOC))
        cs.append(case("PreallocationSize", rt, 44e6 * f, params={"specifyPreallocationSize": "True"}, meta=PREALLOC))
        cs.append(case("Write", rt, 90e6, group="bench_gather", meta=GATHER))
        cs.append(case("WriteGather", rt, 95e6, group="bench_gather", meta=GATHER))  # slower: contradicts
    cs.append(case("SeekForward", "python3.8", 400e3, meta=SEEK, alloc=240))
    cs.append(case("SeekForward", "python3.13", 401e3, meta=SEEK, alloc=240))  # within noise
    cs.append(case("plain", "python3.8", 100.0))
    cs.append(case("plain", "python3.13", 50.0, warnings=["multimodal: mValue 3.1"]))
    cs.append(case("broken", "python3.8", 0, status="failed", error="worker crashed (SIGSEGV)"))
    return cs


def run_report(tmp_path, paths, title="Seeds test", extra=(), family="python"):
    """(Markdown, HTML, out folder) of one family's page; the index is `<stem>.md` beside it."""
    parser = argparse.ArgumentParser(prog="perflab")
    sub = parser.add_subparsers(dest="command", required=True)
    sr.add_report_parser(sub)
    out = tmp_path / "out"
    args = parser.parse_args(["report", *map(str, paths), "--title", title, "--out", str(out), *extra])
    assert args.func is sr.cmd_report
    assert sr.cmd_report(args) == 0
    stem = sr._slug(title) + (f"-{family}" if family else "")
    return (out / f"{stem}.md").read_text(encoding="utf-8"), (out / f"{stem}.html").read_text(encoding="utf-8"), out


def test_sections_follow_the_seeds_and_other_collects_the_rest(tmp_path):
    p = write(tmp_path, "r.json", doc(sample_cases()))
    md, page, _ = run_report(tmp_path, [p])
    assert "## Seed 002 — File IO improvements in .NET 6" in md
    for s in ("### Preallocation", "### Scatter/Gather", "### Seek/Position"):
        assert s in md
    assert "## Other" in md and "### Benchmarks without seed metadata" in md
    # Other comes after the seeds
    assert md.index("## Other") > md.index("### Seek/Position")
    assert "| Method | Runtime | Params | Mean | Ratio vs python3.8 | Allocated |" in md
    assert re.search(r"\| SeekForward \| python3.8 \| - \| 400\.\d+ μs \| 1\.00 \| 240 B \|", md)
    assert re.search(r"\| plain \| python3.13 \| - \| 50\.0+ ns \| 0\.50 \| NA \|", md)
    assert "FAILED: worker crashed (SIGSEGV)" in md
    assert "multimodal" in md  # warnings are kept
    assert "<h3>Preallocation</h3>" in page


def test_claims_are_checked_against_our_figures(tmp_path):
    p = write(tmp_path, "r.json", doc(sample_cases()))
    md, page, _ = run_report(tmp_path, [p])
    rows = [l for l in md.splitlines() if l.startswith("| Ubuntu: PreallocationSize")]
    assert len(rows) == 2  # one per runtime: the newest decides, the oldest is for reference
    assert "| confirmed |" in rows[0] and "CPython 3.13 PreallocationSize(specifyPreallocationSize=False → True)" in rows[0]
    assert "| for reference |" in rows[1] and "CPython 3.8 " in rows[1]
    assert all("96.65 ms → 43.7 ms (×0.45)" in r for r in rows)
    gather = [l for l in md.splitlines() if l.startswith("| Ubuntu: Write 96.62")]
    assert len(gather) == 2 and "| contradicted |" in gather[0] and "| for reference |" in gather[1]
    seek = [l for l in md.splitlines() if l.startswith("| SeekForward: 447.915")]
    # ×1.00 [0.99–1.01] against a claimed ×0.04: no speed-up is left, the claim is ruled out
    assert len(seek) == 1 and "CPython 3.8 → 3.13 SeekForward()" in seek[0] and "| contradicted |" in seek[0]
    assert "confirmed: 1" in md and "contradicted: 2" in md
    assert "checked as CPython 3.8 → 3.13 SeekForward()" in md
    assert 'class="v-confirmed"' in page and 'class="v-contradicted"' in page
    assert "confirmed</b> when that whole interval" in page  # the rule is stated


def test_verdict_rule():
    R = rv.Ratio
    assert cl.verdict(R(0.5, 0.4, 0.6), "faster") == "confirmed"
    assert cl.verdict(R(1.5, 1.2, 1.8), "faster") == "contradicted"
    assert cl.verdict(R(0.9, 0.7, 1.1), "faster") == "inconclusive"
    # no speed-up beyond the 5 % band is left: the claimed change is not there
    assert cl.verdict(R(1.0, 0.97, 1.03), "faster") == "contradicted"
    assert cl.verdict(R(0.97, 0.94, 1.01), "faster") == "inconclusive"  # 6 % faster is still possible
    assert cl.verdict(R(0.98, 0.96, 0.995), "faster") == "confirmed"  # surely faster, if by little
    assert cl.verdict(R(1.0, 0.97, 1.03), "slower") == "contradicted"
    assert cl.verdict(R(1.03, 0.99, 1.06), "slower") == "inconclusive"
    assert cl.verdict(R(0.5, None, None), "faster") == "inconclusive"
    assert cl.verdict(R(1.5, 1.2, 1.8), "slower") == "confirmed"
    assert cl.verdict(R(1.0, 0.98, 1.02), "same") == "confirmed"
    assert cl.verdict(R(2.0, 1.8, 2.2), "same") == "contradicted"
    assert cl.verdict(None, "faster") == "inconclusive"


def test_dry_run_results_have_no_interval_and_stay_inconclusive(tmp_path):
    inf = float("inf")
    cs = [case("SeekForward", "python3.8", 400e3, meta=SEEK, se=inf, df=0.0),
          case("SeekForward", "python3.13", 20e3, meta=SEEK, se=inf, df=0.0)]
    md, _, _ = run_report(tmp_path, [write(tmp_path, "dry.json", doc(cs))])
    [row] = [l for l in md.splitlines() if l.startswith("| SeekForward: 447.915")]
    assert "\\[no interval\\]" in row and "| inconclusive |" in row  # brackets escaped in md


def test_the_runs_own_paired_ratio_is_used_when_it_is_against_the_baseline_runtime(tmp_path):
    base = case("x", "python3.8", 100.0)
    other = case("x", "python3.13", 80.0, baseline=base["key"],
                 ratio={"value": 0.8, "sd": 0.01, "ci_low": 0.79, "ci_high": 0.81})
    rep = rv.load_report([str(write(tmp_path, "r.json", doc([base, other])))], "t")
    [section] = rv.sections_of(rep)
    rows = rv.section_rows(rep, section)
    assert (rows[1].ratio.low, rows[1].ratio.high) == (0.79, 0.81)
    # a ratio against another baseline (the group's baseline method) is recomputed from the estimates
    other["baseline"] = "bench_x.other[]@python3.8"
    rep = rv.load_report([str(write(tmp_path, "r2.json", doc([base, other])))], "t")
    rows = rv.section_rows(rep, rv.sections_of(rep)[0])
    assert rows[1].ratio.value == pytest.approx(0.8) and rows[1].ratio.low != 0.79


def test_html_is_one_self_contained_file(tmp_path):
    many = [case(f"m{i}", rt, 100.0 * (i + 1), group="bench_many", meta={"seed": "002", "section": "Length"})
            for i in range(4) for rt in RUNTIMES]  # a section of 4 cases: the one that gets a plot
    md, page, out = run_report(tmp_path, [write(tmp_path, "r.json", doc(sample_cases() + many))])
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    refs = re.findall(r'(?:src|href)\s*=\s*["\']([^"\']*)', page, flags=re.I)
    assert refs, "expected at least the plots and the contents links"
    assert not [r for r in refs if re.match(r"(?:https?:)?//", r, flags=re.I)]
    # everything is inline; the one link out is back to the index beside the page
    assert [r for r in refs if not (r.startswith("#") or r.startswith("data:"))] == ["seeds-test.html"]
    assert "<link" not in page and "<script" not in page and "@import" not in page
    imgs = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(imgs) == 1  # plots only where they say more than the table: Length's 4 cases, not 1 or 2
    assert all(base64.b64decode(i)[:8] == b"\x89PNG\r\n\x1a\n" for i in imgs)
    # the Markdown refers to PNG files written beside it
    for rel in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md):
        assert (out / rel).is_file()
    assert sorted(p.name for p in out.iterdir() if p.suffix == ".html") == ["seeds-test-python.html",
                                                                           "seeds-test.html"]
    assert _unbalanced_tags(page) == ([], [])
    index = (out / "seeds-test.html").read_text(encoding="utf-8")
    assert re.findall(r'href="([^"#]+)"', index) == ["seeds-test-python.html"]
    assert "<link" not in index and "<script" not in index and _unbalanced_tags(index) == ([], [])


def _unbalanced_tags(page):
    from html.parser import HTMLParser
    void = {"meta", "img", "br", "hr", "link", "input"}

    class Check(HTMLParser):
        def __init__(self):
            super().__init__()
            self.stack, self.errors = [], []

        def handle_starttag(self, tag, attrs):
            if tag not in void:
                self.stack.append(tag)

        def handle_endtag(self, tag):
            if self.stack and self.stack[-1] == tag:
                self.stack.pop()
            else:
                self.errors.append((tag, self.getpos()))
    c = Check()
    c.feed(page)
    return c.errors, c.stack


def test_several_files_are_merged_by_runtime(tmp_path):
    a = write(tmp_path, "a.json", doc([case("x", "python3.8", 100.0, meta=SEEK)], runtimes=["python3.8"]))
    b = write(tmp_path, "b.json", doc([case("x", "python3.13", 50.0, meta=SEEK)], runtimes=["python3.13"]))
    md, _, _ = run_report(tmp_path, [a, b])
    assert re.search(r"\| x \| python3.13 \| - \| 50\.0+ ns \| 0\.50 \|", md)
    md, _, _ = run_report(tmp_path, [a, b], extra=["--baseline", "python3.13"])
    assert re.search(r"\| x \| python3.8 \| - \| 100\.\d+ ns \| 2\.00 \|", md)


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    # one reader for every command (results.load_document): its messages
    ("this is not json", "not valid JSON"),
    (json.dumps({"hello": 1}), "not a perflab results document"),
    (json.dumps([1, 2]), "not a perflab results document"),
    (json.dumps({"schema": "perflab.results", "version": 99, "cases": []}), "written by a newer perflab"),
    (json.dumps({"schema": "perflab.results", "version": 1, "cases": []}), "no cases"),
    (json.dumps({"schema": "perflab.results", "version": 1, "cases": [{"x": 1}]}), "case 1 lacks 'key'"),
])
def test_bad_input_is_one_line_naming_the_file(tmp_path, content, message):
    p = tmp_path / "bad.json"
    if content is not None:
        p.write_text(content)
    with pytest.raises(UsageError) as exc:
        rv.load_report([str(p)], "t")
    text = str(exc.value)
    assert message in text and str(p) in text and "\n" not in text


def test_results_with_no_common_cases_are_refused(tmp_path):
    a = write(tmp_path, "a.json", doc([case("x", "python3.8", 1.0)]))
    b = write(tmp_path, "b.json", doc([case("y", "python3.8", 1.0)]))
    with pytest.raises(UsageError) as exc:
        rv.load_report([str(a), str(b)], "t")
    assert str(b) in str(exc.value) and "no case in common" in str(exc.value)


def test_unknown_baseline_is_refused(tmp_path):
    a = write(tmp_path, "a.json", doc([case("x", "python3.8", 1.0)]))
    with pytest.raises(UsageError, match="--baseline pypy3"):
        rv.load_report([str(a)], "t", baseline="pypy3")


def test_standalone_entry_reports_bad_input_with_status_2(tmp_path, capsys):
    assert sr.main([str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err
    assert "missing.json: no such file" in err and err.count("\n") == 1


def test_claims_come_from_the_registry_for_any_language(tmp_path):
    """A port in another language carries only seed and section: the registry supplies the claim,
    matched by method name (Go's `BenchmarkX`, a group prefix) and by parameter values in any case."""
    meta = {"seed": "002", "section": "Preallocation"}
    cs = []
    for rt in ("go1.21", "go1.26"):  # Go: fallocate(2) is there
        cs.append(case("PreallocationSize", rt, 96e6, group="seed002", params={"specifyPreallocationSize": "false"},
                       meta=meta))
        cs.append(case("PreallocationSize", rt, 44e6, group="seed002", params={"specifyPreallocationSize": "true"},
                       meta=meta))
    cs.append(case("BenchmarkHttpDownload", "go1.21", 9e6, meta={"seed": "003", "section": "Networking"}))
    cs.append(case("BenchmarkHttpDownload", "go1.26", 5e6, meta={"seed": "003", "section": "Networking"}))
    cs.append(case("Unclaimed", "go1.26", 5e6, meta={"seed": "003", "section": "Networking"}))
    p = write(tmp_path, "r.json", doc(cs, runtimes=["go1.21", "go1.26"]))
    md, _, _ = run_report(tmp_path, [p], family="go")
    rows = [l for l in md.splitlines() if l.startswith("| Ubuntu: PreallocationSize False 96.65 ms")]
    assert len(rows) == 2 and "| confirmed |" in rows[0] and "| for reference |" in rows[1]
    assert "specifyPreallocationSize=false → true" in rows[0] and " 1.26 " in rows[0]
    http = [l for l in md.splitlines() if l.startswith("| HttpDownload (10 MB)")]
    assert len(http) == 1 and "1.21 → 1.26 HttpDownload()" in http[0] and "| confirmed |" in http[0]
    # on Node the same PreallocationSize pair is an analogue: Node's fs has no fallocate
    for c in cs:
        c["runtime"].update(name=c["runtime"]["name"].replace("go1.21", "node18").replace("go1.26", "node22"))
        c["runtime"]["label"] = c["runtime"]["name"]
        c["key"] = c["key"].replace("go1.21", "node18").replace("go1.26", "node22")
        c["benchmark"]["language"] = "node"
    p = write(tmp_path, "r2.json", doc(cs, runtimes=["node18", "node22"]))
    md, _, _ = run_report(tmp_path, [p], family="node")
    rows = [l for l in md.splitlines() if l.startswith("| Ubuntu: PreallocationSize False 96.65 ms")]
    assert rows and all("| analogue |" in r for r in rows[:1]) and "mechanism absent on Node" in rows[0]


def test_every_registry_claim_names_a_benchmark_of_the_python_corpus():
    """The registry is keyed by names: a renamed benchmark must not silently lose its claim."""
    import pathlib
    names = set()
    for f in pathlib.Path(__file__).resolve().parents[1].glob("suites/seeds/*/python/*.py"):
        names |= set(re.findall(r'name="(\w+)"', f.read_text(encoding="utf-8")))
    for (seed, section, method) in cl.registry():
        assert method in names, f"{seed} {section} {method} has no benchmark"


def test_each_language_is_judged_against_its_own_baseline_runtime(tmp_path):
    meta = {"seed": "003", "section": "Networking"}

    def lang_case(rt, mean, language):
        c = case("HttpDownload", rt, mean, meta=meta)
        c["benchmark"]["language"] = language
        return c
    cs = [lang_case("python3.8", 10e6, "python"), lang_case("python3.13", 8e6, "python"),
          lang_case("node18", 6e6, "node"), lang_case("node22", 3e6, "node")]
    p = write(tmp_path, "r.json", doc(cs, runtimes=["python3.8", "python3.13", "node18", "node22"]))
    md, _, _ = run_report(tmp_path, [p], family=None)  # the index
    assert "Node 18 → 22" in md and "CPython 3.8 → 3.13" in md
    md = "\n".join(run_report(tmp_path, [p], family=f)[0] for f in ("python", "node"))
    assert re.search(r"\| HttpDownload \| node22 \| - \| [\d.]+ ms \| 0\.50 \|", md)
    assert re.search(r"\| HttpDownload \| node18 \| - \| [\d.]+ ms \| 1\.00 \|", md)
    assert re.search(r"\| HttpDownload \| python3.13 \| - \| [\d.]+ ms \| 0\.80 \|", md)
    http = [l for l in md.splitlines() if l.startswith("| HttpDownload (10 MB)")]
    assert len(http) == 2 and any("Node 18 → 22" in r for r in http) and any(
        "CPython 3.8 → 3.13" in r for r in http)


# -- claims mean what the seed meant ---------------------------------------------------------------

HTTP = {"seed": "003", "section": "Networking"}  # the registry's HttpDownload claim: versions, faster


def _claims(tmp_path, cases, runtimes):
    rep = rv.load_report([str(write(tmp_path, "c.json", doc(cases, runtimes=runtimes)))], "t")
    from perflab.report import family
    pairs = __import__("perflab.report.families", fromlist=["pairs_of"]).pairs_of(rep)
    return {lang: family.summarize(rep, p) for lang, p in pairs.items()}


def test_a_version_claim_is_not_confirmed_by_an_intermediate_version(tmp_path):
    """python3.8 → 3.11 is much faster, but the family's pair is 3.8 → 3.13, where it is not: that
    pair decides the claim (contradicted: no speed-up is left), and 3.11 is shown for reference only."""
    cs = [case("HttpDownload", "python3.8", 10e6, meta=HTTP),
          case("HttpDownload", "python3.11", 5e6, meta=HTTP),
          case("HttpDownload", "python3.13", 10.01e6, meta=HTTP)]
    [(_, claim)] = _claims(tmp_path, cs, ["python3.8", "python3.11", "python3.13"])["python"].claims
    assert claim.overall == "contradicted" and claim.decided
    assert claim.checked_as == "checked as CPython 3.8 → 3.13 HttpDownload()"
    [ref] = [c for c in claim.checks if not c.decides]
    assert ref.after.runtime == "python3.11" and ref.verdict == "confirmed"  # as it would read…
    assert ref.shown_verdict == "for reference" and "not the family's oldest → newest pair" in ref.note
    # …and with 3.13 faster too, the deciding comparison confirms
    cs[2] = case("HttpDownload", "python3.13", 5e6, meta=HTTP)
    [(_, claim)] = _claims(tmp_path, cs, ["python3.8", "python3.11", "python3.13"])["python"].claims
    assert claim.overall == "confirmed"


def test_a_version_claim_is_not_judged_on_two_compilers_or_two_flag_sets(tmp_path):
    cs = [case("HttpDownload", "gcc12", 10e6, meta=HTTP), case("HttpDownload", "clang14", 5e6, meta=HTTP)]
    for c, impl in zip(cs, ("GCC", "Clang")):
        c["runtime"]["implementation"] = impl
    s = _claims(tmp_path, cs, ["gcc12", "clang14"])["cpp"]
    assert s.pair.kind == "implementations" and s.pair.title == "C/C++ gcc12 → clang14"
    [(_, claim)] = s.claims
    assert claim.overall == "for reference only" and not claim.decided
    cs = [case("HttpDownload", "gcc12:-O1", 10e6, meta=HTTP), case("HttpDownload", "gcc12:-O3", 5e6, meta=HTTP)]
    for c in cs:
        c["runtime"]["name"] = "gcc12"
    s = _claims(tmp_path, cs, ["gcc12:-O1", "gcc12:-O3"])["cpp"]
    assert s.pair.kind == "flags" and "optimisation" in s.pair.report_title
    assert s.claims[0][1].overall == "for reference only"


@pytest.mark.parametrize("meta, overall, mark", [
    ({"fidelity": "different: a blocking call, not an async one"}, "analogue", "port different: a blocking call"),
    ({"extra": True, "fidelity": "faithful"}, "for reference only", "extra benchmark"),
    ({"fidelity": "partial: 1 MB, not 10 MB"}, "analogue", "port partial: 1 MB"),  # seeds README: not checked
    ({"fidelity": "faithful"}, "confirmed", ""),
    ({}, "confirmed", "port not audited"),
])
def test_only_a_port_of_the_seeds_experiment_decides(tmp_path, meta, overall, mark):
    m = {**HTTP, **meta}
    cs = [case("HttpDownload", "node18", 10e6, meta=m), case("HttpDownload", "node24", 5e6, meta=m)]
    [(_, claim)] = _claims(tmp_path, cs, ["node18", "node24"])["node"].claims
    [check] = claim.checks
    decides = overall == "confirmed"
    assert check.decides is decides and check.verdict == "confirmed"
    assert claim.overall == overall and claim.decided is decides
    assert check.shown_verdict == ("confirmed" if decides else "analogue" if overall == "analogue" else "for reference")
    assert (mark in check.note) if mark else check.note == ""


@pytest.mark.parametrize("name, meta, rts, absent", [
    # .NET 6 stopped calling lseek; os.File.Seek calls it on every Go version
    ("SeekForward", {"seed": "002", "section": "Seek/Position"}, ["go1.21", "go1.26"], "mechanism absent on Go: os.File.Seek"),
    # a Rust program has no runtime to start
    ("HelloWorld", {"seed": "000", "section": "Startup", "scenario": True}, ["rust-stable", "rust-nightly"],
     "mechanism absent on Rust: a Rust program has no runtime to start"),
    # “same” on stable → nightly would hold with no change at all
    ("Read", {"seed": "000", "section": "IO"}, ["rust-stable", "rust-nightly"], "mechanism absent on Rust: stable and nightly"),
    # not established is not present
    ("Read", {"seed": "000", "section": "IO"}, ["python3.8", "python3.13"], "mechanism not established on CPython"),
])
def test_a_faithful_port_where_the_mechanism_is_absent_is_an_analogue(tmp_path, name, meta, rts, absent):
    m = {**meta, "fidelity": "faithful"}
    params = {"BufferSize": "4096"} if name == "Read" else {"buffering": "4096"} if name == "SeekForward" else {}
    cs = [case(name, rts[0], 10e6, meta=m, params=params), case(name, rts[1], 10e6 if name == "Read" else 1e6,
                                                                 meta=m, params=params)]
    [(_, claim)] = [(s, c) for s, c in next(iter(_claims(tmp_path, cs, rts).values())).claims]
    [check] = claim.checks
    assert check.verdict == "confirmed"  # as it would read…
    assert not check.decides and check.analogue and check.shown_verdict == "analogue"  # …but never counted
    assert claim.overall == "analogue" and not claim.decided and not claim.deciding
    assert absent in check.note
    assert claim.mechanism  # the page can say what the seed credits


def test_a_faithful_port_where_the_mechanism_is_present_decides(tmp_path):
    m = {"seed": "000", "section": "IO", "fidelity": "faithful"}  # Read: JDK 19 rewrote BufferedInputStream's lock
    cs = [case("Read", r, 10e6, meta=m, params={"BufferSize": "4096"}) for r in ("jdk17", "jdk25")]
    [(_, claim)] = _claims(tmp_path, cs, ["jdk17", "jdk25"])["java"].claims
    assert claim.overall == "confirmed" and claim.decided and claim.checks[0].note == ""


LANGUAGES = ("python", "node", "go", "java", "rust", "cpp", "csharp")


def test_every_registry_claim_names_its_mechanism_and_where_it_is_present():
    """One rule: each claim says what the seed credits, and for every family of the main job whether it is
    present on its runtimes, absent or not established, each with a reason."""
    import json
    from importlib import resources
    entries = json.loads(resources.files("perflab.report").joinpath("seed_claims.json").read_text("utf-8"))["claims"]
    for e in entries:
        mech = e["claim"].get("mechanism")
        where = f"{e['seed']} {e['section']} {e['methods']}"
        assert isinstance(mech, dict) and mech.get("what"), where
        seen = [lang for kind in ("present", "absent", "unknown") for lang in mech.get(kind, {})]
        assert sorted(seen) == sorted(LANGUAGES), f"{where}: each family exactly once, got {seen}"
        assert all(str(v).strip() for kind in ("present", "absent", "unknown") for v in mech.get(kind, {}).values()), where
    # the cases the issue named, checked against the ports (suites/seeds): absent where they must be
    reg = cl.registry()
    assert set(reg[("002", "Seek/Position", "SeekForward")]["mechanism"]["present"]) == set()
    assert "java" in reg[("000", "Threading", "ThreadPoolStarvation")]["mechanism"]["absent"]
    assert "rust" in reg[("000", "Startup", "HelloWorld")]["mechanism"]["absent"]
    same = [k for k, c in reg.items() if c.get("expect") == "same"]
    assert same and all("rust" in reg[k]["mechanism"]["absent"] for k in same)


def test_a_methods_claim_is_checked_on_the_newest_runtime(tmp_path):
    cs = []
    for rt, write_ms, gather_ms in (("node18", 90, 80), ("node24", 90, 95)):
        cs.append(case("Write", rt, write_ms * 1e6, group="g", meta=GATHER))
        cs.append(case("WriteGather", rt, gather_ms * 1e6, group="g", meta=GATHER))
    [(_, claim)] = _claims(tmp_path, cs, ["node18", "node24"])["node"].claims
    assert claim.kind == "methods" and claim.overall == "contradicted"  # node24 decides, node18 would confirm
    assert claim.checked_as == "checked as Node 24 Write → WriteGather"


def test_an_unknown_comparison_is_reported_not_guessed(tmp_path):
    m = {"seed": "002", "section": "X", "claim": {"text": "t", "before_ms": 2, "after_ms": 1,
                                                 "comparison": "sideways"}}
    cs = [case("A", "node18", 2e6, meta=m), case("A", "node24", 1e6, meta=m)]
    [(_, claim)] = _claims(tmp_path, cs, ["node18", "node24"])["node"].claims
    assert claim.checks == [] and "unknown comparison 'sideways'" in claim.note


# -- family pages ----------------------------------------------------------------------------------

def test_geometric_mean_and_its_interval():
    from perflab.report.family import geometric_mean
    R = rv.Ratio
    g, (lo, hi) = geometric_mean([R(0.5, 0.45, 0.55), R(2.0, 1.8, 2.2)])
    assert g == pytest.approx(1.0) and lo < 1 < hi
    g, (lo, hi) = geometric_mean([R(0.5, 0.49, 0.51)] * 4)
    assert g == pytest.approx(0.5) and 0.49 < lo < 0.5 < hi < 0.51  # four cases: narrower than one
    assert geometric_mean([R(0.5, None, None)]) == (None, None)


def test_each_family_has_its_page_with_summary_wins_and_losses_and_the_index_links_them(tmp_path, capsys):
    cs = []
    for i, (old, new) in enumerate(((100, 50), (100, 200), (100, 100.01), (100, 80))):
        name = "HttpDownload" if i == 0 else f"m{i}"
        cs.append(case(name, "node18", old * 1e3, meta=HTTP if i == 0 else None))
        cs.append(case(name, "node24", new * 1e3, meta=HTTP if i == 0 else None))
    cs += [case("m0", "python3.8", 1e3), case("m0", "python3.13", 1e3), case("m0", "jdk17", 1e3)]
    p = write(tmp_path, "r.json", doc(cs, runtimes=["node18", "node24", "python3.8", "python3.13", "jdk17"]))
    md, page, out = run_report(tmp_path, [p], family="node",
                               extra=["--not-compared", "Go: go1.21 could not be provisioned (offline)"])
    assert md.startswith("# Performance Improvements in Node 18 → 24 — Seeds test")
    assert "**Cases**: 4 of this family; 4 compared with an interval" in md
    assert "2 faster on 24 (interval below 1), 1 slower (interval above 1), 1 not distinguishable" in md
    wins = md[md.index("### Biggest wins"):md.index("### Biggest losses")]
    assert wins.index("| HttpDownload |") < wins.index("| m3 |") and "| m1 |" not in wins
    losses = md[md.index("### Biggest losses"):]
    assert "| m1 |" in losses.split("\n## ")[0]
    g = (0.5 * 2.0 * 1.0001 * 0.8) ** 0.25
    assert f"×{g:.2f} [" in md
    index = (out / "seeds-test.md").read_text(encoding="utf-8")
    assert "[Performance Improvements in Node 18 → 24](seeds-test-node.md)" in index
    assert "[Performance Improvements in CPython 3.8 → 3.13](seeds-test-python.md)" in index
    assert "- Go: go1.21 could not be provisioned (offline)" in index
    assert "- JDK: only jdk17 was measured; nothing to compare it with" in index
    lone = (out / "seeds-test-java.md").read_text(encoding="utf-8")
    assert lone.startswith("# Performance of JDK 17 — Seeds test") and "| m0 | jdk17 |" in lone
    assert "| 003 | Networking | HttpDownload (10 MB)" in index and "| confirmed | — |" in index
    console = capsys.readouterr().out
    assert "Performance Improvements in Node 18 → 24" in console and "not compared: Go" in console
    assert "seeds-test.md" in console


def test_cases_measured_again_make_one_note_per_pair_of_files(tmp_path):
    a = write(tmp_path, "a.json", doc([case(f"m{i}", "python3.8", 100.0) for i in range(8)]))
    b = write(tmp_path, "b.json", doc([case(f"m{i}", "python3.8", 90.0) for i in range(8)]))
    rep = rv.load_report([str(a), str(b)], "t")
    [note] = rep.notes
    assert note.startswith(f"8 case(s) measured in {a} and again in {b}; the later file is used: bench_x.m0@python3.8")
    assert note.endswith("and 2 more.") and all(c.mean == 90.0 for c in rep.cases)


def test_a_case_that_fails_when_measured_again_keeps_its_earlier_measurement(tmp_path):
    """Nothing measured is lost to a later attempt: a main job's pass 2 measured node18's
    HttpDownload again, it failed (ECONNRESET), and the family page lost a row it had measured."""
    a = write(tmp_path, "a.json", doc([case("m0", "python3.8", 100.0), case("m0", "python3.13", 80.0)]))
    b = write(tmp_path, "b.json", doc([case("m0", "python3.8", 0.0, status="failed", error="read ECONNRESET"),
                                       case("m0", "python3.13", 70.0)]))
    rep = rv.load_report([str(a), str(b)], "t")
    old, new = (next(c for c in rep.cases if c.runtime == rt) for rt in ("python3.8", "python3.13"))
    assert old.ok and old.mean == 100.0 and old.path == str(a)
    assert new.mean == 70.0 and new.path == str(b)  # what did not fail: the later measurement
    r = rv.ratio_to(new, old)
    assert r is not None and abs(r.value - 0.7) < 1e-9  # the two measured apart: unpaired
    assert any(n.startswith(f"1 case(s) measured in {a} failed when measured again in {b}; the earlier "
                            "measurement is used: bench_x.m0@python3.8 (read ECONNRESET)") for n in rep.notes)
    # and a failure measured again successfully is replaced, as any case is
    rep2 = rv.load_report([str(b), str(a)], "t")
    assert next(c for c in rep2.cases if c.runtime == "python3.8").ok


def test_counts_get_a_table_of_their_own_with_secondary_figures_and_runtime_notes(tmp_path):
    """Results counted under valgrind: per-op Ir, its ratio to the baseline runtime, est. cycles and
    misses in an Instructions table after the time table; a runtime that could not be counted is
    noted once with its reason; names stay text."""
    from count_docs import counts_record
    hostile = "<b>x</b>|y"
    cases = []
    for rt, ir in (("python3.8", 1000.0), ("python3.13", 800.0)):
        c = case(hostile, rt, 100e3)
        c["counts"] = counts_record(ir, [ir, ir * 1.0002], agreed=rt == "python3.8")
        cases.append(c)
        d = case("Other", rt, 50e3)
        d["counts"] = counts_record(0, error="python3.13 <no marker> found") if rt == "python3.13" else None
        cases.append(d)
    p = write(tmp_path, "r.json", doc(cases))
    rep = rv.load_report([str(p)], "counts")
    rendered = sr.render(rep, "plots")
    md = rendered.markdown
    assert "**Instructions**" in md
    table = md.split("**Instructions**")[1]
    assert "| Method | Runtime | Params | Ir/op | Ir ratio vs python3.8 | Est. cycles/op | L1 misses/op | " \
           "LL misses/op | Spread |" in table
    assert "| 1,000 | 1.0000 |" in table and "| 800.0 | 0.8000 |" in table
    assert "0.020% (did not agree)" in table
    assert "- python3.13: not counted: python3.13 &lt;no marker&gt; found (Other)" in table
    time_table = md.split("**Instructions**")[0]
    assert "Ir/op" not in time_table  # never mixed into the time's columns
    page = rendered.html
    assert '<table class="counts">' in page and "&lt;b&gt;x&lt;/b&gt;|y" in page and "<b>x</b>" not in page
    assert "python3.13: not counted: python3.13 &lt;no marker&gt; found" in page


def test_an_unreadable_counts_record_is_noted_not_fatal(tmp_path):
    c = case("A", "python3.8", 100e3)
    c["counts"] = {"per_op": {"Ir": "many"}}
    rendered = sr.render(rv.load_report([str(write(tmp_path, "r.json", doc([c])))], "t"), "plots")
    import html
    assert html.escape("python3.8: counts unreadable: the case has 'counts.per_op' that is not an object "
                       "of numbers (A)") in rendered.html


def test_results_without_counts_have_no_instructions_table(tmp_path):
    p = write(tmp_path, "r.json", doc(sample_cases()))
    rendered = sr.render(rv.load_report([str(p)], "t"), "plots")
    assert "Instructions" not in rendered.markdown and 'class="counts"' not in rendered.html


def test_contention_leaves_a_verdict_only_to_a_paired_cpu_timed_ratio_of_one_code_on_two_versions():
    """Heavy contention makes a claim inconclusive, save the run's own paired ratio of the same code
    on two runtimes with both sides timed by their thread's CPU time (stats/contention.ratio_stands)."""
    from perflab.report.results_view import Case, Ratio, contention_blocks

    def case(level, cpu_timed):
        return Case(0, "r.json", {"contention": {"level": level}, "estimate": {"cpu_timed": cpu_timed}})

    paired, unpaired = Ratio(0.8, 0.75, 0.85, paired=True), Ratio(0.8, 0.75, 0.85)
    quiet, heavy, heavy_wall = case("quiet", True), case("heavy", True), case("heavy", False)
    assert not contention_blocks(paired, quiet, quiet, same_code=True)
    assert not contention_blocks(unpaired, quiet, quiet, same_code=False)
    assert not contention_blocks(paired, heavy, quiet, same_code=True)
    assert contention_blocks(unpaired, heavy, quiet, same_code=True)       # two runs: not paired
    assert contention_blocks(paired, heavy, heavy_wall, same_code=True)    # one side on the wall clock
    assert contention_blocks(paired, heavy, heavy, same_code=False)        # two methods
    assert contention_blocks(paired, case("changing", True), quiet, same_code=False)
    assert contention_blocks(None, heavy, heavy, same_code=True)


def test_a_page_opens_with_its_claims_and_ends_with_where_its_figures_come_from(tmp_path):
    """Issue 39: the seeds open each page with the change and what it bought; the results files and
    the notes about them (re-measured cases, often of other families) come last, not first."""
    p = write(tmp_path, "r.json", doc(sample_cases()))
    rep = rv.load_report([str(p)], "t")
    rep.notes.append("re-measured <i>elsewhere</i>")
    rendered = sr.render(rep, "plots")
    md, page = rendered.markdown, rendered.html
    first_section = md.index("\n### ")
    assert md.index("## About these results") > first_section
    assert md.index("- results file: ") > first_section and md.index("> note: re-measured") > first_section
    assert page.index('id="about"') > page.index("<section")
    assert page.index("re-measured &lt;i&gt;elsewhere&lt;/i&gt;") > page.index("<section")
    assert "<i>elsewhere</i>" not in page


def test_a_case_whose_family_lacks_the_mechanism_is_not_favoured_by_the_budget():
    """--budget-total measures first what can decide: not a faithful SeekForward on Go (lseek on every
    version), while GetBytes on Go (crypto/rand, Go's own) still is."""
    from perflab.model import Benchmark, Case, Runtime
    go21, go26 = (Runtime(name=n, language="go", version="1", executable="/bin/true") for n in ("go1.21", "go1.26"))
    favoured = cl.decides_in([go21, go26])

    def c(name, section, seed):
        b = Benchmark(id=name, name=name, group="x", file="x_test.go", language="go",
                      meta={"seed": seed, "section": section, "fidelity": "faithful"})
        return Case(benchmark=b, params=(), runtime=go26)
    assert favoured(c("GetBytes", "Cryptography", "000"))
    assert not favoured(c("SeekForward", "Seek/Position", "002"))
    partial = c("GetBytes", "Cryptography", "000")
    partial.benchmark.meta["fidelity"] = "partial: the port's own generator"
    assert not favoured(partial)  # an analogue takes a reference share


def _two_families(tmp_path):
    http = {"seed": "003", "section": "Networking", "fidelity": "faithful"}
    cs = [case("HttpDownload", "python3.8", 10e6, meta=http), case("HttpDownload", "python3.13", 5e6, meta=http),
          case("HttpDownload", "node18", 10e6, meta=http), case("HttpDownload", "node24", 9.99e6, meta=http)]
    return write(tmp_path, "two.json", doc(cs, runtimes=["python3.8", "python3.13", "node18", "node24"]))


def test_a_family_page_opens_with_its_summary_and_claims_and_nothing_of_other_families(tmp_path):
    md, page, _ = run_report(tmp_path, [_two_families(tmp_path)], family="python")
    first = page[:page.index('<h2 id="seed-')]  # everything before the seeds' sections
    assert first.index('id="summary"') < first.index('id="claims"')  # the summary, then the claims
    assert first.index('id="claims"') < first.index('class="setup"')  # the set-up after them
    assert "node" not in first.lower() and "Node" not in md[:md.index("## Seed")]
    # each section opens with the seed's claim, our figure and the verdict, before its table
    sec = page[page.index('<h3>Networking</h3>'):]
    assert sec.index('<p class="lead">') < sec.index('<table class="results">')
    lead = re.search(r'<p class="lead">(.*?)</p>', sec).group(1)
    assert "The seed claims HttpDownload (10 MB)" in lead and "Ours: ×0.50" in lead and "<b>confirmed</b>" in lead
    assert "CPython 3.8 → 3.13 HttpDownload()" in lead
    assert re.search(r"^The seed claims HttpDownload.*Ours: ×0\.50.*\*\*confirmed\*\*\.$", md, flags=re.M)


def test_provenance_names_the_results_files_relative_to_the_results_folder(tmp_path):
    p = _two_families(tmp_path)
    md, page, out = run_report(tmp_path, [p], family="python")
    about = md[md.index("## About these results"):]
    assert "results file: ../two.json" in about and str(tmp_path) not in about
    assert str(tmp_path) not in page


def test_a_family_mean_without_a_meaningful_interval_is_given_without_one(tmp_path):
    cs = [case("a", "python3.8", 100.0), case("a", "python3.13", 60.0, se=10.0, df=3.0),
          case("b", "python3.8", 100.0), case("b", "python3.13", 150.0, se=15.0, df=3.0)]
    s = _claims(tmp_path, cs, RUNTIMES)["python"]
    assert s.geomean is not None and s.geomean_ci is None
    assert "no meaningful interval" in s.geomean_text() and "[0." not in s.geomean_text()
    # a tight one is given
    cs = [case("a", "python3.8", 100.0), case("a", "python3.13", 60.0)]
    s = _claims(tmp_path, cs, RUNTIMES)["python"]
    assert s.geomean_ci is not None and s.geomean_text().startswith("×0.60 [")


def test_the_index_opens_with_its_families_and_the_claims(tmp_path):
    md, page, out = run_report(tmp_path, [_two_families(tmp_path)], family=None)
    assert md.index("## Families") < md.index("## Claims at a glance") < md.index("**Claims**: Each claim")
    assert md.index("## Claims at a glance") < md.index("## Set-up")
    assert page.index('id="families"') < page.index('id="claims"') < page.index('class="how"') < page.index('id="setup"')
