"""Start-ahead bookkeeping: whether starting the next renewal's processes while the rounds go on costs
the rounds more than it saves, and how many to start. The engine (runner.py) submits the starts and
hands them to its renewals; these decide from what it measured."""
from __future__ import annotations

import math

from ..jobs import Job
from ..policy import DEFAULT, Starts


class AheadGate:
    """perflab's own time per round iteration (its wall time minus what the worker timed), averaged
    with and without a start ahead under way (`lag`, `n`, keyed by whether one was): what starting
    ahead costs the rounds."""

    def __init__(self, rules: Starts = DEFAULT.starts):
        self.rules = rules
        self.lag: dict[bool, float | None] = {True: None, False: None}
        self.n = {True: 0, False: 0}
        self.paused_until = -math.inf

    def record(self, starting: bool, lag: float) -> None:
        """One round iteration's lag, with a start ahead under way or not (a running average)."""
        before = self.lag[starting]
        self.lag[starting] = lag if before is None else before + self.rules.lag_weight * (lag - before)
        self.n[starting] += 1

    def hurts(self, now: float) -> bool:
        """Whether starting ahead slows perflab's own process more than it is worth: on a machine whose
        other CPUs are busy (another process computing there), a start ahead shares the one CPU
        perflab has with it, and perflab's reply to each iteration came 2-3.5 ms later instead of 1 —
        over a start's 30-90 ms, that outweighs the start it saves. Then starts ahead pause for
        Starts.ahead_pause_s and are tried afresh: the machine may have quietened."""
        if now < self.paused_until:
            return True
        busy, idle = self.lag[True], self.lag[False]
        if (min(self.n.values()) >= self.rules.lag_min_samples and busy is not None and idle is not None
                and busy > idle + self.rules.ahead_lag_max_s):
            self.paused_until = now + self.rules.ahead_pause_s
            self.lag[True], self.n[True] = None, 0  # measured afresh when they resume
            return True
        return False


def starts_wanted(live: int, most_launches: int, job: Job) -> int:
    """Processes to have started ahead per contender: what the next renewal attaches when it doubles
    the `live` launches, within the job's live cap and what its total cap (`most_launches` used by
    the contender with the most) leaves."""
    return min(2 * live, job.launches_live, job.launches_max - most_launches)
