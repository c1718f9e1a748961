"""Find the Pythons on this machine: PATH, pyenv versions and Debian's pypy3.

Each candidate interpreter is asked for its version once; answers are cached by path and mtime in the
user cache so `perflab runtimes` stays fast.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from ..cache import cache_dir
from ..model import Runtime

MIN_VERSION = (3, 8)  # the worker's floor

_PROBE = ("import json,platform,sys;print(json.dumps({'impl':platform.python_implementation(),"
          "'version':platform.python_version(),'info':list(sys.version_info[:2]),"
          "'executable':sys.executable}))")


def _candidates() -> list[str]:
    seen: list[str] = []

    def add(p: str | None) -> None:
        if p and os.path.isfile(p) and os.access(p, os.X_OK) and p not in seen:
            seen.append(p)

    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    for d in sorted((root / "versions").glob("*"), key=lambda p: _version_key(p.name)):
        add(str(d / "bin" / "python"))
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if not d or "shims" in d:  # pyenv shims re-dispatch; the versions above are the real ones
            continue
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for name in sorted(names):
            if re.fullmatch(r"python3(\.\d+)?|pypy3(\.\d+)?", name):
                add(os.path.join(d, name))
    add(shutil.which("pypy3"))
    return seen


def _version_key(text: str) -> tuple:
    return tuple(int(x) if x.isdigit() else 0 for x in re.split(r"[.\-]", text))


def _probe(path: str, cache: dict) -> dict | None:
    real = os.path.realpath(path)
    try:
        mtime = os.stat(real).st_mtime
    except OSError:
        return None
    key = f"{path}|{real}|{mtime}"
    if key in cache:
        return cache[key]
    try:
        out = subprocess.run([path, "-c", _PROBE], capture_output=True, text=True, timeout=20)
        info = json.loads(out.stdout) if out.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError):
        info = None
    cache[key] = info
    return info


def describe(path: str, cache: dict | None = None) -> Runtime | None:
    info = _probe(path, cache if cache is not None else {})
    if not info or tuple(info["info"]) < MIN_VERSION:
        return None
    major, minor = info["info"]
    name = "pypy3" if info["impl"] == "PyPy" else f"python{major}.{minor}"
    return Runtime(name=name, language="python", version=info["version"],
                   executable=_launchable(path, info.get("executable")), implementation=info["impl"])


def _launchable(path: str, interpreter: str | None) -> str:
    """The path to launch: the interpreter itself when `path` is a pyenv shim (`~/.pyenv/shims/python3`,
    what `python3` is on PATH under pyenv). A shim is a shell script that runs `pyenv exec`: 0.1-0.2 s
    before every worker starts, and the binary hashed for the fingerprint would be the script. Any
    other path is launched as given: a venv's `python` must stay the path it was called by (or the
    venv is lost), and a wrapper script a user names may do what the run needs (set the environment,
    refuse on a machine without its interpreter)."""
    if not interpreter or interpreter == path or not os.path.isfile(interpreter):
        return path
    try:
        with open(path, "rb") as f:
            head = f.read(1024)
    except OSError:
        return path
    return interpreter if head.startswith(b"#!") and b"pyenv" in head and b" exec " in head else path


def discover() -> list[Runtime]:
    cache_file = cache_dir() / "python-runtimes.json"
    try:
        cache = json.loads(cache_file.read_text())
    except (OSError, ValueError):
        cache = {}
    found: dict[str, Runtime] = {}
    for path in _candidates():
        rt = describe(path, cache)
        if rt is not None and rt.name not in found:
            found[rt.name] = rt
    try:
        cache_file.write_text(json.dumps(cache))
    except OSError:
        pass
    return sorted(found.values(), key=lambda r: (r.implementation != "CPython", _version_key(r.version)))
