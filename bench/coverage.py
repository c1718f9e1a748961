"""Coverage of perflab's intervals: how often the 99.9 % interval of a lone case's mean holds the true
mean, when processes differ (between-process spread) and iterations are noisy — simulated, so the truth
is known and the machine's own noise is out of the picture.

The engine runs as in `perflab run` (job `default`), on the deterministic fake workers and fake clock of
the tests (tests/fakes.py): each process gets its own level, drawn from a normal distribution around
the true per-call time, and each iteration multiplicative gaussian noise. A process start costs
`--start-ms` of fake time, so the engine trades launches against iterations as on a real machine.

    .venv/bin/python bench/coverage.py [--trials 200] [--between 0,1,3] [--within 2,10]

Prints, per setting: the share of intervals that held the truth (nominal 99.9 %), the share of
cases that reached the target, the launches the cases stopped with (fewest, median, most) and the
fake time they took.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fakes import FakeClock, FakeWorker, InlineExecutor, make_case  # noqa: E402

from perflab.engine.runner import Engine  # noqa: E402
from perflab.jobs import get_job  # noqa: E402
from perflab.stats import estimate  # noqa: E402

TRUE_NS = 100.0


def one_case(between: float, within: float, start_s: float, seed: int, job
             ) -> tuple[bool, bool, int, float]:
    """(interval holds the truth, target reached, launches, fake seconds) for one simulated case."""
    clock = FakeClock()
    rng = random.Random(seed)

    def launch(case, index):
        clock.t += start_s
        return FakeWorker(clock, TRUE_NS, noise=within, seed=rng.randrange(1 << 30),
                          launch_offset_ns=rng.gauss(0.0, between * TRUE_NS))

    engine = Engine(job, launch, clock=clock, rng=random.Random(seed), executor=InlineExecutor)
    [res] = engine.run_group([make_case()])
    est = estimate(res.launches, 1, job.confidence)
    return (abs(est.mean - TRUE_NS) <= est.error, res.stop_reason == "target reached", len(res.launches),
            clock.t)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--between", default="0,1,3", help="between-process spread, %% of the mean")
    ap.add_argument("--within", default="2,10", help="noise of one iteration, %% of the mean")
    ap.add_argument("--start-ms", type=float, default=30.0, help="fake time a process start costs")
    args = ap.parse_args()
    job = get_job("default")
    print(f"job default: {job.confidence:.1%} intervals, target ±{job.target_rel_error:.0%}; "
          f"{args.trials} simulated cases per setting")
    print(f"{'between':>8} {'within':>7} {'held the truth':>15} {'reached target':>15} "
          f"{'launches (min / median / max)':>31} {'fake seconds (median)':>22}")
    for between in (float(x) / 100 for x in args.between.split(",")):
        for within in (float(x) / 100 for x in args.within.split(",")):
            runs = [one_case(between, within, args.start_ms / 1000, seed, job) for seed in range(args.trials)]
            held = sum(r[0] for r in runs)
            reached = sum(r[1] for r in runs)
            launches = [r[2] for r in runs]
            print(f"{between:8.0%} {within:7.0%} {held / len(runs):14.1%} {reached / len(runs):14.1%}   "
                  f"{min(launches):>9} / {statistics.median(launches):>5.0f} / {max(launches):<5}"
                  f"{statistics.median(r[3] for r in runs):>18.2f}", flush=True)


if __name__ == "__main__":
    main()
