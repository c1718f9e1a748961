"""pytest-benchmark's `--benchmark-json`: per test its stats (seconds) and, where kept, `stats.data`
(each round's time per iteration).

Every round ran in the one pytest process, one after another: they are samples of one run, not
units, so perflab draws no interval from them, and the file gives none (only a standard deviation):
the case carries the file's mean, median and spread, and compare calls it inconclusive, saying so.
The runtime is the Python of `machine_info`.
"""
from __future__ import annotations

from .common import Imported, ImportFailed, Measured, ToolFigures, finite, number
from .pyperf import python_runtime

TOOL = "pytest-benchmark"


def detect(data) -> bool:
    return (isinstance(data, dict) and isinstance(data.get("benchmarks"), list)
            and isinstance(data.get("machine_info"), dict))


def sniff(text: str) -> bool:
    return '"machine_info"' in text and '"benchmarks"' in text


def parse(path: str, data) -> Imported:
    cases = []
    for i, b in enumerate(data["benchmarks"]):
        where = f"benchmarks[{i}]"
        if not isinstance(b, dict) or not isinstance(b.get("stats"), dict):
            raise ImportFailed(f"{where} has no stats object")
        name = b.get("name")
        if not isinstance(name, str):
            raise ImportFailed(f"{where}.name is {name!r}, not a string")
        st = b["stats"]
        params = b.get("params") if isinstance(b.get("params"), dict) else {}
        data_ = st.get("data")
        samples = ([number(x, f"{where}.stats.data[{k}]") * 1e9 for k, x in enumerate(data_)]
                   if isinstance(data_, list) else [])
        sec = lambda k: st[k] * 1e9 if finite(st.get(k)) else None  # noqa: E731
        fig = ToolFigures(mean=number(st.get("mean"), f"{where}.stats.mean") * 1e9, median=sec("median"),
                          stddev=sec("stddev"), min=sec("min"), max=sec("max"),
                          n=int(st["rounds"]) if finite(st.get("rounds")) else None)
        base = name.split("[", 1)[0] if params else name
        fullname = str(b.get("fullname") or name)
        module = fullname.split("::", 1)[0].rsplit("/", 1)[-1].removesuffix(".py") if "::" in fullname else ""
        cases.append(Measured(name=base, group=str(b.get("group") or module),
                              params={str(k): str(v) for k, v in params.items()}, bench_id=fullname,
                              units=[samples] if samples else [], unit_kind="samples in one process",
                              figures=fig))
    mi = data["machine_info"]
    label, impl, version = python_runtime(str(mi.get("python_implementation", "")),
                                          str(mi.get("python_version", "")))
    cpu_info = mi.get("cpu") if isinstance(mi.get("cpu"), dict) else {}
    cpu = {k: v for k, v in (("model", cpu_info.get("brand_raw")), ("logical_cores", cpu_info.get("count")))
           if v is not None}
    os_ = {k: v for k, v in (("release", mi.get("release")), ("machine", mi.get("machine"))) if v}
    return Imported(tool=TOOL, path=path, cases=cases, language="python", runtime=label,
                    runtime_version=version, implementation=impl, tool_version=str(data.get("version", "")),
                    started=str(data.get("datetime") or "")[:19],
                    machine={**({"cpu": cpu} if cpu else {}), **({"os": os_} if os_ else {})})
