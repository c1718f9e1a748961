"""Rust toolchains: the rustup toolchains installed (`rust-stable`, `rust-nightly`, `rust-1.95.0`…) and, without
rustup, the `rustc` on PATH (`rust-<version>`).

A Rust runtime's executable is the toolchain's `rustc`; its `cargo` sits beside it. Runtime flags are
build settings (see perflab.toolchains.rust): `rust-stable:opt-level=3,lto=fat,target-cpu=native`.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from ..errors import PrepareError
from ..model import Runtime

_VERSION = re.compile(r"rustc (\d+\.\d+\.\d+\S*)")


def rustup_home() -> Path:
    return Path(os.environ.get("RUSTUP_HOME") or Path.home() / ".rustup")


def rustc_version(rustc: str) -> str | None:
    try:
        out = subprocess.run([rustc, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = _VERSION.search(out.stdout)
    return m.group(1) if out.returncode == 0 and m else None


def _channel(toolchain_dir_name: str) -> str:
    """`stable-x86_64-unknown-linux-gnu` → `stable`; `1.95.0-x86_64-…` → `1.95.0`."""
    m = re.match(r"^(.+?)-(x86_64|aarch64|i686|arm|armv7|riscv64gc|powerpc64le|s390x|loongarch64)-", toolchain_dir_name)
    return m.group(1) if m else toolchain_dir_name


def describe(path: str) -> Runtime | None:
    """An explicit toolchain: a rustc binary or a toolchain directory (with bin/rustc)."""
    p = Path(path).expanduser()
    rustc = p / "bin" / "rustc" if p.is_dir() else p
    if not rustc.is_file() or not rustc.name.startswith("rustc") or not os.access(rustc, os.X_OK):
        return None
    version = rustc_version(str(rustc))
    if version is None:
        return None
    if (rustc.parent / "cargo").is_file() is False and shutil.which("cargo") is None:
        return None
    return Runtime(name=f"rust-{version}", language="rust", version=version, executable=str(rustc),
                   implementation="rustc")


def discover() -> list[Runtime]:
    found: dict[str, Runtime] = {}
    tdir = rustup_home() / "toolchains"
    if tdir.is_dir():
        for d in sorted(tdir.iterdir()):
            rustc = d / "bin" / "rustc"
            if not rustc.is_file():
                continue
            version = rustc_version(str(rustc))
            if version is None:
                continue
            name = f"rust-{_channel(d.name)}"
            found.setdefault(name, Runtime(name=name, language="rust", version=version, executable=str(rustc),
                                           implementation="rustc"))
    path_rustc = shutil.which("rustc")
    if path_rustc and not found:
        version = rustc_version(path_rustc)
        if version:
            real = str(Path(path_rustc).resolve())
            found[f"rust-{version}"] = Runtime(name=f"rust-{version}", language="rust", version=version,
                                               executable=real, implementation="rustc")
    order = {"rust-stable": 0, "rust-beta": 1, "rust-nightly": 2}
    return sorted(found.values(), key=lambda r: (order.get(r.name, 3), r.name))


def cargo_for(runtime: Runtime) -> str:
    """The cargo of the toolchain whose rustc is runtime.executable."""
    beside = Path(runtime.executable).parent / "cargo"
    if beside.is_file():
        return str(beside)
    cargo = shutil.which("cargo")
    if cargo is None:
        raise PrepareError(f"{runtime.name}: no cargo beside {runtime.executable} and none on PATH")
    return cargo


def provision(runtime: Runtime) -> Runtime:
    raise PrepareError(f"{runtime.name} is not installed; install it with "
                       f"`rustup toolchain install {runtime.name.removeprefix('rust-')}`")
