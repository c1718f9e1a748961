"""Go toolchains: the `go` on PATH, toolchains already in the module cache, ~/sdk/goX.Y.Z, and the
go1.21 … go1.26 toolchains obtainable through the Go module proxy (installed=False until provisioned),
and those perflab provisioned earlier into its own cache (`<cache>/go-toolchains`, a module cache).

A Go runtime is named by its minor version (`go1.22`); its version is the full release (`1.22.12`) and
its executable the toolchain's `bin/go`. Provisioning runs `GOTOOLCHAIN=go1.22.12 go version`, which
makes the go command download the `golang.org/toolchain` module version into a module cache (perflab's,
`<cache>/go-toolchains`, so that everything perflab downloads is in one folder); this is the module
proxy's own toolchain mechanism and needs no other network access.
"""
from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
from pathlib import Path

from ..cache import cache_dir
from ..errors import PrepareError
from ..model import Runtime
from .progress import downloading

MIN_MINOR = 21  # the worker's floor (go.mod says go 1.21)
KNOWN_MINORS = range(21, 27)  # go1.21 … go1.26 are offered as installable
# Latest patch releases known when this was written; provision() asks the proxy for newer ones.
LATEST_PATCH = {21: 13, 22: 12, 23: 12, 24: 13, 25: 14, 26: 11}

_VERSION = re.compile(r"^go1\.(\d+)(?:\.(\d+))?(.*)$")


def _goos_goarch() -> tuple[str, str]:
    machine = platform.machine().lower()
    arch = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64",
            "i386": "386", "i686": "386", "armv7l": "arm", "ppc64le": "ppc64le",
            "s390x": "s390x", "riscv64": "riscv64"}.get(machine, machine)
    system = platform.system().lower()
    return system, arch


def _clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("GOROOT", None)  # each toolchain finds its own GOROOT from its location
    env["GOTOOLCHAIN"] = "local"
    if extra:
        env.update(extra)
    return env


def probe(go: str) -> dict | None:
    """GOVERSION/GOROOT/GOMODCACHE of one go binary, or None if it is not a working go."""
    try:
        out = subprocess.run([go, "env", "-json", "GOVERSION", "GOROOT", "GOMODCACHE", "GOOS", "GOARCH"],
                             capture_output=True, text=True, timeout=30, env=_clean_env())
        if out.returncode != 0:
            return None
        return json.loads(out.stdout)
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None


def runtime_for(go: str, info: dict) -> Runtime | None:
    gv = str(info.get("GOVERSION", ""))
    m = _VERSION.match(gv)
    if m:
        minor = int(m.group(1))
        if minor < MIN_MINOR:
            return None
        name = f"go1.{minor}"
        version = gv[2:]
    elif gv.startswith("devel"):
        name, version = "go-devel", gv
    else:
        return None
    goroot = info.get("GOROOT") or str(Path(go).resolve().parent.parent)
    exe = str(Path(goroot) / "bin" / "go")
    if not os.path.isfile(exe):
        exe = go
    return Runtime(name=name, language="go", version=version, executable=exe, implementation="gc")


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", version)[:3])


def describe(path: str) -> Runtime | None:
    """An explicit toolchain: a GOROOT directory or a go binary."""
    p = Path(path).expanduser()
    go = p / "bin" / "go" if p.is_dir() else p
    if not go.is_file() or not os.access(go, os.X_OK):
        return None
    info = probe(str(go))
    return runtime_for(str(go), info) if info else None


def toolchain_cache() -> Path:
    """The module cache perflab downloads Go toolchains into."""
    return cache_dir() / "go-toolchains"


def _modcache_toolchains(modcache: Path) -> list[tuple[str, str]]:
    """(version, go binary) of toolchains the go command downloaded into the module cache."""
    goos, goarch = _goos_goarch()
    found = []
    base = modcache / "golang.org"
    for d in base.glob(f"toolchain@v0.0.1-go1.*.{goos}-{goarch}"):
        m = re.match(r"toolchain@v0\.0\.1-go(1\.\d+(?:\.\d+)?)\.", d.name)
        go = d / "bin" / "go"
        if m and go.is_file():
            found.append((m.group(1), str(go)))
    return found


def discover() -> list[Runtime]:
    found: dict[str, Runtime] = {}
    path_go = shutil.which("go")
    modcache = None
    if path_go:
        info = probe(path_go)
        if info:
            rt = runtime_for(path_go, info)
            if rt is not None:
                found[rt.name] = rt
            if info.get("GOMODCACHE"):
                modcache = Path(info["GOMODCACHE"])
    if modcache is None:
        gopath = os.environ.get("GOPATH") or str(Path.home() / "go")
        modcache = Path(gopath.split(os.pathsep)[0]) / "pkg" / "mod"
    candidates = _modcache_toolchains(modcache) + _modcache_toolchains(toolchain_cache())
    for d in (Path.home() / "sdk").glob("go1.*"):
        if (d / "bin" / "go").is_file():
            candidates.append((d.name[2:], str(d / "bin" / "go")))
    # newest patch first, so each family keeps its newest installed release
    for version, go in sorted(candidates, key=lambda c: _version_key(c[0]), reverse=True):
        m = _VERSION.match("go" + version)
        if not m or int(m.group(1)) < MIN_MINOR:
            continue
        name = f"go1.{int(m.group(1))}"
        if name not in found:
            found[name] = Runtime(name=name, language="go", version=version, executable=go,
                                  implementation="gc")
    minors = set(KNOWN_MINORS)
    for rt in found.values():
        m = _VERSION.match("go" + rt.version)
        if m:
            minors.add(int(m.group(1)))
    for minor in sorted(minors):
        name = f"go1.{minor}"
        if name not in found:
            patch = LATEST_PATCH.get(minor, 0)
            found[name] = Runtime(name=name, language="go", version=f"1.{minor}.{patch}", executable="",
                                  implementation="gc", installed=False,
                                  note="installable from the Go module proxy (golang.org/toolchain)")
    return sorted(found.values(), key=lambda r: _version_key(r.version))


def latest_patch(minor: int, go: str) -> int:
    """The newest go1.<minor>.N the module proxy has (falls back to the table above, offline)."""
    goos, goarch = _goos_goarch()
    try:
        out = subprocess.run([go, "list", "-m", "-versions", "golang.org/toolchain"], capture_output=True,
                             text=True, timeout=60, cwd=str(Path.home()),
                             env=_clean_env({"GO111MODULE": "on", "GOFLAGS": ""}))
        patches = [int(p) for p in re.findall(rf"v0\.0\.1-go1\.{minor}\.(\d+)\.{goos}-{goarch}\b", out.stdout)]
        if patches:
            return max(patches)
    except (OSError, subprocess.TimeoutExpired):
        pass
    return LATEST_PATCH.get(minor, 0)


def provision(runtime: Runtime) -> Runtime:
    m = _VERSION.match(runtime.name)
    if not m:
        raise PrepareError(f"{runtime.name}: not a Go toolchain name perflab can obtain")
    minor = int(m.group(1))
    boot = shutil.which("go")
    if boot is None:
        raise PrepareError(f"cannot obtain {runtime.name}: no `go` on PATH to download it with "
                           "(install any Go >= 1.21 first)")
    info = probe(boot)
    if not info or not _VERSION.match(str(info.get("GOVERSION", ""))) or \
            int(_VERSION.match(info["GOVERSION"]).group(1)) < 21:
        raise PrepareError(f"cannot obtain {runtime.name}: the `go` on PATH ({boot}) is older than go1.21 "
                           "and cannot download toolchains")
    patch = latest_patch(minor, boot)
    version = f"1.{minor}.{patch}" if patch or minor >= 21 else f"1.{minor}"
    goos, goarch = _goos_goarch()
    modcache = toolchain_cache()
    go = modcache / "golang.org" / f"toolchain@v0.0.1-go{version}.{goos}-{goarch}" / "bin" / "go"
    if not go.is_file():
        with downloading(runtime.name, f"Go {version}", "the Go module proxy (golang.org/toolchain)",
                         str(modcache)):
            _download(boot, version)
    if not go.is_file():
        raise PrepareError(f"go{version} was downloaded but {go} does not exist")
    return Runtime(name=runtime.name, language="go", version=version, executable=str(go),
                   flags=runtime.flags, env=runtime.env, implementation="gc")


def _download(boot: str, version: str) -> None:
    """`GOTOOLCHAIN=go<version> go version` with perflab's module cache: the go command fetches it."""
    try:
        out = subprocess.run([boot, "version"], capture_output=True, text=True, timeout=900,
                             cwd=str(Path.home()),
                             env=_clean_env({"GOTOOLCHAIN": f"go{version}", "GOFLAGS": "",
                                             "GOMODCACHE": str(toolchain_cache())}))
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PrepareError(f"cannot obtain go{version} from the Go module proxy: {exc}") from None
    if out.returncode != 0 or f"go{version}" not in out.stdout:
        detail = (out.stderr or out.stdout).strip().splitlines()
        raise PrepareError(f"cannot obtain go{version} from the Go module proxy: "
                           f"{detail[-1] if detail else 'go version failed'}")
