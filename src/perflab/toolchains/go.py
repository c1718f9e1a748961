"""Go: benchmarks are ordinary `func BenchmarkX(b *testing.B)` functions in a package's `_test.go` files
(and native `perflab.dev/go/perflab` registrations). The worker is the package's own test binary, built
once per (toolchain, env, sources) with `go test -c` plus:

- `-overlay`: adds a generated `zz_perflab_gen_test.go` (and `zz_perflab_gen_x_test.go` for an external
  test package) that registers the benchmarks and the worker test, and adds one file to the standard
  `testing` package (plus a five-line hook in `(*B).Run`) so a benchmark runs with the host's b.N and
  its sub-benchmarks can be selected. Nothing is written into the user's tree or the toolchain.
- `-modfile`: a copy of the user's go.mod that also requires `perflab.dev/go` (replaced by
  workers/go), so the user's go.mod/go.sum stay untouched.

Everything generated lives in `<cache>/go/<hash>/`; see workers/go/README.md for the design.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..cache import cache_dir
from ..engine import lifeline
from ..errors import PrepareError
from ..model import Runtime
from ..paths import worker_dir
from ..runtimes import go as goruntimes
from . import go_versions
from .base import LaunchSpec, Toolchain, tree_digest, walk_files

WORKER_MODULE = "perflab.dev/go"
WORKER_PKG = "perflab.dev/go/perflab"
WORKER_TEST = "TestPerflabWorkerZZ"
GEN_INTERNAL = "zz_perflab_gen_test.go"
GEN_EXTERNAL = "zz_perflab_gen_x_test.go"
GEN_VERSION = "7"  # bump when the generated code or the build steps change
WORKER_GO_MINOR = 21  # workers/go/go.mod's go line
DISCOVERY_TIMEOUT = 60  # seconds for one benchmark's sub-benchmark discovery (it runs with b.N=1)

_BENCH = re.compile(r"^func\s+(Benchmark\w*)\s*\(\s*(\w+)\s+\*\s*(\w+)\.B\s*\)", re.M)
_PERFLAB_IMPORT = re.compile(r'"perflab\.dev/go/perflab"')
_RUN_ANCHOR = "func (b *B) Run(name string, f func(b *B)) bool {\n"
_RUN_HOOK = ("\tif perflabRunHook != nil {\n\t\tif handled, ok := perflabRunHook(b, name, f); handled {\n"
             "\t\t\treturn ok\n\t\t}\n\t}\n")
# The *B's timer: its clock reads get the overlay's CPU-clock reads just outside them (protocol v2
# cpu_ns): before b.start is set (StartTimer, ResetTimer), after b.duration grows (StopTimer), and
# ResetTimer's zeroing of b.duration zeroes the CPU total too.
_TIMER_START = re.compile(r"^(\t+)(b\.start = (?:time\.Now|highPrecisionTimeNow)\(\)\n)", re.M)
_TIMER_STOP = re.compile(r"^(\t+)(b\.duration \+= (?:time\.Since|highPrecisionTimeSince)\(b\.start\)\n)", re.M)
_TIMER_RESET = re.compile(r"^(\t+)(b\.duration = 0\n)", re.M)
# StopTimer's own MemStats read: the GC count of the timed interval is taken just after it
_TIMER_STOP_MEM = re.compile(r"^(\t+)(b\.netBytes \+= memStats\.TotalAlloc - b\.startBytes\n)", re.M)


def _is_benchmark_name(name: str) -> bool:
    rest = name[len("Benchmark"):]
    return rest == "" or not rest[0].islower()


def _has_benchmarks(path: Path) -> bool:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return False
    if path.name.endswith("_test.go") and any(_is_benchmark_name(m.group(1)) for m in _BENCH.finditer(text)):
        return True
    return bool(_PERFLAB_IMPORT.search(text))


@dataclass
class BenchFunc:
    func: str
    file: str
    line: int
    may_have_subs: bool
    loop: bool
    parallel: bool = False  # calls b.RunParallel: its CPU time is the waiting goroutine's (a note says so)
    baseline: bool = False
    ops: int = 1
    categories: list[str] = field(default_factory=list)
    description: str = ""


def scan_file(path: Path) -> list[BenchFunc]:
    """The Benchmark functions of one _test.go file, with `//perflab:` directives from their comments."""
    text = path.read_text(errors="replace")
    lines = text.split("\n")
    out = []
    for m in _BENCH.finditer(text):
        name, recv = m.group(1), m.group(2)
        if not _is_benchmark_name(name) or name == WORKER_TEST:
            continue
        line = text.count("\n", 0, m.start()) + 1
        end = re.search(r"^}", text[m.end():], re.M)
        body = text[m.end(): m.end() + end.start()] if end else text[m.end():]
        bf = BenchFunc(func=name, file=str(path), line=line,
                       # b.Run in the body, or b handed to a helper that may call it
                       may_have_subs=bool(re.search(rf"\b{re.escape(recv)}\.Run\s*\(", body) or
                                          re.search(rf"[(,]\s*{re.escape(recv)}\s*[,)]", body)),
                       loop=bool(re.search(rf"\b{re.escape(recv)}\.Loop\s*\(\s*\)", body)),
                       parallel=bool(re.search(rf"\b{re.escape(recv)}\.RunParallel\s*\(", body)))
        doc = []
        i = line - 2
        while i >= 0 and lines[i].lstrip().startswith("//"):
            doc.insert(0, lines[i].strip()[2:].strip())
            i -= 1
        prose = []
        for d in doc:
            if d.startswith("perflab:"):
                for word in d[len("perflab:"):].split():
                    key, _, val = word.partition("=")
                    if key == "baseline":
                        bf.baseline = val.lower() not in ("false", "0", "no")
                    elif key == "ops" and val.isdigit() and int(val) >= 1:
                        bf.ops = int(val)
                    elif key in ("category", "categories") and val:
                        bf.categories.extend(v for v in val.split(",") if v)
            elif d and not d.startswith("go:"):
                prose.append(d)
        if prose:
            first = prose[0]
            if first.startswith(name + " "):
                first = first[len(name) + 1:]
            bf.description = first
        out.append(bf)
    return out


def _go_str(s: str) -> str:
    return json.dumps(s)  # a JSON string literal is a valid Go interpreted string literal for our inputs


def _tb_literal(pkg_alias: str, import_path: str, b: BenchFunc) -> str:
    cats = ", ".join(_go_str(c) for c in b.categories)
    return (f"\t{pkg_alias}.AddTB({pkg_alias}.TB{{Pkg: {_go_str(import_path)}, Func: {_go_str(b.func)}, "
            f"F: {b.func}, File: {_go_str(b.file)}, Line: {b.line}, MayHaveSubs: {str(b.may_have_subs).lower()}, "
            f"Loop: {str(b.loop).lower()}, Parallel: {str(b.parallel).lower()}, Baseline: {str(b.baseline).lower()}, Ops: {b.ops}, "
            f"Categories: []string{{{cats}}}, Description: {_go_str(b.description)}}})\n")


def generate_internal(pkg_name: str, import_path: str, benches: list[BenchFunc], has_loop: bool) -> str:
    loop_fn = "func(b *testingzz.B) {\n\t\tfor b.Loop() {\n\t\t}\n\t}" if has_loop else "nil"
    regs = "".join(_tb_literal("perflabzz", import_path, b) for b in benches)
    return f"""// Code generated by perflab; DO NOT EDIT. (exists only in perflab's -overlay build)

package {pkg_name}

import (
\tperflabzz "{WORKER_PKG}"
\ttestingzz "testing"
)

func init() {{
\ttestingzz.PerflabThreadCPU = perflabzz.ThreadCPUTime
\tperflabzz.UseTesting(func(name string, f func(*testingzz.B), target string, n int, discover bool) perflabzz.Result {{
\t\treturn perflabResultZZ(testingzz.PerflabRun(name, f, target, n, discover))
\t}}, func(b *testingzz.B) {{
\t\tfor i := 0; i < b.N; i++ {{
\t\t}}
\t}}, {loop_fn})
\tperflabzz.UseTestingEnd(func() perflabzz.Result {{ return perflabResultZZ(testingzz.PerflabEnd()) }})
{regs}}}

func perflabResultZZ(r testingzz.PerflabResult) perflabzz.Result {{
\treturn perflabzz.Result{{N: r.N, T: r.T, CPU: r.CPU, Bytes: r.Bytes, MemAllocs: r.MemAllocs, MemBytes: r.MemBytes,
\t\tGCs: r.GCs, Extra: r.Extra, Failed: r.Failed, Skipped: r.Skipped, Output: r.Output, Panic: r.Panic,
\t\tStack: r.Stack, Found: r.Found, Leaves: r.Leaves, Name: r.Name}}
}}

func {WORKER_TEST}(t *testingzz.T) {{ perflabzz.ServeT(t) }}
"""


def generate_external(pkg_name: str, import_path: str, benches: list[BenchFunc]) -> str:
    regs = "".join(_tb_literal("perflabzz", import_path + "_test", b) for b in benches)
    return f"""// Code generated by perflab; DO NOT EDIT. (exists only in perflab's -overlay build)

package {pkg_name}_test

import perflabzz "{WORKER_PKG}"

func init() {{
{regs}}}
"""


def stdlib_testing_overlay(goroot: Path) -> tuple[str, str]:
    """(hook file, patched benchmark.go) for the `testing` package of this GOROOT."""
    src = goroot / "src" / "testing"
    try:
        bench = (src / "benchmark.go").read_text()
        testing_go = (src / "testing.go").read_text()
    except OSError as exc:
        raise PrepareError(f"cannot read the testing package of {goroot}: {exc}") from None
    if bench.count(_RUN_ANCHOR) != 1:
        raise PrepareError(f"{goroot}: testing.(*B).Run has an unexpected shape; perflab cannot drive "
                           "testing.B benchmarks with this toolchain")
    patched = bench.replace(_RUN_ANCHOR, _RUN_ANCHOR + _RUN_HOOK)
    patched, starts = _TIMER_START.subn(r"\1perflabCPUStart(b)\n\1\2", patched)
    patched, stops = _TIMER_STOP.subn(r"\1\2\1perflabCPUStop(b)\n", patched)
    patched, resets = _TIMER_RESET.subn(r"\1\2\1perflabCPUReset(b)\n", patched)
    patched, stop_mems = _TIMER_STOP_MEM.subn(r"\1\2\1perflabGCStop(b)\n", patched)
    if (starts, stops, resets, stop_mems) != (2, 1, 1, 1):
        raise PrepareError(f"{goroot}: testing.B's timer has an unexpected shape; perflab cannot drive "
                           "testing.B benchmarks with this toolchain")
    hook = (worker_dir("go") / "overlay" / "testing_perflab.go.in").read_text()
    if "func (c *common) setOutputWriter()" in testing_go:
        hook = hook.replace("/*PERFLAB_SETOUTPUT*/", "b.setOutputWriter()")
    return hook, patched


@dataclass
class GoPackage:
    dir: Path
    import_path: str
    name: str
    module_path: str
    module_dir: Path
    gomod: Path
    internal: list[BenchFunc]
    external: list[BenchFunc]


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 900) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(argv, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise PrepareError(f"`{' '.join(argv[:3])} …` timed out after {timeout:.0f}s in {cwd}") from None
    except OSError as exc:
        raise PrepareError(f"cannot run {argv[0]}: {exc}") from None


def _build_env(runtime: Runtime) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("GOROOT", None)
    env.update({"GOTOOLCHAIN": "local", "GOWORK": "off"})
    env.update(dict(runtime.env))  # GOAMD64, GOEXPERIMENT, CGO_ENABLED… matter at build time
    return env


def _list_package(runtime: Runtime, pkg_dir: Path, env: dict[str, str]) -> GoPackage:
    out = _run([runtime.executable, "list", "-e", "-json", *runtime.flags, "."], pkg_dir, env, timeout=300)
    try:
        info = json.loads(out.stdout) if out.stdout.strip() else {}
    except ValueError:
        info = {}
    if out.returncode != 0 or not info:
        raise PrepareError(f"go list failed in {pkg_dir}:\n{(out.stderr or out.stdout).strip()}")
    module = info.get("Module") or {}
    if not module.get("GoMod"):
        raise PrepareError(f"{pkg_dir} is not inside a Go module (no go.mod); perflab builds module packages")
    err = (info.get("Error") or {}).get("Err")
    if err and not info.get("TestGoFiles") and not info.get("XTestGoFiles"):
        raise PrepareError(f"{pkg_dir}: {err}")
    name = info.get("Name") or ""
    internal, external = [], []
    for f in info.get("TestGoFiles") or []:
        internal.extend(scan_file(pkg_dir / f))
    for f in info.get("XTestGoFiles") or []:
        external.extend(scan_file(pkg_dir / f))
    if not name:
        raise PrepareError(f"{pkg_dir}: cannot tell the package name (go list: {err or 'no Go files'})")
    return GoPackage(dir=pkg_dir, import_path=info.get("ImportPath", ""), name=name,
                     module_path=module.get("Path", ""), module_dir=Path(module.get("Dir") or pkg_dir),
                     gomod=Path(module["GoMod"]), internal=internal, external=external)


def _tree_digest(root: Path, h) -> None:
    """Every Go source / module file under root (cheap staleness check)."""
    tree_digest(root, h, lambda d, fn: fn.endswith((".go", ".s", ".c", ".h"))
                or fn in ("go.mod", "go.sum", "go.work") or "testdata" in d)


def _worker_digest(h) -> None:
    wd = worker_dir("go")
    for p in sorted(list((wd / "perflab").glob("*.go")) + [wd / "go.mod", wd / "overlay" / "testing_perflab.go.in"]):
        if p.name.endswith("_test.go"):
            continue
        h.update(p.name.encode())
        h.update(p.read_bytes())


# Counting (`--measure instructions`, measures/callgrind.py). callgrind dumps after each return of the
# worker's measuredRegion, which wraps one `run` request's loop; collection flips on every entry and exit
# of each --toggle-collect function (per OS thread): measuredRegion turns it on, uncounted (entered at
# once) off again, and the benchmark function's own call (countedNative for the native API,
# testing.perflabCounted in the testing overlay) on for its duration, on whatever thread it runs.
COUNT_MARKER = "perflab.dev/go/perflab.measuredRegion"
COUNT_VALGRIND_ARGS = ("--toggle-collect=perflab.dev/go/perflab.uncounted",
                       "--toggle-collect=testing.perflabCounted",
                       "--toggle-collect=perflab.dev/go/perflab.countedNative",
                       # several packages run behind perflab-go-mux: the counted test binary is its child
                       "--trace-children=yes")
# asyncpreemptoff: the runtime's preemption signal (SIGURG) aborts callgrind 3.19 (threads.c:247
# post_signal assertion). memprofilerate=0: no randomly sampled allocation is profiled (a stack walk
# in the count). GOGC=off: no collection runs during a counted call (runN's runtime.GC() before each
# round still does, outside it); GOMEMLIMIT bounds the heap that lets grow. GOMAXPROCS=1: one P, so
# no other goroutine runs beside the counted one, and fewer threads for valgrind to serialise.
COUNT_GODEBUG = "asyncpreemptoff=1,memprofilerate=0"
COUNT_PINNED = {"GOMAXPROCS": "1", "GOGC": "off", "GOMEMLIMIT": "1GiB"}


class GoToolchain(Toolchain):
    language = "go"
    patterns = "packages with Benchmark functions in *_test.go"

    def find_sources(self, path: Path) -> list[Path]:
        """Go files that hold benchmarks: `_test.go` files with Benchmark functions, and files that
        import the native API. Their directories are the packages prepare() builds."""
        files = walk_files(path, (".go",), lambda name: True)
        root = path if path.is_dir() else path.parent
        # the go command ignores testdata/, vendor/ and directories starting with _ or .
        return [p for p in files if _has_benchmarks(p) and not any(
            part in ("testdata", "vendor") or part.startswith("_")
            for part in p.relative_to(root.resolve()).parts[:-1])]

    def discover_runtimes(self) -> list[Runtime]:
        return goruntimes.discover()

    def default_runtime_for(self, sources: list[Path]) -> tuple[Runtime | None, str]:
        """The newest installed toolchain the modules' go.mod allow (go_versions.choose_default)."""
        return go_versions.choose_default(self.discover_runtimes(), sources)

    def absence_reason(self, runtime: Runtime, bench, load_error: dict | None = None) -> str | None:
        return go_versions.absence_reason(runtime, bench)

    def resolve_path(self, path: str) -> Runtime | None:
        return goruntimes.describe(path)

    def provision(self, runtime: Runtime) -> Runtime:
        return goruntimes.provision(runtime)

    def prepare(self, runtime: Runtime, sources: list[Path], workdir: Path) -> LaunchSpec:
        if not runtime.installed or not runtime.executable:
            runtime = self.provision(runtime)
        pkg_dirs = sorted({(s if s.is_dir() else s.parent).resolve() for s in sources})
        if not pkg_dirs:
            raise PrepareError("no Go packages with benchmarks were given")
        env = _build_env(runtime)
        binaries, failed = [], []
        for d in pkg_dirs:
            try:
                binaries.append(self.build_package(runtime, d, env))
            except PrepareError as exc:  # this package's benchmarks fail alone; the others run
                files = {s.resolve() for s in sources if s.is_file() and s.resolve().parent == d}
                if any(s.is_dir() and s.resolve() == d for s in sources):
                    files |= {p.resolve() for p in self.find_sources(d) if p.resolve().parent == d}
                failed.append(failed_package_errors(d, sorted(files), str(exc)))
        run_env = {k: v for k, v in runtime.env}
        # load_paths are the benchmark files (a directory if one was given): the host can then load
        # just the file of the case it relaunches.
        load_paths = sorted({str(s.resolve()) for s in sources})
        if len(binaries) == 1 and not failed:
            binary, pkg = binaries[0]
            return LaunchSpec(argv=[str(binary), *self.test_flags()], env=run_env, cwd=str(pkg.dir),
                              load_paths=load_paths, root=str(pkg.dir))
        mux = self.build_mux(runtime, env)
        argv = [str(mux)]
        for binary, pkg in binaries:
            argv += [f"{pkg.dir}={binary}"]
        for d, errors in failed:
            argv += [f"{d}=@{_write_errors(errors)}"]
        root = os.path.commonpath([str(p.dir) for _, p in binaries] + [str(d) for d, _ in failed])
        return LaunchSpec(argv=argv, env=run_env, cwd=root, load_paths=load_paths, root=root,
                          delegates=True)

    def profile_how(self, runtime: Runtime, spec: LaunchSpec, raw_dir: Path):
        from .profiling import go_how  # see toolchains/profiling.py
        return go_how(runtime, spec, raw_dir)

    def count_profile(self, runtime: Runtime):
        """The worker's measuredRegion (a dump per run), counting only inside the benchmark
        function's own call; see workers/go/perflab/worker.go (countMode) and COUNT_PINNED."""
        from ..measures.callgrind import CountProfile
        godebug = [v for v in (dict(runtime.env).get("GODEBUG") or os.environ.get("GODEBUG"),) if v]
        env = {**COUNT_PINNED, "GODEBUG": ",".join(godebug + [COUNT_GODEBUG])}
        return CountProfile(marker=COUNT_MARKER, valgrind_args=COUNT_VALGRIND_ARGS, env=env,
                            note="Go: counted inside the benchmark function's call (GC off, one P)")

    @staticmethod
    def test_flags() -> list[str]:
        return [f"-test.run=^{WORKER_TEST}$", "-test.timeout=0", "-test.count=1", "-test.bench="]

    def _goroot(self, runtime: Runtime, env: dict[str, str]) -> tuple[Path, str, str]:
        """(GOROOT, GOVERSION, go binary) of the toolchain that builds the worker.

        Go >= 1.25 refuses an -overlay that replaces files beneath GOMODCACHE, which is where
        toolchains obtained through the module proxy live. Such a toolchain is used through a
        hard-linked copy under perflab's cache (cheap: same filesystem; copied otherwise)."""
        info = goruntimes.probe(runtime.executable)
        if not info:
            raise PrepareError(f"{runtime.executable} is not a working go command")
        goroot, goversion = Path(info["GOROOT"]), str(info.get("GOVERSION", ""))
        modcache = info.get("GOMODCACHE")
        if modcache and _is_within(goroot, Path(modcache)):
            goroot = _linked_goroot(goroot, goversion)
        return goroot, goversion, str(goroot / "bin" / "go")

    def build_package(self, runtime: Runtime, pkg_dir: Path, env: dict[str, str]) -> tuple[Path, GoPackage]:
        pkg = _list_package(runtime, pkg_dir, env)
        goroot, goversion, build_go = self._goroot(runtime, env)
        minor = int(m.group(1)) if (m := re.match(r"go1\.(\d+)", goversion)) else 99
        h = hashlib.sha256()
        h.update(f"gen{GEN_VERSION}|{runtime.executable}|{goversion}|{goroot}|{sorted(runtime.env)}|"
                 f"{pkg.dir}|{os.environ.get('GOFLAGS', '')}|{runtime.flags}".encode())
        _worker_digest(h)
        _tree_digest(pkg.module_dir, h)
        out_dir = cache_dir() / "go" / h.hexdigest()[:24]
        binary = out_dir / f"{pkg.name}.test"
        if binary.is_file():
            os.utime(out_dir)  # recently used: kept by _prune
            return binary, pkg
        _prune(out_dir.parent)
        tmp = out_dir.with_name(out_dir.name + f".tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        try:
            self._generate_and_build(runtime, pkg, goroot, build_go, minor >= 24, env, tmp)
            shutil.rmtree(out_dir, ignore_errors=True)
            os.replace(tmp, out_dir)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return binary, pkg

    def _generate_and_build(self, runtime: Runtime, pkg: GoPackage, goroot: Path, build_go: str,
                            has_loop: bool, env: dict[str, str], tmp: Path) -> None:
        replace: dict[str, str] = {}
        (tmp / "gen_internal.go").write_text(generate_internal(pkg.name, pkg.import_path, pkg.internal, has_loop))
        replace[str(pkg.dir / GEN_INTERNAL)] = str(tmp / "gen_internal.go")
        if pkg.external:
            (tmp / "gen_external.go").write_text(generate_external(pkg.name, pkg.import_path, pkg.external))
            replace[str(pkg.dir / GEN_EXTERNAL)] = str(tmp / "gen_external.go")
        hook, patched = stdlib_testing_overlay(goroot)
        (tmp / "testing_perflab.go").write_text(hook)
        (tmp / "benchmark.go").write_text(patched)
        replace[str(goroot / "src" / "testing" / "zz_perflab_hook.go")] = str(tmp / "testing_perflab.go")
        replace[str(goroot / "src" / "testing" / "benchmark.go")] = str(tmp / "benchmark.go")
        (tmp / "overlay.json").write_text(json.dumps({"Replace": replace}, indent=1))
        argv = [build_go, "test", "-c", "-vet=off", "-o", str(tmp / f"{pkg.name}.test"),
                "-overlay", str(tmp / "overlay.json")]
        if pkg.module_path != WORKER_MODULE:
            modfile = tmp / "go.mod"
            shutil.copyfile(pkg.gomod, modfile)
            gosum = pkg.gomod.with_name("go.sum")
            if gosum.is_file():
                shutil.copyfile(gosum, tmp / "go.sum")
            # the worker module says `go 1.21`, and a main module whose go line is older (or absent:
            # google/uuid) is refused with "updates to go.mod needed": the copy says go 1.21 then,
            # which changes no semantics older code relies on (the loop-variable change is 1.22)
            m = re.search(r"^go\s+1\.(\d+)", pkg.gomod.read_text(errors="replace"), re.M)
            bump = [f"-go=1.{WORKER_GO_MINOR}"] if not m or int(m.group(1)) < WORKER_GO_MINOR else []
            edit = _run([runtime.executable, "mod", "edit", f"-require={WORKER_MODULE}@v0.0.0", *bump,
                         f"-replace={WORKER_MODULE}={worker_dir('go').resolve()}", str(modfile)],
                        pkg.dir, env, timeout=120)
            if edit.returncode != 0:
                raise PrepareError(f"cannot prepare a go.mod for {pkg.dir}: {edit.stderr.strip()}")
            argv += ["-modfile", str(modfile)]
        argv += [*runtime.flags, "."]  # runtime-spec flags are build flags: go1.26:-gcflags=all=-l
        out = _run(argv, pkg.dir, env)
        if out.returncode != 0:
            msg = _clean_build_output(out.stderr or out.stdout, pkg.dir)
            raise PrepareError(f"go test -c failed for {pkg.import_path} ({runtime.name}):\n{msg}")
        self._discover(runtime, pkg, tmp / f"{pkg.name}.test")

    def _discover(self, runtime: Runtime, pkg: GoPackage, binary: Path) -> None:
        """Find the sub-benchmarks of every function that may call b.Run, each in its own process,
        into <binary>.discovery.json (the worker's `load` reads it instead of running user code)."""
        todo = [(pkg.import_path + "." + b.func, b) for b in pkg.internal if b.may_have_subs]
        todo += [(pkg.import_path + "_test." + b.func, b) for b in pkg.external if b.may_have_subs]
        found: dict[str, dict] = {}
        env = dict(os.environ)
        for key in ("PERFLAB_CONNECT", "PERFLAB_TOKEN"):
            env.pop(key, None)
        env.update(dict(runtime.env))
        for bid, b in todo:
            out_file = binary.with_name(f"discover-{len(found)}.json")
            env.update(PERFLAB_GO_DISCOVER=bid, PERFLAB_GO_DISCOVER_OUT=str(out_file))
            try:
                # it runs the user's code: nothing of it may outlive perflab or the discovery
                res = lifeline.run([str(binary), *self.test_flags()], DISCOVERY_TIMEOUT,
                                   cwd=str(pkg.dir), env=env)
                if res.returncode == 0 and out_file.is_file():
                    found[bid] = json.loads(out_file.read_text())
                else:
                    tail = (res.stderr or res.stdout).strip().splitlines()[-3:]
                    found[bid] = {"leaves": None, "error": f"exit status {res.returncode}: " + " | ".join(tail)}
            except subprocess.TimeoutExpired:
                found[bid] = {"leaves": None, "error": f"timed out after {DISCOVERY_TIMEOUT}s"}
            except (OSError, ValueError) as exc:
                found[bid] = {"leaves": None, "error": str(exc)}
            finally:
                out_file.unlink(missing_ok=True)
        binary.with_name(binary.name + ".discovery.json").write_text(json.dumps(found))

    def build_mux(self, runtime: Runtime, env: dict[str, str]) -> Path:
        h = hashlib.sha256()
        h.update(f"mux|{runtime.executable}".encode())
        src = worker_dir("go") / "cmd" / "perflab-go-mux"
        for p in sorted(src.glob("*.go")):
            h.update(p.read_bytes())
        out = cache_dir() / "go" / f"mux-{h.hexdigest()[:16]}"
        if out.is_file():
            return out
        res = _run([runtime.executable, "build", "-o", str(out) + ".tmp", "./cmd/perflab-go-mux"],
                   worker_dir("go"), env)
        if res.returncode != 0:
            raise PrepareError(f"cannot build the Go worker multiplexer: {res.stderr.strip()}")
        os.replace(str(out) + ".tmp", out)
        return out


_PACKAGE_CLAUSE = re.compile(r"^package\s+(\w+)", re.M)
_MODULE_LINE = re.compile(r"^module\s+(\S+)", re.M)


def failed_package_errors(pkg_dir: Path, files: list[Path], reason: str) -> tuple[Path, list[dict]]:
    """A package that did not build: one `loaded.errors` entry per Benchmark function of its files
    (per file, for files of the native API), each naming its benchmark with the id the worker would
    have given it, so that each fails alone with the compiler's file:line."""
    lines = [ln for ln in reason.splitlines() if ln.strip()]
    first = next((ln for ln in lines[1:] if re.match(r"^\S+\.go:\d+", ln)), lines[-1] if lines else reason)
    more = len(lines) - 2 if len(lines) > 2 else 0
    message = (f"{lines[0].rstrip(':') if lines else 'build failed'}: {first.strip()}"
               + (f" (+{more} more line(s) of compiler output)" if more else ""))
    gomod = go_versions.find_gomod(pkg_dir)
    import_path = ""
    if gomod is not None:
        m = _MODULE_LINE.search(gomod.read_text(errors="replace"))
        if m:
            rel = os.path.relpath(pkg_dir, gomod.parent)
            import_path = m.group(1) + ("" if rel == "." else "/" + rel.replace(os.sep, "/"))
    import_path = import_path or str(pkg_dir)
    errors = []
    for f in sorted(files):
        text = f.read_text(errors="replace")
        clause = _PACKAGE_CLAUSE.search(text)
        pkg_path = import_path + ("_test" if clause and clause.group(1).endswith("_test") else "")
        group = pkg_path.rsplit("/", 1)[-1].removesuffix("_test")
        benches = scan_file(f) if f.name.endswith("_test.go") else []
        for b in benches or [None]:
            name = b.func.removeprefix("Benchmark").removeprefix("_") or b.func if b else f.stem
            errors.append({"file": str(f), "line": b.line if b else 1, "kind": "load", "message": message,
                           "benchmark": {"id": f"{pkg_path}.{b.func if b else f.name}", "name": name,
                                         "group": group}})
    return pkg_dir, errors


def _write_errors(errors: list[dict]) -> Path:
    data = json.dumps(errors, indent=1)
    path = cache_dir() / "go" / f"failed-{hashlib.sha256(data.encode()).hexdigest()[:20]}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file():
        tmp = path.with_name(path.name + f".tmp{os.getpid()}")
        tmp.write_text(data)
        os.replace(tmp, path)
    return path


PRUNE_AFTER_DAYS = 30


def _prune(root: Path) -> None:
    """Forget worker builds unused for PRUNE_AFTER_DAYS (a build dir's mtime is its last use)."""
    import time
    limit = time.time() - PRUNE_AFTER_DAYS * 86400
    for d in root.iterdir() if root.is_dir() else ():
        try:
            if d.is_dir() and len(d.name) == 24 and d.stat().st_mtime < limit:
                shutil.rmtree(d, ignore_errors=True)
        except OSError:
            continue


def _is_within(path: Path, parent: Path) -> bool:
    try:
        path.resolve().relative_to(parent.resolve())
        return True
    except ValueError:
        return False


def _linked_goroot(goroot: Path, goversion: str) -> Path:
    """A hard-linked (or copied) replica of a module-cache GOROOT under perflab's cache."""
    dest = cache_dir() / "go" / "goroot" / (goversion or goroot.name)
    if (dest / "bin" / "go").is_file():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    res = subprocess.run(["cp", "-al", str(goroot), str(tmp)], capture_output=True, text=True)
    if res.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            shutil.copytree(goroot, tmp, symlinks=True)
        except OSError as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise PrepareError(f"cannot replicate {goroot} for an overlay build: {exc}") from None
    try:
        os.replace(tmp, dest)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)  # another process won the race
    return dest


def _clean_build_output(text: str, pkg_dir: Path) -> str:
    """The compiler's messages with paths made absolute (`./x_test.go:3:1` → `/abs/x_test.go:3:1`)."""
    lines = []
    for line in text.strip().splitlines():
        if line.startswith("# ") or line.startswith("FAIL") and "[build failed]" in line:
            continue
        lines.append(re.sub(r"^\./", str(pkg_dir) + os.sep, line))
    return "\n".join(lines) or text.strip()
