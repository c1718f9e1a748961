"""What every importer shares: the shape an imported benchmark takes (`Measured`), its conversion into a
case of perflab's results document, and the estimate a case carries.

An imported case keeps what the file measured and nothing more:

- samples, where the file has them, as perflab launches: one launch per *unit* of the tool's that ran
  on its own (a process: a pyperf run, a JMH fork, a hyperfine run, a BenchmarkDotNet launch; or a
  repetition that re-ran the benchmark from its calibration: a `go test -count` line, a Google
  Benchmark repetition). `units` says which, and a note says so wherever a unit was not a process;
- the file's own figures (mean, median, spread, interval and its confidence) under "imported", as
  the tool printed them;
- an "estimate": perflab's own (stats/estimate.py, its units the launches) where two or more units
  give an interval; else the file's own figures, marked `"by": <tool>`; else the mean alone with no
  interval, and the reason (`why_no_interval`), which compare turns into "inconclusive".
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..policy import DEFAULT
from ..model import Benchmark, Case, LaunchSamples, ParamAxis, Runtime

CONFIDENCE = DEFAULT.stop.confidence  # perflab's own intervals, as `perflab run` makes them


class ImportFailed(Exception):
    """A file of a known format that cannot be read: the message says what and where (file:where)."""


@dataclass
class ToolFigures:
    """What the file itself says of a benchmark, in ns per operation (None: the file does not say)."""
    mean: float | None = None
    median: float | None = None
    stddev: float | None = None
    min: float | None = None
    max: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    confidence: float | None = None  # of ci_low..ci_high
    se: float | None = None
    n: int | None = None  # the samples the tool's figures are made of
    how: str = ""  # how the tool made its interval ("bootstrap of its samples", "t, N-1 df")

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None and v != ""}


@dataclass
class Measured:
    """One imported benchmark case: what an importer hands to `case_json`."""
    name: str  # method/function, as perflab's table names it
    group: str = ""
    params: dict[str, str] = field(default_factory=dict)
    bench_id: str = ""  # the tool's own full name of the case
    # per-op samples in ns, one list per unit (launch); empty: the file has no samples
    units: list[list[float]] = field(default_factory=list)
    unit_kind: str = ""  # "processes", "repetitions in one process", "samples in one process"
    figures: ToolFigures = field(default_factory=ToolFigures)
    alloc_bytes_per_op: float | None = None
    allocs_per_op: float | None = None
    notes: list[str] = field(default_factory=list)
    error: str | None = None  # the case failed in the tool (its message)
    why: str = ""  # why the file's own interval cannot be used, when it has one


@dataclass
class Imported:
    """What one file (or criterion folder) holds: its cases and the environment it names."""
    tool: str  # "criterion", "go test", "pyperf", …
    path: str
    cases: list[Measured]
    language: str = ""
    runtime: str = ""  # label: "python3.11", "jdk17", "go", "criterion"
    runtime_version: str = ""
    implementation: str = ""
    tool_version: str = ""
    started: str = ""  # ISO date the file gives, "" when it gives none
    machine: dict[str, Any] = field(default_factory=dict)  # cpu/os parts the file states
    problems: list[str] = field(default_factory=list)  # parts of the file set aside, with where
    group: str = ""  # the group of cases whose name the file gives no group (default: the tool)
    failed: list[str] = field(default_factory=list)  # parts that could not be read (file:where: what)


def finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def number(v: Any, where: str) -> float:
    """A finite number from the file, or ImportFailed naming where it is."""
    if not finite(v):
        raise ImportFailed(f"{where} is {v!r}, not a number")
    return float(v)


TIME_UNITS_NS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9, "sec": 1e9,
                 "min": 60e9, "m": 60e9}


def _axes(values: list[dict[str, str]]) -> tuple[ParamAxis, ...]:
    names: list[str] = []
    for v in values:
        names += [k for k in v if k not in names]
    return tuple(ParamAxis(n, tuple(dict.fromkeys(v[n] for v in values if n in v))) for n in names)


def case_json(imp: Imported, m: Measured, runtime_label: str, axes: tuple[ParamAxis, ...]) -> dict[str, Any]:
    """One imported case as a results document holds it (results.row_to_json's fields)."""
    params = {a.name: m.params.get(a.name, "") for a in axes}
    bench = Benchmark(id=m.bench_id or (f"{m.group}.{m.name}" if m.group else m.name), name=m.name,
                      group=m.group, language=imp.language, file=imp.path,
                      params=tuple(ParamAxis(a.name, a.values if params[a.name] in a.values
                                             else a.values + (params[a.name],)) for a in axes),
                      meta={"source": imp.tool})
    runtime = Runtime(name=runtime_label, language=imp.language,
                      version=imp.runtime_version, executable="", implementation=imp.implementation)
    case = Case(bench, tuple((a.name, bench.params[i].values.index(params[a.name]))
                             for i, a in enumerate(axes)), runtime)
    if m.error:
        return _failed_case(imp, m, case, bench, runtime)
    launches = []
    for i, samples in enumerate(u for u in m.units if u):
        launches.append(LaunchSamples(index=i, invocations=1, workload=[float(x) for x in samples]))
    ours = _estimate_units(launches)
    fig = m.figures
    why = ""
    if ours is not None and ours.launches >= 2 and math.isfinite(ours.error):
        est = {**ours.to_json(), "by": "perflab"}
    elif fig.mean is not None and fig.ci_low is not None and fig.ci_high is not None:
        est = _tool_estimate(imp.tool, fig, len(m.units))
    else:
        mean = fig.mean if fig.mean is not None else (ours.mean if ours is not None else None)
        if mean is None:
            raise ImportFailed(f"{m.bench_id or m.name}: the file gives no time for it")
        why = m.why or _why_no_interval(imp.tool, m, launches)
        est = {"mean": mean, "error": None, "ci_low": None, "ci_high": None, "se": None, "df": None,
               "median": fig.median if fig.median is not None else (ours.median if ours else None),
               "stddev": fig.stddev, "n": fig.n or sum(len(u) for u in m.units),
               "launches": len(launches), "confidence": None,
               "by": imp.tool if fig.mean is not None else "perflab"}
    warnings = list(m.notes)
    if m.unit_kind and m.unit_kind != "processes" and est.get("by") == "perflab" and est.get("se"):
        warnings.append(f"the interval's units are {imp.tool}'s {m.unit_kind}, not processes")
    from ..model import Diagnostics
    diag = (Diagnostics(alloc_bytes_per_op=m.alloc_bytes_per_op, allocs_per_op=m.allocs_per_op)
            if m.alloc_bytes_per_op is not None or m.allocs_per_op is not None else None)
    return {
        "key": case.key, "benchmark": bench.to_json(), "params": case.param_values,
        "runtime": runtime.to_json(), "status": "ok", "error": None, "error_detail": "", "absent": "",
        "stop_reason": f"imported from {imp.tool}", "wall_seconds": 0.0, "launch_cost_s": 0.0,
        "iteration_cost_s": 0.0, "output_bytes": 0, "clock_resolution_ns": 1.0, "worker_runtime": {},
        "round_group": 0, "judged_by": "", "contention": {}, "machine": None, "rerun": "",
        "launches": [ln.to_json() for ln in launches],
        "diagnostics": diag.to_json() if diag else None,
        "estimate": est, "baseline": None, "is_baseline": False, "ratio": None, "alloc_ratio": None,
        "runtime_baseline": None, "is_runtime_baseline": False, "runtime_ratio": None,
        "runtime_alloc_ratio": None, "warnings": warnings, "notes": [], "counts": None,
        # where it came from: the tool, its file, what its samples' units are, its own figures
        "source": {"tool": imp.tool, "tool_version": imp.tool_version, "file": imp.path,
                   "id": m.bench_id, "units": m.unit_kind, "why_no_interval": why},
        "imported": fig.to_json(),
    }


def _estimate_units(launches: list[LaunchSamples]):
    """perflab's estimate over the units: stats/estimate.py where units hold several samples each (it
    weighs them and needs the spread inside each); where every unit is one sample (a hyperfine run, a
    `go test -count` line) the units' values themselves, t on L−1 degrees of freedom."""
    from ..stats.distributions import t_quantile
    from ..stats.estimate import Estimate, estimate
    if not launches:
        return None
    if any(len(ln.workload) > 1 for ln in launches):
        return estimate(launches, 1, CONFIDENCE, subtract_overhead=False)
    x = [ln.workload[0] for ln in launches]
    n = len(x)
    mean = sum(x) / n
    xs = sorted(x)
    median = (xs[(n - 1) // 2] + xs[n // 2]) / 2
    if n < 2:
        return Estimate(mean, float("inf"), float("-inf"), float("inf"), 0.0, median, xs[0], xs[-1], 1, 1,
                        CONFIDENCE, float("inf"), 0.0)
    sd = math.sqrt(sum((v - mean) ** 2 for v in x) / (n - 1))
    se = sd / math.sqrt(n)
    half = t_quantile(n - 1, 0.5 + CONFIDENCE / 2) * se
    return Estimate(mean, half, mean - half, mean + half, sd, median, xs[0], xs[-1], n, n, CONFIDENCE, se,
                    float(n - 1), launch_means=list(x))


def side_estimate(case: dict[str, Any]):
    """What compare judges an imported case by: (Estimate or None, note, reason for no interval).
    The stored estimate, whoever made it (perflab over the units, or the tool), as an Estimate; None
    with the reason when it has no interval."""
    from ..stats.estimate import Estimate
    est = case.get("estimate") if isinstance(case.get("estimate"), dict) else {}
    src = case.get("source") if isinstance(case.get("source"), dict) else {}
    tool = str(src.get("tool") or "the tool")
    mean, se, df = est.get("mean"), est.get("se"), est.get("df")
    if not (finite(mean) and finite(se) and finite(df) and se > 0 and df >= 1):
        return None, "", str(src.get("why_no_interval") or f"{tool}'s file gives no interval for it")
    by = est.get("by")
    units = str(src.get("units") or "")
    if by == "perflab":
        note = "" if units in ("", "processes") else f"units: {tool}'s {units}"
    else:
        note = f"{tool}'s own interval" + (f": {est['how']}" if est.get("how") else "")
    lo, hi = est.get("ci_low"), est.get("ci_high")
    return Estimate(mean=float(mean), error=float(est.get("error") or 0.0),
                    ci_low=float(lo) if finite(lo) else float(mean), ci_high=float(hi) if finite(hi) else float(mean),
                    stddev=float(est.get("stddev") or 0.0), median=float(est.get("median") or mean),
                    min=float(mean), max=float(mean), n=int(est.get("n") or 0),
                    launches=int(est.get("launches") or 0), confidence=float(est.get("confidence") or CONFIDENCE),
                    se=float(se), df=float(df)), note, ""


def _failed_case(imp: Imported, m: Measured, case: Case, bench: Benchmark, runtime: Runtime) -> dict[str, Any]:
    return {"key": case.key, "benchmark": bench.to_json(), "params": case.param_values,
            "runtime": runtime.to_json(), "status": "failed", "error": m.error, "error_detail": "",
            "absent": "", "stop_reason": f"imported from {imp.tool}", "launches": [], "diagnostics": None,
            "estimate": None, "warnings": [], "notes": [], "counts": None,
            "source": {"tool": imp.tool, "tool_version": imp.tool_version, "file": imp.path,
                       "id": m.bench_id, "units": m.unit_kind, "why_no_interval": ""},
            "imported": {}}


def _tool_estimate(tool: str, fig: ToolFigures, units: int) -> dict[str, Any]:
    """The file's own interval as an estimate: se from the tool's standard error where it gives one,
    else from the interval's half-width and its confidence (t on n−1 degrees of freedom, normal
    when n is unknown)."""
    from ..stats.distributions import t_quantile
    df = float(fig.n - 1) if fig.n and fig.n > 1 else None
    conf = fig.confidence or 0.95
    if fig.se is not None:
        se = fig.se
    else:
        q = t_quantile(df, 0.5 + conf / 2) if df else 1.959963984540054 if conf == 0.95 else \
            t_quantile(1e6, 0.5 + conf / 2)
        se = (fig.ci_high - fig.ci_low) / (2 * q)
    return {"mean": fig.mean, "error": (fig.ci_high - fig.ci_low) / 2, "ci_low": fig.ci_low,
            "ci_high": fig.ci_high, "confidence": conf, "se": se, "df": df or 1e6,
            "median": fig.median, "stddev": fig.stddev, "n": fig.n, "launches": units,
            "by": tool, "how": fig.how}


def _why_no_interval(tool: str, m: Measured, launches: list) -> str:
    n = sum(len(u) for u in m.units)
    if not n:
        return f"{tool} gives a mean only (no samples, no interval)"
    if len(launches) == 1:
        return f"{tool}: one run ({n} sample(s)), no interval in the file"
    return f"{tool}'s samples give no interval"


def build_document(imp: Imported, runtime_label: str | None, command: list[str]) -> dict[str, Any]:
    """A perflab results document of one imported file."""
    import datetime as dt

    from .. import __version__
    from ..results import SCHEMA, SCHEMA_VERSION
    label = runtime_label or imp.runtime or imp.tool
    groups: dict[tuple[str, str], list[Measured]] = {}
    for m in imp.cases:
        groups.setdefault((m.group, m.name), []).append(m)
    cases, seen = [], set()
    for m in imp.cases:
        m.group = m.group or imp.group or imp.tool
    for ms in groups.values():
        axes = _axes([m.params for m in ms])
        for m in ms:
            c = case_json(imp, m, label, axes)
            if c["key"] in seen:
                raise ImportFailed(f"{m.bench_id or m.name}: appears twice in the file")
            seen.add(c["key"])
            cases.append(c)
    runtimes = {c["runtime"]["label"]: c["runtime"] for c in cases}
    now = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    return {
        "schema": SCHEMA, "version": SCHEMA_VERSION, "perflab_version": __version__,
        "started": imp.started or now, "written": now, "complete": True, "command": command,
        "job": {"name": f"imported ({imp.tool})", "overhead": False},
        "environment": {**imp.machine, "runtimes": list(runtimes.values()),
                        "imported": {"tool": imp.tool, "tool_version": imp.tool_version,
                                     "file": imp.path, "measured": imp.started, "problems": imp.problems}},
        "errors": list(imp.problems), "cases": cases,
    }


def is_imported(doc_or_case: dict[str, Any]) -> bool:
    env = doc_or_case.get("environment")
    return isinstance(doc_or_case.get("source"), dict) or (
        isinstance(env, dict) and isinstance(env.get("imported"), dict))

