"""What a run says while it works, on stderr: a rich progress bar on a terminal; off a terminal (CI
logs, pipes) one plain line per finished step, so a log is never silent for minutes; nothing at all
with --quiet. Steps are the preparation of each runtime (provisioning, compiling the worker and the
benchmarks, loading them) and each finished case."""
from __future__ import annotations

import contextlib
import math
import time
from typing import Callable, Iterator

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)
from rich.text import Text

from .report.escape import markup, visible
from .units import format_time


def duration(seconds: float) -> str:
    """4m10s, 1h02m, 12.3s: short enough for a progress line."""
    s = max(0.0, seconds)
    if s < 60:
        return f"{s:.1f}s"
    m, sec = divmod(int(round(s)), 60)
    if m < 60:
        return f"{m}m{sec:02d}s"
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m"


class Reporter:
    def __init__(self, console: Console, quiet: bool = False,
                 clock: Callable[[], float] = time.monotonic):
        self.console = console
        self.quiet = quiet
        self.clock = clock
        self.on_terminal = console.is_terminal

    def line(self, s: str) -> None:
        """One plain line of user-derived text (never parsed as markup)."""
        if not self.quiet:
            self.console.print(Text(visible(s)), soft_wrap=True, highlight=False)

    @contextlib.contextmanager
    def step(self, what: str) -> Iterator[None]:
        """A preparation step: a spinner on a terminal; off one, a line before and one after with
        its duration (a compile of several minutes shows in the log as it starts)."""
        if self.quiet:
            yield
            return
        t0 = self.clock()
        if self.on_terminal:
            with self.console.status(Text(f"{visible(what)}…")):
                yield
            return
        self.line(f"{what}…")
        try:
            yield
        except BaseException:
            self.line(f"{what}: stopped after {duration(self.clock() - t0)}")
            raise
        self.line(f"{what}: done in {duration(self.clock() - t0)}")


class CaseProgress:
    """Progress of the measuring phase: `advance` after each finished case."""

    def __init__(self, reporter: Reporter, total: int, title: str):
        self.r = reporter
        self.total = total
        self.done = 0
        self.t0 = reporter.clock()
        self.bar = None
        if reporter.on_terminal and not reporter.quiet:
            self.bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                                MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("ETA"),
                                TimeRemainingColumn(), TextColumn("{task.fields[current]}"),
                                console=reporter.console, transient=True)
            self.task = self.bar.add_task(markup(visible(title)), total=total, current="")

    def __enter__(self):
        if self.bar:
            self.bar.start()
        return self

    def __exit__(self, *exc):
        if self.bar:
            self.bar.stop()

    def current(self, name: str) -> None:
        if self.bar:
            # the field is formatted into markup by TextColumn: escape it there
            self.bar.update(self.task, current=markup(visible(name)))

    def advance(self, label: str, summary: str) -> None:
        """`label` names the case (Method(params) runtime); `summary` its result."""
        self.done += 1
        if self.bar:
            self.bar.advance(self.task)
            return
        elapsed = self.r.clock() - self.t0
        left = self.total - self.done
        eta = f" (ETA {duration(elapsed / self.done * left)})" if left > 0 else ""
        self.r.line(f"[{self.done}/{self.total}] {label}: {summary}{eta}")


def case_summary(ok: bool, error: str | None, estimate) -> str:
    """`1.23 μs ±1.1 %`, or why the case failed."""
    if not ok:
        return f"FAILED: {error}"
    if estimate is None:
        return "no estimate"
    spread = (f" ±{estimate.rel_error:.1%}" if math.isfinite(estimate.rel_error)
              else " (no interval: too few samples)")
    return f"{format_time(estimate.mean)}{spread}"
