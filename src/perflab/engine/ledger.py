"""One ledger per case that charges time: what the case spent of its budget, and what its launches and
its round iterations cost — the two prices the renewal arithmetic weighs (allocation.py). Every
charge the engine makes goes through one of these methods, so where the seconds go reads in one place."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Ledger:
    spent: float = 0.0  # seconds charged to the case's budget: everything timed for it
    launch_seconds: float = 0.0  # starting and preparing launches (start, setup, pilot, warmup, overhead)
    launches_started: int = 0
    round_seconds: float = 0.0  # its iterations in the rounds, perflab's own time around them included
    round_iterations: int = 0

    def charge(self, seconds: float) -> None:
        """Time spent on the case (a stage, a teardown, a diagnostic pass)."""
        self.spent += seconds

    def charge_start(self, seconds: float) -> None:
        """Its share of starting processes (side by side, or waiting for one started ahead): untimed
        by any stage, so charged to the budget and to what a launch costs."""
        self.spent += seconds
        self.launch_seconds += seconds

    def launches_prepared(self, seconds: float, count: int) -> None:
        """Preparing `count` launches took `seconds` (their stages were charged as they ran)."""
        self.launch_seconds += seconds
        self.launches_started += count

    def round_iteration(self, seconds: float) -> None:
        """One round iteration took `seconds` (its stages were charged as they ran)."""
        self.round_seconds += seconds
        self.round_iterations += 1

    def costs(self) -> tuple[float, float]:
        """What a launch (start, setup, warmup, overhead) and a round iteration have cost, on average."""
        c_iteration = self.round_seconds / self.round_iterations if self.round_iterations else 0.0
        return self.launch_seconds / max(1, self.launches_started), c_iteration

    def per_launch(self) -> float:
        return self.costs()[0]
