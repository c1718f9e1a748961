"""The host's own cost per case, as a run grows: it must stay flat (target ≤ 5 ms per case).

    .venv/bin/python bench/host_overhead.py [--cases 100,1000] [--store none|PATH]
    .venv/bin/python bench/host_overhead.py --synthetic 100,1000,10000 [--case-seconds 0.22]

For each N, a Python benchmark file of N/10 trivial benchmarks over 10 parameter values (N cases) is
run with the dry job (one call per case). Host overhead = the command's wall time minus the time the
engine spent in the cases (each case's `wall_seconds`: starting its worker and measuring), divided
by N; it holds preparing the runtime once, judging, the progress line, the history store and the
results document. The marginal figure — the difference between two sizes divided by the difference
in cases — leaves out the fixed costs (Python start, provisioning, loading): it is the per-case cost.
The host process's CPU time (all its threads: the engine's, the output drains, the reaper) is the
same cost as work done, which the load of a shared machine does not stretch: on 2 CPUs the wall-time
figure also holds the host waiting for a CPU while the case's worker exits beside it.
"""
from __future__ import annotations

import argparse
import ast
import sys
import tempfile
import time
from pathlib import Path

from _common import perflab_run, write_bench

PER_BENCHMARK = 10  # cases per benchmark (its parameter values)
HEADER = "import perflab\n"
BENCHMARK = """

@perflab.params(i=list(range({per})))
@perflab.benchmark
def trivial_{j}(i):
    return i
"""


def source(n: int) -> str:
    """n trivial cases: n/10 benchmarks of 10 parameter values. (Not one benchmark of n values: each
    case's record carries its benchmark's parameter list, so that file would measure O(n) bytes per
    case — a property of the results format, see the report — rather than the host's bookkeeping.)"""
    return HEADER + "".join(BENCHMARK.format(per=PER_BENCHMARK, j=j) for j in range(n // PER_BENCHMARK))


# run inside the measured command: times the recording (perflab.recording: judging the case, the
# log, the store, the document at its interval) and writes the total to a file, with the CPU time
# of the host process (all its threads, not its children: the workers)
INNER = """
import resource, runpy, sys, time
from perflab import recording
spent = [0.0]
def timed(fn):
    def wrapper(*a, **k):
        t0 = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            spent[0] += time.perf_counter() - t0
    return wrapper
recording.Recorder.add = timed(recording.Recorder.add)
recording.Recorder.write = timed(recording.Recorder.write)
out = sys.argv.pop(1)
sys.argv[0] = "perflab"
try:
    runpy.run_module("perflab.cli", run_name="__main__")
finally:
    me = resource.getrusage(resource.RUSAGE_SELF)
    open(out, "w").write(repr((spent[0], me.ru_utime + me.ru_stime)))
"""


def measure(n: int, store: str) -> tuple[float, float, float, float, int]:
    """(wall s, time in cases s, time recording s, the host process's CPU s, cases in the document)
    of a dry run of n cases."""
    folder = Path(tempfile.mkdtemp(prefix="perflab-host-"))
    path = write_bench(folder, "bench_trivial.py", source(n))
    store_arg = store if store == "none" else f"sqlite:///{folder / 'history.db'}" if store == "temp" else store
    spent = folder / "recording-seconds"
    # a Python worker's start is 0.25-0.35 s a case: 10,000 cases take about an hour
    doc, wall = perflab_run(path, "--job", "dry", "--store", store_arg,
                            "--quiet", out=folder / "out", python=["-c", INNER, str(spent)],
                            timeout_s=max(1800.0, 1.0 * n))
    in_cases = sum(c.get("wall_seconds") or 0.0 for c in doc["cases"])
    recording, cpu = ast.literal_eval(spent.read_text())
    return wall, in_cases, recording, cpu, len(doc["cases"])


def synthetic(n: int, folder: Path, case_s: float = 0.0) -> tuple[float, int]:
    """The recording alone, in this process, for n finished cases with dry-run-like samples (no
    worker runs): (seconds spent recording, document writes). Stores into a fresh SQLite history.
    `case_s`: the recorder's clock moves on that much per case besides the time recording takes,
    as if each case had been measured for that long: the interval document is then written as often
    as in a real run of that many cases."""
    import datetime as dt

    from perflab.jobs import get_job
    from perflab.model import Benchmark, Case, CaseResult, LaunchSamples, ParamAxis, Runtime
    from perflab.recording import Recorder
    from perflab.store import open_store
    benches = [Benchmark(id=f"bench_trivial.trivial_{j}", name=f"trivial_{j}", group="bench_trivial",
                         language="python", params=(ParamAxis("i", tuple(map(str, range(PER_BENCHMARK)))),))
               for j in range(n // PER_BENCHMARK)]
    rt = Runtime(name="python3.11", language="python", version="3.11", executable=sys.executable)
    store = open_store(f"sqlite:///{folder / 'history.db'}")
    job = get_job("dry")
    run_id = store.begin_run(command=[], args={}, job=job.__dict__, environment={}, fingerprint="")
    measured = [0.0]  # the cases' simulated time so far
    rec = Recorder(job=job, environment={}, command=[], started=dt.datetime.now(dt.timezone.utc),
                   runtime_order=[rt.label], json_path=folder / "out" / "perflab-synthetic.json",
                   on_cases=lambda cases: store.add_cases(run_id, cases),
                   clock=lambda: time.monotonic() + measured[0])
    results = []
    for bench in benches:
        for combo in bench.expand():
            ln = LaunchSamples(index=0, invocations=1, workload=[1000], workload_rounds=[0])
            results.append(CaseResult(case=Case(bench, tuple(combo.items()), rt), launches=[ln],
                                      stop_reason="dry run"))
    t0 = time.perf_counter()
    for r in results:
        rec.add(r)
        measured[0] += case_s
    rec.finish()
    return time.perf_counter() - t0, rec.document_writes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="100,1000", help="comma-separated run sizes")
    ap.add_argument("--synthetic", metavar="SIZES",
                    help="time the recording alone (no workers) for these run sizes, e.g. 100,1000,10000")
    ap.add_argument("--case-seconds", type=float, default=0.0, metavar="S",
                    help="with --synthetic: each case counts as measured for S seconds (a dry Python "
                         "case takes about 0.22 s here), so the document is written as often as in a "
                         "real run of that size")
    ap.add_argument("--store", default="temp", help="'temp' (a fresh SQLite store), 'none', or a path")
    args = ap.parse_args()
    if args.synthetic:
        print("| cases | recording (s) | per case (ms) | document writes |")
        print("| ---: | ---: | ---: | ---: |")
        for n in [int(x) for x in args.synthetic.split(",")]:
            spent, writes = synthetic(n, Path(tempfile.mkdtemp(prefix="perflab-host-")), args.case_seconds)
            print(f"| {n} | {spent:.2f} | {1000 * spent / n:.2f} | {writes} |", flush=True)
        return
    sizes = [int(x) for x in args.cases.split(",")]
    print("| cases | wall (s) | in cases (s) | host (s) | host per case (ms) | recording per case (ms) "
          "| host CPU per case (ms) |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    points = []
    for n in sizes:
        wall, in_cases, recording, cpu, got = measure(n, args.store)
        if got != n:
            raise SystemExit(f"{n} cases asked, {got} in the document")
        host = wall - in_cases
        points.append((n, host, cpu))
        print(f"| {n} | {wall:.1f} | {in_cases:.1f} | {host:.2f} | {1000 * host / n:.2f} | {1000 * recording / n:.2f} "
              f"| {1000 * cpu / n:.2f} |", flush=True)
    for (n1, h1, c1), (n2, h2, c2) in zip(points, points[1:]):
        print(f"marginal host cost per case between {n1} and {n2} cases: {1000 * (h2 - h1) / (n2 - n1):.2f} ms "
              f"(the host process's CPU time: {1000 * (c2 - c1) / (n2 - n1):.2f} ms)")


if __name__ == "__main__":
    main()
