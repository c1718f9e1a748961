"""A robust standard deviation: the median absolute deviation scaled to a normal's sd. One place, so
the warmup rule, the cleaning rules and history's change points scale a MAD alike."""
from __future__ import annotations

import numpy as np

# 1 / Φ⁻¹(3/4): a property of the normal distribution, not a tuned number
MAD_TO_SD = 1.4826


def robust_sd(x, centre: float | None = None) -> float:
    """MAD_TO_SD × the median absolute deviation of `x` from `centre` (its median when None)."""
    x = np.asarray(x, dtype=float)
    c = float(np.median(x)) if centre is None else centre
    return MAD_TO_SD * float(np.median(np.abs(x - c)))
