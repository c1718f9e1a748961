"""Find Java runtimes (JDKs): /usr/lib/jvm, JAVA_HOME, `java` on PATH, /opt, /usr/java, SDKMAN and
~/.jdks. Each JDK is named by its feature version (`jdk17`, `jdk25`); JVM flags come from the runtime
spec (`jdk25:-XX:+UseParallelGC -Xmx1g`), so GC/JIT settings can be compared side by side.

perflab builds benchmarks with the JDK's own javac, so a JRE (no bin/javac) is listed with a note and
cannot run benchmarks. JDKs are not provisioned automatically: install one with the system package
manager (e.g. `apt-get install openjdk-17-jdk-headless`) or point JAVA_HOME at it.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from ..errors import PrepareError
from ..model import Runtime

MIN_FEATURE = 17  # the worker uses JDK 17 APIs; the compiler blackhole arrived in 17


def version_tuple(text: str) -> tuple[int, ...]:
    text = text.strip()
    if text.startswith("1."):  # 1.8.0_392 → 8.0.392
        text = text[2:]
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def _read_release(home: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    try:
        for line in (home / "release").read_text(errors="replace").splitlines():
            key, eq, val = line.partition("=")
            if eq:
                out[key.strip()] = val.strip().strip('"')
    except OSError:
        pass
    return out


def _probe_version(java: Path) -> tuple[str, str]:
    """(version, vendor) from `java -XshowSettings:properties -version` (no `release` file)."""
    try:
        out = subprocess.run([str(java), "-XshowSettings:properties", "-version"], capture_output=True,
                             text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return "", ""
    text = out.stderr + out.stdout
    version = re.search(r"^\s*java\.runtime\.version = (\S+)", text, re.M) or \
        re.search(r"^\s*java\.version = (\S+)", text, re.M)
    vendor = re.search(r"^\s*java\.vendor = (.+)$", text, re.M)
    return (version.group(1) if version else ""), (vendor.group(1).strip() if vendor else "")


def java_home_of(executable: str) -> Path:
    return Path(executable).resolve().parent.parent


def describe(home: str | Path) -> Runtime | None:
    """The JDK (or JRE) installed at `home`, or None if it is not a Java installation."""
    home = Path(home).expanduser()
    if home.is_file():  # a `java` binary
        home = home.resolve().parent.parent
    java = home / "bin" / "java"
    if not java.is_file() or not os.access(java, os.X_OK):
        return None
    home = home.resolve()
    java = home / "bin" / "java"
    rel = _read_release(home)
    version = rel.get("JAVA_RUNTIME_VERSION") or rel.get("JAVA_VERSION") or ""
    vendor = rel.get("IMPLEMENTOR_VERSION") or rel.get("IMPLEMENTOR") or ""
    if not version:
        version, vendor = _probe_version(java)
    if not version:
        return None
    vt = version_tuple(version)
    if not vt:
        return None
    feature = vt[0]
    note = ""
    if feature < MIN_FEATURE:
        note = f"too old: perflab's Java worker needs JDK >= {MIN_FEATURE}"
    elif not (home / "bin" / "javac").is_file():
        note = "a JRE without javac: perflab needs a full JDK to build benchmarks"
    impl = "OpenJ9" if "openj9" in vendor.lower() else "HotSpot"
    return Runtime(name=f"jdk{feature}", language="java", version=version, executable=str(java),
                   implementation=impl, note=note)


def _candidate_homes() -> list[Path]:
    homes: list[Path] = []
    env_home = os.environ.get("JAVA_HOME")
    if env_home:
        homes.append(Path(env_home))
    for exe in ("java", "javac"):
        found = shutil.which(exe)
        if found:
            homes.append(Path(found).resolve().parent.parent)
    globs = ["/usr/lib/jvm/*", "/usr/java/*", "/usr/local/java/*", "/opt/*", "/opt/*/*", "/opt/java/*",
             str(Path.home() / ".sdkman" / "candidates" / "java" / "*"), str(Path.home() / ".jdks" / "*"),
             "/Library/Java/JavaVirtualMachines/*/Contents/Home"]
    import glob
    for pattern in globs:
        for d in sorted(glob.glob(pattern)):
            p = Path(d)
            if (p / "bin" / "java").is_file():
                homes.append(p)
    return homes


def discover() -> list[Runtime]:
    """Installed JDKs, one per feature version (the newest update wins; full JDKs before JREs)."""
    seen: set[Path] = set()
    found: dict[str, Runtime] = {}
    for home in _candidate_homes():
        try:
            real = home.resolve()
        except OSError:
            continue
        if real in seen:
            continue
        seen.add(real)
        rt = describe(real)
        if rt is None:
            continue
        old = found.get(rt.name)
        if old is None or (not rt.note, version_tuple(rt.version)) > (not old.note, version_tuple(old.version)):
            found[rt.name] = rt
    return sorted(found.values(), key=lambda r: version_tuple(r.version))


def provision(runtime: Runtime) -> Runtime:
    raise PrepareError(f"{runtime.name} is not installed and perflab does not download JDKs: install it with "
                       "your package manager (e.g. `apt-get install openjdk-17-jdk-headless`) or set JAVA_HOME "
                       "to its directory, or give the JDK's path in --runtimes")
