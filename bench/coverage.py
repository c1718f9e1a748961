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

`--modes clean,contaminated` (the default) prints every setting both ways, a column group per mode. In
the contaminated mode the fake samples carry bursty interference, as a loaded machine gives it: one
side's processes (a lone case's, or the second runtime's of a pair) run in bursts of a few iterations
(geometric, mean 5), a quarter of their iterations 2–3× slow (one factor per burst) and a tenth 40 %
fast. The code is the same, so the truth is still the clean one (the true mean; a ratio of 1.00): this
judges the estimator's robustness, not the machine's. `--repeat N` is `--trials N`; `--quick` runs 30.
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
from perflab.judge.ratio import ratio_from_launches  # noqa: E402
from perflab.stats import estimate  # noqa: E402

TRUE_NS = 100.0
BURST_MEAN = 5  # iterations per burst (geometric)
SHARES = (("slow", 0.25), ("fast", 0.10), ("normal", 0.65))


class Bursts:
    """A process's contamination: a factor per iteration (FakeWorker calls its drift once per
    iteration), constant within bursts whose states are drawn with SHARES and whose lengths are
    geometric with mean BURST_MEAN — so the states' shares of iterations are SHARES. Slow bursts are
    2–3× (one factor each), fast ones 0.6×. `base`, if given, is the shared drift it multiplies."""

    def __init__(self, rng: random.Random, base=None):
        self.rng = rng
        self.base = base
        self.left = 0
        self.factor = 1.0

    def __call__(self, t: float) -> float:
        if self.left == 0:
            self.left = 1
            while self.rng.random() > 1 / BURST_MEAN:
                self.left += 1
            u, state = self.rng.random(), "normal"
            for name, share in SHARES:
                if u < share:
                    state = name
                    break
                u -= share
            self.factor = {"slow": self.rng.uniform(2.0, 3.0), "fast": 0.6, "normal": 1.0}[state]
        self.left -= 1
        return self.factor * (self.base(t) if self.base else 1.0)


def one_case(between: float, within: float, start_s: float, seed: int, job, contaminated: bool = False
             ) -> tuple[bool, bool, int, float]:
    """(interval holds the truth, target reached, launches, fake seconds) for one simulated case."""
    clock = FakeClock()
    rng = random.Random(seed)

    def launch(case, index):
        clock.t += start_s
        drift = Bursts(random.Random(rng.randrange(1 << 30))) if contaminated else None
        return FakeWorker(clock, TRUE_NS, noise=within, seed=rng.randrange(1 << 30),
                          launch_offset_ns=rng.gauss(0.0, between * TRUE_NS), drift=drift)

    engine = Engine(job, launch, clock=clock, rng=random.Random(seed), executor=InlineExecutor)
    [res] = engine.run_group([make_case()])
    est = estimate(res.launches, 1, job.confidence)
    return (abs(est.mean - TRUE_NS) <= est.error, res.stop_reason == "target reached", len(res.launches),
            clock.t)


def one_pair(between: float, within: float, start_s: float, seed: int, job, call_ns: float, drift: float,
             contaminated: bool = False) -> tuple[bool, bool, int, float, bool, float, bool]:
    """(ratio interval holds 1.00, target reached, launches per side, fake seconds, paired, interval
    width, called different) for one simulated A/A comparison."""
    clock = FakeClock()
    rng = random.Random(seed)
    steps = [rng.uniform(-drift, drift) for _ in range(4096)]  # the machine's speed every 50 ms

    def speed(t: float) -> float:
        return 1.0 + steps[int(t / 0.05) % len(steps)]

    def launch(case, index):
        clock.t += start_s
        dirty = contaminated and case.runtime.name == "rt2"  # one side's processes
        return FakeWorker(clock, call_ns, noise=within, seed=rng.randrange(1 << 30),
                          launch_offset_ns=rng.gauss(0.0, between * call_ns),
                          drift=Bursts(random.Random(rng.randrange(1 << 30)), speed) if dirty else speed)

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
    cols = ("held 1.00", "different", "reached", "paired", "width (median)", "launches (median)",
            "fake seconds (median)")

    def row(between, within, contaminated):
        runs = [one_pair(between, within, args.start_ms / 1000, seed, job, call_ns, args.drift / 100, contaminated)
                for seed in range(args.seed, args.seed + args.trials)]
        n = len(runs)
        return dict(zip(cols, (f"{sum(r[0] for r in runs) / n:.1%}", f"{sum(r[6] for r in runs) / n:.1%}",
                               f"{sum(r[1] for r in runs) / n:.1%}", f"{sum(r[4] for r in runs) / n:.1%}",
                               f"{statistics.median(r[5] for r in runs):.3f}",
                               f"{statistics.median(r[2] for r in runs):.0f}",
                               f"{statistics.median(r[3] for r in runs):.2f}")))

    print_table(args, cols, row)


def print_table(args, cols, row) -> None:
    """One Markdown row per (between, within) setting, a column group per mode; rows as they come."""
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if bad := [m for m in modes if m not in ("clean", "contaminated")]:
        sys.exit(f"--modes: unknown {', '.join(bad)}; choose from clean, contaminated")
    lines = [f"`{' '.join([sys.executable, *sys.argv])}`", ""]
    head = ["between", "within", *(f"{m}: {c}" for m in modes for c in cols)]
    lines += ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    print("\n" + "\n".join(lines), flush=True)
    for between, within in settings(args):
        cells = [f"{between:.0%}", f"{within:.0%}"]
        for m in modes:
            cells += row(between, within, m == "contaminated").values()
        lines.append("| " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        with open(Path(args.out) / "table.md", "a") as f:
            f.write("\n".join(lines) + "\n\n")


def settings(args):
    """(between, within) of every setting asked for, as fractions of the mean."""
    return [(float(b) / 100, float(w) / 100) for b in args.between.split(",") for w in args.within.split(",")]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", "--repeat", type=int, default=None, help="simulated cases per setting (200)")
    ap.add_argument("--quick", action="store_true", help="30 trials per setting")
    ap.add_argument("--modes", default="clean,contaminated", help="clean, contaminated or both")
    ap.add_argument("--seed", type=int, default=0, help="first trial's seed (trial i uses seed + i)")
    ap.add_argument("--estimate", action="store_true", help="print the time estimate and stop")
    ap.add_argument("--out", default=None, help="folder for the table (default bench-out/coverage-<UTC time>)")
    ap.add_argument("--between", default="0,1,3", help="between-process spread, %% of the mean")
    ap.add_argument("--within", default="2,10", help="noise of one iteration, %% of the mean")
    ap.add_argument("--start-ms", type=float, default=30.0, help="fake time a process start costs")
    ap.add_argument("--ratio", action="store_true", help="an A/A comparison's ratio instead of a lone mean")
    ap.add_argument("--job", default="default", help="with --ratio: the job (short, default, long)")
    ap.add_argument("--call-ms", type=float, default=0.0, help="with --ratio: milliseconds per call")
    ap.add_argument("--drift", type=float, default=10.0, help="with --ratio: the machine's speed, ± %%")
    args = ap.parse_args()
    if args.trials is None:
        args.trials = 30 if args.quick else 200
    if args.out is None:
        from datetime import datetime, timezone
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        args.out = str(Path("bench-out") / f"coverage{'-ratio' if args.ratio else ''}-{stamp}")
    modes = len([m for m in args.modes.split(",") if m.strip()])
    # CPU seconds per simulated trial, clean + contaminated, measured on the project's 2-core VM
    minutes = args.trials * len(settings(args)) * 0.5 * modes / 2 / 60
    print(f"estimate: about {minutes:.0f} min of one CPU ({args.trials} trials × {len(settings(args))} settings "
          f"× {modes} mode(s))", flush=True)
    if args.estimate:
        return None
    if args.ratio:
        return main_ratio(args)
    job = get_job("default")
    print(f"job default: {job.confidence:.1%} intervals, target ±{job.target_rel_error:.0%}; "
          f"{args.trials} simulated cases per setting")
    cols = ("held the truth", "reached target", "launches (min / median / max)", "fake seconds (median)")

    def row(between, within, contaminated):
        runs = [one_case(between, within, args.start_ms / 1000, seed, job, contaminated)
                for seed in range(args.seed, args.seed + args.trials)]
        n = len(runs)
        launches = [r[2] for r in runs]
        return dict(zip(cols, (f"{sum(r[0] for r in runs) / n:.1%}", f"{sum(r[1] for r in runs) / n:.1%}",
                               f"{min(launches)} / {statistics.median(launches):.0f} / {max(launches)}",
                               f"{statistics.median(r[3] for r in runs):.2f}")))

    print_table(args, cols, row)


if __name__ == "__main__":
    main()
