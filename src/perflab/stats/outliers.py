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
    """Tukey's fences for each launch of a case: centred on the launch (its median), scaled by the
    spread of all launches' samples around their own medians. A launch's own quartiles would do for a
    launch of a hundred iterations, but a short-lived launch (a dozen, see Engine._renew) cannot tell
    its outliers from its spread: two slow iterations of eight move its quartiles and survive. Pooled
    fences would do worse: they would cut a whole process that is slower than the others."""
    sized = [x for x in launches if len(x)]
    if len(sized) < 2 or sum(len(x) for x in sized) < 8:
        return [tukey_fences(x, k) for x in launches]
    segs = Segments(launches)
    medians = segs.medians()
    q1, q3 = np.percentile(segs.values - medians[segs.ids], [25, 75])
    iqr = q3 - q1
    return [(-np.inf, np.inf) if not n else (float(m) + q1 - k * iqr, float(m) + q3 + k * iqr)
            for m, n in zip(medians, segs.counts)]
