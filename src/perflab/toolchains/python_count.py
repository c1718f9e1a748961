"""How a Python runtime is counted under valgrind (`perflab run --measure instructions`).

In count mode the Python worker runs the timed loop of each `run` request inside one call of
`sys.call_tracing(loop, args)`, which is CPython's C function `_PyEval_CallTracing`: nothing else calls
it, and it only saves and restores the tracing state around the call. callgrind counts inside it
and dumps after it (measures/callgrind.py), so an interpreter is countable when callgrind can see that
function by name: every pyenv/python.org build (3.8-3.10 export it, 3.11+ keep it as a local symbol).
A stripped interpreter (Debian's /usr/bin/python3) has neither, and no exported function could stand
in (see docs/instructions-languages.md); PyPy's library is stripped too.
"""
from __future__ import annotations

import functools
import mmap
import subprocess
from pathlib import Path

from ..measures.callgrind import CountProfile, NotCountable
from ..model import Runtime
from .base import LaunchSpec

MARKER = "_PyEval_CallTracing"
# str/bytes hashes (so set and dict order, and what a benchmark does with them) the same every launch;
# the host adds `setarch -R` for the addresses id()-based hashes follow.
PINNED = {"PYTHONHASHSEED": "0"}

PYPY_REASON = ("PyPy cannot be counted: its library (libpypy3-c.so) is stripped, so no function around "
               "the timed loop has a name callgrind can see (sys.call_tracing is RPython code with no "
               "symbol, and PyPy has no ctypes.pythonapi to reach an exported one)")


def count_profile(runtime: Runtime) -> CountProfile:
    if runtime.implementation == "PyPy":
        raise NotCountable(PYPY_REASON)
    files = interpreter_files(runtime)
    if not any(has_symbol(f, MARKER) for f in files):
        raise NotCountable(
            f"{runtime.name} ({runtime.executable}) cannot be counted: it is stripped, so callgrind "
            f"cannot see the function {MARKER} the worker runs its timed loop in; count with an "
            "interpreter that keeps its symbols (a pyenv or python.org build)")
    # 3.12+ specialise their bytecode over two runs (+0.14 %, then +0.10 %, the same in every launch:
    # docs/instructions-languages.md); 3.8-3.11 settle after one
    warmup = 2 if _version_at_least(runtime.version, (3, 12)) else 1
    return CountProfile(marker=MARKER, env=dict(PINNED), warmup_runs=warmup,
                        note="CPython: each run's timed loop inside sys.call_tracing (_PyEval_CallTracing)")


def _version_at_least(version: str, wanted: tuple[int, int]) -> bool:
    try:
        return tuple(int(x) for x in version.split(".")[:2]) >= wanted
    except ValueError:
        return False


def count_spec(spec: LaunchSpec, runtime: Runtime) -> LaunchSpec:
    """`spec` started by the interpreter binary itself, not a launcher script in front of it."""
    real = real_executable(runtime.executable)
    if not spec.argv or spec.argv[0] != runtime.executable or real == runtime.executable:
        return spec
    return LaunchSpec(argv=[real, *spec.argv[1:]], env=dict(spec.env), cwd=spec.cwd,
                      load_paths=list(spec.load_paths), root=spec.root, starts_aside=spec.starts_aside)


@functools.lru_cache(maxsize=None)
def real_executable(path: str) -> str:
    """The interpreter binary behind `path`. A pyenv shim is a shell script that starts it: under
    valgrind that would count the shell, which never reaches the marker (children are not followed)."""
    try:
        with open(path, "rb") as f:
            if f.read(4) == b"\x7fELF":
                return path
        out = subprocess.run([path, "-c", "import sys; print(sys.executable)"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return path
    real = out.stdout.strip()
    return real if out.returncode == 0 and real and Path(real).is_file() else path


def interpreter_files(runtime: Runtime) -> list[Path]:
    """The interpreter's executable and the libpython it may load from its prefix (pyenv and
    python.org builds link it as a shared library)."""
    exe = Path(real_executable(runtime.executable)).resolve()
    files = [exe]
    major_minor = ".".join(runtime.version.split(".")[:2])
    lib = exe.parent.parent / "lib"
    if lib.is_dir():
        files += sorted(lib.glob(f"libpython{major_minor}*.so*"))
    return [f for f in files if f.is_file()]


def has_symbol(path: Path, name: str) -> bool:
    """Whether `name` is in one of the file's symbol string tables (.strtab or .dynstr): the symbol
    names are stored there NUL-terminated, and a stripped binary keeps only the exported ones."""
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return m.find(b"\0" + name.encode() + b"\0") >= 0
    except (OSError, ValueError):
        return False
