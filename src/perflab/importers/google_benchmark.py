"""Google Benchmark's `--benchmark_format=json` (or `--benchmark_out=F --benchmark_out_format=json`).

Each `run_type: iteration` entry is one run of a benchmark (its real time per iteration). With
`--benchmark_repetitions=N` the N runs of a benchmark re-ran it from its own calibration, in the one
process: each is a unit of perflab's interval ("repetitions in one process"); the file's aggregates
(mean, median, stddev) are kept as its own figures. A file holding only aggregates
(`--benchmark_report_aggregates_only`) gives its mean, and, from its stddev and repetition count, a
t interval. Name parts `a:b` become parameters, plain ones `arg0`, `arg1`…; `error_occurred` entries
fail alone with the tool's message.
"""
from __future__ import annotations

import math

from .common import TIME_UNITS_NS, Imported, ImportFailed, Measured, ToolFigures, finite, number

TOOL = "google-benchmark"


def detect(data) -> bool:
    return (isinstance(data, dict) and isinstance(data.get("context"), dict)
            and isinstance(data.get("benchmarks"), list))


def sniff(text: str) -> bool:
    return '"context"' in text and '"benchmarks"' in text and ('"run_type"' in text or '"real_time"' in text)


def _name(run_name: str) -> tuple[str, dict[str, str]]:
    name, *parts = run_name.split("/")
    params, plain = {}, 0
    for p in parts:
        if ":" in p:
            k, v = p.split(":", 1)
            params[k] = v
        else:
            params[f"arg{plain}"] = p
            plain += 1
    return name, params


def parse(path: str, data) -> Imported:
    runs: dict[str, list[float]] = {}
    aggregates: dict[str, dict[str, float]] = {}
    reps: dict[str, int] = {}
    errors: dict[str, str] = {}
    order: list[str] = []
    for i, b in enumerate(data["benchmarks"]):
        where = f"benchmarks[{i}]"
        if not isinstance(b, dict):
            raise ImportFailed(f"{where} is not an object")
        run_name = b.get("run_name") or b.get("name")
        if not isinstance(run_name, str):
            raise ImportFailed(f"{where} has no name")
        if run_name not in order:
            order.append(run_name)
        if b.get("error_occurred"):
            errors[run_name] = str(b.get("error_message") or "error_occurred")
            continue
        unit = b.get("time_unit", "ns")
        if unit not in TIME_UNITS_NS:
            raise ImportFailed(f"{where}.time_unit is {unit!r}, not ns/us/ms/s")
        if b.get("run_type") == "aggregate":
            agg = str(b.get("aggregate_name", ""))
            if agg in ("mean", "median", "stddev"):
                aggregates.setdefault(run_name, {})[agg] = number(b.get("real_time"), f"{where}.real_time") \
                    * TIME_UNITS_NS[unit]
            if finite(b.get("repetitions")):
                reps[run_name] = int(b["repetitions"])
            continue
        runs.setdefault(run_name, []).append(number(b.get("real_time"), f"{where}.real_time")
                                             * TIME_UNITS_NS[unit])
    cases = []
    for run_name in order:
        name, params = _name(run_name)
        agg = aggregates.get(run_name, {})
        samples = runs.get(run_name, [])
        fig = ToolFigures(mean=agg.get("mean"), median=agg.get("median"), stddev=agg.get("stddev"),
                          n=reps.get(run_name) or len(samples) or None)
        if not samples and fig.mean is not None and fig.stddev is not None and fig.n and fig.n > 1:
            from ..stats.distributions import t_quantile
            half = t_quantile(fig.n - 1, 0.9995) * fig.stddev / math.sqrt(fig.n)
            fig.ci_low, fig.ci_high, fig.confidence = fig.mean - half, fig.mean + half, 0.999
            fig.se, fig.how = fig.stddev / math.sqrt(fig.n), "t from its mean, stddev and repetitions"
        m = Measured(name=name, params=params, bench_id=run_name, units=[[s] for s in samples],
                     unit_kind="repetitions in one process", figures=fig)
        if run_name in errors:
            m.error = f"google-benchmark: {errors[run_name]}"
        cases.append(m)
    ctx = data["context"]
    cpu = {k: v for k, v in (("logical_cores", ctx.get("num_cpus")),) if v is not None}
    exe = str(ctx.get("executable") or "").replace("\\", "/").rsplit("/", 1)[-1]
    return Imported(tool=TOOL, path=path, cases=cases, language="cpp", runtime="google-benchmark", group=exe,
                    tool_version=str(ctx.get("library_version") or ""),
                    started=str(ctx.get("date") or "")[:19], machine={"cpu": cpu} if cpu else {})
