"""Which Go toolchain a module allows, and which files a toolchain builds.

- A module's go.mod `go 1.N` line is the oldest toolchain that may build it, and a `toolchain go1.M`
  line the oldest it prefers; by default perflab measures on the newest installed toolchain at or above
  both (as `go` itself would with GOTOOLCHAIN=auto), and says which.
- A `//go:build go1.24` file is simply not part of the package on go1.21: its benchmarks are absent
  there (NA with that reason), not failed.
"""
from __future__ import annotations

import os
import platform
import re
from pathlib import Path

from ..model import Benchmark, Runtime

_GO_LINE = re.compile(r"^go\s+1\.(\d+)(?:\.\d+)?\s*(?://.*)?$", re.M)
_TOOLCHAIN_LINE = re.compile(r"^toolchain\s+go1\.(\d+)(?:\.\d+)?\S*\s*(?://.*)?$", re.M)
_BUILD_LINE = re.compile(r"^//go:build\s+(.+?)\s*$")
_MINOR = re.compile(r"^(?:go)?1\.(\d+)")

UNIX = {"aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "linux",
        "netbsd", "openbsd", "solaris"}


def find_gomod(path: Path) -> Path | None:
    folder = path if path.is_dir() else path.parent
    for d in (folder.resolve(), *folder.resolve().parents):
        if (d / "go.mod").is_file():
            return d / "go.mod"
    return None


def module_minimum(gomod: Path) -> tuple[int, str]:
    """(oldest minor version the module allows, the go.mod line(s) that say so)."""
    try:
        text = gomod.read_text(errors="replace")
    except OSError:
        return 0, ""
    minor, why = 0, []
    for pattern in (_GO_LINE, _TOOLCHAIN_LINE):
        m = pattern.search(text)
        if m:
            why.append(m.group(0).split("//")[0].strip())
            minor = max(minor, int(m.group(1)))
    return minor, ", ".join(why)


def runtime_minor(runtime: Runtime) -> int | None:
    m = _MINOR.match(runtime.version) or _MINOR.match(runtime.name)
    return int(m.group(1)) if m else None


def choose_default(runtimes: list[Runtime], sources: list[Path]) -> tuple[Runtime | None, str]:
    """The newest installed toolchain every module of `sources` allows (or, when none is installed,
    the oldest allowed one that can be obtained), and a sentence saying why."""
    minimum, because = 0, []
    for gomod in sorted({g for s in sources if (g := find_gomod(s)) is not None}):
        minor, lines = module_minimum(gomod)
        if minor:
            because.append(f"{os.path.relpath(gomod)}: {lines}")
        minimum = max(minimum, minor)
    allowed = [r for r in runtimes if (runtime_minor(r) or 0) >= minimum]
    installed = [r for r in allowed if r.installed]
    rule = f" ({'; '.join(because)})" if because else ""
    if installed:
        rt = max(installed, key=lambda r: (runtime_minor(r) or 0, r.version))
        return rt, f"using {rt.name} ({rt.version}), the newest installed toolchain the module allows" \
                   f"{rule}; choose another with -r"
    obtainable = sorted(allowed, key=lambda r: runtime_minor(r) or 0)
    if obtainable:
        rt = obtainable[0]
        return rt, f"no installed toolchain is new enough{rule}; obtaining {rt.name}; choose another with -r"
    return None, ""


# -- build constraints ----------------------------------------------------------------------------

def build_constraint(path: Path) -> str | None:
    """The expression of a file's `//go:build` line (before its package clause), or None."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                s = line.strip()
                m = _BUILD_LINE.match(s)
                if m:
                    return m.group(1)
                if s and not s.startswith("//"):
                    return None  # the package clause (or a /* comment): no constraint past it
    except OSError:
        return None
    return None


def _tags(runtime: Runtime) -> set[str]:
    env = dict(runtime.env)
    goos = env.get("GOOS") or platform.system().lower()
    machine = platform.machine().lower()
    goarch = env.get("GOARCH") or {"x86_64": "amd64", "aarch64": "arm64", "i686": "386"}.get(machine, machine)
    tags = {goos, goarch, "gc"} | ({"unix"} if goos in UNIX else set())
    if env.get("CGO_ENABLED", "1") != "0":
        tags.add("cgo")
    minor = runtime_minor(runtime)
    if minor is not None:
        tags |= {f"go1.{i}" for i in range(1, minor + 1)}
    for i, flag in enumerate(runtime.flags):  # -tags=a,b or -tags a,b among the build flags
        value = flag[len("-tags="):] if flag.startswith("-tags=") else (
            runtime.flags[i + 1] if flag == "-tags" and i + 1 < len(runtime.flags) else None)
        if value:
            tags |= {t for t in re.split(r"[,\s]+", value) if t}
    return tags


def evaluate(expr: str, tags: set[str]) -> bool:
    """A `//go:build` expression (||, &&, !, parentheses, tags) under a set of true tags."""
    tokens = re.findall(r"\|\||&&|!|\(|\)|[\w.]+", expr)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def or_():
        value = and_()
        while peek() == "||":
            take()
            value = and_() or value
        return value

    def and_():
        value = not_()
        while peek() == "&&":
            take()
            value = not_() and value
        return value

    def not_():
        if peek() == "!":
            take()
            return not not_()
        if peek() == "(":
            take()
            value = or_()
            if peek() == ")":
                take()
            return value
        tok = take() if peek() is not None else ""
        return tok in tags

    return or_()


def absence_reason(runtime: Runtime, bench: Benchmark) -> str | None:
    """Why `bench` (found on another toolchain) is legitimately not part of the package built by
    `runtime`: its file's build constraint excludes this toolchain. None when it should be there."""
    if not bench.file:
        return None
    expr = build_constraint(Path(bench.file))
    if expr is None or evaluate(expr, _tags(runtime)):
        return None
    return f"not built by {runtime.label}: //go:build {expr}"
