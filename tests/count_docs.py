"""Hand-made `counts` records (the schema in docs/instructions.md), as the count executor writes them
into CaseResult.counts / the results JSON: for the readers' tests (compare, store, history, report),
which never run valgrind."""
from __future__ import annotations

INVOCATIONS = 1000


def counts_record(ir: float, launch_irs: list[float] | None = None, *, agreed: bool | None = None,
                  tolerance: float = 1e-4, error: str | None = None, note: str = "") -> dict:
    """A case counted at `ir` instructions per operation; `launch_irs`: each launch's own per-op Ir
    (default two launches that agree exactly). The spread and `agreed` follow from the launches as the
    executor computes them, unless `agreed` is given."""
    if error:
        return {"tool": "callgrind (valgrind-3.19.0)", "marker": "perflab_measured_region", "pinned": {},
                "events": [], "per_op": {}, "launches": [], "spread": None, "agreed": False,
                "tolerance": tolerance, "wall_s": 0.1, "error": error, "note": note}
    irs = list(launch_irs) if launch_irs is not None else [ir, ir]
    ordered = sorted(irs)
    median = ordered[len(ordered) // 2] if len(ordered) % 2 else sum(ordered[len(ordered) // 2 - 1:
                                                                             len(ordered) // 2 + 1]) / 2
    spread = (ordered[-1] - ordered[0]) / median if len(irs) > 1 else 0.0
    launches = []
    for x in irs:
        over = 40.0 * INVOCATIONS
        launches.append({"invocations": INVOCATIONS, "iterations": 1,
                         "workload": {"Ir": over + x * INVOCATIONS, "I1mr": 3, "ILmr": 2},
                         "overhead": {"Ir": over, "I1mr": 3, "ILmr": 2},
                         "per_op": {"Ir": x, "I1mr": 0.001, "ILmr": 0.0005}})
    return {"tool": "callgrind (valgrind-3.19.0)", "marker": "perflab_measured_region",
            "pinned": {"aslr": "off"}, "events": ["Ir", "I1mr", "ILmr"],
            "per_op": {"Ir": ir, "I1mr": 0.001, "ILmr": 0.0005, "l1_misses": 0.004, "ll_misses": 0.002,
                       "est_cycles": ir + 0.004 * 10 + 0.002 * 100},
            "launches": launches, "spread": spread,
            "agreed": (len(irs) > 1 and spread <= tolerance) if agreed is None else agreed,
            "tolerance": tolerance, "wall_s": 2.5, "error": None, "note": note}
