"""The three conditions every claim about perflab's precision, A/A, power, accuracy and time to verdict
is measured under, and the frame the studies share:

- quiet: nothing started by the study (the machine as it is; its load average is recorded);
- busy: one steady busy loop (bench/stress.py --busy) — "the other core kept busy";
- stress: bench/stress.py at 2× oversubscription (bursts of 3/10, 50/100, 400/1000 ms, a memory hog,
  a forker), seeded per trial.

A study's trials are interleaved across conditions (rep 1: quiet, busy, stress; rep 2: busy, stress,
quiet; …), each trial under a load started for it alone, so machine phases hit every condition alike
and a study stopped early is still balanced. Every study takes `--repeat N` (per condition),
`--quick` (its preset small counts), `--condition C` or `--conditions a,b,c`, `--seed`, `--out DIR`;
keeps its raw outputs (results JSONs, the load's own report) in that folder; and ends with one table,
a column group per condition, preceded by the exact command line.
"""
from __future__ import annotations

import argparse
import os
import shlex
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

from stress import Stress

CONDITIONS = ("quiet", "busy", "stress")
STRESS_LEVEL = 2.0
SETTLE_S = 0.5  # after a load starts, before the trial: its processes are forked and running
# How much longer a trial takes under each load, for the printed estimate only (a guess, from the
# verification runs on a 2-core VM; the running estimate after each trial uses measured times).
SLOWDOWN = {"quiet": 1.0, "busy": 1.3, "stress": 2.5}
BOUND_SLOWDOWN = {"quiet": 1.0, "busy": 1.1, "stress": 1.25}


def add_arguments(ap: argparse.ArgumentParser, *, repeat: int, quick: int, conditions: str = "quiet,busy,stress"
                  ) -> None:
    ap.add_argument("--repeat", type=int, default=None,
                    help=f"trials per condition (default {repeat}; with --quick {quick})")
    ap.add_argument("--quick", action="store_true", help="the small preset counts (see docs/measuring.md)")
    ap.add_argument("--condition", choices=CONDITIONS, help="one condition")
    ap.add_argument("--conditions", default=None, help=f"comma-separated, interleaved (default {conditions})")
    ap.add_argument("--seed", type=int, default=1, help="seed of the stress schedules (trial i uses seed+i)")
    ap.add_argument("--out", default=None, help="folder for the raw outputs (default bench-out/<study>-<UTC time>)")
    ap.add_argument("--estimate", action="store_true", help="print the study's time estimate and stop")
    ap.set_defaults(_repeat_default=repeat, _repeat_quick=quick, _conditions_default=conditions)


def parse_conditions(args: argparse.Namespace) -> list[str]:
    text = args.condition or args.conditions or args._conditions_default
    names = [c.strip() for c in text.split(",") if c.strip()]
    bad = [c for c in names if c not in CONDITIONS]
    if bad or not names:
        sys.exit(f"--conditions: unknown {', '.join(bad) or '(none)'}; choose from {', '.join(CONDITIONS)}")
    return list(dict.fromkeys(names))


def perflab_seconds(job: str, cases: int = 2) -> tuple[float, float]:
    """(typical, longest) wall seconds of one `perflab run` of `cases` cases with `job`, quiet: the
    job's budget caps each case's measuring (plus a few seconds to start and write); a comparison
    that reaches its target typically stops at about 40 % of it (the verification runs)."""
    from perflab.jobs import get_job
    budget = get_job(job).budget_s or 0.0
    return 0.4 * budget * cases + 2.0, budget * cases + 5.0


class Study:
    """One study's folder, schedule, running estimate and final table."""

    def __init__(self, name: str, args: argparse.Namespace):
        self.name = name
        self.args = args
        self.conditions = parse_conditions(args)
        self.repeat = args.repeat if args.repeat is not None else (
            args._repeat_quick if args.quick else args._repeat_default)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        default = (Path(tempfile.mkdtemp(prefix=f"perflab-{name}-")) if args.estimate
                   else Path("bench-out") / f"{name}-{stamp}")
        self.folder = Path(args.out or default).resolve()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.command = " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv])
        (self.folder / "command.txt").write_text(self.command + "\n")
        self.walls: dict[str, list[float]] = {c: [] for c in self.conditions}
        self.loads: dict[str, list[str]] = {c: [] for c in self.conditions}
        self.t0 = time.time()
        self.done = 0
        self.total = 0
        print(f"{name}: {self.command}\nconditions {', '.join(self.conditions)}; {self.repeat} trial(s) each; "
              f"raw outputs in {self.folder}", flush=True)

    def schedule(self, repeat: int | None = None) -> list[tuple[int, str]]:
        """(rep, condition) pairs, conditions interleaved and rotated so each comes first equally often."""
        n = self.repeat if repeat is None else repeat
        k = len(self.conditions)
        out = [(rep, self.conditions[(rep + j) % k]) for rep in range(n) for j in range(k)]
        self.total += len(out)
        return out

    def estimate(self, trials: int, typical_s: float, bound_s: float) -> None:
        """Print the study's expected and bounded wall time: `trials` per condition of `typical_s`
        seconds each when quiet, longer under load by SLOWDOWN; and a bound from `bound_s`, a trial's
        longest by the jobs' budgets (which cap measuring time whatever the load: a loaded run ends at
        its budget, its process starts slower — BOUND_SLOWDOWN)."""
        typical = sum(trials * typical_s * SLOWDOWN[c] for c in self.conditions)
        bound = max(typical, sum(trials * bound_s * BOUND_SLOWDOWN[c] for c in self.conditions))
        print(f"estimate: about {typical / 60:.0f} min, at most about {bound / 60:.0f} min "
              f"({trials} trial(s) × {len(self.conditions)} condition(s); a quiet trial ~{typical_s:.0f} s, "
              f"≤ {bound_s:.0f} s by the job's budgets)", flush=True)
        if self.args.estimate:
            sys.exit(0)

    @contextmanager
    def trial(self, condition: str, rep: int, what: str) -> Iterator[Path]:
        """The body runs under `condition`'s load; yields the trial's raw-output folder. Records the
        trial's wall time and the load's report, and prints the running estimate."""
        folder = self.folder / f"{condition}-{rep + 1:03d}-{what}"
        folder.mkdir(parents=True, exist_ok=True)
        seed = self.args.seed + rep
        t0 = time.perf_counter()
        if condition == "quiet":
            desc = f"quiet, load average {os.getloadavg()[0]:.2f}"
            yield folder
        else:
            stress = Stress(busy=True) if condition == "busy" else Stress(level=STRESS_LEVEL, seed=seed)
            with stress:
                time.sleep(SETTLE_S)
                yield folder
            measured = [line for line in stress.report.splitlines() if "measured level" in line]
            desc = f"{condition}: " + (measured[0].removeprefix("stress: ") if measured else "no report")
        wall = time.perf_counter() - t0
        (folder / "load.txt").write_text(desc + "\n")
        self.walls[condition].append(wall)
        self.loads[condition].append(desc)
        self.done += 1
        self._progress(condition, wall, desc)

    def _progress(self, condition: str, wall: float, desc: str) -> None:
        elapsed = time.time() - self.t0
        left = self.total - self.done
        rate = elapsed / self.done
        print(f"    [{self.done}/{self.total}] {condition} trial {wall:.1f} s ({desc}); "
              f"{elapsed / 60:.1f} min so far, about {left * rate / 60:.1f} min left", flush=True)

    def table(self, title: str, rows: list[str], columns: list[str],
              cell: Callable[[str, str, str], str]) -> str:
        """A Markdown table: a row per `rows`, a column group per condition with `columns`, each
        cell(row, condition, column); printed after the command line and kept as table.md."""
        head = ["", *(f"{c}: {col}" for c in self.conditions for col in columns)]
        lines = [f"### {title}", "", f"`{self.command}`", "",
                 "| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        for r in rows:
            lines.append("| " + " | ".join([r, *(cell(r, c, col) for c in self.conditions for col in columns)]) + " |")
        loads = "; ".join(f"{c}: {load_summary(self.loads[c])}" for c in self.conditions)
        lines += ["", f"Loads during the trials — {loads}. "
                  f"Study wall time {(time.time() - self.t0) / 60:.1f} min; raw outputs in {self.folder}."]
        text = "\n".join(lines) + "\n"
        print("\n" + text, flush=True)
        with open(self.folder / "table.md", "a") as f:
            f.write(text + "\n")
        return text


def load_summary(descs: list[str]) -> str:
    """A condition's loads over its trials, median and range: the level stress.py measured, or for
    quiet the machine's own 1-minute load average (what other users ran)."""
    for marker, what in (("measured level ", "measured level"), ("load average ", "load average")):
        values = [float(d.split(marker)[1].split()[0].rstrip(",)")) for d in descs if marker in d]
        if values:
            return f"{what} {statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"
    return "not measured"


def fraction(hits: int, n: int) -> str:
    return f"{hits}/{n}" if n else "–"


def median_or_dash(values: list[float], fmt: str = "{:.1f}") -> str:
    return fmt.format(statistics.median(values)) if values else "–"
