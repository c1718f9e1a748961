"""What a launch costs, by phase, on the time-to-verdict lookup: perflab runs in this process (the engine's
phases are timed by wrapping them), so the figures say where a run's wall time goes.

    .venv/bin/python bench/launch_cost.py [--repeat 3] [--runtime python3.12]

Per run: launches, and per launch the milliseconds spent starting processes the rounds waited for
(`start`), waiting for processes started ahead (`wait ahead`) and preparing them (setup, warmup,
overhead: `attach`); per round iteration, what it took and how much of that was perflab's own time
(its wall time minus what the worker timed). To compare two versions of perflab, run it from each
(PYTHONPATH=<checkout>/src PERFLAB_WORKERS=<checkout>/workers), alternating: the VM's speed drifts.
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import tempfile
import time
from pathlib import Path

from _common import write_bench
from time_to_verdict import SOURCE

PHASES = ["_spawn", "_take_ahead", "_attach", "_workload", "_judge_group"]


def timed_phases(engine_cls) -> tuple[collections.Counter, collections.Counter]:
    """Wrap the engine's phases so each call adds its wall time (and a count) to the counters."""
    seconds, calls = collections.Counter(), collections.Counter()
    for name in PHASES:
        original = getattr(engine_cls, name, None)
        if original is None:  # an older engine without this phase
            continue

        def wrapper(self, *args, _original=original, _name=name, **kwargs):
            t0 = time.perf_counter()
            try:
                return _original(self, *args, **kwargs)
            finally:
                seconds[_name] += time.perf_counter() - t0
                calls[_name] += 1
        setattr(engine_cls, name, wrapper)
    return seconds, calls


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--runtime", default="python3.12")
    args = ap.parse_args()
    from perflab import cli
    from perflab.engine.runner import Engine
    seconds, calls = timed_phases(Engine)
    folder = Path(tempfile.mkdtemp())
    write_bench(folder, "bench_lookup.py", SOURCE)
    for i in range(args.repeat):
        seconds.clear()
        calls.clear()
        out = folder / f"out{i}"
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            try:
                cli.main(["run", str(folder), "--runtimes", args.runtime, "--job", "default", "--store", "none",
                          "--exporters", "json", "-o", str(out)])
            except SystemExit:
                pass
        wall = time.perf_counter() - t0
        [doc] = [json.loads(p.read_text()) for p in out.glob("perflab-*.json")]
        case = doc["cases"][0]
        est = case["estimate"]
        n_launch = est["launches"]
        timed = sum(sum(ln["workload"]) + sum(o for o, r in zip(ln["overhead"], ln["overhead_rounds"]) if r > 0)
                    for ln in case["launches"]) / 1e9
        per_launch = {k: 1000 * seconds[k] / n_launch for k in ("_spawn", "_take_ahead", "_attach")}
        rounds = max(1, calls["_workload"])
        print(f"run {i + 1}: {wall:5.2f} s, {case['stop_reason']} (±{100 * est['error'] / est['mean']:.2f} %), "
              f"{n_launch} launches × {est['n'] / n_launch:.1f} iterations; per launch: "
              f"start {per_launch['_spawn']:.1f} ms, wait ahead {per_launch['_take_ahead']:.1f} ms, "
              f"attach {per_launch['_attach']:.1f} ms (in all {sum(per_launch.values()):.1f} ms); per round "
              f"iteration {1000 * seconds['_workload'] / rounds:.2f} ms, of which perflab "
              f"{1000 * (seconds['_workload'] - timed) / rounds:.2f} ms; judging {seconds['_judge_group']:.2f} s",
              flush=True)


if __name__ == "__main__":
    main()
