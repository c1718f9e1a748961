"""Python: benchmark files are `bench_*.py`, `*_bench.py` or `benchmarks.py`; the worker is one stdlib-only
file injected by putting its directory first on the interpreter's sys.path (nothing is installed into the
runtime under test)."""
from __future__ import annotations

from pathlib import Path

from ..model import Runtime
from ..paths import worker_dir
from ..runtimes import python as pyruntimes
from .base import LaunchSpec, Toolchain, common_root, walk_files


def is_bench_name(name: str) -> bool:
    stem = name[:-3]
    return (stem.startswith("bench_") or stem.endswith("_bench") or stem == "benchmarks"
            or stem.endswith("_benchmarks"))


class PythonToolchain(Toolchain):
    language = "python"
    patterns = "bench_*.py, *_bench.py, benchmarks.py"

    def find_sources(self, path: Path) -> list[Path]:
        return walk_files(path, (".py",), is_bench_name)

    def discover_runtimes(self) -> list[Runtime]:
        return pyruntimes.discover()

    def resolve_path(self, path: str) -> Runtime | None:
        return pyruntimes.describe(path)

    def prepare(self, runtime: Runtime, sources: list[Path], workdir: Path) -> LaunchSpec:
        main = worker_dir("python") / "perflab_main.py"
        root = str(common_root(sources))
        return LaunchSpec(
            argv=[runtime.executable, *runtime.flags, str(main)],
            # No bytecode beside the user's files. (Caching it in perflab's cache with
            # PYTHONPYCACHEPREFIX saved 9 ms of a worker's start, but moved bench/known_ratio.py's
            # 2.00 to 2.02-2.07 on its integer-summing workload: code loaded from .pyc leaves the
            # process's heap in another state. Not worth an unexplained shift.)
            env={"PYTHONDONTWRITEBYTECODE": "1", **dict(runtime.env)},
            cwd=root, load_paths=[str(s) for s in sources], root=root,
            # CPython and PyPy size nothing by the CPUs they may use when they start. (A benchmark
            # file that calls os.process_cpu_count() at import would count the host's CPUs only.)
            starts_aside=True,
        )



def _default() -> Runtime | None:
    import shutil
    path = shutil.which("python3")
    return pyruntimes.describe(path) if path else None


PythonToolchain.default_runtime = staticmethod(_default)
