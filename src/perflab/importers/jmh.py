"""JMH's `-rf json`: a list of results, each with its mode, params and primary metric, whose
`rawData` holds every measurement iteration of every fork.

Each fork is a JVM process: its iterations are one perflab launch, so with two or more forks the
interval is perflab's own; with one fork it is JMH's (`scoreConfidence`, 99.9 %, t on N−1 df).
Throughput scores (ops/time) become time per operation, each iteration inverted (and JMH's
interval with it); `sample` mode's histograms are not read (the benchmark is listed as not
imported). Names: group = the class, name = the method (as perflab's Java worker names them).
"""
from __future__ import annotations

import re

from .common import TIME_UNITS_NS, Imported, ImportFailed, Measured, ToolFigures, finite, number

TOOL = "JMH"


def detect(data) -> bool:
    return (isinstance(data, list) and bool(data)
            and all(isinstance(r, dict) and "jmhVersion" in r and "primaryMetric" in r for r in data))


def sniff(text: str) -> bool:
    return '"jmhVersion"' in text


def _unit(unit: str, where: str) -> tuple[bool, float]:
    """(throughput?, ns per the unit's time)."""
    m = re.fullmatch(r"(ops)/(\w+)|(\w+)/op", unit or "")
    if not m:
        raise ImportFailed(f"{where}.scoreUnit is {unit!r}, not time/op or ops/time")
    time = m.group(2) or m.group(3)
    if time not in TIME_UNITS_NS:
        raise ImportFailed(f"{where}.scoreUnit {unit!r}: unknown time unit")
    return bool(m.group(1)), TIME_UNITS_NS[time]


def parse(path: str, data) -> Imported:
    cases, problems = [], []
    first = data[0]
    for i, r in enumerate(data):
        where = f"[{i}]"
        full = r.get("benchmark")
        if not isinstance(full, str):
            raise ImportFailed(f"{where}.benchmark is {full!r}, not a string")
        mode = r.get("mode")
        pm = r.get("primaryMetric")
        if not isinstance(pm, dict):
            raise ImportFailed(f"{where}.primaryMetric is not an object")
        if mode not in ("avgt", "thrpt", "ss"):
            problems.append(f"{where} {full}: mode '{mode}' (histograms) is not read; not imported")
            continue
        thrpt, scale = _unit(str(pm.get("scoreUnit")), f"{where}.primaryMetric")

        def ns(x: float) -> float:
            return scale / x if thrpt else x * scale
        raw = pm.get("rawData")
        if not isinstance(raw, list) or not all(isinstance(f, list) for f in raw):
            raise ImportFailed(f"{where}.primaryMetric.rawData is not a list of forks")
        units = [[ns(number(x, f"{where}.primaryMetric.rawData[{f}][{k}]")) for k, x in enumerate(fork)]
                 for f, fork in enumerate(raw)]
        score = ns(number(pm.get("score"), f"{where}.primaryMetric.score"))
        conf = pm.get("scoreConfidence")
        fig = ToolFigures(mean=score, n=sum(len(u) for u in units) or None)
        why = ""
        if isinstance(conf, list) and len(conf) == 2 and all(finite(c) for c in conf) and thrpt and min(conf) <= 0:
            why = "JMH's interval reaches 0 operations per unit of time: no bound on the time per operation"
        elif isinstance(conf, list) and len(conf) == 2 and all(finite(c) for c in conf):
            lo, hi = sorted(ns(c) for c in conf)  # a time interval may reach below 0: JMH's t interval
            fig.ci_low, fig.ci_high, fig.confidence = lo, hi, 0.999
            fig.how = "scoreError, 99.9 %, t on N−1 df over its iterations" + (
                ", inverted from throughput" if thrpt else "")
        cls_method = full.rsplit(".", 2)
        params = r.get("params") if isinstance(r.get("params"), dict) else {}
        alloc = None
        sec = r.get("secondaryMetrics") if isinstance(r.get("secondaryMetrics"), dict) else {}
        norm = sec.get("·gc.alloc.rate.norm") or sec.get("gc.alloc.rate.norm")
        if isinstance(norm, dict) and finite(norm.get("score")):
            alloc = float(norm["score"])
        cases.append(Measured(name=cls_method[-1], group=cls_method[-2] if len(cls_method) > 1 else "",
                              params={str(k): str(v) for k, v in params.items()}, bench_id=full,
                              units=units, unit_kind="processes", figures=fig, alloc_bytes_per_op=alloc, why=why,
                              notes=[f"JMH mode {mode}: throughput ({pm.get('scoreUnit')}) shown as time "
                                     "per operation"] if thrpt else []))
    jdk = str(first.get("jdkVersion") or "")
    major = re.match(r"(?:1\.)?(\d+)", jdk)
    return Imported(tool=TOOL, path=path, cases=cases, language="java",
                    runtime=f"jdk{major.group(1)}" if major else "jvm", runtime_version=jdk,
                    implementation=str(first.get("vmName") or ""),
                    tool_version=str(first.get("jmhVersion") or ""), problems=problems)
