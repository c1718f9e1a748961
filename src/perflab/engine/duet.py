"""Duet rounds: the two sides of a paired comparison measured at the same moments, one per CPU.

In ordinary rounds the launches of a comparison take turns on one measuring CPU: launch k of each side
runs its iteration, one after the other. On a machine whose load comes in bursts, a burst that lasts
one side's iteration and not the other's moves their ratio, and a whole launch pair can sit in a busier
stretch for one side than the other: under bench/stress.py at 2× the launch pairs' log ratios varied by
var_between ≈ 0.0034 (a ±3–8 % interval for identical code). The duet method (Bulej et al., "Duet
Benchmarking", 2020) runs the two sides at once instead, one on each of two CPUs, and starts every
round's iterations together, so a burst of load hits both alike and cancels in the ratio of that round.

A group runs as a duet when it holds exactly two cases (a paired comparison: two revisions, two methods,
two runtimes), its job asks for it (Job.duet, `--duet`) and the placement pins launches with a second
CPU to give (`duet_cpus`). Each side's launch k is pinned, once its probe shows it uses one CPU at a
time (engine/affinity.py), to one of the two CPUs, and the sides swap CPUs from one launch pair to the
next (`cpu_of`): a CPU that a neighbour favours slows each side in as many launch pairs. perflab's own
process is not held off a CPU meanwhile (both measure), and nothing starts ahead (no CPU is spare).
"""
from __future__ import annotations

from concurrent.futures import Executor
from typing import Callable

from ..jobs import Job
from .affinity import Placement
from ..policy import DEFAULT


def duet_cpus(placement: Placement, job: Job, cases: int) -> tuple[int, int] | None:
    """The two CPUs a group of `cases` cases runs its duet on (the measuring CPU first), or None: no
    duet (not two cases, the job does not ask for one, launches are not pinned, or one CPU only)."""
    if not job.duet or job.dry or cases != 2 or placement.cpu is None:
        return None
    others = sorted(placement.cpus - {placement.cpu})
    if len(placement.cpus) < DEFAULT.paired.duet_cpus or not others:
        return None
    return placement.cpu, others[0]


def cpu_of(cpus: tuple[int, int], side: int, launch_index: int) -> int:
    """The CPU of side `side`'s launch `launch_index`: the sides take both CPUs in turn, swapping at
    every launch pair, so neither side is measured on one CPU only."""
    return cpus[(side + launch_index) % 2]


def together(pool: Executor, first: Callable[[], None], second: Callable[[], None]) -> None:
    """Run `first` here and `second` on the pool's thread at the same time, and return when both are
    done: one duet round of a launch pair (each call sends its launch's request and reads the reply).
    A failure of either is raised once both have returned, `first`'s first."""
    fut = pool.submit(second)
    try:
        first()
    finally:
        fut.result()
