"""C# on Mono: benchmark classes written for BenchmarkDotNet (`[Benchmark]`, `[Params]`, `[Arguments]`,
`[GlobalSetup]`…) run unedited. Sources are `*.cs` files that have a `[Benchmark]` method; no .csproj.

Built with the Mono installation's own `mcs` into `<cache>/csharp/`, never into the user's tree:

1. `BenchmarkDotNet.dll` — perflab's stand-in for BenchmarkDotNet's attributes and the namespaces
   benchmark files `using` (workers/csharp/BenchmarkDotNet) — and the worker, `perflab-worker.exe`
   (workers/csharp/src), once per compiler and worker source;
2. every benchmark file into an assembly of its own, keyed by its content: a file that does not compile
   fails alone (its first compiler error with file:line goes to the `loaded` reply), and files that
   declare the same class name (seed snippets all call theirs `Tests` or `Program`) never collide. A
   file's own `Main` (`BenchmarkSwitcher.FromAssembly(…).Run(args)`) compiles too: it is a library's
   static method that the worker never calls.

The worker runs as `mono [spec flags] perflab-worker.exe` and gets the list of built assemblies in
PERFLAB_CSHARP_MANIFEST. Runtime flags come from the spec: `mono:--interpreter`, `mono:-O=all`.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..cache import cache_dir
from ..errors import PrepareError
from ..model import Runtime
from ..paths import worker_dir
from ..runtimes import mono as monoruntimes
from .base import LaunchSpec, Toolchain, after_executable, walk_files

BUILD_VERSION = "1"  # bump when the build steps change
WORKER_EXE = "perflab-worker.exe"
SHIM_DLL = "BenchmarkDotNet.dll"

# Assemblies a BenchmarkDotNet project references by default (the SDK's implicit references),
# as far as Mono has them: a seed file may use HttpClient, BigInteger, ZipArchive…
REFERENCES = ["System.dll", "System.Core.dll", "System.Numerics.dll", "System.Net.Http.dll",
              "System.IO.Compression.dll", "System.Runtime.Serialization.dll", "System.Xml.dll",
              "System.Xml.Linq.dll", "System.Data.dll", "System.Drawing.dll", "Microsoft.CSharp.dll"]
FACADES = ["System.Runtime.dll", "System.Memory.dll", "System.Threading.Tasks.Extensions.dll",
           "System.Buffers.dll", "System.Numerics.Vectors.dll", "System.Collections.Immutable.dll",
           "System.Runtime.CompilerServices.Unsafe.dll", "netstandard.dll"]

_BENCHMARK_ATTR = re.compile(r"\[\s*(?:BenchmarkDotNet\.Attributes\.)?Benchmark(?:Attribute)?\s*[\](,]")
_MCS_ERROR = re.compile(r"^(.*?)\((\d+),(\d+)\): error (CS\d+): (.*)$", re.M)


def has_benchmarks(path: Path) -> bool:
    try:
        return bool(_BENCHMARK_ATTR.search(path.read_text(errors="replace")))
    except OSError:
        return False


def _run(argv: list[str], timeout: float = 300) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise PrepareError(f"`{' '.join(argv[:2])} …` timed out after {timeout:.0f}s") from None
    except OSError as exc:
        raise PrepareError(f"cannot run {argv[0]}: {exc}") from None


def compiler_errors(text: str, limit: int = 12) -> str:
    """The compiler's error lines (warnings dropped), at most `limit`."""
    lines = [ln for ln in text.strip().splitlines() if ": error " in ln or ln.startswith("error ")]
    if not lines:
        lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return "\n".join(lines[:limit]) + ("\n…" if len(lines) > limit else "")


def load_error(source: Path, text: str) -> dict:
    """A `loaded.errors` entry for a file mcs rejects: its first error's line and the errors' text."""
    m = _MCS_ERROR.search(text)
    line = int(m.group(2)) if m and Path(m.group(1)).name == source.name else 0
    return {"file": str(source), "line": line, "kind": "load", "message": f"mcs: {compiler_errors(text)}"}


# -- files written in a newer C# than mcs parses -------------------------------------------------
# Mono's mcs parses C# 6 and part of C# 7 (no local functions) and says so only as syntax errors
# ("Unexpected symbol `var', expecting `('"). A file whose FIRST error is such a syntax error at a
# construct of a newer C# cannot exist on this runtime as written: its benchmarks are NA with the
# feature and version, not failures. Any other first error (a missing .NET API…) stays a failure.
# (pattern searched around the error's column, literals blanked; feature; C# version)
_NEWER_SYNTAX = [
    (r"\busing\s+(?:var\b|[\w.]+(?:<[\w<>, .]*>)?\s+\w+\s*=)", "a using declaration (`using var x = …`)", "8"),
    (r"\bawait\s+using\b", "await using", "8"),
    (r"\bswitch\s*\{|[\w)\]]\s+switch\b(?!\s*\()", "a switch expression", "8"),
    (r"\?\?=", "the ??= operator", "8"),
    (r"\[\s*\^|[\w)\]]\s*\.\.\s*[\w^(\]]|\[\s*\.\.", "indices and ranges (`^1`, `a..b`)", "8"),
    (r"^\s*#nullable\b", "nullable reference types (#nullable)", "8"),
    (r"\bnew\s*\(\s*\)", "a target-typed `new()`", "9"),
    (r"\brecord\s+(?:struct\s+|class\s+)?\w+", "a record", "9"),
    (r"\binit\s*;", "an init accessor", "9"),
    (r"\bis\s+not\b", "a `not` pattern", "9"),
    (r"^\s*namespace\s+[\w.]+\s*;", "a file-scoped namespace", "10"),
    (r"^\s*global\s+using\b", "global using", "10"),
    (r'"""', "a raw string literal", "11"),
]
_SYNTAX_ERRORS = {"CS1001", "CS1002", "CS1003", "CS1024", "CS1026", "CS1031", "CS1041", "CS1513", "CS1514",
                  "CS1519", "CS1525", "CS8025", "CS9010"}
_LOCAL_FUNCTION = re.compile(r"Unexpected symbol `(?:\w+|\()', expecting `,', `;', or `='")
_FEATURE_WORDS = re.compile(r"Feature `([^']+)' cannot be used because it is not part of the C# ([\d.]+)")
_NATIVE_INT = re.compile(r"The type or namespace name `n(?:u)?int' could not be found")
_TYPE_DECL = re.compile(r"^\s*(?:\[[^\]]*\]\s*)*(?:(?:public|internal|sealed|static|abstract|partial)\s+)*"
                        r"(?:class|struct|interface|enum|namespace)\b")


def _blank_literals(line: str) -> str:
    s = re.sub(r'@"(?:[^"]|"")*"', lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', line)
    s = re.sub(r'"(?:\\.|[^"\\])*"', lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', s)
    return re.sub(r"'(?:\\.|[^'\\])'", "' '", s)


def needs_newer_csharp(source: Path, compiler_output: str) -> str | None:
    """Why a file mcs rejects needs a newer C# than this compiler parses ("needs C# 8 (a using
    declaration, line 42): Mono's mcs compiles C# 7"), from its first error; None when it fails for
    another reason."""
    m = next((e for e in _MCS_ERROR.finditer(compiler_output) if Path(e.group(1)).name == source.name), None)
    if m is None:
        return None
    line_no, col, code, message = int(m.group(2)), int(m.group(3)), m.group(4), m.group(5)
    where = f"line {line_no}"
    f = _FEATURE_WORDS.search(message)
    if f:
        return f"needs a newer C# ({f.group(1)}, {where}): Mono's mcs compiles C# {f.group(2)}"
    if code in ("CS1502", "CS1503") and re.search(r"\b(?:object|string)\?", message):
        # mcs reads `string?` (a C# 8 nullable reference) as something else and then finds no overload
        return f"needs C# 8 (nullable reference types, `string?`, {where}): Mono's mcs compiles C# 7"
    if code == "CS0246" and _NATIVE_INT.search(message):
        return f"needs C# 9 (native-sized integers nint/nuint, {where}): Mono's mcs compiles C# 7"
    if code == "CS0128" and "named `_'" in message:  # `out long _, out int _`: two typed discards
        return f"needs C# 7 typed discards (`out T _`, {where}), which Mono's mcs does not implement"
    if code not in _SYNTAX_ERRORS | {"CS0136"}:
        return None
    try:
        lines = source.read_text(encoding="utf-8", errors="replace").split("\n")
    except OSError:
        return None
    if not 1 <= line_no <= len(lines):
        return None
    if code == "CS0136":  # a local of a lambda/anonymous method named like an outer one: allowed since C# 8
        nested = any(re.search(r"\bdelegate\b|=>", _blank_literals(ln)) for ln in lines[max(0, line_no - 6):line_no])
        return (f"needs C# 8 (a name in a lambda or anonymous method shadowing an outer one, {where}): "
                "Mono's mcs compiles C# 7") if nested else None
    text = _blank_literals(lines[line_no - 1])
    window = text[max(0, col - 1 - 60):col - 1 + 30]
    for pattern, feature, version in _NEWER_SYNTAX:
        if re.search(pattern, window) or (pattern.startswith("^") and re.search(pattern, text)):
            return f"needs C# {version} ({feature}, {where}): Mono's mcs compiles C# 7"
    # a statement before the file's first type: top-level statements (C# 9)
    first_type = next((k for k, ln in enumerate(lines) if _TYPE_DECL.match(ln)), len(lines))
    if line_no - 1 < first_type and not re.match(r"^\s*(?:using\b|\[|//|#|$)", lines[line_no - 1]):
        return f"needs C# 9 (top-level statements, {where}): Mono's mcs compiles C# 7"
    if code == "CS1525" and _LOCAL_FUNCTION.search(message):
        return f"needs C# 7 local functions ({where}), which Mono's mcs does not implement"
    return None


_HEADER = re.compile(r"\A(?:\s*//[^\n]*\n)*?\s*//\s*perflab:\s*\{", re.M)
_ATTRIBUTES_AFTER = re.compile(r"\[\s*Benchmark\b[^\]]*\](?:\s*\[[^\]]*\])*")
_NAME_OR_ANGLE = re.compile(r"[<>]|\b(\w+)\s*\(")


def has_header(text: str) -> bool:
    """Does the file start with a `// perflab: {…}` comment (a corpus file copied verbatim)?"""
    return bool(_HEADER.match(text))


def declared_benchmarks(text: str) -> list[dict]:
    """The `[Benchmark]` methods of a source read as text (name and line): how a corpus file that does
    not compile still lists its benchmarks, each failing with the compiler's message."""
    # a `//` comment runs to the end of its line, unless code follows on that line (seed 003's
    # snippets were flattened onto one line each); comments keep their length so lines still count
    text = "\n".join(re.sub(r"//[^;]*$", lambda c: " " * len(c.group(0)), line) for line in text.split("\n"))
    found = []
    for m in _ATTRIBUTES_AFTER.finditer(text):
        decl = re.split(r"\{|=>|;", text[m.end():], maxsplit=1)[0]
        name = method_name(decl)
        if name:
            found.append({"name": name, "line": text.count("\n", 0, m.start()) + 1})
    return found


def method_name(declaration: str) -> str | None:
    """`public async Task<(int, int)> Run(int x)` → `Run`: the first identifier followed by `(` outside
    the return type's angle brackets."""
    depth = 0
    for m in _NAME_OR_ANGLE.finditer(declaration):
        if m.group(0) == "<":
            depth += 1
        elif m.group(0) == ">":
            depth -= 1
        elif depth == 0:
            return m.group(1)
    return None


def _framework_dir(mcs: Path) -> Path | None:
    """Mono's 4.5 profile directory (the assemblies mcs references), e.g. /usr/lib/mono/4.5."""
    for prefix in (mcs.resolve().parent.parent, Path("/usr")):
        d = prefix / "lib" / "mono" / "4.5"
        if d.is_dir():
            return d
    return None


def reference_flags(mcs: Path) -> list[str]:
    """-r: flags for the default references this Mono has (a missing one is simply not referenced)."""
    fw = _framework_dir(mcs)
    flags = []
    for name in REFERENCES:
        if fw is None or (fw / name).is_file():
            flags.append(f"-r:{name}")
    if fw is not None:
        flags += [f"-r:{fw / 'Facades' / name}" for name in FACADES if (fw / "Facades" / name).is_file()]
    return flags


# The native function each counted timed loop runs inside (see workers/csharp/src/CountRegion.cs).
COUNT_MARKER = "lfind"


class CSharpToolchain(Toolchain):
    language = "csharp"
    patterns = "*.cs with [Benchmark] methods"

    def __init__(self) -> None:
        self._newer_csharp: dict[str, dict[str, str]] = {}  # runtime label → file → why it is NA

    def find_sources(self, path: Path) -> list[Path]:
        if path.is_file():
            return [path.resolve()] if path.suffix == ".cs" else []
        own = worker_dir("csharp").resolve()  # the worker's and the shim's sources are never benchmarks
        return [p for p in walk_files(path, (".cs",), lambda name: True)
                if own not in p.parents and has_benchmarks(p)]

    def discover_runtimes(self) -> list[Runtime]:
        return monoruntimes.discover()

    def resolve_path(self, path: str) -> Runtime | None:
        return monoruntimes.describe(path)

    def provision(self, runtime: Runtime) -> Runtime:
        return monoruntimes.provision(runtime)

    # -- building ---------------------------------------------------------------------------------

    def _mono(self, runtime: Runtime) -> tuple[Path, Path]:
        if not runtime.installed or not runtime.executable:
            runtime = self.provision(runtime)
        mono = Path(runtime.executable)
        if not mono.is_file():
            raise PrepareError(f"{runtime.name}: {mono} does not exist (is Mono still installed?)")
        mcs = monoruntimes.compiler_of(mono)
        if mcs is None:
            raise PrepareError(f"{runtime.name}: no C# compiler (mcs) beside {mono}: install mono-devel "
                               "(or mono-complete)")
        if "--llvm" in runtime.flags:
            _, text = monoruntimes.mono_version(str(mono))
            if not monoruntimes.llvm_available(text):
                raise PrepareError(f"{runtime.label}: this Mono ({runtime.version}) was built without its LLVM "
                                   "back end (`mono --version` says LLVM: supported, not enabled); --llvm "
                                   "would silently run the JIT")
        return mono, mcs

    def _build_once(self, out: Path, steps: list[list[str]], what: str) -> Path:
        out.mkdir(parents=True, exist_ok=True)
        with open(out / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (out / "ok").is_file():
                for argv in steps:
                    res = _run(argv)
                    if res.returncode != 0:
                        raise PrepareError(f"cannot build {what} with {argv[0]}:\n"
                                           f"{compiler_errors(res.stdout + res.stderr)}")
                (out / "ok").write_text("ok")
        return out

    def build_shim(self, runtime: Runtime, mcs: Path) -> Path:
        """The directory holding BenchmarkDotNet.dll (perflab's stand-in) for this compiler. Benchmark
        assemblies depend on it alone, so changing the worker does not rebuild them."""
        root = worker_dir("csharp")
        shim = sorted((root / "BenchmarkDotNet").glob("*.cs"))
        if not shim:
            raise PrepareError(f"the C# worker sources are missing ({root / 'BenchmarkDotNet'})")
        h = hashlib.sha256(f"shim|{BUILD_VERSION}|{mcs.resolve()}|{runtime.version}\n".encode())
        for p in shim:
            h.update(p.name.encode())
            h.update(p.read_bytes())
        out = cache_dir() / "csharp" / f"shim-{h.hexdigest()[:16]}"
        return self._build_once(out, [[str(mcs), "-target:library", "-optimize+", "-debug", "-nowarn:1591",
                                       f"-out:{out / SHIM_DLL}", *map(str, shim)]],
                                "perflab's BenchmarkDotNet attributes")

    def build_worker(self, runtime: Runtime, mcs: Path, shim: Path) -> Path:
        """The directory holding perflab-worker.exe and a copy of BenchmarkDotNet.dll beside it."""
        root = worker_dir("csharp")
        srcs = sorted((root / "src").glob("*.cs"))
        if not srcs:
            raise PrepareError(f"the C# worker sources are missing ({root / 'src'})")
        h = hashlib.sha256(f"worker|{BUILD_VERSION}|{mcs.resolve()}|{shim}\n".encode())
        for p in srcs:
            h.update(p.name.encode())
            h.update(p.read_bytes())
        out = cache_dir() / "csharp" / f"worker-{h.hexdigest()[:16]}"
        out.mkdir(parents=True, exist_ok=True)
        if not (out / SHIM_DLL).is_file():  # Mono resolves the benchmarks' reference from the exe's folder
            shutil.copyfile(shim / SHIM_DLL, out / SHIM_DLL)
        return self._build_once(out, [[str(mcs), "-optimize+", "-debug", f"-r:{shim / SHIM_DLL}",
                                       "-r:System.Core.dll", f"-out:{out / WORKER_EXE}", *map(str, srcs)]],
                                "perflab's C# worker")

    def build_file(self, mcs: Path, shim: Path, source: Path) -> dict:
        """One benchmark file → its own assembly (cached by content): a manifest entry with `assembly`
        or with the compiler's `error`."""
        text = source.read_bytes()
        h = hashlib.sha256(f"bench|{BUILD_VERSION}|{shim}|{source}\n".encode())
        h.update(text)
        out = cache_dir() / "csharp" / f"bench-{h.hexdigest()[:20]}"
        out.mkdir(parents=True, exist_ok=True)
        dll = out / (re.sub(r"[^\w.-]", "_", source.stem) + ".dll")
        with open(out / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (out / "result.json").is_file():
                res = _run([str(mcs), "-target:library", "-optimize+", "-debug", "-unsafe", "-nowarn:0169,0414,0649,1998",
                            "-langversion:experimental", f"-r:{shim / SHIM_DLL}", *reference_flags(mcs),
                            f"-out:{dll}", str(source)])
                entry = ({"source": str(source), "assembly": str(dll)} if res.returncode == 0 else
                         {"source": str(source), "error": load_error(source, res.stdout + res.stderr)})
                source_text = text.decode("utf-8", errors="replace")
                if res.returncode != 0 and has_header(source_text):
                    # a corpus file: its benchmarks are listed and fail alone, the run goes on
                    entry["benchmarks"] = declared_benchmarks(source_text)
                (out / "result.json").write_text(json.dumps(entry))
        return json.loads((out / "result.json").read_text())

    def unavailable_reason(self, runtime: Runtime, bench) -> str | None:
        """A benchmark of a file written in a newer C# than this Mono's mcs parses (see prepare)."""
        return self._newer_csharp.get(runtime.label, {}).get(bench.file)

    def profile_how(self, runtime: Runtime, spec: LaunchSpec, raw_dir: Path):
        from .profiling import mono_how  # see toolchains/profiling.py
        return mono_how(runtime, spec, raw_dir)

    def count_profile(self, runtime: Runtime):
        """Counted inside libc's `lfind`: in count mode the worker runs each run's timed loop in the
        comparison callback of a one-element lfind (workers/csharp/src/CountRegion.cs). Mono compiles a
        method once, at its first call, into anonymous memory: hence --smc-check=all-non-file."""
        from ..measures.callgrind import CountProfile
        return CountProfile(marker=COUNT_MARKER, valgrind_args=("--smc-check=all-non-file",))

    def count_spec(self, spec: LaunchSpec, runtime: Runtime, profile) -> LaunchSpec:
        return after_executable(spec, profile.runtime_args)

    def prepare(self, runtime: Runtime, sources: list[Path], workdir: Path) -> LaunchSpec:
        mono, mcs = self._mono(runtime)
        shim = self.build_shim(runtime, mcs)
        worker = self.build_worker(runtime, mcs, shim)
        files = sorted({s.resolve() for s in sources if s.is_file() and s.suffix == ".cs"})
        for d in sorted({s.resolve() for s in sources if s.is_dir()}):
            files += [p for p in self.find_sources(d) if p not in files]
        if not files:
            raise PrepareError("no C# benchmark sources were given")
        # one mcs per file (a file that does not compile fails alone), as many at once as there are
        # CPUs: the seeds' 197 files took minutes one by one on a cold cache
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            entries = list(pool.map(lambda f: self.build_file(mcs, shim, f), files))
        # files in a newer C# than this mcs parses: their benchmarks are NA here (unavailable_reason)
        self._newer_csharp[runtime.label] = {
            e["source"]: why for e in entries if "error" in e
            and (why := needs_newer_csharp(Path(e["source"]), str(e["error"].get("message") or "")))}
        for e in entries:  # listed (by name, read as text) so that each is NA, a corpus file or not
            if e["source"] in self._newer_csharp[runtime.label] and "benchmarks" not in e:
                e["benchmarks"] = declared_benchmarks(Path(e["source"]).read_text(encoding="utf-8", errors="replace"))
        h = hashlib.sha256(json.dumps(entries, sort_keys=True).encode())
        manifest = cache_dir() / "csharp" / f"manifest-{h.hexdigest()[:20]}.json"
        if not manifest.is_file():
            tmp = manifest.with_suffix(".tmp")
            tmp.write_text(json.dumps({"files": entries}, indent=1))
            tmp.replace(manifest)
        load_paths = [str(f) for f in files]
        root = os.path.commonpath([str(f.parent) for f in files])
        env = {k: v for k, v in runtime.env}
        env["PERFLAB_CSHARP_MANIFEST"] = str(manifest)
        # the working folder is perflab's for this run, not the sources' folder: seed code writes files
        # to relative paths (Path.GetRandomFileName()), and BenchmarkDotNet runs benchmarks from its
        # own build folder too, never from the sources'
        workdir.mkdir(parents=True, exist_ok=True)
        return LaunchSpec(argv=[str(mono), *runtime.flags, str(worker / WORKER_EXE)], env=env,
                          cwd=str(workdir), load_paths=load_paths, root=root)
