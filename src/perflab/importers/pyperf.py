"""pyperf's JSON (`-o FILE.json`, also gzip-compressed `.json.gz`): per benchmark its runs, each run a
worker process with its values (seconds per loop iteration, warm-ups apart).

Each run is a process: its values are one perflab launch, so the interval is perflab's own over the
processes. Runs without values (pyperf's calibration runs) and warm-ups are left out. The runtime is
the Python the file names (`python_implementation`, `python_version`).
"""
from __future__ import annotations

import re

from .common import Imported, ImportFailed, Measured, number

TOOL = "pyperf"


def detect(data) -> bool:
    return (isinstance(data, dict) and isinstance(data.get("benchmarks"), list) and "version" in data
            and all(isinstance(b, dict) and "runs" in b for b in data["benchmarks"]))


def sniff(text: str) -> bool:
    return '"benchmarks"' in text and '"runs"' in text and '"values"' in text or '"perf_version"' in text


def python_runtime(implementation: str, version: str) -> tuple[str, str, str]:
    """(label, implementation, version) as perflab names Pythons: python3.11 (CPython), pypy3.10."""
    impl = implementation.strip().lower()
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", version.strip())
    if not m:
        return ("python" if impl in ("", "cpython") else impl), implementation, version
    short = f"{m.group(1)}.{m.group(2)}"
    full = version.split()[0]
    if impl == "pypy":
        return f"pypy{short}", "PyPy", full
    return f"python{short}", "CPython" if impl in ("", "cpython") else implementation, full


def parse(path: str, data) -> Imported:
    common = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    cases, started, problems = [], "", []
    for i, b in enumerate(data["benchmarks"]):
        meta = {**common, **(b.get("metadata") if isinstance(b.get("metadata"), dict) else {})}
        name = meta.get("name")
        if not isinstance(name, str) or not name:
            raise ImportFailed(f"benchmarks[{i}] has no metadata.name")
        unit = meta.get("unit", "second")
        if unit != "second":
            problems.append(f"benchmarks[{i}] ({name}): unit '{unit}' is not a time; not imported")
            continue
        if not isinstance(b["runs"], list):
            raise ImportFailed(f"benchmarks[{i}].runs is not a list")
        units = []
        for j, run in enumerate(b["runs"]):
            if not isinstance(run, dict):
                raise ImportFailed(f"benchmarks[{i}].runs[{j}] is not an object")
            values = run.get("values") or []
            if not isinstance(values, list):
                raise ImportFailed(f"benchmarks[{i}].runs[{j}].values is not a list")
            if values:
                units.append([number(v, f"benchmarks[{i}].runs[{j}].values[{k}]") * 1e9
                              for k, v in enumerate(values)])
            date = (run.get("metadata") or {}).get("date") if isinstance(run.get("metadata"), dict) else None
            if isinstance(date, str) and not started:
                started = date.replace(" ", "T")
        if not units:
            raise ImportFailed(f"benchmarks[{i}] ({name}) has no run with values")
        cases.append(Measured(name=name, bench_id=name, units=units, unit_kind="processes"))
    label, impl, version = python_runtime(str(common.get("python_implementation", "")),
                                          str(common.get("python_version", "")))
    cpu = {k: v for k, v in (("model", common.get("cpu_model_name")),
                             ("logical_cores", common.get("cpu_count"))) if v is not None}
    return Imported(tool=TOOL, path=path, cases=cases, language="python", runtime=label,
                    runtime_version=version, implementation=impl,
                    tool_version=str(common.get("perf_version", "")), started=started[:19],
                    machine={"cpu": cpu} if cpu else {}, problems=problems)
