"""Akinshin's mValue, a modality score: ≈2 for one mode, ≈4 for two clear modes, more for more.

mValue = Σ|d[i+1] − d[i]| / max(d) over a density curve d padded with zeros: a curve that rises once
and falls once scores 2; every extra valley adds twice its depth. BenchmarkDotNet evaluates it on a
histogram; histograms of a few dozen samples are jagged enough to fake extra modes (we measured 95th
percentiles of 3.3 on normal samples), so we evaluate it on a Gaussian kernel density estimate
(Scott's bandwidth), which stays ≤ 2.1 on unimodal samples and ≥ 3.3 on two separated modes.
"""
from __future__ import annotations

import numpy as np


def mvalue(x: np.ndarray) -> float:
    x = np.asarray(x, dtype=float)
    if len(x) < 12 or float(np.std(x)) == 0.0:
        return 2.0
    lo, hi = float(np.min(x)), float(np.max(x))
    pad = (hi - lo) * 0.1
    density = gaussian_density(x, np.linspace(lo - pad, hi + pad, 512))
    padded = np.concatenate([[0.0], density, [0.0]])
    return float(np.sum(np.abs(np.diff(padded))) / padded.max())


def gaussian_density(x: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Gaussian kernel density of `x` on `grid` with Scott's bandwidth (sd · n^(-1/5)), up to a constant
    factor (mValue divides by the maximum). What scipy.stats.gaussian_kde computes in one dimension;
    written out because importing scipy.stats costs a run 0.35 s, a tenth of its verdict budget."""
    bandwidth = float(np.std(x, ddof=1)) * len(x) ** (-1 / 5)
    z = (grid[:, None] - x[None, :]) / bandwidth
    return np.exp(-0.5 * z * z).sum(axis=1)
