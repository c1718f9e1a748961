"""The machine and software a run happened on: recorded in every result document."""
from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import sys
from pathlib import Path

from . import __version__


def _cpu() -> tuple[str, str]:
    model, flags = platform.processor() or platform.machine(), ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key == "model name" and model in ("", platform.machine()):
                model = value.strip()
            elif key == "flags" and not flags:
                flags = value.strip()
    except OSError:
        pass
    return model, flags


def git_commit(path: Path) -> dict | None:
    """The git commit, branch (None when detached) and repository root of the folder the benchmarks
    live in, and whether that folder has local changes."""
    folder = path if path.is_dir() else path.parent
    try:
        head = subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD", "--abbrev-ref", "HEAD",
                               "--show-toplevel"], capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return None
        commit, branch, root = (head.stdout.splitlines() + ["", "", ""])[:3]
        dirty = subprocess.run(["git", "-C", str(folder), "status", "--porcelain", "--", "."],
                               capture_output=True, text=True, timeout=10)
        return {"commit": commit.strip(), "branch": None if branch.strip() == "HEAD" else branch.strip(),
                "root": root.strip(), "dirty": bool(dirty.stdout.strip())}
    except (OSError, subprocess.TimeoutExpired):
        return None


def collect(paths: list[Path]) -> dict:
    model, flags = _cpu()
    uname = platform.uname()
    mem = None
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        pass
    return {
        "cpu": {"model": model, "logical_cores": os.cpu_count(),
                "flags_sha256": hashlib.sha256(flags.encode()).hexdigest()[:16] if flags else None},
        "memory_bytes": mem,
        "os": {"system": uname.system, "release": uname.release, "version": uname.version,
               "machine": uname.machine},
        "hostname": uname.node,
        "host_python": sys.version.split()[0],
        "perflab_version": __version__,
        "git": {str(p): git_commit(p) for p in paths},
    }


FINGERPRINT_FIELDS = ("cpu_model", "cpu_flags", "logical_cores", "kernel", "machine", "perflab")


def fingerprint_parts(env: dict) -> dict:
    """What must match for two results to be comparable (runtimes are compared per case)."""
    return {"cpu_model": env.get("cpu", {}).get("model"),
            "cpu_flags": env.get("cpu", {}).get("flags_sha256"),
            "logical_cores": env.get("cpu", {}).get("logical_cores"),
            "kernel": env.get("os", {}).get("release"),
            "machine": env.get("os", {}).get("machine"),
            "perflab": env.get("perflab_version")}


def fingerprint(env: dict) -> str:
    import json
    return hashlib.sha256(json.dumps(fingerprint_parts(env), sort_keys=True).encode()).hexdigest()[:16]


_BINARY_HASHES: dict = {}


def binary_sha256(path: str) -> str | None:
    """Hash of a runtime's executable (two 'python3.11' builds are not the same runtime)."""
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except OSError:
        return None
    key = (real, st.st_mtime, st.st_size)
    if key not in _BINARY_HASHES:
        h = hashlib.sha256()
        with open(real, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        _BINARY_HASHES[key] = h.hexdigest()[:16]
    return _BINARY_HASHES[key]
