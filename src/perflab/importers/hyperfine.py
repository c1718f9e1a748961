"""hyperfine's `--export-json`: per command its run times (each run its own process) and its summary.

Every run is a process, so each time is a unit of perflab's interval. A parameter scan (`-P`, `-L`)
gives each result its `parameters`: they become parameters, and the command's name is the command
with their values put back as `{name}`, so the scan's results are one benchmark.
"""
from __future__ import annotations

from .common import Imported, ImportFailed, Measured, ToolFigures, number

TOOL = "hyperfine"


def detect(data) -> bool:
    return (isinstance(data, dict) and isinstance(data.get("results"), list) and bool(data["results"])
            and all(isinstance(r, dict) and "command" in r for r in data["results"]))


def sniff(text: str) -> bool:
    return '"results"' in text and '"command"' in text and '"exit_codes"' in text


def _name(command: str, params: dict[str, str]) -> str:
    for k, v in params.items():
        if v and command.count(v) == 1:
            command = command.replace(v, "{" + k + "}")
    return command


def parse(path: str, data) -> Imported:
    cases = []
    for i, r in enumerate(data["results"]):
        where = f"results[{i}]"
        command = r.get("command")
        if not isinstance(command, str):
            raise ImportFailed(f"{where}.command is {command!r}, not a string")
        times = r.get("times")
        if times is not None and not isinstance(times, list):
            raise ImportFailed(f"{where}.times is not a list")
        samples = [number(t, f"{where}.times[{j}]") * 1e9 for j, t in enumerate(times or [])]
        params = r.get("parameters") if isinstance(r.get("parameters"), dict) else {}
        params = {str(k): str(v) for k, v in params.items()}
        fig = ToolFigures(
            mean=number(r.get("mean"), f"{where}.mean") * 1e9,
            median=r["median"] * 1e9 if isinstance(r.get("median"), (int, float)) else None,
            stddev=r["stddev"] * 1e9 if isinstance(r.get("stddev"), (int, float)) else None,
            min=r["min"] * 1e9 if isinstance(r.get("min"), (int, float)) else None,
            max=r["max"] * 1e9 if isinstance(r.get("max"), (int, float)) else None,
            n=len(samples) or None)
        failed = [c for c in r.get("exit_codes") or [] if c not in (0, None)]
        notes = [f"{len(failed)} run(s) exited non-zero (hyperfine --ignore-failure)"] if failed else []
        cases.append(Measured(name=_name(command, params), params=params, bench_id=command,
                              units=[[s] for s in samples], unit_kind="processes", figures=fig,
                              notes=notes))
    return Imported(tool=TOOL, path=path, cases=cases, language="command", runtime="hyperfine")
