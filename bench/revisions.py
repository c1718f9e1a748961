"""Two revisions side by side (`perflab run --rev A,B`) under the three conditions: a two-revision A/A
(identical code at two commits) and a method A/A must come out "same", never different; a planted
+10 % between two commits must be found in ≥ 90 % of trials and a planted +30 % in all of them.

Each trial makes a small git repository with two commits of one benchmark file and runs
`perflab run REPO --rev c1,c2` on this interpreter, as the README's CI recipe does. The second commit
makes the benchmark do exactly `factor` times the work (1.00 = A/A: the commit changes a comment
only). The method A/A is one commit holding a class of two identical methods, one the baseline.

Verdict rule. A comparison that contention blocks (bench/_common.py: a side under heavy or changing
contention, unless the ratio is the paired CPU-timed one of the same benchmark) is "inconclusive".
Otherwise it is "different" when the ratio's interval excludes 1.00 and the ratio is more than the 2 %
noise threshold away — what `perflab compare` and `--fail-on-regression 2` act on, whether or not
the case reached its precision target; "same" when the whole interval lies within that threshold
([0.98, 1.02]: an equivalence, not just "not shown different"); otherwise "inconclusive". Counted
apart: an answer that is always inconclusive under load is honest but useless.

`--duet on,off` measures every kind both ways, interleaved in the same stretch (`perflab run --duet`):
each row is then a kind with the duet on or off. The rows also count the trials whose two sides were
both timed by CPU time, and how many of those the run-queue reading made so (stats/clean.py: cleaned
again without it, the case kept its wall times).

    .venv/bin/python bench/revisions.py [--repeat 20] [--job default] [--conditions quiet,busy,stress]
        [--factors 1.00,1.10,1.30] [--no-methods] [--duet on,off]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _conditions  # noqa: E402
from perflab.policy import DEFAULT  # noqa: E402
from _common import NO_RATIO, compared_case, contention_blocks, perflab_run, ratio_of  # noqa: E402

# allocates nothing (see bench/aa_power.py): the work scales exactly with STEPS
REVISION_SOURCE = """\
import perflab

STEPS = {steps}  # {note}
DATA = [i & 63 for i in range(STEPS)]


@perflab.benchmark
def work():
    total = 0
    for x in DATA:
        total ^= x
    return total
"""

METHODS_SOURCE = """\
import perflab

DATA = [i & 63 for i in range(2000)]


class Twins:
    @perflab.benchmark(baseline=True)
    def first(self):
        total = 0
        for x in DATA:
            total ^= x
        return total

    @perflab.benchmark
    def second(self):
        total = 0
        for x in DATA:
            total ^= x
        return total
"""

BASE_STEPS = 2000


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def make_repo(folder: Path, factor: float) -> tuple[Path, str, str]:
    """A repository whose two commits differ by `factor` in the benchmark's work (1.00: a comment)."""
    repo = folder / "repo"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "bench@perflab")
    _git(repo, "config", "user.name", "perflab bench")
    bench = repo / "bench_rev.py"
    bench.write_text(REVISION_SOURCE.format(steps=BASE_STEPS, note="first revision"))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "first")
    first = _git(repo, "rev-parse", "HEAD")
    bench.write_text(REVISION_SOURCE.format(steps=int(round(BASE_STEPS * factor)), note="second revision"))
    _git(repo, "commit", "-q", "-am", "second")
    return repo, first, _git(repo, "rev-parse", "HEAD")


SAME_BAND = DEFAULT.change.threshold  # perflab compare's noise threshold


def verdict(r, blocked: bool) -> str:
    if blocked or r.value != r.value:  # contention, or no ratio (the case failed)
        return "inconclusive"
    if r.different:
        return "different"
    return "same" if 1 - SAME_BAND <= r.low and r.high <= 1 + SAME_BAND else "inconclusive"


def revision_trial(folder: Path, factor: float, job: str, out: Path, extra: list[str]) -> dict:
    repo, first, second = make_repo(folder, factor)
    doc, wall = perflab_run(repo, "--rev", f"{first},{second}", "--runtimes", sys.executable,
                            "--job", job, "--store", "none", *extra, out=out)
    return _row(doc, factor, wall)


def methods_trial(folder: Path, job: str, out: Path, extra: list[str]) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bench_twins.py").write_text(METHODS_SOURCE)
    doc, wall = perflab_run(folder, "--runtimes", sys.executable, "--job", job, "--store", "none", *extra,
                            out=out)
    return _row(doc, 1.0, wall)


def _cpu_timed(case: dict) -> tuple[bool, bool]:
    """Whether the case was timed by CPU time, and whether it would have been without the run-queue
    reading (cleaned again with its waits left out)."""
    from perflab.results import launches_from_json
    from perflab.stats.clean import clean_case
    timed = (case.get("estimate") or {}).get("cpu_timed") is True
    launches = launches_from_json(case)
    for ln in launches:
        ln.workload_wait = []
    cleaned = clean_case(launches, case["benchmark"].get("ops_per_invoke", 1) or 1)
    return timed, bool(cleaned and cleaned[0].cpu_timed)


def _row(doc: dict, factor: float, wall: float) -> dict:
    case = compared_case(doc)
    base = next(c for c in doc["cases"] if c is not case)
    r = ratio_of(case) or NO_RATIO
    stored = case.get("runtime_ratio") or case.get("ratio") or {}
    v = verdict(r, contention_blocks(case, doc))
    (cpu_a, plain_a), (cpu_b, plain_b) = _cpu_timed(case), _cpu_timed(base)
    return {"factor": factor, "ratio": r.value, "low": r.low, "high": r.high, "different": v == "different",
            "inconclusive": v == "inconclusive", "verdict": v, "wall": wall,
            "stop_reason": case.get("stop_reason"), "contention": (case.get("contention") or {}).get("level"),
            "duet": (case.get("contention") or {}).get("duet") is True,
            "cpu_timed": cpu_a and cpu_b, "cpu_timed_without_wait": plain_a and plain_b,
            "var_between": stored.get("var_between"), "launch_pairs": stored.get("units")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    _conditions.add_arguments(ap, repeat=20, quick=2)
    ap.add_argument("--job", default="default")
    ap.add_argument("--factors", default="1.00,1.10,1.30", help="planted factors of the second revision")
    ap.add_argument("--no-methods", action="store_true", help="without the method A/A")
    ap.add_argument("--duet", default="", help="on,off: every kind both ways, interleaved (default: the job's)")
    args = ap.parse_args()
    study = _conditions.Study("revisions", args)
    kinds = [f"rev x{float(f):.2f}" for f in args.factors.split(",")] + ([] if args.no_methods else ["methods A/A"])
    modes = [m.strip() for m in args.duet.split(",") if m.strip()]
    if any(m not in ("on", "off") for m in modes):
        sys.exit(f"--duet {args.duet!r}: give on, off or on,off")
    if modes:
        kinds = [f"{k} duet {m}" for k in kinds for m in modes]
    order = [k for _ in range(study.repeat) for k in kinds]  # interleaved: a study stopped early is balanced
    study.estimate(len(order), *_conditions.perflab_seconds(args.job))
    rows: dict[tuple[str, str], list[dict]] = {}
    try:
        _trials(study, order, args.job, rows)
    except KeyboardInterrupt:  # stopped early (Ctrl-C): the table of the trials done, balanced as they are
        print("stopped early: the table counts the trials that finished", flush=True)
    (study.folder / "rows.json").write_text(json.dumps({f"{k}|{c}": v for (k, c), v in rows.items()}, indent=1))
    _table(study, kinds, rows)


def _trials(study, order: list[str], job: str, rows: dict) -> None:
    for i, cond in study.schedule(len(order)):
        kind = order[i]
        extra = ["--duet", kind.rsplit(" ", 1)[1]] if " duet " in kind else []
        with study.trial(cond, i, kind.replace(" ", "-").replace("/", "")) as out:
            scratch = out / "src"
            if kind.startswith("methods A/A"):
                r = methods_trial(scratch, job, out / "results", extra)
            else:
                r = revision_trial(scratch, float(kind.split("x")[1].split()[0]), job, out / "results", extra)
        rows.setdefault((kind, cond), []).append(r)
        print(f"{cond:6} trial {i + 1}/{len(order)} {kind}: ratio {r['ratio']:.4f} [{r['low']:.4f}, "
              f"{r['high']:.4f}] {r['verdict']} ({r['stop_reason']}, contention {r['contention']}, "
              f"duet {r['duet']}, cpu-timed {r['cpu_timed']} / without waits {r['cpu_timed_without_wait']}); "
              f"{r['wall']:.1f} s", flush=True)


def _table(study, kinds: list[str], rows: dict) -> None:
    job = study.args.job

    def planted(kind: str) -> bool:
        return kind.startswith("rev") and not kind.split()[1] == "x1.00"

    def cell(kind: str, cond: str, col: str) -> str:
        rs = rows.get((kind, cond), [])
        if not rs:
            return "–"
        n = len(rs)
        if col == "right":  # A/A: conclusive "same"; planted: found slower
            ok = [r for r in rs if not r["inconclusive"]
                  and ((r["different"] and r["ratio"] > 1) if planted(kind) else not r["different"])]
            return f"{len(ok)}/{n}"
        if col == "wrong":  # A/A called different; planted: called same or faster, conclusively
            bad = [r for r in rs if not r["inconclusive"]
                   and ((not r["different"] or r["ratio"] < 1) if planted(kind) else r["different"])]
            return f"{len(bad)}/{n}"
        if col == "inconclusive":
            return f"{sum(r['inconclusive'] for r in rs)}/{n}"
        if col == "CPU-timed (by the waits)":
            return (f"{sum(r.get('cpu_timed', False) for r in rs)}/{n} "
                    f"({sum(r.get('cpu_timed', False) and not r.get('cpu_timed_without_wait') for r in rs)})")
        if col == "half-width median":
            w = [max(r["high"] / r["ratio"] - 1, 1 - r["low"] / r["ratio"]) for r in rs if r["ratio"] == r["ratio"]]
            return f"{statistics.median(w):.2%}" if w else "–"
        if col == "var_between median":
            vb = [r["var_between"] for r in rs if r.get("var_between") is not None]
            return f"{statistics.median(vb):.5f}" if vb else "–"
        if col == "ratio median (range)":
            v = sorted(r["ratio"] for r in rs)
            return f"{statistics.median(v):.4f} ({v[0]:.3f}–{v[-1]:.3f})"
        return f"{statistics.median(r['wall'] for r in rs):.1f}"

    study.table(f"Two revisions in one run (job {job}): right = A/A conclusive same, planted found "
                "slower; wrong = A/A called different, planted called same or faster", kinds,
                ["right", "wrong", "inconclusive", "ratio median (range)", "half-width median",
                 "var_between median", "CPU-timed (by the waits)", "median s"], cell)


if __name__ == "__main__":
    main()
