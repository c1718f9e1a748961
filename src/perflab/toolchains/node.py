"""Node.js (JavaScript and TypeScript): benchmark files are `*.bench.{js,mjs,ts,mts}` and
`bench_*.{js,mjs,ts}`. The worker (workers/node/) is started as `node [flags] worker.js`; its module hook
resolves a benchmark file's `import 'perflab'` to the worker itself, so nothing is installed into the
user's project or the runtime under test.

TypeScript runs without a manual build: Node >= 22.6 strips types itself (`--experimental-strip-types`,
on by default from 22.18 and 23.6); older Nodes get the TypeScript compiler, installed once from npm into
`<cache>/typescript`, applied by the worker's module hook.
"""
from __future__ import annotations

import fcntl
import re
import shutil
import subprocess
from pathlib import Path

from ..cache import cache_dir
from ..errors import PrepareError
from ..model import Runtime
from ..paths import worker_dir
from ..runtimes import node as noderuntimes
from .base import LaunchSpec, Toolchain, after_executable, common_root, walk_files

SUFFIXES = (".js", ".mjs", ".ts", ".mts")
COMPAT_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts")
TYPESCRIPT = "typescript@5"

# Files written for tinybench, mitata or Benchmark.js (which the worker runs through its compatibility
# layers, workers/node/compat/) are benchmark files too when they sit in a bench/, benchmark/ or
# benchmarks/ folder, or are named bench*/benchmark* themselves, and import one of those libraries,
# directly or through a module beside them (`require('./suite')` where suite.js builds the Suite).
COMPAT_DIRS = {"bench", "benchmark", "benchmarks"}
COMPAT_IMPORT = re.compile(
    r"""(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(\s*)['"](tinybench|mitata|benchmark)['"]""")
SIBLING_IMPORT = re.compile(r"""(?:\bfrom\s*|\brequire\s*\(\s*)['"](\./[^'"]+)['"]""")


def is_bench_name(name: str) -> bool:
    if name.endswith(".d.ts") or name.endswith(".d.mts"):
        return False
    return bool(re.fullmatch(r".+\.bench\.(js|mjs|ts|mts)|bench_.+\.(js|mjs|ts)", name))


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")[:200_000]
    except OSError:
        return ""


def imports_compat_library(path: Path, hops: int = 1) -> bool:
    """The file imports tinybench, mitata or benchmark, or a module beside it (`./x`) that does."""
    text = _read(path)
    if COMPAT_IMPORT.search(text):
        return True
    if hops <= 0:
        return False
    for rel in SIBLING_IMPORT.findall(text):
        target = (path.parent / rel)
        for cand in (target, *(target.with_name(target.name + s) for s in COMPAT_SUFFIXES)):
            if cand.is_file() and cand.parent == path.parent and cand != path:
                if imports_compat_library(cand, hops - 1):
                    return True
                break
    return False


def is_compat_bench_file(path: Path, root: Path) -> bool:
    """A tinybench/mitata/Benchmark.js benchmark file (see COMPAT_DIRS)."""
    if path.suffix not in COMPAT_SUFFIXES or path.name.endswith((".d.ts", ".d.mts", ".d.cts")):
        return False
    try:  # the folder perflab was pointed at counts too (`perflab run bench/`)
        folders = (root.name, *path.relative_to(root).parts[:-1])
    except ValueError:
        folders = ()
    stem = path.name.split(".")[0].lower()
    named = stem.startswith(("bench", "benchmark"))
    return (named or any(f.lower() in COMPAT_DIRS for f in folders)) and imports_compat_library(path)


def strips_types(version: tuple[int, ...]) -> tuple[bool, list[str]]:
    """Whether this Node can run .ts itself, and the flag it needs for that."""
    if version >= (23, 6) or (22, 18) <= version < (23,):
        return True, []
    if version >= (22, 6):
        return True, ["--experimental-strip-types"]
    return False, []


class NodeToolchain(Toolchain):
    language = "node"
    patterns = ("*.bench.{js,mjs,ts,mts}, bench_*.{js,mjs,ts}; tinybench/mitata/Benchmark.js files "
                "in bench/, benchmark(s)/ or named bench*")

    def find_sources(self, path: Path) -> list[Path]:
        found = set(walk_files(path, SUFFIXES, is_bench_name))
        if path.is_dir():
            root = path.resolve()
            found.update(p for p in walk_files(path, COMPAT_SUFFIXES, lambda name: True)
                         if p not in found and is_compat_bench_file(p, root))
        return sorted(found)

    def discover_runtimes(self) -> list[Runtime]:
        return noderuntimes.discover()

    def default_runtime(self) -> Runtime | None:
        """Without --runtimes: the `node` on PATH, else the newest Node perflab provisioned."""
        installed = [r for r in self.discover_runtimes() if r.installed]
        on_path = shutil.which("node")
        for r in installed:
            if on_path and r.executable == on_path:
                return r
        return installed[-1] if installed else None

    def resolve_path(self, path: str) -> Runtime | None:
        p = Path(path)
        if p.is_dir():  # a Node installation directory
            p = p / "bin" / "node"
        if not p.is_file() or not re.match(r"node|nodejs", p.name):
            return None
        return noderuntimes.describe(str(p))

    def provision(self, runtime: Runtime) -> Runtime:
        return noderuntimes.provision(runtime)

    def prepare(self, runtime: Runtime, sources: list[Path], workdir: Path) -> LaunchSpec:
        version = noderuntimes.version_tuple(runtime.version)
        if version < noderuntimes.MIN_VERSION:
            raise PrepareError(f"{runtime.name} is Node {runtime.version}; perflab's worker needs Node >= 18.19")
        flags: list[str] = []
        env = dict(runtime.env)
        if any(s.suffix in (".ts", ".mts") for s in sources):
            native, needed = strips_types(version)
            if native:
                flags += needed
            else:
                env["PERFLAB_TYPESCRIPT"] = str(ensure_typescript())
                flags.append("--enable-source-maps")  # stack traces and errors point at .ts lines
            if version >= (20, 11):
                # Node announces type stripping on stderr, which would land in every failure's tail
                flags.append("--disable-warning=ExperimentalWarning")
        root = str(common_root(sources)) if sources else str(workdir)
        return LaunchSpec(
            # perflab's flags first, so the user's runtime flags (node22:--max-old-space-size=…) win
            argv=[runtime.executable, *flags, *runtime.flags, str(worker_dir("node") / "worker.js")],
            env=env, cwd=root, load_paths=[str(s) for s in sources], root=root,
            # Node sizes its V8 platform and libuv pools by fixed defaults (4), not by the CPUs it
            # may use: started on one CPU of two, node 20 starts the same 7 threads as on both.
            starts_aside=True,
        )

    def profile_how(self, runtime: Runtime, spec: LaunchSpec, raw_dir: Path):
        from .profiling import node_how  # see toolchains/profiling.py
        return node_how(runtime, spec, raw_dir)

    def count_profile(self, runtime: Runtime):
        """Counted inside `v8::Script::Run(v8::Local<v8::Context>)`: in count mode the worker enters each
        run's timed loop through a precompiled vm.Script (see workers/node/worker.js). V8 writes its
        machine code into anonymous memory, hence --smc-check=all-non-file; --single-threaded keeps
        compilation and GC on the main thread at fixed points, and the hash seed is fixed."""
        from ..measures.callgrind import CountProfile
        return CountProfile(marker=COUNT_MARKER, valgrind_args=("--smc-check=all-non-file",),
                            runtime_args=COUNT_V8_FLAGS,
                            note="V8 under valgrind: about a minute per launch")

    def count_spec(self, spec: LaunchSpec, runtime: Runtime, profile) -> LaunchSpec:
        """The profile's V8 flags right after the executable (the user's runtime flags still win)."""
        return after_executable(spec, profile.runtime_args)


# The native function each counted timed loop runs inside (its name as callgrind demangles it). Exact,
# not a wildcard: Script::Run(context) calls its sibling overload, and two matches would toggle twice.
COUNT_MARKER = "v8::Script::Run(v8::Local<v8::Context>)"
COUNT_V8_FLAGS = ("--single-threaded", "--hash-seed=1")


def ensure_typescript() -> Path:
    """`<cache>/typescript` with node_modules/typescript installed from npm (once, under a lock)."""
    target = cache_dir() / "typescript"
    target.mkdir(parents=True, exist_ok=True)
    marker = target / "node_modules" / "typescript" / "package.json"
    if marker.is_file():
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise PrepareError("TypeScript benchmarks on this Node need the TypeScript compiler, "
                           "and installing it needs the npm client on PATH")
    with open(target / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.is_file():
            return target
        try:
            out = subprocess.run([npm, "install", "--prefix", str(target), "--no-audit", "--no-fund",
                                  "--no-package-lock", TYPESCRIPT],
                                 capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PrepareError(f"npm install {TYPESCRIPT} failed: {exc}") from None
        if out.returncode != 0 or not marker.is_file():
            tail = "\n".join(out.stderr.strip().splitlines()[-5:])
            raise PrepareError(f"npm install {TYPESCRIPT} failed (status {out.returncode}): {tail}")
    return target

