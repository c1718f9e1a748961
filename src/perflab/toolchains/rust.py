"""Rust: a benchmark file is a `.rs` file that defines `pub fn register(r: &mut perflab::Registry)` (see
workers/rust/README.md), or a criterion benchmark (`criterion_main!`, run unchanged on perflab's criterion
compatibility layer, workers/rust/criterion). It may sit anywhere — typically `benches/*.rs` of a cargo
crate, whose library, dependencies and dev-dependencies it can then `use` (toolchains/rust_crate.py) — or
be a standalone file. A file that does not compile fails alone: it is left out of the build and its
benchmarks are listed with the compiler's file:line (the worker reports them in `loaded.errors`).

perflab generates a binary crate in `<cache>/rust/<hash>/` that includes every benchmark file as a module
(`#[path = "/abs/file.rs"] mod …;`), depends on the worker crate (workers/rust) and on the user's library
crate by path, and builds it once per (toolchain, flags, sources) with that toolchain's cargo. Nothing is
written into the user's tree (the crate's target directory lives in the cache).

Runtime flags are build settings, separated by commas or spaces:
`rust-stable:opt-level=3,lto=fat,codegen-units=1,target-cpu=native`.
Cargo profile keys (opt-level, lto, codegen-units, debug, panic, overflow-checks, debug-assertions, strip,
incremental) become `CARGO_PROFILE_RELEASE_*`; `profile=dev` builds the dev profile instead; any other
`key=value` becomes `-C key=value` in RUSTFLAGS and a word starting with `-` is added to RUSTFLAGS as is;
`edition=2024` sets the generated crate's edition; `count-allocs=off` drops the worker's counting global
allocator (for code that installs its own). `KEY=VALUE` items (e.g. `RUSTFLAGS=-Ctarget-cpu=native`)
are set in the environment of the build and of the worker.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..cache import cache_dir
from ..errors import PrepareError
from ..model import Runtime
from ..paths import worker_dir
from ..runtimes import rust as rustruntimes
from .base import LaunchSpec, Toolchain, tree_digest, walk_files
from .rust_crate import Crate, crate_dir_of, declared_benchmarks, is_criterion_file, read_crate, toml_key, toml_value

GEN_VERSION = "3"  # bump when the generated crate or the build steps change
BUILD_TIMEOUT = 1800
BIN_NAME = "perflab-bench"

_REGISTER = re.compile(r"^\s*pub\s+fn\s+register\s*\(\s*\w+\s*:\s*&\s*mut\s+(?:perflab\s*::\s*)?Registry\s*\)", re.M)
PROFILE_KEYS = {"opt-level", "lto", "codegen-units", "debug", "panic", "overflow-checks", "debug-assertions",
                "strip", "incremental", "split-debuginfo"}


def is_bench_file(path: Path) -> bool:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return False
    return ("perflab" in text and bool(_REGISTER.search(text))) or is_criterion_file(text)


def criterion_shim() -> Path:
    return (worker_dir("rust") / "criterion").resolve()


@dataclass
class BuildSettings:
    profile: str = "release"
    edition: str = "2021"
    env: dict[str, str] | None = None
    rustflags: list[str] | None = None
    count_allocs: bool = True


def parse_flags(flags: tuple[str, ...] | list[str]) -> BuildSettings:
    st = BuildSettings(env={}, rustflags=[])
    words = [w for f in flags for w in re.split(r"[,\s]+", f) if w]
    profile_items = []
    for w in words:
        if w.startswith("-"):
            st.rustflags.append(w)
            continue
        key, eq, val = w.partition("=")
        if not eq:
            raise PrepareError(f"rust flag '{w}': expected key=value (e.g. opt-level=3, lto=fat, "
                               "target-cpu=native) or a rustc flag starting with '-'")
        if key == "profile":
            st.profile = val
        elif key == "edition":
            st.edition = val
        elif key == "count-allocs":
            st.count_allocs = val.lower() not in ("off", "false", "no", "0")
        elif key in PROFILE_KEYS:
            profile_items.append((key, val))
        else:
            st.rustflags.append(f"-C{key}={val}")
    prof = "RELEASE" if st.profile == "release" else st.profile.upper().replace("-", "_")
    if st.profile == "dev":
        prof = "DEV"
    for key, val in profile_items:
        st.env[f"CARGO_PROFILE_{prof}_{key.upper().replace('-', '_')}"] = val
    return st


_MOD = re.compile(rb'(?:#\[\s*path\s*=\s*"([^"]+)"\s*\]\s*)?(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;')
_INCLUDE = re.compile(rb'include(?:_str|_bytes)?!\s*\(\s*"([^"]+)"\s*\)')


def module_files(src: Path, seen: set[Path] | None = None) -> set[Path]:
    """Files `src` brings in at compile time, transitively: `#[path = "…"] mod m;`, `mod m;` (every place
    rustc may look for it: m.rs or m/mod.rs beside the file or under a folder named after it) and
    include!/include_str!/include_bytes!("…"). Part of the build's cache key, so editing a module shared
    by several benchmark files rebuilds them."""
    seen = set() if seen is None else seen
    try:
        text = src.read_bytes()
    except OSError:
        return seen
    found: list[Path] = []
    for m in _MOD.finditer(text):
        if m.group(1):
            found.append(src.parent / m.group(1).decode(errors="replace"))
        else:
            name = m.group(2).decode()
            for base in (src.parent, src.parent / src.stem):
                found += [base / f"{name}.rs", base / name / "mod.rs"]
    found += [src.parent / m.group(1).decode(errors="replace") for m in _INCLUDE.finditer(text)]
    for p in found:
        p = p.resolve()
        if p not in seen and p.is_file():
            seen.add(p)
            if p.suffix == ".rs":
                module_files(p, seen)
    return seen


def _tree_digest(root: Path, h) -> None:
    tree_digest(root, h, lambda d, fn: fn.endswith(".rs") or fn in ("Cargo.toml", "Cargo.lock",
                                                                     "build.rs"))


def _worker_digest(h) -> None:
    wd = worker_dir("rust")
    shim = criterion_shim()
    for p in [wd / "Cargo.toml", *sorted((wd / "src").glob("*.rs")), shim / "Cargo.toml",
              *sorted((shim / "src").glob("*.rs"))]:
        h.update(p.name.encode())
        h.update(p.read_bytes())


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _mod_name(i: int, path: Path) -> str:
    stem = re.sub(r"\W", "_", path.stem)
    return f"m{i}_{stem}"


def _dependencies(crates: list[Crate], sources: list[Path], criterion: bool, count_allocs: bool) -> list[str]:
    """The [dependencies] (and target-specific tables) for benchmark files of `crates`: the worker, each
    package's library (with the features its benches require), its dependencies and dev-dependencies
    (the first package wins a name both declare), criterion answered by perflab's compatibility layer."""
    worker_features = "" if count_allocs else ", default-features = false"
    lines = ["[dependencies]", f"perflab = {{ path = {_toml_str(str(worker_dir('rust').resolve()))}{worker_features} }}"]
    deps: dict[str, object] = {}
    target_deps: dict[str, dict[str, object]] = {}
    for c in crates:
        if c.has_lib and c.name != "perflab":
            feats = sorted({f for s in sources for f in c.bench_features.get(s, [])})
            deps.setdefault(c.name, {"path": str(c.dir), **({"features": feats} if feats else {})})
    if criterion:
        deps.setdefault("criterion", {"path": str(criterion_shim())})
    for c in crates:
        for key, spec in c.deps.items():
            deps.setdefault(key, spec)
        for cfg, table in c.target_deps.items():
            for key, spec in table.items():
                if key not in deps:
                    target_deps.setdefault(cfg, {}).setdefault(key, spec)
    deps.pop("perflab", None)
    lines += [f"{toml_key(key)} = {toml_value(spec)}" for key, spec in deps.items()]
    for cfg, table in target_deps.items():
        lines += ["", f"[target.{toml_value(cfg)}.dependencies]"]
        lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in table.items()]
    return lines


def generate(sources: list[Path], crate_of: dict[Path, Crate | None], edition: str, count_allocs: bool = True,
             criterion_files: frozenset[Path] = frozenset(), numbering: dict[Path, int] | None = None
             ) -> dict[str, str]:
    """The files of the generated workspace (relative path → text). Files written with perflab's API are
    modules of the binary crate (`#[path = "/abs/file.rs"] mod …;`). A criterion file is, as under
    `cargo bench`, the root of a crate of its own (benches/<i>/, a library whose `register` the binary
    calls): its `#[macro_use] extern crate …`, crate attributes and `mod …;` work as they do there, in its
    package's edition (2015 when the package names none). `numbering` keeps each file's names when a
    rebuild leaves others out (so the files already built are not built again)."""
    def crates(srcs: list[Path]) -> list[Crate]:
        found = []
        for s in srcs:
            c = crate_of.get(s)
            if c and c not in found:
                found.append(c)
        return found

    modules = [s for s in sources if s not in criterion_files]
    roots = [s for s in sources if s in criterion_files]
    files: dict[str, str] = {}
    lines = ["[package]", f'name = "{BIN_NAME}"', 'version = "0.0.0"', f'edition = "{edition}"',
             "publish = false", "", "[[bin]]", f'name = "{BIN_NAME}"', 'path = "main.rs"', ""]
    lines += _dependencies(crates(modules), modules, any(c.uses_criterion for c in crates(modules)), count_allocs)
    main = ["// Generated by perflab; DO NOT EDIT.", "#![allow(dead_code, unused_imports)]", ""]
    regs = []
    for i, src in enumerate(sources):
        i = numbering.get(src, i) if numbering else i
        name = _mod_name(i, src)
        if src in criterion_files:
            lib = f"perflab_{name}"
            c = crate_of.get(src)
            file_edition = (c.edition or "2015") if c else edition
            files[f"benches/{i}/Cargo.toml"] = "\n".join(
                ["[package]", f'name = "{lib}"', 'version = "0.0.0"', f'edition = "{file_edition}"', "publish = false",
                 "", "[lib]", f"path = {_toml_str(str(src))}", "test = false", "doctest = false", "bench = false", ""]
                + _dependencies([c] if c else [], [src], True, count_allocs) + [""])
            lines.insert(lines.index("[dependencies]") + 1, f'{lib} = {{ path = "benches/{i}" }}')
            regs.append(f"{lib}::register")
        else:
            main.append(f"#[path = {_toml_str(str(src))}]")
            main.append(f"mod {name};")
            regs.append(f"{name}::register")
    lines += ["", "[workspace]", ""]
    main += ["", f"perflab::main!({', '.join(regs)});", ""]
    files["Cargo.toml"] = "\n".join(lines)
    files["main.rs"] = "\n".join(main)
    return files


_ERR = re.compile(r"^(error(?:\[\w+\])?: .*)\n\s*--> (.+?):(\d+):(\d+)", re.M)


def format_build_error(stderr: str) -> str:
    """cargo's output reduced to its errors, each headed `file:line:col: error…`."""
    text = stderr.replace("\r", "")
    heads = [f"{m.group(2)}:{m.group(3)}:{m.group(4)}: {m.group(1)}" for m in _ERR.finditer(text)]
    # the full diagnostics, without progress lines and warnings
    blocks, keep = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("Compiling ", "Updating ", "Locking ", "Adding ", "Blocking ", "Finished ")):
            continue
        if line.startswith("warning"):
            keep = False
        elif line.startswith("error"):
            keep = True
        if keep:
            blocks.append(line)
    detail = "\n".join(blocks).strip()
    return "\n".join(heads + ([detail] if detail else [])) or text.strip()[-4000:]


class RustToolchain(Toolchain):
    language = "rust"
    patterns = ".rs files with pub fn register(r: &mut perflab::Registry), or criterion benches (criterion_main!)"

    def find_sources(self, path: Path) -> list[Path]:
        return [p for p in walk_files(path, (".rs",), lambda name: True) if is_bench_file(p)]

    def discover_runtimes(self) -> list[Runtime]:
        return rustruntimes.discover()

    def default_runtime(self) -> Runtime | None:
        rts = [r for r in self.discover_runtimes() if r.installed]
        return rts[0] if rts else None

    def resolve_path(self, path: str) -> Runtime | None:
        return rustruntimes.describe(path)

    def provision(self, runtime: Runtime) -> Runtime:
        return rustruntimes.provision(runtime)

    def profile_how(self, runtime: Runtime, spec: LaunchSpec, raw_dir: Path):
        from .profiling import native_how  # see toolchains/profiling.py
        return native_how(runtime, spec, raw_dir)

    def count_profile(self, runtime: Runtime):
        """Native code repeats its count exactly: the worker's marker, the default tolerance."""
        from ..measures.callgrind import CountProfile
        return CountProfile(marker="perflab_measured_region")

    def prepare(self, runtime: Runtime, sources: list[Path], workdir: Path) -> LaunchSpec:
        if not runtime.executable or not os.path.isfile(runtime.executable):
            raise PrepareError(f"{runtime.name}: rustc not found ({runtime.executable or 'not installed'}); "
                               "install the toolchain with rustup")
        sources = sorted({Path(s).resolve() for s in sources})
        if not sources:
            raise PrepareError("no Rust benchmark files were given")
        binary, errors_file = self.build(runtime, sources)
        root = os.path.commonpath([str(s.parent) for s in sources])
        env = {k: v for k, v in runtime.env}
        env["PERFLAB_RUST_LOAD_ERRORS"] = str(errors_file)
        return LaunchSpec(argv=[str(binary)], env=env, cwd=root,
                          load_paths=[str(s) for s in sources], root=root)

    def build(self, runtime: Runtime, sources: list[Path]) -> tuple[Path, Path]:
        """The benchmark binary for `runtime`, and the JSON file listing the `loaded.errors` of the files
        that did not compile (left out of the binary; the others are built without them)."""
        settings = parse_flags(runtime.flags)
        cargo = rustruntimes.cargo_for(runtime)
        shim = criterion_shim()
        crate_of = {src: crate_dir_of(src) for src in sources}
        crates = {d: read_crate(d, shim) for d in sorted({d for d in crate_of.values() if d})}
        criterion_files = {src for src in sources if is_criterion_file(src.read_text(errors="replace"))}
        h = hashlib.sha256()
        h.update(f"{GEN_VERSION}|{runtime.executable}|{runtime.version}|{runtime.flags}|{runtime.env}\n".encode())
        _worker_digest(h)
        for src in sources:
            h.update(str(src).encode())
            h.update(src.read_bytes())
            for mod in sorted(module_files(src)):
                h.update(f"module {mod}\n".encode())
                h.update(mod.read_bytes())
        for d, c in crates.items():
            h.update(f"crate {c.name} {d} {c.lock}\n".encode())
            _tree_digest(d, h)
            if c.lock:
                h.update(c.lock.read_bytes())
        key = h.hexdigest()[:20]
        out_dir = cache_dir() / "rust" / key
        out_dir.mkdir(parents=True, exist_ok=True)
        profile_dir = "debug" if settings.profile == "dev" else settings.profile
        binary = out_dir / "target" / profile_dir / BIN_NAME
        marker = out_dir / "built"
        errors_file = out_dir / "load_errors.json"
        if marker.is_file() and binary.is_file() and errors_file.is_file():
            return binary, errors_file
        with open(out_dir / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if marker.is_file() and binary.is_file() and errors_file.is_file():
                return binary, errors_file
            lockfile = next((c.lock for c in crates.values() if c.lock), None)
            if lockfile and not (out_dir / "Cargo.lock").is_file():
                # the package's own versions of its dependencies (cargo adds what is missing)
                shutil.copyfile(lockfile, out_dir / "Cargo.lock")
            env = self._build_env(runtime, settings, out_dir)
            argv = [cargo, "build", "--profile", settings.profile, "--bin", BIN_NAME,
                    "-j", os.environ.get("PERFLAB_BUILD_JOBS", "1")]
            live, failed = list(sources), {}
            if _keeps_going(runtime):
                argv.append("--keep-going")  # every file's errors in one build
            while True:
                shutil.rmtree(out_dir / "benches", ignore_errors=True)
                files = generate(live, {s: crates[crate_of[s]] if crate_of[s] else None for s in live},
                                 settings.edition, settings.count_allocs, frozenset(criterion_files),
                                 {s: i for i, s in enumerate(sources)})
                for rel, text in files.items():
                    (out_dir / rel).parent.mkdir(parents=True, exist_ok=True)
                    (out_dir / rel).write_text(text)
                try:
                    out = subprocess.run(argv, cwd=str(out_dir), env=env, capture_output=True, text=True,
                                         timeout=BUILD_TIMEOUT)
                except subprocess.TimeoutExpired:
                    raise PrepareError(f"cargo build timed out after {BUILD_TIMEOUT}s") from None
                except OSError as exc:
                    raise PrepareError(f"cannot run {cargo}: {exc}") from None
                if out.returncode == 0 and binary.is_file():
                    break
                text = out.stderr or out.stdout
                blamed = blame(text, live, crate_of, out_dir)
                if not blamed:
                    raise PrepareError(f"cargo build failed:\n{format_build_error(text)}")
                failed.update(blamed)
                live = [s for s in live if s not in blamed]
            errors = [entry for src, why in sorted(failed.items()) for entry in compile_errors(src, why)]
            errors_file.write_text(json.dumps(errors, indent=1))
            marker.write_text("ok\n")
        return binary, errors_file

    def _build_env(self, runtime: Runtime, settings: BuildSettings, out_dir: Path) -> dict[str, str]:
        env = dict(os.environ)
        for k in list(env):
            if k.startswith("CARGO_PROFILE_") or k in ("CARGO_BUILD_TARGET", "CARGO_TARGET_DIR"):
                env.pop(k)
        env.update({"RUSTC": runtime.executable, "CARGO_TARGET_DIR": str(out_dir / "target"),
                    "PERFLAB_RUSTC_VERSION": runtime.version, "CARGO_TERM_COLOR": "never"})
        env.pop("RUSTC_WRAPPER", None)
        channel = Path(runtime.executable).parent.parent.name
        if (rustruntimes.rustup_home() / "toolchains" / channel).is_dir():
            env["RUSTUP_TOOLCHAIN"] = channel
        env.update(settings.env or {})
        env.update(dict(runtime.env))
        if settings.rustflags:
            env["RUSTFLAGS"] = " ".join(filter(None, [env.get("RUSTFLAGS", ""), *settings.rustflags]))
        return env


def _keeps_going(runtime: Runtime) -> bool:
    """cargo build --keep-going is stable from cargo 1.74."""
    m = re.match(r"(\d+)\.(\d+)", runtime.version or "")
    return bool(m) and (int(m.group(1)), int(m.group(2))) >= (1, 74)


def blame(stderr: str, live: list[Path], crate_of: dict[Path, Path | None], out_dir: Path) -> dict[Path, str]:
    """The benchmark files cargo's errors point into (the file itself or a module it brings in; an error
    in a package's library blames every file of that package), each with its first error as one line
    `error[E…]: message at file:line:col`. Empty: the errors are nobody's file (dependencies, linking)."""
    owners: dict[Path, list[Path]] = {}
    for src in live:
        for f in [src, *module_files(src)]:
            owners.setdefault(f.resolve(), []).append(src)
    blamed: dict[Path, str] = {}
    for m in _ERR.finditer(stderr.replace("\r", "")):
        where = Path(m.group(2))
        where = (where if where.is_absolute() else out_dir / where).resolve()
        line = f"{m.group(1)} at {where}:{m.group(3)}:{m.group(4)}"
        hit = owners.get(where)
        if hit is None:
            hit = [s for s in live if crate_of.get(s) and where.is_relative_to(crate_of[s])
                   and not where.is_relative_to(crate_of[s] / "benches")]
        for src in hit:
            blamed.setdefault(src, line)
    return blamed


def compile_errors(src: Path, why: str) -> list[dict]:
    """`loaded.errors` entries for a file that does not compile: one per benchmark it declares, so each
    fails alone in the table with the compiler's file:line."""
    out = []
    for b in declared_benchmarks(src):
        out.append({"file": str(src), "line": b["line"], "kind": "load",
                    "message": f"does not compile: {why}",
                    "benchmark": {"id": f"{b['group']}.{b['name']}", "name": b["name"], "group": b["group"]}})
    return out


def clear(runtime_dir: Path) -> None:  # pragma: no cover - maintenance helper
    shutil.rmtree(runtime_dir, ignore_errors=True)
