"""Where a stored run came from, read from the columns every run already has (command, args,
environment, job, fingerprint, label): git commit, branch and dirty flag, the benchmark paths, the
runtimes, the job. One place reads them, so `perflab history` and `perflab serve` say the same thing.
"""
from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Provenance:
    commit: str = ""          # full hash; "" outside a git repository
    branch: str = ""          # "" when detached or unknown
    dirty: bool = False       # the benchmarks' folder had uncommitted changes
    paths: list[str] = field(default_factory=list)
    runtimes: list[str] = field(default_factory=list)
    command: str = ""
    job: str = ""
    label: str = ""
    fingerprint: str = ""
    source: str = ""          # the harness that measured an imported run (perflab import); "" for perflab

    @property
    def short_commit(self) -> str:
        return self.commit[:10] + ("+dirty" if self.dirty and self.commit else "")

    @property
    def revision(self) -> str:
        """`abc1234567 (main)`: commit and branch in one cell, or "" outside a repository."""
        if not self.commit:
            return ""
        return self.short_commit + (f" ({self.branch})" if self.branch else "")


def _git_of(environment: dict[str, Any]) -> dict[str, Any]:
    """The git state of the run's first benchmark path that is in a repository."""
    git = environment.get("git")
    if isinstance(git, dict):
        for info in git.values():
            if isinstance(info, dict) and info.get("commit"):
                return info
    return {}


def provenance(run: dict[str, Any]) -> Provenance:
    """`run`: a store's run record (command, args, job, environment, label, fingerprint)."""
    env = run.get("environment") if isinstance(run.get("environment"), dict) else {}
    args = run.get("args") if isinstance(run.get("args"), dict) else {}
    job = run.get("job") if isinstance(run.get("job"), dict) else {}
    git = _git_of(env)
    runtimes = [str(rt.get("label") or rt.get("name") or "") for rt in env.get("runtimes") or []
                if isinstance(rt, dict)]
    if not runtimes and args.get("runtimes"):
        runtimes = [str(args["runtimes"])]
    paths = args.get("paths") if isinstance(args.get("paths"), list) else list((env.get("git") or {}))
    command = run.get("command")
    return Provenance(
        commit=str(git.get("commit") or ""), branch=str(git.get("branch") or ""),
        dirty=bool(git.get("dirty")), paths=[str(p) for p in paths or []], runtimes=runtimes,
        command=shlex.join(str(c) for c in command) if isinstance(command, list) else str(command or ""),
        job=str(job.get("name") or ""), label=str(run.get("label") or ""),
        fingerprint=str(run.get("fingerprint") or ""),
        source=str(env["imported"].get("tool") or "") if isinstance(env.get("imported"), dict) else "")
