"""Python: benchmark files are `bench_*.py`, `*_bench.py` or `benchmarks.py` (perflab's own API), test files
(`test_*.py`, `*_test.py`) with pytest-benchmark tests (a test function that takes the `benchmark` fixture),
and pyperf scripts (any `.py` file that imports pyperf and makes a `Runner`). The worker is stdlib-only source injected by putting
its directory first on the interpreter's sys.path (nothing is installed into the runtime under test); it
provides the `benchmark` fixture to pytest and stands in for `pyperf` (docs/coming-from-pytest-benchmark-and-pyperf.md)."""
from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

from ..cache import cache_dir
from ..model import Runtime
from ..paths import worker_dir
from ..runtimes import python as pyruntimes
from . import python_count
from .base import LaunchSpec, Toolchain, common_root, walk_files

# a test function whose parameters include `benchmark` (over several lines too)
_BENCHMARK_TEST = re.compile(rb"^[ \t]*(?:async[ \t]+)?def[ \t]+test\w*[ \t]*\(([^)]*)\)", re.M)
# a pyperf script: it imports pyperf and makes a Runner (pyperf's own modules only define it)
_PYPERF_IMPORT = re.compile(rb"^[ \t]*(?:import[ \t]+pyperf\b|from[ \t]+pyperf[ \t]+import\b[^\n]*\bRunner\b)", re.M)
_PYPERF_RUNNER = re.compile(rb"\b(?:pyperf\.)?Runner[ \t]*\(")


def is_bench_name(name: str) -> bool:
    stem = name[:-3]
    return (stem.startswith("bench_") or stem.endswith("_bench") or stem == "benchmarks"
            or stem.endswith("_benchmarks"))


def is_test_name(name: str) -> bool:
    return name.startswith("test_") or name.endswith("_test.py")


def is_benchmark_source(path: Path) -> bool:
    """perflab's own files by name; a test file when one of its tests takes pytest-benchmark's
    `benchmark` fixture; any other file when it imports pyperf and makes a pyperf.Runner."""
    name = path.name
    if is_test_name(name):
        text = _read(path)
        return any(re.search(rb"\bbenchmark\b", m.group(1)) for m in _BENCHMARK_TEST.finditer(text))
    if is_bench_name(name):
        return True
    if name == "conftest.py":
        return False
    text = _read(path)
    return bool(_PYPERF_IMPORT.search(text) and _PYPERF_RUNNER.search(text))


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


class PythonToolchain(Toolchain):
    language = "python"
    patterns = ("bench_*.py, *_bench.py, benchmarks.py, test_*.py/*_test.py with pytest-benchmark tests, "
                "scripts importing pyperf")

    def find_sources(self, path: Path) -> list[Path]:
        if path.is_file():
            return [path.resolve()] if path.suffix == ".py" else []
        return [p for p in walk_files(path, (".py",), lambda name: True) if is_benchmark_source(p)]

    def discover_runtimes(self) -> list[Runtime]:
        return pyruntimes.discover()

    def resolve_path(self, path: str) -> Runtime | None:
        return pyruntimes.describe(path)

    def prepare(self, runtime: Runtime, sources: list[Path], workdir: Path) -> LaunchSpec:
        main = worker_dir("python") / "perflab_main.py"
        root = str(common_root(sources))
        compiled = compiled_worker(runtime)
        names = clashing_module_names(sources, Path(root))
        return LaunchSpec(
            argv=[runtime.executable, *runtime.flags, str(main)],
            # No bytecode beside the user's files, and none cached for them: the user's code is
            # compiled at every start, as in a plain run. (A PYTHONPYCACHEPREFIX cache for every
            # module once moved bench/known_ratio.py's 2.00 to 2.02-2.07, on a workload that
            # allocated and so followed the heap's state; only the worker's own module is cached now.)
            env={"PYTHONDONTWRITEBYTECODE": "1", **dict(runtime.env),
                 **({"PERFLAB_WORKER_BYTECODE": str(compiled)} if compiled else {}),
                 **({"PERFLAB_MODULE_NAMES": json.dumps(names)} if names else {})},
            cwd=root, load_paths=[str(s) for s in sources], root=root,
            # CPython and PyPy size nothing by the CPUs they may use when they start. (A benchmark
            # file that calls os.process_cpu_count() at import would count the host's CPUs only.)
            starts_aside=True,
        )

    def profile_how(self, runtime: Runtime, spec: LaunchSpec, raw_dir: Path):
        from .profiling import python_how  # see toolchains/profiling.py
        return python_how(runtime, spec, raw_dir)

    def count_profile(self, runtime: Runtime):
        """CPython with its symbols: the timed loop inside `_PyEval_CallTracing`; see python_count."""
        return python_count.count_profile(runtime)

    def count_spec(self, spec: LaunchSpec, runtime: Runtime, profile) -> LaunchSpec:
        return python_count.count_spec(spec, runtime)


def clashing_module_names(sources: list[Path], root: Path) -> dict[str, str]:
    """Module names for the benchmark files that share a file name (`a/bench_io.py`, `b/bench_io.py`):
    each named by its path from `root`, dotted (`a.bench_io`, `b.bench_io`), as Python names a module
    by its package path. The worker names every other file by its stem, as before. The names are in
    the launch spec (PERFLAB_MODULE_NAMES) so every worker — the one that loads every file, a launch
    that loads one, a counted launch — gives a file the same name, and its benchmarks the same ids
    and group (a name taken from how many modules were loaded differed between them)."""
    by_stem: dict[str, list[Path]] = {}
    for s in sources:
        by_stem.setdefault(s.stem, []).append(s)
    names = {}
    for stem, paths in by_stem.items():
        if len(paths) < 2:
            continue
        for p in paths:
            try:
                rel = p.resolve().relative_to(root.resolve()).with_suffix("")
            except ValueError:
                rel = p.with_suffix("")
            names[os.path.abspath(p)] = ".".join(part for part in rel.parts if part not in ("", "/"))
    return names


def compiled_worker(runtime: Runtime) -> Path | None:
    """A folder holding the worker module (perflab.py) compiled by this interpreter, which the worker
    imports instead of compiling its source at every start (11 of a CPython worker's 37 ms start; a
    case starts dozens). Compiled once per interpreter and worker source into perflab's cache; None
    when the interpreter cannot (the worker then compiles its source, as before)."""
    source = worker_dir("python") / "perflab.py"
    try:
        text = source.read_bytes()
    except OSError:
        return None
    key = hashlib.sha256(b"\0".join([text, runtime.executable.encode(), runtime.version.encode(),
                                      runtime.implementation.encode(),
                                      *(f.encode() for f in runtime.flags)])).hexdigest()[:20]
    folder = cache_dir() / "python-worker" / key
    target = folder / "perflab.pyc"
    if target.is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".perflab-", suffix=".pyc")
    os.close(fd)
    try:
        # dfile: tracebacks through the worker name its source
        subprocess.run([runtime.executable, *runtime.flags, "-c",
                        "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], "
                        "dfile=sys.argv[1], doraise=True)", str(source), tmp],
                       check=True, capture_output=True, timeout=60,
                       env={**os.environ, **dict(runtime.env)})
        os.replace(tmp, target)  # atomic: runs preparing at once never read half a file
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return folder


def _default() -> Runtime | None:
    import shutil
    path = shutil.which("python3")
    return pyruntimes.describe(path) if path else None


PythonToolchain.default_runtime = staticmethod(_default)
