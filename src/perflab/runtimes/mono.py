"""Find Mono runtimes: `mono` on PATH (named `mono`), `mono-boehm` (Debian's mono-runtime-boehm: the
same Mono with the Boehm GC instead of SGen; it counts no allocated bytes) and other installations
under /opt and /usr/local (named `mono<major>.<minor>`), each with the C# compiler `mcs` beside it.

Mono's execution modes and optimisations are flags of the runtime spec, so they compare side by side:
`mono` (JIT), `mono:--interpreter` (the IL interpreter), `mono:-O=all` / `mono:-O=-inline` (JIT
optimisation sets, see `mono --list-opt`), `mono:--llvm` (only where Mono was built with its LLVM
back end; Debian's is not: it runs with the JIT and says so on stderr, so perflab refuses it).
Mono is not provisioned: install it with `apt-get install mono-complete` (Debian ships 6.8).
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
from pathlib import Path

from ..errors import PrepareError
from ..model import Runtime

_VERSION = re.compile(r"Mono JIT compiler version (\S+)")


def mono_version(mono: str) -> tuple[str, str]:
    """(version, the `mono --version` text) or ("", "") when `mono` does not answer."""
    try:
        out = subprocess.run([mono, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "", ""
    m = _VERSION.search(out.stdout)
    return (m.group(1), out.stdout) if out.returncode == 0 and m else ("", "")


def compiler_of(mono: Path) -> Path | None:
    """The `mcs` that belongs to this Mono: beside it, else the one on PATH."""
    beside = mono.parent / "mcs"
    if beside.is_file():
        return beside
    found = shutil.which("mcs")
    return Path(found) if found else None


def describe(path: str, name: str | None = None, implementation: str = "Mono") -> Runtime | None:
    p = Path(path).expanduser()
    mono = p / "bin" / "mono" if p.is_dir() else p
    if not mono.is_file() or not mono.name.startswith("mono") or not os.access(mono, os.X_OK):
        return None
    version, text = mono_version(str(mono))
    if not version:
        return None
    note = "" if compiler_of(mono) else "no C# compiler (mcs) beside it: install mono-devel"
    if name is None:
        name = f"mono{'.'.join(version.split('.')[:2])}"
    if mono.name == "mono-boehm":
        implementation = "Mono (Boehm GC)"
    return Runtime(name=name, language="csharp", version=version, executable=str(mono),
                   implementation=implementation, note=note)


def llvm_available(version_text: str) -> bool:
    """`mono --version` says `LLVM: supported, not enabled.` when the LLVM back end is absent."""
    m = re.search(r"LLVM:\s*(.*)", version_text)
    return bool(m) and "not enabled" not in m.group(1) and "no" != m.group(1).strip().lower()


def discover() -> list[Runtime]:
    found: dict[str, Runtime] = {}
    seen: set[Path] = set()
    on_path = shutil.which("mono")
    if on_path:
        rt = describe(on_path, name="mono")
        if rt is not None:
            found["mono"] = rt
            seen.add(Path(on_path).resolve())
    # Debian's mono-runtime-boehm: the same Mono with the conservative Boehm GC instead of SGen
    boehm = shutil.which("mono-boehm")
    if boehm:
        rt = describe(boehm, name="mono-boehm")
        if rt is not None:
            found["mono-boehm"] = rt
            seen.add(Path(boehm).resolve())
    for cand in sorted(glob.glob("/opt/*/bin/mono") + glob.glob("/opt/mono*/*/bin/mono")
                       + ["/usr/local/bin/mono"]):
        real = Path(cand).resolve()
        if real in seen or not real.is_file():
            continue
        seen.add(real)
        rt = describe(cand)
        if rt is not None:
            found.setdefault(rt.name, rt)
    return list(found.values())


def provision(runtime: Runtime) -> Runtime:
    raise PrepareError(f"{runtime.name} is not installed and perflab does not download Mono: install it with "
                       "`apt-get install mono-complete` (Debian/Ubuntu) or give the path of a `mono` binary "
                       "in --runtimes")
