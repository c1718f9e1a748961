"""What every language integration provides to the host.

A *toolchain* knows, for one language: which files are its benchmarks, which runtimes exist (and how to
provision missing ones), and how to turn (runtime, benchmark sources) into a worker command line —
building once per runtime if the language is compiled. The engine never knows more than a `LaunchSpec`.
"""
from __future__ import annotations

import os
from abc import ABC, abstractmethod
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from ..model import Runtime

# Directories never searched for benchmarks.
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", "target", "build", ".tox",
             ".mypy_cache", ".pytest_cache", "dist", ".perflab"}


@dataclass
class LaunchSpec:
    """How to start one worker process. `load_paths` are sent in the `load` request."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    load_paths: list[str] = field(default_factory=list)
    root: str = ""
    # The runtime does not size itself by the CPUs it may use when it starts, so its processes may
    # start off the measuring CPU while others are measured (see Engine._start_ahead).
    starts_aside: bool = False
    # The started process measures in its children (Go's multiplexer: a test binary per package):
    # the host's CPU readings and the pinning follow them (engine/proctree.py).
    delegates: bool = False
    # bytes of resident memory the worker's processes may hold together (0: not watched); set by
    # engine/memory.limit_spec, which also adds the runtime's own heap flag
    memory_limit: int = 0
    heap_limit: int = 0  # bytes the runtime's own heap flag allows (0: none given)


class Toolchain(ABC):
    language: str = ""
    patterns: str = ""  # which files hold this language's benchmarks, for error messages

    @abstractmethod
    def find_sources(self, path: Path) -> list[Path]:
        """Benchmark sources of this language under `path` (a file or a directory)."""

    @abstractmethod
    def discover_runtimes(self) -> list[Runtime]:
        """Runtimes of this language: installed ones, and installable ones with installed=False."""

    def resolve_path(self, path: str) -> Runtime | None:
        """A runtime given as an explicit path (interpreter, GOROOT, JAVA_HOME…), or None."""
        return None

    def provision(self, runtime: Runtime) -> Runtime:
        """Make an installable runtime installed (only from the registries allowed). Raise PrepareError."""
        raise NotImplementedError(f"{runtime.name} cannot be provisioned")

    def absence_reason(self, runtime: Runtime, bench, load_error: dict | None = None) -> str | None:
        """Why a benchmark found on another runtime of this language is legitimately absent on
        `runtime` (its file is not built by this version, say; `load_error` is what loading its file
        there said, if anything): the case is then NA with this reason, not a failure. None: it
        should be there (its absence is a failure)."""
        return None

    def unavailable_reason(self, runtime: Runtime, bench) -> str | None:
        """Why a benchmark the worker listed on `runtime` cannot exist there as written (its file needs
        a newer language than this runtime's compiler): NA with this reason, not a failure. None: run it."""
        return None

    @abstractmethod
    def prepare(self, runtime: Runtime, sources: list[Path], workdir: Path) -> LaunchSpec:
        """Build/generate what the worker needs for `runtime` (once) and say how to launch it."""

    def count_profile(self, runtime: Runtime):
        """How `runtime` is counted under valgrind (`--measure instructions`): a
        measures.callgrind.CountProfile naming the marker its worker runs each timed loop inside.
        Raise measures.callgrind.NotCountable with the reason when it cannot be counted."""
        from ..measures.callgrind import NotCountable
        raise NotCountable(f"{self.language} benchmarks cannot be counted under valgrind yet")

    def count_spec(self, spec: LaunchSpec, runtime: Runtime, profile) -> LaunchSpec:
        """The launch to count with, before valgrind wraps it: `spec` with the profile's runtime_args
        put where this runtime reads them (the default: `spec` as it is)."""
        return spec

    def profile_how(self, runtime: Runtime, spec: LaunchSpec, raw_dir: Path):
        """How `runtime` is profiled (`run --profile`): a measures.profile.ProfileHow whose launch
        writes its profile into `raw_dir`. Raise measures.profile.NotProfilable with the reason
        (one line) when it cannot be."""
        from ..measures.profile import NotProfilable
        raise NotProfilable(f"{self.language} benchmarks cannot be profiled yet")


def after_executable(spec: LaunchSpec, args) -> LaunchSpec:
    """`spec` with `args` right after its executable, before the runtime's own flags (a JVM, V8 or
    Mono reads its options there; the user's runtime flags, later on the line, still win)."""
    return dataclasses.replace(spec, argv=[spec.argv[0], *args, *spec.argv[1:]])


def walk_files(path: Path, suffixes: tuple[str, ...], name_ok) -> list[Path]:
    """Files under `path` with one of `suffixes` whose name satisfies `name_ok`, skipping SKIP_DIRS."""
    if path.is_file():
        return [path.resolve()] if path.suffix in suffixes else []
    found: list[Path] = []
    # os.walk prunes skipped folders before entering them: a node_modules or .venv is never listed
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for fn in sorted(filenames):
            p = Path(dirpath, fn)
            if p.suffix in suffixes and name_ok(fn) and p.is_file():
                found.append(p.resolve())
    return sorted(found)


def common_root(sources: list[Path]) -> Path:
    """The deepest folder containing every source (the worker's working directory)."""
    dirs = [s.parent for s in sources]
    root = dirs[0]
    for d in dirs[1:]:
        while root not in d.parents and root != d:
            root = root.parent
    return root


def tree_digest(root: Path, h, wanted) -> None:
    """Feed `h` the path, size and mtime of every file under `root` for which `wanted(dirpath, name)`
    holds: a cheap staleness key for build caches (no file is read)."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for fn in sorted(filenames):
            if not wanted(dirpath, fn):
                continue
            p = os.path.join(dirpath, fn)
            try:
                st = os.stat(p)
            except OSError:
                continue
            h.update(f"{os.path.relpath(p, root)}|{st.st_size}|{st.st_mtime_ns}\n".encode())
