"""How each language's worker is profiled (`run --profile`): the launch under the runtime's own
sampling profiler, where its output lands, and which frames are perflab's. Each toolchain's
`profile_how` calls the function of its language here (measures/profile.py has the shapes).
"""
from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
from pathlib import Path

from ..measures import profile_formats as formats
from ..measures.profile import PROFILE_ENV, Frame, NotProfilable, ProfileFailed, ProfileHow
from ..model import Runtime
from ..paths import worker_dir
from .base import LaunchSpec, after_executable


def _with_env(spec: LaunchSpec, **env: str) -> LaunchSpec:
    return dataclasses.replace(spec, env={**spec.env, **env})


def _under(path: str, folder: Path) -> bool:
    if not path:
        return False
    path = path[7:] if path.startswith("file://") else path
    try:
        return os.path.realpath(path).startswith(os.path.realpath(folder) + os.sep)
    except (OSError, ValueError):
        return False


def _one(raw_dir: Path, pattern: str, tool: str) -> Path:
    found = sorted(raw_dir.glob(pattern))
    if not found:
        raise ProfileFailed(f"{tool} wrote no profile")
    return found[-1]


# -- Python (CPython, PyPy): the worker's own sampler ------------------------------------------

def python_how(runtime: Runtime, spec: LaunchSpec, raw_dir: Path) -> ProfileHow:
    """The worker samples its measuring thread itself (workers/python/perflab.py, _Sampler): the
    standard library's sys._current_frames, so nothing is installed and CPython and PyPy alike work."""
    out = raw_dir / "python-samples.jsonl"
    wdir = worker_dir("python")

    def harness(f: Frame) -> bool:
        return f.file.startswith("<perflab-") or _under(f.file, wdir)

    def read(d: Path):
        if not out.is_file():
            raise ProfileFailed("the worker's sampler wrote no profile")
        return out, formats.read_python_samples(out)

    note = ""
    if "pypy" in (runtime.implementation or runtime.name).lower():
        note = ("PyPy: the JIT inlines the benchmark into perflab's timed loop and lets the sampling "
                "thread run only at that loop's boundaries, so most samples see the loop, not the "
                "benchmark's frames")
    return ProfileHow(spec=_with_env(spec, **{PROFILE_ENV: str(out)}), tool="perflab sampler (sys._current_frames, ~1 kHz)",
                      read=read, harness=harness, note=note)


# -- Node: V8's --cpu-prof ----------------------------------------------------------------------

# the worker's frames of a `run` request: its handler, and the timed loop it resumes in a microtask
NODE_RUN = ("onRun", "timeIterations", "perflabLoop")


def node_how(runtime: Runtime, spec: LaunchSpec, raw_dir: Path) -> ProfileHow:
    wdir = worker_dir("node")
    flags = ["--cpu-prof", f"--cpu-prof-dir={raw_dir}", "--cpu-prof-interval=1000"]

    def harness(f: Frame) -> bool:
        return _under(f.file, wdir) or f.file.startswith("node:")

    def read(d: Path):
        # one file per thread, CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: the main thread's
        # (0) runs the benchmark; the others are the module hooks' and workers' threads
        main = [p for p in sorted(d.glob("*.cpuprofile")) if p.name.split(".")[4:5] == ["0"]]
        path = main[-1] if main else _one(d, "*.cpuprofile", "node --cpu-prof")
        # (idle): the worker waiting for the host's next request, no cost of the benchmark's
        return path, [(s, n) for s, n in formats.read_cpuprofile(path)
                      if [f.name for f in s] != ["(idle)"]]

    return ProfileHow(spec=after_executable(spec, flags), tool="V8 --cpu-prof (1 kHz)", read=read,
                      harness=harness, in_run=lambda f: f.name in NODE_RUN and _under(f.file, wdir))


# -- Go: runtime/pprof, started by the worker ----------------------------------------------------

GO_HARNESS_PREFIXES = ("testing.", "perflab/", "perflab.", "runtime.goexit", "main.main", "runtime.main")


def go_how(runtime: Runtime, spec: LaunchSpec, raw_dir: Path) -> ProfileHow:
    """The worker wraps the workload run in pprof.StartCPUProfile (workers/go/perflab/worker.go,
    profileMode): Go's own CPU profiler, at 1 kHz."""
    out = raw_dir / "go-cpu.pprof"

    def harness(f: Frame) -> bool:
        return f.name.startswith(GO_HARNESS_PREFIXES) or "/perflab." in f.name

    def read(d: Path):
        if not out.is_file():
            raise ProfileFailed("the worker wrote no pprof profile")
        return out, formats.read_pprof(out)

    return ProfileHow(spec=_with_env(spec, **{PROFILE_ENV: str(out)}), tool="Go runtime/pprof (1 kHz)",
                      read=read, harness=harness)


# -- Java: JDK Flight Recorder -------------------------------------------------------------------

def java_how(runtime: Runtime, spec: LaunchSpec, raw_dir: Path) -> ProfileHow:
    home = Path(runtime.executable).resolve().parent
    jfr = home / "jfr"
    if not jfr.is_file():
        raise NotProfilable(f"{runtime.name} has no `jfr` tool beside java ({home}): a JRE without the JDK's tools")
    rec = raw_dir / "java.jfr"
    # only execution samples, every millisecond of CPU (JFR's own "profile" settings: 10 ms)
    jfc = raw_dir / "perflab.jfc"
    jfc.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<configuration version="2.0">\n'
                   '  <event name="jdk.ExecutionSample"><setting name="enabled">true</setting>'
                   '<setting name="period">1 ms</setting></event>\n</configuration>\n')
    flags = [f"-XX:StartFlightRecording=filename={rec},settings={jfc},dumponexit=true",
             "-XX:FlightRecorderOptions=stackdepth=256"]

    def harness(f: Frame) -> bool:
        # perflab's worker, and the class it generates per benchmark (<Class>_perflab_<method>)
        return (f.name.startswith(("perflab.", "org.openjdk.jmh.", "jdk.internal.reflect.",
                                   "java.lang.reflect.Method.invoke", "java.lang.invoke."))
                or "_perflab_" in f.name)

    def read(d: Path):
        if not rec.is_file():
            raise ProfileFailed("JFR wrote no recording")
        out = d / "java-samples.json"
        with open(out, "w") as f:
            done = subprocess.run([str(jfr), "print", "--events", "jdk.ExecutionSample", "--stack-depth", "256", "--json", str(rec)],
                                  stdout=f, stderr=subprocess.PIPE, text=True, timeout=600)
        if done.returncode != 0:
            raise ProfileFailed(f"jfr print failed: {done.stderr.strip()[:200]}")
        return rec, formats.read_jfr_json(out)

    return ProfileHow(spec=after_executable(spec, flags), tool="JDK Flight Recorder (jdk.ExecutionSample, 1 ms)",
                      read=read, harness=harness, in_run=lambda f: f.name == "perflab.internal.Worker.onRun")


def perf_usable() -> str:
    """'' when `perf record -e cpu-clock` can run here, else why not (one line)."""
    if shutil.which("perf") is None:
        return "`perf` is not installed (Debian: linux-perf)"
    try:
        level = int(Path("/proc/sys/kernel/perf_event_paranoid").read_text().strip())
    except (OSError, ValueError):
        return "the kernel has no perf events (/proc/sys/kernel/perf_event_paranoid is missing)"
    if level > 2 and os.geteuid() != 0:
        return f"the kernel refuses perf events (perf_event_paranoid is {level})"
    return ""


# -- native code (C/C++, Rust): perf record -e cpu-clock ---------------------------------------------

NATIVE_HARNESS = ("perflab::", "perflab_", "_start", "__libc_start")
# `perf script` with inlined functions named gets this long, then runs again without them
PERF_INLINE_TIMEOUT_S = 30.0
PERF_SCRIPT_TIMEOUT_S = 600.0


def native_how(runtime: Runtime, spec: LaunchSpec, raw_dir: Path) -> ProfileHow:
    """The worker's launch under `perf record -e cpu-clock` (a software event: no hardware counters
    needed, so it works in a VM), call stacks unwound from DWARF (release builds keep no frame
    pointers). Frames are symbols; the benchmark's are those named after it."""
    why = perf_usable()
    if why:
        raise NotProfilable(f"{why}; `--measure instructions` shows its instructions by function instead")
    data = raw_dir / "perf.data"
    perf = shutil.which("perf") or "perf"
    argv = [perf, "record", "-q", "-e", "cpu-clock", "-F", "999", "--call-graph", "dwarf,16384",
            "-o", str(data), "--", *spec.argv]

    def harness(f: Frame) -> bool:
        return f.name.startswith(NATIVE_HARNESS) or f.name == "main"

    def read(d: Path):
        if not data.is_file():
            raise ProfileFailed("perf record wrote no data")
        script = [perf, "script", "-i", str(data), "-F", "comm,tid,ip,sym,dso"]
        try:
            done = subprocess.run(script, capture_output=True, text=True, timeout=PERF_INLINE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            # perf names inlined functions by running addr2line over every binary sampled: over a
            # process the benchmark started (rustc, with its 100+ MB libLLVM) that took 10 minutes
            done = subprocess.run([*script, "--no-inline"], capture_output=True, text=True,
                                  timeout=PERF_SCRIPT_TIMEOUT_S)
            how.note = " ".join(filter(None, [how.note, (
                f"Inlined functions are not shown: perf's addr2line did not name them within "
                f"{PERF_INLINE_TIMEOUT_S:g} s; each is inside the function it was inlined into")]))
        if done.returncode != 0:
            raise ProfileFailed(f"perf script failed: {done.stderr.strip()[:200]}")
        return data, formats.read_perf_script(done.stdout)

    note = ""
    if runtime.language == "rust":
        note = ("Rust: the benchmark's closure is inlined into perflab::perflab_bench_call, the frame that "
                "stands for it here; what it calls and was not inlined appears under it")
    how = ProfileHow(spec=dataclasses.replace(spec, argv=argv),
                     tool="perf record -e cpu-clock (999 Hz, DWARF stacks)", read=read, harness=harness,
                     own_by_name=True, own_names=("perflab::perflab_bench_call",), note=note)
    return how


# -- C# on Mono -------------------------------------------------------------------------------------

def mono_how(runtime: Runtime, spec: LaunchSpec, raw_dir: Path) -> ProfileHow:
    """Not yet: Mono 6.8's log profiler samples (`--profile=log:sample`), but `mprof-report` reports
    samples as flat hit counts per method, without their call stacks, at about 40 Hz here."""
    raise NotProfilable("Mono's log profiler (--profile=log:sample) reports flat hit counts per method, "
                        "without call stacks, so there is no flame graph to draw; "
                        "`--measure instructions` counts it by function instead")
