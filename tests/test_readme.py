"""The README is executed: every command of its ```bash blocks, and of the blocks in docs/ marked with
`<!-- example -->` on the line before them, runs in a scratch copy of the repository (its tracked
files, a fresh git repository, this checkout's .venv) and must exit as the README says.

Each command is in COMMANDS below with how the test adapts it and why; a command the README gains
without an entry here fails the test, so a new example is run from the day it is written. The
adaptations only make a measuring command short, never change what it does:

- `perflab run …` gets `--job dry` appended (argparse keeps the last `--job`): one call per case
  checks that every benchmark of the example runs; measuring is tested elsewhere.
- The seeds' C# example runs on one section of the corpus (the comment at its entry says why).
- `perflab serve` gets `--port 0` (a free port: 8000 may be taken on the machine) and runs in the
  background until its first page answers.
- `--rev origin/main,HEAD` needs the base branch a CI checkout has: the scratch repository's
  `origin/main` is its one commit.
- The CI recipe reads the user's `benchmarks/` folder and their main branch's `main.json`: the test
  puts examples/python in benchmarks/ and keeps the first CI run's results as main.json, as a CI
  job downloads main's artifact. The run line runs twice, so results/ holds two results files when
  `compare main.json results/perflab-*.json` globs it (it failed with "unrecognized arguments").

Commands run in the README's order in one scratch tree, so the history commands see the runs the
earlier examples stored. Two quick-start commands are not run here, see SKIPPED.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_MARK = "<!-- example -->"
DRY = " --job dry"

# README command → (what the test runs, the exit status the README promises)
COMMANDS: dict[str, tuple[str, int]] = {
    ".venv/bin/perflab run examples/python --runtimes python3.8,python3.13":
        (".venv/bin/perflab run examples/python --runtimes python3.8,python3.13" + DRY, 0),
    ".venv/bin/perflab run examples/go --job short": (".venv/bin/perflab run examples/go --job short" + DRY, 0),
    "perflab run examples/csharp --runtimes mono,mono:--interpreter":
        ("perflab run examples/csharp --runtimes mono,mono:--interpreter" + DRY, 0),
    # the whole corpus is 197 C# files, each compiled on its own by mcs, then every case on two
    # runtimes: more than 15 minutes on a loaded 2-core CI machine even dry. One section (the
    # reflection seeds, 5 files) runs the same command on the same corpus layout.
    "perflab run suites/seeds --category seed_csharp --runtimes mono,mono:--interpreter":
        ("perflab run suites/seeds/reflection --category seed_csharp --runtimes mono,mono:--interpreter"
         + DRY, 0),
    "perflab run examples/python --runtimes python3.8,python3.13 --job short --filter '*join*' --out perflab-results":
        ("perflab run examples/python --runtimes python3.8,python3.13 --job short --filter '*join*' "
         "--out perflab-results" + DRY, 0),
    "perflab list examples/python": ("perflab list examples/python", 0),
    "perflab runtimes": ("perflab runtimes", 0),
    "perflab run examples/cpp --measure instructions":
        ("perflab run examples/cpp --measure instructions" + DRY, 0),
    "perflab run examples/cpp --measure time,instructions":
        ("perflab run examples/cpp --measure time,instructions" + DRY, 0),
    "perflab history": ("perflab history", 0),
    "perflab history 'Sort*'": ("perflab history 'Sort*'", 0),
    "perflab history --changes": ("perflab history --changes", 0),
    # every earlier run finished: the README's "continue an interrupted run" has none to continue, and
    # says so in one line (exit 2, bad input); resuming a killed run is tests/test_history.py's
    "perflab run --resume": ("perflab run --resume", 2),
    "perflab serve": ("perflab serve --port 0", 0),
    # a CI checkout has its base branch as origin/main: the scratch repository's is its one commit
    "perflab run benchmarks/ --rev origin/main,HEAD --job short --fail-on-regression 5":
        ("perflab run benchmarks/ --rev origin/main,HEAD --job short --fail-on-regression 5" + DRY, 0),
    "perflab run benchmarks/ --job short --out results/":
        ("perflab run benchmarks/ --job short --out results/" + DRY, 0),
    "perflab compare main.json results/perflab-*.json --format md --fail-on-regression 5 > comment.md":
        ("perflab compare main.json results/perflab-*.json --format md --fail-on-regression 5 > comment.md", 0),
    # docs/cli-behaviour.md
    "perflab compare latest~1 latest": ("perflab compare latest~1 latest", 0),
}
SKIPPED = {
    "./run.sh": "the main job: 1,200 s of measuring by design (its planning and reports are tested by "
                "tests/test_main_job*.py)",
    "./test.sh": "the whole test suite: CI runs it (.ci/run), and this test runs inside it",
}


def example_commands() -> list[tuple[str, str]]:
    """(source, command) of every command line in the README's bash blocks and the marked blocks of
    docs/*.md; comments and blank lines are not commands."""
    found = []
    pages = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    for page in pages:
        lines = page.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if line.strip() != "```bash":
                continue
            if page.name != "README.md" and (i == 0 or lines[i - 1].strip() != EXAMPLE_MARK):
                continue
            for body in lines[i + 1:]:
                if body.strip().startswith("```"):
                    break
                command = _without_comment(body).strip()
                if command:
                    found.append((page.relative_to(ROOT).as_posix(), command))
    return found


def _without_comment(line: str) -> str:
    """The line up to a shell comment: a # that starts a word, outside quotes."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def test_every_example_has_an_entry():
    commands = [c for _, c in example_commands()]
    unknown = [c for c in commands if c not in COMMANDS and c not in SKIPPED]
    assert not unknown, f"add these README/docs examples to COMMANDS or SKIPPED: {unknown}"
    stale = [c for c in list(COMMANDS) + list(SKIPPED) if c not in commands]
    assert not stale, f"no longer in the README/docs, remove from the table: {stale}"


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """The tracked tree in a fresh git repository, with this checkout's .venv beside it."""
    if not (ROOT / ".venv" / "bin" / "perflab").exists():
        pytest.fail("no .venv/bin/perflab: set it up with `. ./scripts/venv.sh test`")
    root = tmp_path_factory.mktemp("readme") / "repo"
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in files.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, root / name)
    (root / ".venv").symlink_to(ROOT / ".venv")
    # the CI recipe's inputs (see the module docstring): committed, as a project's benchmarks are
    shutil.copytree(root / "examples" / "python", root / "benchmarks")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(git + ["init", "-q"], cwd=root, check=True)
    subprocess.run(git + ["add", "-A"], cwd=root, check=True)
    subprocess.run(git + ["commit", "-qm", "scratch"], cwd=root, check=True)
    subprocess.run(git + ["update-ref", "refs/remotes/origin/main", "HEAD"], cwd=root, check=True)
    return root


def _env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFLAB_")}
    env["PATH"] = f"{root / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def _run(root: Path, command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=root, env=_env(root), capture_output=True,
                          text=True, timeout=900, stdin=subprocess.DEVNULL)


def _serve(root: Path, command: str) -> None:
    """`perflab serve` answers its runs page, then stops on SIGTERM as on Ctrl-C."""
    proc = subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=root, env=_env(root),
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        m = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
        assert m, f"serve did not start: {line}"
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(m.group(1) + "/", timeout=10) as page:
                    assert page.status == 200 and "Runs" in page.read().decode()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_every_example_runs_as_written(scratch):
    failures = []
    main_json = scratch / "main.json"
    for source, readme_command in example_commands():
        if readme_command in SKIPPED:
            continue
        command, expected = COMMANDS[readme_command]
        if command.startswith("perflab serve"):
            _serve(scratch, command)
            continue
        runs = 2 if readme_command.startswith("perflab run benchmarks/ --job short --out results/") else 1
        for _ in range(runs):
            done = _run(scratch, command)
            if done.returncode != expected:
                failures.append(f"{source}: `{readme_command}` exited {done.returncode}, not {expected}:\n"
                                f"{done.stdout[-1500:]}\n{done.stderr[-1500:]}")
            if runs == 2 and not main_json.exists():
                # main's artifact: this folder's first results, set aside as the reference
                shutil.copy(next((scratch / "results").glob("perflab-*.json")), main_json)
                time.sleep(1.1)  # results files are named by the second they started
    assert not failures, "\n\n".join(failures)
    assert (scratch / "comment.md").read_text().startswith("### perflab:")
    # the history the examples stored stays out of git (the folder ignores itself)
    status = subprocess.run(["git", "status", "--porcelain"], cwd=scratch, capture_output=True,
                            text=True, check=True).stdout
    assert ".perflab" not in status, status


def test_comment_stripping():
    assert _without_comment("perflab history 'Sort*'        # a benchmark's # x") == \
        "perflab history 'Sort*'        "
    assert _without_comment("perflab run --filter '#x'") == "perflab run --filter '#x'"
    assert _without_comment("# only a comment") == ""


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
