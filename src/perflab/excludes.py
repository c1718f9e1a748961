"""Which files found under a folder are not benchmarks to run: test fixtures, ignored folders, the
project's own `exclude` globs, and whatever git ignores.

Rules apply to what a folder walk finds, relative to the folder given: a path the user names
explicitly (`perflab run tests/fixtures/faults`) is never excluded by its own name.
"""
from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

# Folders that hold test inputs or build output, not a project's benchmarks (names of whole folders
# like node_modules, .venv, target, build are pruned by the walk itself: toolchains/base.SKIP_DIRS).
DEFAULT_EXCLUDES = ("tests/fixtures", "test/fixtures", "testdata")


def matches(path: Path, base: Path, pattern: str) -> bool:
    """Does a glob match `path` or one of its folders below `base`, anchored at any folder (as in
    .gitignore: `fixtures` and `tests/fixtures` match at any depth)? The glob
    may name folders above `base` (`benches/old` while walking benches/), but what it matches must
    lie below `base`: the folder walked is never excluded by its own name."""
    regex = _glob_regex(pattern)
    parts = path.parts
    for i in range(len(base.parts) + 1, len(parts) + 1):
        if regex.match("/".join(parts[:i])):
            return True
    return False


@functools.lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern:
    """`*` and `?` stay within one folder name, `**` crosses folders; anchored at any folder."""
    out, i, pattern = [], 0, pattern.strip("/")
    while i < len(pattern):
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("(?:.*/)?" + "".join(out) + "$")


def git_ignored(folder: Path) -> list[Path] | None:
    """Absolute paths (files and whole folders) git ignores under `folder`; None outside a git work
    tree or without git."""
    try:
        res = subprocess.run(["git", "ls-files", "--others", "--ignored", "--exclude-standard",
                              "--directory", "-z", "--full-name", "."], cwd=folder, capture_output=True,
                             timeout=60)
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=folder, capture_output=True,
                             text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if res.returncode != 0 or top.returncode != 0:
        return None
    root = Path(top.stdout.strip())
    return [(root / p.decode(errors="replace").rstrip("/")).resolve()
            for p in res.stdout.split(b"\0") if p]


def filter_sources(folder: Path, sources: list[Path], patterns: list[str]) -> list[Path]:
    """`sources` found by walking `folder`, without the excluded and the git-ignored ones."""
    if not folder.is_dir() or not sources:
        return sources
    base = folder.resolve()
    globs = list(DEFAULT_EXCLUDES) + list(patterns)
    ignored = git_ignored(base) or []
    kept = []
    for src in sources:
        path = Path(src).resolve()
        if base not in path.parents:
            kept.append(src)
            continue
        if any(matches(path, base, g) for g in globs):
            continue
        if any(path == ig or ig in path.parents for ig in ignored if ig != base and ig not in base.parents):
            continue
        kept.append(src)
    return kept
