"""C/C++ compilers: every `g++-N`, `g++`, `clang++-N`, `clang++` on PATH, named by family and major version
(`gcc12`, `clang14`). The executable is the C++ driver; the matching C driver (`gcc-12`, `clang-14`) compiles
`.c` files. Runtime flags are compiler flags: `gcc12:-O3 -march=native`.
"""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from ..errors import PrepareError
from ..model import Runtime

_CXX = re.compile(r"^(g\+\+|clang\+\+)(-(\d+(?:\.\d+)*))?$")


def _probe(cxx: str) -> tuple[str, str] | None:
    """(family, full version) of a C++ compiler driver."""
    try:
        out = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    first = out.stdout.splitlines()[0] if out.stdout else ""
    family = "clang" if "clang" in first.lower() else "gcc"
    m = re.search(r"(\d+\.\d+(?:\.\d+)?)(?!.*\d+\.\d+)", first) if family == "gcc" else \
        re.search(r"version (\d+\.\d+(?:\.\d+)?)", first)
    if not m:
        return None
    return family, m.group(1)


def runtime_for(cxx: str) -> Runtime | None:
    probed = _probe(cxx)
    if probed is None:
        return None
    family, version = probed
    major = version.split(".")[0]
    return Runtime(name=f"{family}{major}", language="cpp", version=version, executable=cxx,
                   implementation="GCC" if family == "gcc" else "Clang")


def describe(path: str) -> Runtime | None:
    p = Path(path).expanduser()
    if not p.is_file() or not os.access(p, os.X_OK) or not _CXX.match(p.name):
        return None
    return runtime_for(str(p))


def discover() -> list[Runtime]:
    found: dict[str, Runtime] = {}
    seen_real: set[str] = set()
    candidates: list[tuple[int, int, str]] = []
    for i, d in enumerate(os.environ.get("PATH", "").split(os.pathsep)):
        try:
            names = os.listdir(d or ".")
        except OSError:
            continue
        for n in names:
            m = _CXX.match(n)
            if m:
                # versioned drivers first: `g++-12` names the runtime better than `g++`
                candidates.append((0 if m.group(2) else 1, i, os.path.join(d, n)))
    for _, _, cxx in sorted(candidates):
        if not os.access(cxx, os.X_OK):
            continue
        real = os.path.realpath(cxx)
        if real in seen_real:
            continue
        seen_real.add(real)
        rt = runtime_for(cxx)
        if rt is not None:
            found.setdefault(rt.name, rt)

    def key(r: Runtime):
        return (r.name.rstrip("0123456789"), [int(x) for x in re.findall(r"\d+", r.version)])
    return sorted(found.values(), key=key)


def c_compiler(cxx: str) -> str:
    """The C driver beside a C++ driver (`g++-12` → `gcc-12`, `clang++` → `clang`)."""
    p = Path(cxx)
    m = _CXX.match(p.name)
    if m is None:
        raise PrepareError(f"{cxx}: cannot tell which C compiler goes with it")
    name = ("clang" if m.group(1) == "clang++" else "gcc") + (m.group(2) or "")
    c = p.with_name(name)
    if not c.is_file():
        raise PrepareError(f"{cxx}: no C compiler {c} beside it to compile .c benchmark files")
    return str(c)


def provision(runtime: Runtime) -> Runtime:
    m = re.match(r"(gcc|clang)(\d+)$", runtime.name)
    pkg = (f"g++-{m.group(2)}" if m.group(1) == "gcc" else f"clang-{m.group(2)}") if m else runtime.name
    raise PrepareError(f"{runtime.name} is not installed (no such compiler on PATH); "
                       f"install it, e.g. `apt-get install {pkg}`")
