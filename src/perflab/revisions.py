"""`perflab run --rev A,B`: two (or more) revisions of the benchmarks side by side in one run.

Each revision is laid out as a tree of its own — a commit, tag or branch is extracted with `git archive`
into the run's scratch folder; a folder (another worktree, or `.` for the working tree as it is) is used
in place — and prepared with every runtime spec as usual. Its runtimes carry the revision
(`python3.11@main`), so the engine pairs and interleaves a benchmark's revisions in rounds exactly as it
does runtimes, and `Ratio vs` divides each case by the same case on the same runtime at the first
revision given (perflab.ratios). Nothing of another day or another load goes into the verdict: both
sides are measured in the same stretch.

The benchmark files of every revision are named by their path in the user's tree, so cases of two
revisions pair, tables group as in a plain run, and the history keeps one series per runtime@revision.
"""
from __future__ import annotations

import dataclasses
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from .errors import UsageError


@dataclass(frozen=True)
class Revision:
    name: str      # as the user gave it (main, HEAD~1, v1.2), or the folder's name
    commit: str    # the commit it resolved to; a folder: its HEAD, with "+changes" when it has any
    root: Path     # the tree its benchmark files are read from


def parse_revisions(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",")]
    if len(names) < 2 or any(not n for n in names):
        raise UsageError(f"--rev {text!r}: give two or more revisions separated by commas, e.g. "
                         "--rev main,HEAD (commits, tags, branches, or worktree folders)")
    if len(set(names)) != len(names):
        raise UsageError(f"--rev {text!r}: a revision is named twice")
    return names


def _git(top: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(top), *args], capture_output=True, text=True)


def repository_of(path: Path) -> Path:
    """The top of the git repository holding `path` (a file or folder)."""
    where = path if path.is_dir() else path.parent
    try:
        got = _git(where.resolve(), "rev-parse", "--show-toplevel")
    except FileNotFoundError:
        raise UsageError("--rev needs git on PATH") from None
    if got.returncode != 0:
        raise UsageError(f"--rev: {path} is not inside a git repository; --rev compares revisions of one")
    return Path(got.stdout.strip()).resolve()


def materialise(names: list[str], top: Path, scratch: Path) -> list[Revision]:
    """Each named revision as a tree: a commit extracted into `scratch`, a folder as it is."""
    out = []
    for i, name in enumerate(names):
        got = _git(top, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}")
        if got.returncode == 0:
            commit = got.stdout.strip()
            root = scratch / f"rev{i}"
            root.mkdir(parents=True)
            _extract(top, commit, root, name)
            out.append(Revision(_label(name), commit, root))
            continue
        folder = (Path.cwd() / name).resolve()
        if folder.is_dir():
            head = _git(folder, "rev-parse", "HEAD")
            dirty = _git(folder, "status", "--porcelain", "--untracked-files=no")
            commit = head.stdout.strip() if head.returncode == 0 else "unknown"
            if dirty.returncode == 0 and dirty.stdout.strip():
                commit += "+changes"
            label = "worktree" if folder == top else folder.name
            out.append(Revision(_label(label), commit, folder))
            continue
        raise UsageError(f"--rev: '{name}' is neither a commit, tag or branch of {top} nor a folder; "
                         "check the name (git rev-parse)")
    labels = [r.name for r in out]
    if len(set(labels)) != len(labels):
        raise UsageError(f"--rev: two revisions would both be labelled '{labels[0]}'; name them differently")
    return out


def _label(name: str) -> str:
    # a runtime spec reads ':' (flags) and ',' (lists): keep them out of the label
    return name.replace(":", "_").replace(",", "_").replace(" ", "_")


def _extract(top: Path, commit: str, root: Path, name: str) -> None:
    """`git archive` of the commit into `root`. A member that would land outside the tree (a link to
    an absolute path, say a committed .venv link) is left out with a note, never followed."""
    from .console import err
    skipped: list[str] = []

    def safe(member, path):
        try:
            return tarfile.data_filter(member, path)
        except tarfile.FilterError:
            skipped.append(member.name)
            return None

    proc = subprocess.Popen(["git", "-C", str(top), "archive", "--format=tar", commit],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(root, filter=safe)
            else:  # a Python without extraction filters (before 3.11.4)
                tar.extractall(root)
    finally:
        _, stderr = proc.communicate()
    if proc.returncode != 0:
        raise UsageError(f"--rev {name}: git archive failed: {stderr.decode(errors='replace').strip()}")
    if skipped:
        err.print(f"--rev {name}: left out {len(skipped)} link(s) that point outside the tree "
                  f"({', '.join(skipped[:3])}{', …' if len(skipped) > 3 else ''})", soft_wrap=True, markup=False)


def paths_in(rev: Revision, paths: list[Path], top: Path) -> list[Path]:
    """The user's paths, as they lie in the revision's tree (those that exist there)."""
    out = []
    for p in paths:
        try:
            rel = p.resolve().relative_to(top)
        except ValueError:
            raise UsageError(f"--rev: {p} lies outside the repository {top}; give paths inside it") from None
        there = rev.root / rel
        if there.exists():
            out.append(there)
    if not out:
        raise UsageError(f"--rev {rev.name}: none of {', '.join(map(str, paths))} exists at {rev.commit[:12]}")
    return out


def as_revision(prepared, rev: Revision, top: Path) -> None:
    """Make a revision's prepared runtime say which revision it runs, and name its benchmark files by
    their path in the user's tree, so that a benchmark's revisions pair (in place)."""
    prepared.runtime = dataclasses.replace(prepared.runtime, revision=rev.name)
    # (the user's tree, the revision's): a profile's frames name the file the worker loaded there
    prepared.revision_tree = (top, rev.root)

    def home(file: str) -> str:
        try:
            return str(top / Path(file).resolve().relative_to(rev.root.resolve()))
        except (ValueError, OSError):
            return file
    prepared.benchmarks = [dataclasses.replace(b, file=home(b.file)) if b.file else b
                           for b in prepared.benchmarks]
    for e in prepared.load_errors:
        if isinstance(e.get("file"), str):
            e["file"] = home(e["file"])
