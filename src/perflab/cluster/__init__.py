"""`perflab run --cluster`: the plan's comparison groups measured on a pool of machines through Ray.

Each benchmark machine offers one `perflab_slot`: a group takes it whole, so no two groups measure on
one machine at once, and a group's contenders (runtimes, baseline) always measure together on one
machine, interleaved as on one machine. Ray is imported only here, and only when asked for.
"""
from __future__ import annotations

from ..errors import UsageError

SLOT = "perflab_slot"


def require_ray():
    try:
        import ray
    except ImportError:
        raise UsageError("--cluster needs Ray, which is not installed: pip install perflab[ray]") from None
    return ray


def run_on_cluster(address: str, plan, prepared, job, done, progress, seed=None, **options) -> dict:
    from .driver import Driver
    return Driver(address, job, seed=seed, **options).run(plan, prepared, done, progress)
