"""BenchmarkDotNet's full JSON export (`*-report-full.json`, `*-report-full-compressed.json`):
per benchmark its Statistics (ns), Memory and every Measurement.

The `Workload`/`Result` measurements (BenchmarkDotNet's own overhead already subtracted) of each
`LaunchIndex` are one process: one perflab launch each. With two or more launches the interval is
perflab's own; with one (BenchmarkDotNet's default) it is BenchmarkDotNet's `ConfidenceInterval`
(its level, t on N−1 df), kept as its own. A benchmark without Statistics failed in
BenchmarkDotNet and fails alone here. Names: group = the class (`Type`), name = the method, and
`Parameters` (`N=10&Flag=True`) become parameters, as perflab's C# worker names them.
"""
from __future__ import annotations

import re

from .common import Imported, ImportFailed, Measured, ToolFigures, finite, number

TOOL = "BenchmarkDotNet"
# BenchmarkDotNet.Mathematics.ConfidenceLevel, in its enum order
LEVELS = [0.50, 0.70, 0.75, 0.80, 0.85, 0.90, 0.92, 0.95, 0.96, 0.97, 0.98, 0.99, 0.999, 0.9999,
          0.99999, 0.999999]


def detect(data) -> bool:
    return isinstance(data, dict) and isinstance(data.get("Benchmarks"), list) and \
        isinstance(data.get("HostEnvironmentInfo"), dict)


def sniff(text: str) -> bool:
    return '"HostEnvironmentInfo"' in text


def runtime_of(version: str) -> tuple[str, str]:
    """(label, implementation) from `RuntimeVersion`: `.NET 8.0.1 (…)` → net8.0, `Mono 6.12.0` → mono."""
    if m := re.match(r"\.NET (\d+)\.(\d+)", version):
        return f"net{m.group(1)}.{m.group(2)}", ".NET"
    if m := re.match(r"\.NET Core (\d+)\.(\d+)", version):
        return f"netcoreapp{m.group(1)}.{m.group(2)}", ".NET Core"
    if m := re.match(r"\.NET Framework (\d+)\.(\d+)", version):
        return f"net{m.group(1)}{m.group(2)}", ".NET Framework"
    if version.startswith("Mono"):
        return "mono", "Mono"
    return "dotnet", version


def _params(text: str) -> dict[str, str]:
    return dict(p.split("=", 1) if "=" in p else (p, "") for p in text.split("&") if p) if text else {}


def parse(path: str, data) -> Imported:
    cases = []
    for i, b in enumerate(data["Benchmarks"]):
        where = f"Benchmarks[{i}]"
        if not isinstance(b, dict):
            raise ImportFailed(f"{where} is not an object")
        method, type_ = b.get("Method"), b.get("Type")
        if not isinstance(method, str) or not isinstance(type_, str):
            raise ImportFailed(f"{where} lacks Type/Method")
        params = _params(str(b.get("Parameters") or ""))
        full = str(b.get("FullName") or f"{type_}.{method}")
        st = b.get("Statistics")
        if not isinstance(st, dict):
            cases.append(Measured(name=method, group=type_, params=params, bench_id=full,
                                  error="BenchmarkDotNet has no statistics for it (it failed there)"))
            continue
        by_launch: dict[int, list[float]] = {}
        for k, m in enumerate(b.get("Measurements") or []):
            if not isinstance(m, dict) or m.get("IterationMode") != "Workload" or m.get("IterationStage") != "Result":
                continue
            ops = number(m.get("Operations"), f"{where}.Measurements[{k}].Operations")
            if ops <= 0:
                raise ImportFailed(f"{where}.Measurements[{k}].Operations is {ops:g}")
            by_launch.setdefault(int(m.get("LaunchIndex") or 1), []).append(
                number(m.get("Nanoseconds"), f"{where}.Measurements[{k}].Nanoseconds") / ops)
        ci = st.get("ConfidenceInterval") if isinstance(st.get("ConfidenceInterval"), dict) else {}
        level = ci.get("Level")
        fig = ToolFigures(mean=number(st.get("Mean"), f"{where}.Statistics.Mean"),
                          median=st.get("Median") if finite(st.get("Median")) else None,
                          stddev=st.get("StandardDeviation") if finite(st.get("StandardDeviation")) else None,
                          min=st.get("Min") if finite(st.get("Min")) else None,
                          max=st.get("Max") if finite(st.get("Max")) else None,
                          se=st.get("StandardError") if finite(st.get("StandardError")) else None,
                          n=int(st["N"]) if finite(st.get("N")) else None)
        if finite(ci.get("Lower")) and finite(ci.get("Upper")):
            fig.ci_low, fig.ci_high = float(ci["Lower"]), float(ci["Upper"])
            fig.confidence = LEVELS[level] if isinstance(level, int) and 0 <= level < len(LEVELS) else None
            fig.how = "ConfidenceInterval" + (f", {fig.confidence:.1%}" if fig.confidence else "") + ", t on N−1 df over its iterations"
        mem = b.get("Memory") if isinstance(b.get("Memory"), dict) else {}
        alloc = mem.get("BytesAllocatedPerOperation")
        cases.append(Measured(name=method, group=type_, params=params, bench_id=full,
                              units=[by_launch[k] for k in sorted(by_launch)], unit_kind="processes",
                              figures=fig, alloc_bytes_per_op=float(alloc) if finite(alloc) else None))
    host = data["HostEnvironmentInfo"]
    version = str(host.get("RuntimeVersion") or "")
    label, impl = runtime_of(version)
    cpu = {k: v for k, v in (("model", host.get("ProcessorName")), ("logical_cores", host.get("LogicalCoreCount")))
           if v is not None}
    title = str(data.get("Title") or "")
    stamp = re.search(r"-(\d{8})-(\d{6})$", title)
    started = (f"{stamp.group(1)[:4]}-{stamp.group(1)[4:6]}-{stamp.group(1)[6:]}T"
               f"{stamp.group(2)[:2]}:{stamp.group(2)[2:4]}:{stamp.group(2)[4:]}") if stamp else ""
    return Imported(tool=TOOL, path=path, cases=cases, language="csharp", runtime=label,
                    runtime_version=version, implementation=impl,
                    tool_version=str(host.get("BenchmarkDotNetVersion") or ""), started=started,
                    machine={"cpu": cpu} if cpu else {})
