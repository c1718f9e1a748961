"""Profiles (`perflab run --profile`, `perflab profile`): what is language-neutral about them.

A toolchain says how its runtime is profiled with `profile_how(runtime, spec, raw_dir)` (a ProfileHow:
the launch to use, and how to read what the profiler wrote into `raw_dir`), or raises NotProfilable
with a one-line reason. Every profiler's output is read into the same shape — stacks of Frames, root
first, with a sample count — and reduced here to *collapsed stacks* (`frame;frame;frame count`, the
format of Brendan Gregg's flamegraph.pl), with perflab's own frames folded away:

- a stack that reaches the benchmark's own file keeps only what lies from its first own frame down
  (what the harness did to call it — the protocol, the timed loop — is cut off);
- a stack inside the harness that never reaches the benchmark's file (the timed loop itself, a
  clock read) becomes the single frame HARNESS — or OUTSIDE_RUN, when the profiler saw the whole
  process (V8, JFR) and the stack is not inside the worker's `run` handler (ProfileHow.in_run);
- any other stack (a runtime's own threads: GC, JIT compiler, scheduler) is kept whole under
  ELSEWHERE, so what the benchmark costs outside its own thread stays visible.

Frames are named `function (file)`: the file's base name, without a line, so the same function keeps
its name across revisions and a difference flame graph can pair it.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from ..toolchains.base import LaunchSpec
from ..policy import DEFAULT

PROFILE_ENV = "PERFLAB_PROFILE"  # a worker that samples itself writes its raw profile to this path
HARNESS = "[perflab harness]"
OUTSIDE_RUN = "[perflab: start-up, loading, set-up]"
ELSEWHERE = "[not under the benchmark]"


class NotProfilable(Exception):
    """This runtime cannot be profiled here; the message (one line) says why."""


class ProfileFailed(Exception):
    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason, self.detail = reason, detail


@dataclass(frozen=True)
class Frame:
    name: str
    file: str = ""

    def label(self) -> str:
        base = os.path.basename(self.file) if self.file else ""
        text = f"{self.name} ({base})" if base else self.name
        # the collapsed format's separators never appear inside a frame
        return text.replace(";", ":").replace("\n", " ").replace("\r", " ") or "?"


Stack = tuple[Frame, ...]


@dataclass
class ProfileHow:
    """How one runtime is profiled: the worker's launch (`spec`), the profiler's name as shown beside
    the figures (`tool`), `read(raw_dir)` -> (raw file kept, [(stack, count)]), and `harness(frame)`:
    whether a frame is perflab's (the worker, the timed loop, the harness's own library)."""
    spec: LaunchSpec
    tool: str
    read: Callable[[Path], tuple[Path, list[tuple[Stack, int]]]]
    harness: Callable[[Frame], bool]
    note: str = ""
    # for a profiler of the whole process: whether a frame is the worker's handler of `run` requests
    in_run: Callable[[Frame], bool] | None = None
    # native code names no source file per frame: the benchmark's frames are those whose symbol holds
    # the benchmark's name (engine/profile.py builds the test from the case)
    own_by_name: bool = False
    own_names: tuple[str, ...] = ()  # frames that are the benchmark's whatever it is called


def same_file(a: str, b: str) -> bool:
    """`a` (a profiler's file name: a path, a file:// URL, a base name) names the file `b`."""
    if not a or not b:
        return False
    a = a[7:] if a.startswith("file://") else a
    if os.path.isabs(a):
        try:
            return os.path.realpath(a) == os.path.realpath(b)
        except OSError:
            return False
    return a == b or b.endswith(os.sep + a)


def reduce(stacks: Iterable[tuple[Stack, int]], own_files: list[str], harness: Callable[[Frame], bool],
           in_run: Callable[[Frame], bool] | None = None,
           is_own: Callable[[Frame], bool] | None = None) -> tuple[dict[str, int], list[str]]:
    """Collapsed stacks ({"a;b;c": count}) with the harness folded away (module doc), and the labels
    of the benchmark's own frames."""
    out: dict[str, int] = {}
    own: set[str] = set()
    if is_own is None:
        def is_own(f: Frame) -> bool:
            return any(same_file(f.file, o) for o in own_files)
    for stack, count in stacks:
        if count <= 0 or not stack:
            continue
        first = next((i for i, f in enumerate(stack) if is_own(f)), None)
        if first is not None:
            kept = [f for f in stack[first:] if not harness(f) or is_own(f)] or [stack[first]]
            own.update(f.label() for f in kept if is_own(f))
            labels = [f.label() for f in kept]
        elif any(harness(f) for f in stack):
            labels = [HARNESS if in_run is None or any(in_run(f) for f in stack) else OUTSIDE_RUN]
        else:
            labels = [ELSEWHERE, *(f.label() for f in stack)]
        key = ";".join(labels)
        out[key] = out.get(key, 0) + count
    return out, sorted(own)


def to_collapsed(stacks: dict[str, int]) -> str:
    return "".join(f"{k} {v}\n" for k, v in sorted(stacks.items()))


_LINE = re.compile(r"^(.*\S)\s+(\d+)$")


def parse_collapsed(text: str) -> dict[str, int]:
    """The collapsed stacks of `text`; ValueError naming the first line that is not `stack count`."""
    out: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        m = _LINE.match(line)
        if not m:
            raise ValueError(f"line {n}: not 'frame;frame count': {line[:80]!r}")
        out[m.group(1)] = out.get(m.group(1), 0) + int(m.group(2))
    return out


def record(tool: str, calls: int, stacks: dict[str, int], own: list[str], raw: Path | None,
           collapsed: Path | None, wall_s: float, note: str = "") -> dict:
    """The `profile` record of a case (docs/profiling.md)."""
    return {"tool": tool, "calls": calls, "samples": sum(stacks.values()),
            "stacks": [[k, v] for k, v in sorted(stacks.items())], "own": own,
            "raw": str(raw) if raw else "", "collapsed": str(collapsed) if collapsed else "",
            "wall_s": round(wall_s, 3), "note": note}


def not_profiled(reason: str) -> dict:
    return {"error": f"no profile: {reason}"}


def stacks_of(profile: dict | None) -> dict[str, int]:
    """The collapsed stacks of a case's `profile` record ({} when it has none)."""
    if not isinstance(profile, dict):
        return {}
    out: dict[str, int] = {}
    for item in profile.get("stacks") or []:
        if (isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str)
                and isinstance(item[1], int) and not isinstance(item[1], bool)):
            out[item[0]] = out.get(item[0], 0) + item[1]
    return out


def profile_problem(profile) -> str:
    """What makes a results document's `profile` unreadable, '' when nothing."""
    if profile is None:
        return ""
    if not isinstance(profile, dict):
        return "has 'profile' that is not an object"
    if profile.get("error") is not None and not isinstance(profile["error"], str):
        return "has 'profile.error' that is not a string"
    if not isinstance(profile.get("stacks", []), list):
        return "has 'profile.stacks' that is not a list"
    return ""
