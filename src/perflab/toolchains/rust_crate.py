"""The user's cargo package, read (never written): what a benchmark file inside it may use.

A file under `benches/` is built by cargo as part of its package: it can `use` the package's library,
its dependencies and its dev-dependencies. perflab's generated binary crate (toolchains/rust.py) gets
the same: the library by path, and every non-optional dependency and dev-dependency copied with paths
made absolute and `workspace = true` resolved from the workspace root. A `criterion` dev-dependency is
answered by perflab's criterion compatibility layer (workers/rust/criterion), patched in under a
version that matches the package's requirement; the package's Cargo.lock is copied so that every other
dependency keeps the version it has.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10: the TOML reader pip vendors
    from pip._vendor import tomli as tomllib  # type: ignore[no-redef]

_CRITERION_MAIN = re.compile(r"^\s*(?:criterion\s*::\s*)?criterion_main\s*!", re.M)
_CRITERION_USE = re.compile(r"\bcriterion\b")


def is_criterion_file(text: str) -> bool:
    """A criterion benchmark file: it names criterion and ends in `criterion_main!(…)`."""
    return bool(_CRITERION_MAIN.search(text)) and bool(_CRITERION_USE.search(text))


@dataclass
class Crate:
    name: str
    dir: Path
    has_lib: bool
    edition: str | None
    deps: dict[str, object] = field(default_factory=dict)           # key → spec (str or table)
    target_deps: dict[str, dict[str, object]] = field(default_factory=dict)  # cfg → {key → spec}
    uses_criterion: bool = False
    lock: Path | None = None
    bench_features: dict[Path, list[str]] = field(default_factory=dict)  # a [[bench]]'s required-features


def _load(path: Path) -> dict | None:
    try:
        return tomllib.loads(path.read_text(errors="replace"))
    except (OSError, tomllib.TOMLDecodeError):
        return None


def crate_dir_of(path: Path) -> Path | None:
    """The folder of the cargo package (a Cargo.toml with [package]) that contains `path`."""
    for d in path.parents:
        manifest = d / "Cargo.toml"
        if manifest.is_file():
            doc = _load(manifest)
            if doc is not None and "package" in doc:
                return d
            if doc is not None and "workspace" in doc:
                return None  # a virtual workspace: the file belongs to no package
        if d == d.parent:
            break
    return None


def _workspace_root(crate: Path) -> tuple[Path, dict] | None:
    for d in [crate, *crate.parents]:
        manifest = d / "Cargo.toml"
        if manifest.is_file():
            doc = _load(manifest)
            if doc and "workspace" in doc:
                return d, doc
    return None


def _absolute(spec: object, base: Path) -> object:
    if isinstance(spec, dict) and isinstance(spec.get("path"), str):
        spec = dict(spec)
        spec["path"] = str((base / spec["path"]).resolve())
    return spec


def _resolve(key: str, spec: object, crate: Path, ws: tuple[Path, dict] | None) -> object | None:
    """`spec` with paths absolute and workspace inheritance resolved; None: leave it out."""
    if isinstance(spec, dict) and spec.get("optional"):
        return None  # only there with a feature of the package; benches needing it declare it
    if isinstance(spec, dict) and spec.get("workspace"):
        if not ws:
            return None
        inherited = ws[1].get("workspace", {}).get("dependencies", {}).get(key)
        if inherited is None:
            return None
        base = _absolute(inherited, ws[0])
        base = {"version": base} if isinstance(base, str) else dict(base)
        feats = list(base.get("features", [])) + [f for f in spec.get("features", []) if f not in base.get("features", [])]
        if feats:
            base["features"] = feats
        if "default-features" in spec:
            base["default-features"] = spec["default-features"]
        return base
    return _absolute(spec, crate)


def read_crate(crate: Path, criterion_shim: Path) -> Crate:
    """The package at `crate`, its `criterion` dependency answered by `criterion_shim` (a path)."""
    doc = _load(crate / "Cargo.toml") or {}
    pkg = doc.get("package", {})
    ws = _workspace_root(crate)
    edition = pkg.get("edition")
    if isinstance(edition, dict) and edition.get("workspace") and ws:
        edition = ws[1].get("workspace", {}).get("package", {}).get("edition")
    lib = doc.get("lib", {})
    has_lib = (crate / "src" / "lib.rs").is_file() or isinstance(lib.get("path"), str)
    info = Crate(name=str(pkg.get("name", crate.name)), dir=crate, has_lib=has_lib,
                 edition=edition if isinstance(edition, str) else None)

    def take(table: dict, into: dict) -> None:
        for key, spec in table.items():
            real = spec.get("package", key) if isinstance(spec, dict) else key
            if real == "criterion":
                info.uses_criterion = True
                into[key] = {"path": str(criterion_shim)}
                if key != "criterion":
                    into[key]["package"] = "criterion"
                continue
            if real == info.name:
                continue  # the package itself (the library is added by path)
            resolved = _resolve(key, spec, crate, ws)
            if resolved is not None:
                into[key] = resolved

    for section in ("dependencies", "dev-dependencies"):
        take(doc.get(section, {}), info.deps)
    for cfg, tables in doc.get("target", {}).items():
        into: dict[str, object] = {}
        for section in ("dependencies", "dev-dependencies"):
            take(tables.get(section, {}), into)
        if into:
            info.target_deps[cfg] = into
    for bench in doc.get("bench", []):
        feats = bench.get("required-features") or []
        name = bench.get("name", "")
        paths = [bench["path"]] if isinstance(bench.get("path"), str) else [f"benches/{name}.rs", f"benches/{name}/main.rs"]
        for rel in paths:
            info.bench_features[(crate / rel).resolve()] = list(feats)
    for d in [crate, *crate.parents]:
        if (d / "Cargo.lock").is_file():
            info.lock = d / "Cargo.lock"
            break
        if ws and d == ws[0]:
            break
    return info


def toml_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise ValueError(f"cannot write {v!r} as TOML")


def toml_key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else toml_value(k)


_GROUP = re.compile(r'benchmark_group\s*\(\s*"((?:[^"\\]|\\.)*)"')
_BENCH = re.compile(r'(?:bench_function|bench_with_input)\s*\(\s*(?:BenchmarkId::new\s*\(\s*)?"((?:[^"\\]|\\.)*)"'
                    r'|\br\s*\.\s*(?:bench|func)\s*\(\s*"((?:[^"\\]|\\.)*)"')


def declared_benchmarks(path: Path) -> list[dict]:
    """The benchmarks a file declares, read as text ({name, group, line}): how a file that does not
    compile still lists them, each failing with the compiler's message. A file with none found is
    listed as one benchmark named after the file."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        text = ""
    found, seen = [], set()
    events = sorted([(m.start(), "g", m.group(1)) for m in _GROUP.finditer(text)]
                    + [(m.start(), "b", m.group(1) or m.group(2)) for m in _BENCH.finditer(text)])
    group = path.stem
    for pos, kind, value in events:
        if kind == "g":
            group = value
            continue
        key = (group, value)
        if key not in seen:
            seen.add(key)
            found.append({"name": value, "group": group, "line": text.count("\n", 0, pos) + 1})
    return found or [{"name": path.stem, "group": path.stem, "line": 0}]
