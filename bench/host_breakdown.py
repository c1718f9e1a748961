"""Where the host's time between a dry run's cases goes: the engine's and the recorder's parts, timed.

    .venv/bin/python bench/host_breakdown.py [--cases 200]

Runs the dry job on host_overhead.py's benchmark file of N trivial cases, with timers around the
engine's steps that run between cases, and prints per case: the host time inside a group that is
not in any case's `wall_seconds` (what bench/host_overhead.py's marginal figure is mostly made of),
then each timed step (a step may include time that is inside `wall_seconds`, as the thread pools
that start processes: the sum is not the first line).
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _common import perflab_run, write_bench
from host_overhead import source

# run inside the measured command: wraps the steps, writes "name seconds" lines to a file
INNER = """
import functools, runpy, sys, time
from concurrent.futures import ThreadPoolExecutor
from perflab import recording
from perflab.engine import runner
spent, groups = {}, [0, 0.0]
def timed(owner, name, label):
    fn = getattr(owner, name, None)
    if fn is None:
        return
    @functools.wraps(fn)
    def wrapper(*a, **k):
        t0 = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            spent[label] = spent.get(label, 0.0) + time.perf_counter() - t0
    setattr(owner, name, wrapper)
steps = [
        (runner.Engine, "_judge_group", "judging a group (all below that it calls)"),
        (recording.Recorder, "add", "  recording a case (perflab.recording)"),
        (runner.Engine, "_close", "  closing its processes (bye, handed to the reaper)"),
        (runner, "case_contention", "  contention record"),
        (runner, "read_host", "reading the host's load (group start, case end)"),
        (runner, "wait", "waiting for exits and starts (futures.wait)"),
        (ThreadPoolExecutor, "submit", "thread pool submit (threads started lazily)"),
        (ThreadPoolExecutor, "shutdown", "thread pool shutdown (waits for its work)")]
labels = [label for _, _, label in steps]
for owner, name, label in steps:
    timed(owner, name, label)
run_group = runner.Engine.run_group
def counted(self, cases):
    t0 = time.perf_counter()
    out = run_group(self, cases)
    groups[1] += time.perf_counter() - t0 - sum(r.wall_seconds or 0.0 for r in out)
    groups[0] += len(out)
    return out
runner.Engine.run_group = counted
out = sys.argv.pop(1)
sys.argv[0] = "perflab"
try:
    runpy.run_module("perflab.cli", run_name="__main__")
finally:
    with open(out, "w") as f:
        f.write(f"cases {groups[0]}\\n")
        f.write(f"in a group, outside the cases' wall_seconds\\t{groups[1]}\\n")
        for label in labels:  # in the order above
            f.write(f"{label}\\t{spent.get(label, 0.0)}\\n")
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=200)
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="perflab-host-"))
    path = write_bench(folder, "bench_trivial.py", source(args.cases))
    spent = folder / "spent"
    perflab_run(path, "--job", "dry", "--store", f"sqlite:///{folder / 'history.db'}", "--quiet",
                out=folder / "out", python=["-c", INNER, str(spent)])
    head, *lines = spent.read_text().splitlines()
    n = int(head.split()[1])
    print(f"| {n} cases, dry job | ms per case |\n| --- | ---: |")
    for line in lines:
        label, seconds = line.split("\t")
        print(f"| {label} | {1000 * float(seconds) / n:.2f} |")


if __name__ == "__main__":
    main()
