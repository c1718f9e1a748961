"""Outliers by Tukey's fences (Q1 − k·IQR, Q3 + k·IQR), the rule BenchmarkDotNet uses."""
from __future__ import annotations

import numpy as np


def tukey_fences(x: np.ndarray, k: float = 1.5) -> tuple[float, float]:
    if len(x) < 4:
        return -np.inf, np.inf
    q1, q3 = np.percentile(x, [25, 75])
    iqr = q3 - q1
    return q1 - k * iqr, q3 + k * iqr
