"""Per-launch medians and quantiles of many launches in one pass: the engine judges after rounds over
every launch so far, and one numpy call per launch (a median here, a percentile there) made judging
57 launches take 8 ms, with the measuring CPU idle meanwhile. Results equal numpy's own
(`np.median`, `np.percentile` with linear interpolation) launch by launch."""
from __future__ import annotations

import numpy as np


class Segments:
    """Arrays laid end to end, each one a segment, sorted within itself once."""

    def __init__(self, arrays: list[np.ndarray]):
        counts = np.fromiter((len(a) for a in arrays), dtype=np.int64, count=len(arrays))
        values = np.concatenate(arrays).astype(float) if len(arrays) else np.empty(0)
        self._set(values, counts)

    @classmethod
    def grouped(cls, values: np.ndarray, counts: np.ndarray) -> "Segments":
        """Segments from values already laid end to end, `counts[i]` of them in segment i."""
        out = cls.__new__(cls)
        out._set(np.asarray(values, dtype=float), np.asarray(counts, dtype=np.int64))
        return out

    def _set(self, values: np.ndarray, counts: np.ndarray) -> None:
        self.counts = counts
        self.values = values
        self.ids = np.repeat(np.arange(len(counts)), counts)
        self.starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
        self._sorted: np.ndarray | None = None

    def sorted_values(self) -> np.ndarray:
        if self._sorted is None:
            self._sorted = self.values[np.lexsort((self.values, self.ids))]
        return self._sorted

    def medians(self) -> np.ndarray:
        """Each segment's median (nan for an empty one), as np.median computes it."""
        v, n = self.sorted_values(), self.counts
        out = np.full(len(n), np.nan)
        has = n > 0
        lo = self.starts[has] + (n[has] - 1) // 2
        hi = self.starts[has] + n[has] // 2
        out[has] = (v[lo] + v[hi]) / 2
        return out

    def quantiles(self, q: float) -> np.ndarray:
        """Each segment's q-quantile (0 ≤ q ≤ 1) by linear interpolation, as np.percentile computes it
        (nan for an empty segment)."""
        v, n = self.sorted_values(), self.counts
        out = np.full(len(n), np.nan)
        has = n > 0
        virtual = n[has] * q + (1 - q) - 1  # numpy's virtual index for its default ("linear") method
        below = np.floor(virtual)
        gamma = virtual - below
        i = self.starts[has] + below.astype(np.int64)
        j = self.starts[has] + np.minimum(below.astype(np.int64) + 1, n[has] - 1)
        a, b = v[i], v[j]
        diff = b - a
        out[has] = np.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma)
        return out
