"""`perflab run --rev A,B`: two revisions of the benchmarks side by side in one run (issue #38 item 1)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from perflab.errors import UsageError
from perflab.ratios import Identity, pair
from perflab.revisions import materialise, parse_revisions, paths_in

ROOT = Path(__file__).resolve().parents[1]

V1 = """DATA = list(range(200))

def bench_sum():
    return sum(DATA)

def bench_same():
    return len(DATA)
"""
# the second revision sums the data eight times: a known, large regression of bench_sum only
V2 = V1.replace("return sum(DATA)", "return " + " + ".join(["sum(DATA)"] * 8))


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t", *args],
                          check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path):
    r = tmp_path / "repo"
    (r / "bench").mkdir(parents=True)
    git(r, "init", "-q")
    (r / "bench" / "bench_work.py").write_text(V1)
    git(r, "add", "-A")
    git(r, "commit", "-qm", "v1")
    git(r, "tag", "v1")
    (r / "bench" / "bench_work.py").write_text(V2)
    git(r, "commit", "-qam", "v2")
    return r


def perflab(*args, cwd, timeout=600):
    return subprocess.run([sys.executable, "-m", "perflab.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)


def test_revisions_are_parsed_and_bad_ones_refused_in_one_line(repo, tmp_path):
    assert parse_revisions("main, HEAD") == ["main", "HEAD"]
    for bad in ("main", "main,", "a,a"):
        with pytest.raises(UsageError):
            parse_revisions(bad)
    with pytest.raises(UsageError, match="neither a commit"):
        materialise(["v1", "no-such-branch"], repo, tmp_path / "s1")


def test_a_commit_is_extracted_and_a_folder_used_as_it_is(repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    (repo / "bench" / "bench_work.py").write_text(V1 + "\n# an uncommitted change\n")
    v1, here = materialise(["v1", "."], repo, tmp_path / "scratch")
    assert v1.name == "v1" and v1.commit == git(repo, "rev-parse", "v1^{commit}").strip()
    assert (v1.root / "bench" / "bench_work.py").read_text() == V1  # the commit, not the working tree
    assert here.root == repo and here.name == "worktree" and here.commit.endswith("+changes")
    assert paths_in(v1, [repo / "bench"], repo) == [v1.root / "bench"]


def test_each_runtime_is_paired_with_itself_at_the_first_revision():
    def ident(rt, rev):
        return Identity("python", "g", "m", (), f"{rt}@{rev}", False, rev)
    items = [ident("py11", "main"), ident("py12", "main"), ident("py11", "HEAD"), ident("py12", "HEAD")]
    pairs = pair(items, [i.runtime for i in items])
    assert [p.runtime_base for p in pairs] == [0, 1, 0, 1]  # py12@HEAD / py12@main, never / py11@main


def test_a_planted_regression_between_two_commits_fails_the_run_and_the_same_code_does_not(repo, tmp_path):
    out = tmp_path / "out"
    r = perflab("run", "bench", "--rev", "v1,HEAD", "--runtimes", sys.executable, "--job", "short",
                "--fail-on-regression", "20", "--store", "none", "-o", str(out), cwd=repo)
    assert r.returncode == 1, r.stderr
    [doc_path] = out.glob("perflab-*.json")
    doc = json.loads(doc_path.read_text())
    assert [rv["name"] for rv in doc["environment"]["revisions"]] == ["v1", "HEAD"]
    cases = {(c["benchmark"]["name"], c["runtime"]["revision"]): c for c in doc["cases"]}
    assert set(cases) == {(b, rv) for b in ("bench_sum", "bench_same") for rv in ("v1", "HEAD")}
    # the file is named by its path in the user's tree, whichever revision ran it
    assert {c["benchmark"]["file"] for c in doc["cases"]} == {str((repo / "bench" / "bench_work.py").resolve())}
    slow = cases[("bench_sum", "HEAD")]
    assert slow["runtime_baseline"] == cases[("bench_sum", "v1")]["key"]
    assert slow["runtime_ratio"]["value"] > 2
    said = [line for line in r.stderr.splitlines() if line.startswith("regression:")]
    assert len(said) == 1 and "bench_sum()" in said[0] and "at v1" in said[0]
    assert "Ratio vs" in r.stdout and "@v1" in r.stdout


def test_fail_on_regression_on_run_needs_revisions(repo):
    r = perflab("run", "bench", "--fail-on-regression", "5", "--job", "dry", cwd=repo)
    assert r.returncode == 2 and "--rev" in r.stderr and "Traceback" not in r.stderr


def test_a_dry_run_of_two_revisions_runs_every_case_and_gates_nothing(repo, tmp_path):
    r = perflab("run", "bench", "--rev", "HEAD~1,HEAD", "--runtimes", sys.executable, "--job", "dry",
                "--fail-on-regression", "5", "--store", "none", "-o", str(tmp_path), cwd=repo)
    assert r.returncode == 0, r.stderr
    assert "@HEAD~1" in r.stdout and not any(l.startswith("regression:") for l in r.stderr.splitlines())


def test_a_committed_link_out_of_the_tree_is_left_out_not_followed(repo, tmp_path, monkeypatch):
    (repo / "outside").symlink_to("/usr")
    git(repo, "add", "outside")
    git(repo, "commit", "-qm", "a link to an absolute path")
    monkeypatch.chdir(repo)
    v1, head = materialise(["v1", "HEAD"], repo, tmp_path / "scratch")
    assert (head.root / "bench" / "bench_work.py").exists()
    assert not (head.root / "outside").exists() and not (head.root / "outside").is_symlink()
