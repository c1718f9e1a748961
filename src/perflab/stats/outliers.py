"""Outliers by Tukey's fences (Q1 − k·IQR, Q3 + k·IQR), the rule BenchmarkDotNet uses."""
from __future__ import annotations

import numpy as np

from .segments import Segments


def tukey_fences(x: np.ndarray, k: float = 1.5) -> tuple[float, float]:
    if len(x) < 4:
        return -np.inf, np.inf
    q1, q3 = np.percentile(x, [25, 75])
    iqr = q3 - q1
    return q1 - k * iqr, q3 + k * iqr


def launch_fences(launches: list[np.ndarray], k: float = 1.5) -> list[tuple[float, float]]:
    """Tukey's fences for each launch of a case: the case's pooled fences (quartiles of every sample),
    or, for a launch whose median lies outside them (a process that differs, which pooled fences would
    cut whole), fences centred on its own median and scaled by the spread of every launch around its
    own median. A launch's own quartiles would do for a launch of a hundred iterations, but a
    short-lived launch (a dozen, see Engine._renew) cannot tell its outliers from its spread: two slow
    iterations of eight move its quartiles and survive."""
    sized = [x for x in launches if len(x)]
    if len(sized) < 2 or sum(len(x) for x in sized) < 8:
        return [tukey_fences(x, k) for x in launches]
    segs = Segments(launches)
    medians = segs.medians()
    q1, q3 = np.percentile(segs.values - medians[segs.ids], [25, 75])
    iqr = q3 - q1
    own = [(-np.inf, np.inf) if not n else (float(m) + q1 - k * iqr, float(m) + q3 + k * iqr)
           for m, n in zip(medians, segs.counts)]
    # A launch of a few iterations has a noisy median: fenced around it, a launch whose median came out
    # low lost more of its upper tail and its mean dropped further, so the launch means spread more
    # than the processes did. A launch whose median lies within the case's pooled fences gets those;
    # one outside them is a process that differs, and keeps its own.
    p1, p3 = np.percentile(segs.values, [25, 75])
    low, high = p1 - k * (p3 - p1), p3 + k * (p3 - p1)
    return [f if not n or not low <= m <= high else (low, high)
            for f, m, n in zip(own, medians, segs.counts)]
