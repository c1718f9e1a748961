"""The host's own cost per case, as a run grows: it must stay flat (target ≤ 5 ms per case).

    .venv/bin/python bench/host_overhead.py [--cases 100,1000] [--store none|PATH]

For each N, a Python benchmark file with one trivial benchmark over N parameter values (N cases) is
run with the dry job (one call per case). Host overhead = the command's wall time minus the time the
engine spent in the cases (each case's `wall_seconds`: starting its worker and measuring), divided
by N; it holds preparing the runtime once, judging, the progress line, the history store and the
results document. The marginal figure — the difference between two sizes divided by the difference
in cases — leaves out the fixed costs (Python start, provisioning, loading): it is the per-case cost.
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _common import perflab_run, write_bench

SOURCE = """
import perflab


@perflab.params(i=list(range({n})))
@perflab.benchmark
def trivial(i):
    return i
"""


# run inside the measured command: times the recording (perflab.recording: judging the case, the
# log, the store, the document at its interval) and writes the total to a file
INNER = """
import runpy, sys, time
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
    open(out, "w").write(repr(spent[0]))
"""


def measure(n: int, store: str) -> tuple[float, float, float, int]:
    """(wall s, time in cases s, time recording s, cases in the document) of a dry run of n cases."""
    folder = Path(tempfile.mkdtemp(prefix="perflab-host-"))
    path = write_bench(folder, "bench_trivial.py", SOURCE.format(n=n))
    store_arg = store if store == "none" else f"sqlite:///{folder / 'history.db'}" if store == "temp" else store
    spent = folder / "recording-seconds"
    doc, wall = perflab_run(path, "--job", "dry", "--max-cases", str(n), "--store", store_arg,
                            "--quiet", out=folder / "out", python=["-c", INNER, str(spent)])
    in_cases = sum(c.get("wall_seconds") or 0.0 for c in doc["cases"])
    return wall, in_cases, float(spent.read_text()), len(doc["cases"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="100,1000", help="comma-separated run sizes")
    ap.add_argument("--store", default="temp", help="'temp' (a fresh SQLite store), 'none', or a path")
    args = ap.parse_args()
    sizes = [int(x) for x in args.cases.split(",")]
    print("| cases | wall (s) | in cases (s) | host (s) | host per case (ms) | recording per case (ms) |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    points = []
    for n in sizes:
        wall, in_cases, recording, got = measure(n, args.store)
        if got != n:
            raise SystemExit(f"{n} cases asked, {got} in the document")
        host = wall - in_cases
        points.append((n, host))
        print(f"| {n} | {wall:.1f} | {in_cases:.1f} | {host:.2f} | {1000 * host / n:.2f} | {1000 * recording / n:.2f} |", flush=True)
    for (n1, h1), (n2, h2) in zip(points, points[1:]):
        print(f"marginal host cost per case between {n1} and {n2} cases: {1000 * (h2 - h1) / (n2 - n1):.2f} ms")


if __name__ == "__main__":
    main()
