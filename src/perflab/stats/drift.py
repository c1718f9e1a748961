"""The machine's own speed, as every process of a case saw it: the empty loop.

A virtual machine's speed can change by half within seconds (its host's other tenants, a vCPU moved to
a busier core), with nothing in the guest to show it: no steal time, no load, no preemption. The empty
loop is the same code in every process of a case, so how far its per-call time moved from process to
process is how far the machine's speed moved. When a case misses its precision target, that says
whether the machine or the benchmark was noisy.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import kruskal

from ..model import LaunchSamples
from ..policy import DEFAULT, Diagnosis


def empty_loop_times(launches: list[LaunchSamples], rules: Diagnosis = DEFAULT.diagnosis) -> list[np.ndarray]:
    """Per process (with enough of them), the empty loop's times a call (ns)."""
    return [np.asarray(ln.overhead, dtype=float) / ln.invocations for ln in launches
            if ln.invocations > 0 and len(ln.overhead) >= rules.drift_min_samples]


def speed_drift(launches: list[LaunchSamples], rules: Diagnosis = DEFAULT.diagnosis) -> tuple[float, float] | None:
    """(fastest, slowest) process's empty-loop median when they differ by more than Diagnosis.drift_factor and
    the processes' empty loops really differ (Kruskal-Wallis, p < Diagnosis.drift_significance: an empty loop that
    is noisy within each process spreads its processes' medians too, and is not the machine's
    drift), else None. Fewer than two processes with an empty loop cannot tell."""
    times = [t for t in empty_loop_times(launches, rules) if np.median(t) > 0]
    if len(times) < 2:
        return None
    medians = [float(np.median(t)) for t in times]
    fast, slow = min(medians), max(medians)
    if slow <= rules.drift_factor * fast:
        return None
    return (fast, slow) if kruskal(*times).pvalue < rules.drift_significance else None
