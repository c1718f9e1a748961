"""Java: benchmark classes use perflab's annotations (package `perflab`, JMH-like: @Benchmark, @Param,
@Setup/@TearDown with Level.Trial/Iteration/Invocation, @Baseline, @OperationsPerInvocation) and live in
`*Bench.java` / `*Benchmark.java` files (or any .java file that imports `perflab.`).

Built once per (JDK, sources) with that JDK's own javac into `<cache>/java/<hash>/` — the user's tree is
never written to and no build tool is needed:

1. the worker (workers/java/src) → `<cache>/java/worker-<hash>/classes` (once per JDK);
2. the benchmark sources (with `-sourcepath` set to their package roots, so helper classes come along);
3. `perflab.internal.Gen` writes one loop class per @Benchmark method (a direct, monomorphic call in a
   loop of its own, plus the same loop around an empty method of the same shape for the `overhead`
   stage), compiled next to the benchmarks.

The worker JVM runs with the JDK's compiler blackhole (`-XX:CompileCommand=blackhole,…`, JDK 17+) when the
JVM accepts it; the runtime spec's flags come after perflab's, so `jdk25:-XX:+UseParallelGC` wins.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from ..cache import cache_dir
from ..errors import PrepareError
from ..model import Runtime
from ..paths import worker_dir
from ..runtimes import java as javaruntimes
from .base import LaunchSpec, Toolchain, after_executable, tree_digest, walk_files

GEN_VERSION = "2"  # bump when the build steps or the generated code change
BLACKHOLE_FLAGS = ["-XX:+UnlockExperimentalVMOptions", "-XX:CompileCommand=quiet",
                   "-XX:CompileCommand=blackhole,perflab/Blackhole.sink*", "-Dperflab.blackhole=compiler"]
MAIN_CLASS = "perflab.internal.Main"

_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)
_USES_PERFLAB = re.compile(r"^\s*import\s+(static\s+)?(perflab|org\.openjdk\.jmh\.annotations)\.|@perflab\.Benchmark\b", re.M)


def is_bench_name(name: str) -> bool:
    return name.endswith(("Bench.java", "Benchmark.java", "Benchmarks.java")) and name != "module-info.java"


def _uses_perflab(path: Path) -> bool:
    try:
        return bool(_USES_PERFLAB.search(path.read_text(errors="replace")))
    except OSError:
        return False


def _run(argv: list[str], cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(argv, cwd=str(cwd) if cwd else None, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        raise PrepareError(f"`{' '.join(argv[:2])} …` timed out after {timeout:.0f}s") from None
    except OSError as exc:
        raise PrepareError(f"cannot run {argv[0]}: {exc}") from None


def _javac_message(text: str, limit: int = 40) -> str:
    lines = [ln for ln in text.strip().splitlines() if not ln.startswith("Note: ")]
    return "\n".join(lines[:limit]) + ("\n…" if len(lines) > limit else "")


def source_root(path: Path) -> Path:
    """The directory that holds the top of the file's package (its -sourcepath root)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return path.parent
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    m = _PACKAGE.search(text)
    root = path.parent
    if m:
        parts = m.group(1).split(".")
        if list(root.parts[-len(parts):]) == parts:
            root = Path(*root.parts[:-len(parts)])
    return root


def _tree_digest(root: Path, h) -> None:
    tree_digest(root, h, lambda d, fn: fn.endswith(".java"))


def _uses_jmh(path: Path) -> bool:
    if path.is_dir():
        return any(_uses_jmh(p) for p in path.rglob("*.java"))
    try:
        return "org.openjdk.jmh.annotations" in path.read_text(errors="replace")
    except OSError:
        return False


def newest_jmh_core() -> Path | None:
    base = Path(os.environ.get("M2_REPO") or Path.home() / ".m2" / "repository") / "org" / "openjdk" / "jmh" / "jmh-core"
    jars = [j for d in base.glob("*") for j in d.glob("jmh-core-*.jar")
            if not j.name.endswith(("-sources.jar", "-javadoc.jar"))]
    return max(jars, key=lambda j: javaruntimes.version_tuple(j.parent.name), default=None)


_JAVAC_ERROR = re.compile(r"^(.*?\.java):(\d+): error: (.*)$", re.M)


def _load_error(path: Path, text: str) -> dict:
    """A `loaded.errors` entry for a file javac rejects: its first error's file, line and message.
    The file fails alone, as one failed row named after its class (`benchmark`: engine/plan.py
    fails such an entry's case and measures the rest), unless it only needs a newer JDK: then its
    benchmarks are absent on this JDK (NA), which `absence_reason` finds by the file."""
    m = _JAVAC_ERROR.search(text)
    message = _javac_message(text, limit=12)
    if m is None:
        err = {"file": str(path), "line": 0, "kind": "load", "message": message}
    else:
        ours = Path(m.group(1)) == path
        err = {"file": m.group(1) if ours else str(path), "line": int(m.group(2)) if ours else 0,
               "kind": "load", "message": f"javac: {message}"}
    if not _NEEDS_NEWER_JDK.search(text):
        if m is not None:  # a row of the table: javac's first error on one line
            err["message"] = f"does not compile: javac: {_first_error(text, m)}"
        cls = _class_name(path)
        err["benchmark"] = {"id": cls, "name": cls.rsplit(".", 1)[-1], "group": cls}
    return err


def _first_error(text: str, m: re.Match) -> str:
    """javac's first error on one line: its message, and the symbol it could not find, if any."""
    rest = text[m.end():].splitlines()
    symbol = next((" ".join(ln.split()) for ln in rest[:6] if ln.strip().startswith("symbol:")), "")
    return m.group(3).strip() + (f" ({symbol})" if symbol else "")


def _class_name(path: Path) -> str:
    """The file's top-level class, qualified by its package."""
    try:
        text = re.sub(r"/\*.*?\*/", " ", path.read_text(errors="replace"), flags=re.S)
    except OSError:
        return path.stem
    m = _PACKAGE.search(re.sub(r"//[^\n]*", "", text))
    return f"{m.group(1)}.{path.stem}" if m else path.stem


# javac's words for "this language feature needs a newer JDK" (records on 11, a preview feature…)
_NEEDS_NEWER_JDK = re.compile(r"^.*(?:not supported in -source \d+|use -source \d+ or higher|"
                              r"use --release \d+ or higher|(?:is|are) a preview feature).*$", re.M)


def absence_reason(runtime: Runtime, load_error: dict | None) -> str | None:
    """A benchmark whose file this JDK cannot compile because it uses a newer language feature is
    absent here (NA), not failed. A missing API reads like any other error, so it stays a failure."""
    m = _NEEDS_NEWER_JDK.search(str((load_error or {}).get("message") or ""))
    if m is None:
        return None
    line = re.sub(r"^.*?error:\s*", "", m.group(0).strip())
    return f"not compiled by {runtime.label}: {line}"


def worker_sources() -> list[Path]:
    return sorted((worker_dir("java") / "src").rglob("*.java"))


# The native function each counted timed loop runs inside, and the JVM flags that pin when code is
# compiled: one compiler (C2 only, no tiers) that compiles while the thread waits (-Xbatch), so a
# method is replaced by its compiled code at the same call every launch; the serial collector, whose
# pauses run on the VM thread (callgrind counts only the thread inside the marker). The worker calls
# each loop past CompileThreshold before its first counted run (CountRegion.tierUp). Implicit null
# checks (a fault in compiled code, turned into a branch by the JVM's signal handler) crash C2 code
# under valgrind (JDK 17: SIGSEGV at address 0xc in ConcurrentHashMap.putVal), so C2 tests explicitly;
# no periodic safepoint (once a second by the wall clock) stops the counted thread at a random point.
COUNT_MARKER = "JVM_CallStackWalk"
COUNT_JVM_FLAGS = ("-XX:+UseSerialGC", "-XX:-TieredCompilation", "-XX:CompileThreshold=100", "-Xbatch",
                   "-XX:CICompilerCount=1", "-XX:-UsePerfData",
                   "-XX:+UnlockDiagnosticVMOptions", "-XX:-ImplicitNullChecks",
                   "-XX:GuaranteedSafepointInterval=0")


class JavaToolchain(Toolchain):
    language = "java"
    patterns = "*Bench.java, *Benchmark.java"

    def absence_reason(self, runtime: Runtime, bench, load_error: dict | None = None) -> str | None:
        return absence_reason(runtime, load_error)

    def find_sources(self, path: Path) -> list[Path]:
        if path.is_file():
            return [path.resolve()] if path.suffix == ".java" else []
        files = walk_files(path, (".java",), lambda name: True)
        own = worker_dir("java").resolve()  # the worker's own sources are never benchmarks
        return [p for p in files if (is_bench_name(p.name) or _uses_perflab(p)) and own not in p.parents]

    def discover_runtimes(self) -> list[Runtime]:
        return javaruntimes.discover()

    def resolve_path(self, path: str) -> Runtime | None:
        p = Path(path).expanduser()
        if p.is_file() and p.name not in ("java", "java.exe"):
            return None
        return javaruntimes.describe(p)

    def provision(self, runtime: Runtime) -> Runtime:
        return javaruntimes.provision(runtime)

    # -- building ---------------------------------------------------------------------------------

    def _jdk(self, runtime: Runtime) -> tuple[Path, Path]:
        if not runtime.installed or not runtime.executable:
            runtime = self.provision(runtime)
        java = Path(runtime.executable)
        if not java.is_file():
            raise PrepareError(f"{runtime.name}: {java} does not exist (is the JDK still installed?)")
        javac = java.parent / "javac"
        if not javac.is_file():
            raise PrepareError(f"{runtime.name} at {java.parent.parent} has no javac (a JRE?): perflab builds "
                               "Java benchmarks with the JDK's own javac; install the full JDK")
        vt = javaruntimes.version_tuple(runtime.version)
        if vt and vt[0] < javaruntimes.MIN_FEATURE:
            raise PrepareError(f"{runtime.name} is Java {runtime.version}; perflab's Java worker needs "
                               f"JDK >= {javaruntimes.MIN_FEATURE}")
        return java, javac

    def build_worker(self, runtime: Runtime, java: Path, javac: Path) -> tuple[Path, list[str]]:
        """The worker's classes for this JDK, and the JVM flags that enable the compiler blackhole."""
        h = hashlib.sha256(f"worker|{GEN_VERSION}|{java.resolve()}|{runtime.version}\n".encode())
        srcs = worker_sources()
        if not srcs:
            raise PrepareError(f"the Java worker sources are missing ({worker_dir('java') / 'src'})")
        for p in srcs:
            h.update(str(p.relative_to(worker_dir("java"))).encode())
            h.update(p.read_bytes())
        out = cache_dir() / "java" / f"worker-{h.hexdigest()[:16]}"
        classes = out / "classes"
        marker = out / "ok"
        out.mkdir(parents=True, exist_ok=True)
        with open(out / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not marker.is_file():
                shutil.rmtree(classes, ignore_errors=True)
                res = _run([str(javac), "-encoding", "UTF-8", "-g", "-nowarn", "-d", str(classes),
                            *[str(p) for p in srcs]])
                if res.returncode != 0:
                    raise PrepareError(f"cannot build perflab's Java worker with {javac}:\n"
                                       f"{_javac_message(res.stderr + res.stdout)}")
                probe = _run([str(java), *BLACKHOLE_FLAGS, "-cp", str(classes), "-version"], timeout=120)
                text = probe.stdout + probe.stderr
                ok = probe.returncode == 0 and "Unrecognized" not in text and "error occurred" not in text
                (out / "blackhole").write_text("compiler" if ok else "volatile")
                marker.write_text("ok")
        flags = BLACKHOLE_FLAGS if (out / "blackhole").read_text().strip() == "compiler" else []
        return classes, flags

    def build_benchmarks(self, runtime: Runtime, java: Path, javac: Path, worker: Path,
                         sources: list[Path]) -> Path:
        files = sorted({s.resolve() for s in sources if s.is_file() and s.suffix == ".java"})
        for d in sorted({s.resolve() for s in sources if s.is_dir()}):
            files += [p for p in self.find_sources(d) if p not in files]
        if not files:
            raise PrepareError("no Java benchmark sources were given")
        roots = sorted({source_root(f) for f in files})
        h = hashlib.sha256(f"bench|{GEN_VERSION}|{java.resolve()}|{runtime.version}|{worker}\n".encode())
        h.update(os.pathsep.join(self.user_classpath(runtime, files)).encode())
        for f in files:
            h.update(str(f).encode())
            h.update(f.read_bytes())
        for r in roots:
            h.update(str(r).encode())
            _tree_digest(r, h)
        out = cache_dir() / "java" / h.hexdigest()[:20]
        classes = out / "classes"
        marker = out / "ok"
        out.mkdir(parents=True, exist_ok=True)
        with open(out / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if marker.is_file():
                return classes
            shutil.rmtree(classes, ignore_errors=True)
            shutil.rmtree(out / "gen", ignore_errors=True)
            user_cp = self.user_classpath(runtime, files)
            classpath = os.pathsep.join([str(worker), *user_cp])
            sourcepath = os.pathsep.join(str(r) for r in roots)

            def compile_to(batch: list[Path], dest: Path) -> subprocess.CompletedProcess:
                return _run([str(javac), "-encoding", "UTF-8", "-g", "-parameters", "-proc:none",
                             "-implicit:class", "-sourcepath", sourcepath, "-cp", classpath,
                             "-d", str(dest), *[str(f) for f in batch]])

            res = compile_to(files, classes)
            load_errors: list[dict] = []
            if res.returncode != 0 and len(files) > 1:
                # a file that does not compile fails alone: find the ones that compile on their own
                good = []
                for f in files:
                    alone = compile_to([f], out / "probe")
                    shutil.rmtree(out / "probe", ignore_errors=True)
                    if alone.returncode == 0:
                        good.append(f)
                    else:
                        load_errors.append(_load_error(f, alone.stderr + alone.stdout))
                if good:
                    shutil.rmtree(classes, ignore_errors=True)
                    res = compile_to(good, classes)
            if res.returncode != 0:
                hint = ""
                if "package org.openjdk.jmh" in res.stderr + res.stdout:
                    hint = ("\n(these benchmarks use JMH's annotations: put jmh-core on the classpath with "
                            "PERFLAB_CLASSPATH=/path/jmh-core.jar, or `mvn dependency:get "
                            "-Dartifact=org.openjdk.jmh:jmh-core:1.37`)")
                raise PrepareError(f"javac ({runtime.name}) cannot compile the benchmarks:\n"
                                   f"{_javac_message(res.stderr + res.stdout)}{hint}")
            (out / "load-errors.json").write_text(json.dumps(load_errors))
            gen = out / "gen"
            cp = os.pathsep.join([str(worker), str(classes), *user_cp])
            res = _run([str(java), "-cp", cp, "perflab.internal.Gen", str(classes), str(gen)], timeout=300)
            if res.returncode != 0:
                raise PrepareError(f"generating the benchmark loops failed:\n{(res.stderr or res.stdout).strip()[-3000:]}")
            generated = [ln for ln in (gen / "sources.txt").read_text().splitlines() if ln.strip()]
            if generated:
                res = _run([str(javac), "-encoding", "UTF-8", "-g", "-proc:none", "-nowarn", "-cp", cp,
                            "-d", str(classes), *generated])
                if res.returncode != 0:
                    raise PrepareError("the generated benchmark loops do not compile (is a benchmark's class or "
                                       "return type private?):\n" + _javac_message(res.stderr + res.stdout))
            marker.write_text("ok")
        return classes

    @staticmethod
    def user_classpath(runtime: Runtime, sources: list[Path] | None = None) -> list[str]:
        """Extra classpath entries: PERFLAB_CLASSPATH (or CLASSPATH) from the runtime spec's env or from
        perflab's own environment; plus, for sources written against JMH's annotations, the newest
        jmh-core in the local Maven repository (~/.m2) unless the classpath already has one."""
        env = dict(runtime.env)
        extra = env.get("PERFLAB_CLASSPATH") or env.get("CLASSPATH") or os.environ.get("PERFLAB_CLASSPATH") or ""
        cp = [p for p in extra.split(os.pathsep) if p]
        if sources and not any("jmh-core" in Path(p).name for p in cp) and any(_uses_jmh(s) for s in sources):
            jar = newest_jmh_core()
            if jar is not None:
                cp.append(str(jar))
        return cp

    def profile_how(self, runtime: Runtime, spec: LaunchSpec, raw_dir: Path):
        from .profiling import java_how  # see toolchains/profiling.py
        return java_how(runtime, spec, raw_dir)

    def count_profile(self, runtime: Runtime):
        """Counted inside `JVM_CallStackWalk`: in count mode the worker runs each run's timed loop inside
        StackWalker.walk (workers/java/src/perflab/internal/CountRegion.java). The JVM writes its
        compiled code into anonymous memory, hence --smc-check=all-non-file; COUNT_JVM_FLAGS make
        compilation happen at the same points every launch."""
        from ..measures.callgrind import CountProfile
        return CountProfile(marker=COUNT_MARKER, valgrind_args=("--smc-check=all-non-file",),
                            runtime_args=COUNT_JVM_FLAGS)

    def count_spec(self, spec: LaunchSpec, runtime: Runtime, profile) -> LaunchSpec:
        return after_executable(spec, profile.runtime_args)

    def prepare(self, runtime: Runtime, sources: list[Path], workdir: Path) -> LaunchSpec:
        java, javac = self._jdk(runtime)
        worker, flags = self.build_worker(runtime, java, javac)
        classes = self.build_benchmarks(runtime, java, javac, worker, sources)
        cp = os.pathsep.join([str(worker), str(classes), *self.user_classpath(runtime, sources)])
        errors_file = classes.parent / "load-errors.json"
        load_paths = sorted({str(s.resolve()) for s in sources})
        roots = sorted({str(source_root(Path(p))) if Path(p).is_file() else p for p in load_paths})
        root = os.path.commonpath(roots) if roots else str(workdir)
        env = {k: v for k, v in runtime.env if k not in ("CLASSPATH", "PERFLAB_CLASSPATH")}
        if errors_file.is_file() and errors_file.read_text().strip() not in ("", "[]"):
            env["PERFLAB_JAVA_LOAD_ERRORS"] = str(errors_file)
        vt = javaruntimes.version_tuple(runtime.version)
        if "jmh-core" in cp and vt and vt[0] >= 23:
            # JMH's Blackhole uses sun.misc.Unsafe; JDK 23+ would warn on stderr (counted as output)
            flags = [*flags, "--sun-misc-unsafe-memory-access=allow"]
        return LaunchSpec(argv=[str(java), *flags, *runtime.flags, "-cp", cp, MAIN_CLASS], env=env, cwd=root,
                          load_paths=load_paths, root=root)
