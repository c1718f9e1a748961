"""Akinshin's mValue: a histogram-based modality score (≈2 unimodal, ≈4 bimodal, more for multimodal).

For a histogram with heights h (padded with zeros at both ends), mValue = Σ|h[i+1] − h[i]| / max(h).
Like BenchmarkDotNet, we try several bin widths around the Scott rule and keep the largest score.
"""
from __future__ import annotations

import numpy as np

MULTIMODAL_THRESHOLD = 2.8  # BenchmarkDotNet reports "can have several modes" from here


def mvalue(x: np.ndarray) -> float:
    x = np.asarray(x, dtype=float)
    n = len(x)
    if n < 12:
        return 2.0
    sd = float(np.std(x, ddof=1))
    if sd == 0:
        return 2.0
    base = 3.49 * sd * n ** (-1 / 3)  # Scott's rule
    best = 0.0
    lo, hi = float(np.min(x)), float(np.max(x))
    for factor in (0.5, 0.75, 1.0, 1.5, 2.0):
        width = base * factor
        bins = max(1, int(np.ceil((hi - lo) / width)))
        if bins > n:  # a histogram with more bins than samples only measures sparsity
            continue
        h, _ = np.histogram(x, bins=bins, range=(lo, lo + bins * width))
        padded = np.concatenate([[0], h, [0]]).astype(float)
        score = float(np.sum(np.abs(np.diff(padded))) / padded.max())
        best = max(best, score)
    return best if best else 2.0
