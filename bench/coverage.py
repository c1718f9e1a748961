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

With --ratio, the same for a comparison: one benchmark on two runtimes that cost exactly the same (an
A/A pair, true ratio 1.00), measured in interleaved rounds under a drift shared by both (the machine's
speed wandering ±`--drift` %), judged by the ratio's interval (as the table's Ratio column), and how
often the pair is called different (interval without 1.00 and the ratio over 2 % away, as
bench/aa_power.py and `perflab compare` call it). `--call-ms`
makes every call that slow (one call per iteration), so the job's budget holds only a few rounds:

    .venv/bin/python bench/coverage.py --ratio --job short --call-ms 40 --between 0,2 --within 2,5

`--hit 25` slows a quarter of the measured iterations 2-3x (with --ratio, one side's only), the
interference of issue #19: the intervals must still hold the truth.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/_common, also when run from elsewhere

from fakes import FakeClock, FakeWorker, InlineExecutor, make_case  # noqa: E402

from _common import called_different  # noqa: E402
from perflab.engine.runner import Engine  # noqa: E402
from perflab.jobs import get_job  # noqa: E402
from perflab.stats import estimate, ratio_from_launches  # noqa: E402

TRUE_NS = 100.0


def one_case(between: float, within: float, start_s: float, seed: int, job, hit: float = 0.0
             ) -> tuple[bool, bool, int, float]:
    """(interval holds the truth, target reached, launches, fake seconds) for one simulated case."""
    clock = FakeClock()
    rng = random.Random(seed)

    def launch(case, index):
        clock.t += start_s
        return FakeWorker(clock, TRUE_NS, noise=within, seed=rng.randrange(1 << 30),
                          launch_offset_ns=rng.gauss(0.0, between * TRUE_NS), hit_share=hit)

    engine = Engine(job, launch, clock=clock, rng=random.Random(seed), executor=InlineExecutor)
    [res] = engine.run_group([make_case()])
    est = estimate(res.launches, 1, job.confidence)
    return (abs(est.mean - TRUE_NS) <= est.error, res.stop_reason == "target reached", len(res.launches),
            clock.t)


def one_pair(between: float, within: float, start_s: float, seed: int, job, call_ns: float, drift: float,
             hit: float = 0.0) -> tuple[bool, bool, int, float, bool, float, bool]:
    """(ratio interval holds 1.00, target reached, launches per side, fake seconds, paired, interval
    width, called different) for one simulated A/A comparison."""
    clock = FakeClock()
    rng = random.Random(seed)
    steps = [rng.uniform(-drift, drift) for _ in range(4096)]  # the machine's speed every 50 ms

    def speed(t: float) -> float:
        return 1.0 + steps[int(t / 0.05) % len(steps)]

    def launch(case, index):
        clock.t += start_s
        # interference hits one side only (rt1), as it did in issue #19
        return FakeWorker(clock, call_ns, noise=within, seed=rng.randrange(1 << 30),
                          launch_offset_ns=rng.gauss(0.0, between * call_ns), drift=speed,
                          hit_share=hit if case.runtime.name == "rt1" else 0.0)

    engine = Engine(job, launch, clock=clock, rng=random.Random(seed), executor=InlineExecutor)
    a, b = engine.run_group([make_case(runtime="rt1"), make_case(runtime="rt2")])
    ea, eb = (estimate(r.launches, 1, job.confidence, modality=False) for r in (a, b))
    r = ratio_from_launches(ea, eb, a.launches, b.launches, confidence=job.confidence)
    return (r.ci_low <= 1.0 <= r.ci_high, a.stop_reason in ("target reached", "ratio target reached"),
            len(a.launches), clock.t, r.paired, r.ci_high - r.ci_low,
            called_different(r.value, r.ci_low, r.ci_high))


def main_ratio(args) -> None:
    job = get_job(args.job)
    call_ns = args.call_ms * 1e6 if args.call_ms else TRUE_NS
    print(f"job {job.name}: {job.confidence:.1%} intervals of an A/A ratio, target ±{job.target_rel_error:.0%}; "
          f"calls of {call_ns / 1e6:g} ms, drift ±{args.drift:g} %; {args.trials} simulated pairs per setting")
    print(f"{'between':>8} {'within':>7} {'held 1.00':>10} {'different':>10} {'reached':>8} {'paired':>7} "
          f"{'width (median)':>15} {'launches (median)':>18} {'fake seconds':>13}")
    for between, within in settings(args):
        runs = [one_pair(between, within, args.start_ms / 1000, seed, job, call_ns, args.drift / 100,
                         args.hit / 100) for seed in range(args.trials)]
        n = len(runs)
        print(f"{between:8.0%} {within:7.0%} {sum(r[0] for r in runs) / n:9.1%} {sum(r[6] for r in runs) / n:9.1%} "
              f"{sum(r[1] for r in runs) / n:7.1%} {sum(r[4] for r in runs) / n:6.1%} "
              f"{statistics.median(r[5] for r in runs):15.3f} {statistics.median(r[2] for r in runs):18.0f}"
              f"{statistics.median(r[3] for r in runs):14.2f}", flush=True)


def settings(args):
    """(between, within) of every setting asked for, as fractions of the mean."""
    return [(float(b) / 100, float(w) / 100) for b in args.between.split(",") for w in args.within.split(",")]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--between", default="0,1,3", help="between-process spread, %% of the mean")
    ap.add_argument("--within", default="2,10", help="noise of one iteration, %% of the mean")
    ap.add_argument("--start-ms", type=float, default=30.0, help="fake time a process start costs")
    ap.add_argument("--ratio", action="store_true", help="an A/A comparison's ratio instead of a lone mean")
    ap.add_argument("--job", default="default", help="with --ratio: the job (short, default, long)")
    ap.add_argument("--call-ms", type=float, default=0.0, help="with --ratio: milliseconds per call")
    ap.add_argument("--drift", type=float, default=10.0, help="with --ratio: the machine's speed, ± %%")
    ap.add_argument("--hit", type=float, default=0.0,
                    help="%% of measured iterations slowed 2-3x by interference (with --ratio: one side's)")
    args = ap.parse_args()
    if args.ratio:
        return main_ratio(args)
    job = get_job("default")
    print(f"job default: {job.confidence:.1%} intervals, target ±{job.target_rel_error:.0%}; "
          f"{args.trials} simulated cases per setting")
    print(f"{'between':>8} {'within':>7} {'held the truth':>15} {'reached target':>15} "
          f"{'launches (min / median / max)':>31} {'fake seconds (median)':>22}")
    for between, within in settings(args):
        runs = [one_case(between, within, args.start_ms / 1000, seed, job, args.hit / 100)
                for seed in range(args.trials)]
        held = sum(r[0] for r in runs)
        reached = sum(r[1] for r in runs)
        launches = [r[2] for r in runs]
        print(f"{between:8.0%} {within:7.0%} {held / len(runs):14.1%} {reached / len(runs):14.1%}   "
              f"{min(launches):>9} / {statistics.median(launches):>5.0f} / {max(launches):<5}"
              f"{statistics.median(r[3] for r in runs):>18.2f}", flush=True)


if __name__ == "__main__":
    main()
