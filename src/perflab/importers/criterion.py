"""criterion.rs's results: `target/criterion/<id>/new/{benchmark,estimates,sample}.json`.

A folder (the `target/criterion` tree, or any part of it) is searched for `new/benchmark.json`; given
files, each one's folder is read. `sample.json` holds each sample's iteration count and total time:
per-iteration times, all measured in the one `cargo bench` process, so they are samples of one run,
not units, and the interval is criterion's own (`estimates.json` mean: a bootstrap of those samples,
at its confidence level), kept as criterion's. Names: `group/function/value` → group, name and the
parameter `value` (a lone `bench_function` is a name alone).
"""
from __future__ import annotations

import json
from pathlib import Path

from .common import Imported, ImportFailed, Measured, ToolFigures, finite, number

TOOL = "criterion"
FILES = ("benchmark.json", "estimates.json", "sample.json")


def is_criterion_file(path: Path) -> bool:
    return path.name in FILES and path.parent.name == "new"


def folders(path: Path) -> list[Path]:
    """The `new/` folders of criterion results under `path` (a folder) — none: not criterion's."""
    return sorted({p.parent for p in path.rglob("new/benchmark.json") if "report" not in p.parts[-4:-2]})


def _read(path: Path, shown: str) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ImportFailed(f"{shown}: missing (criterion writes it beside the others)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFailed(f"{shown}: cannot be read ({exc})") from None
    except ValueError as exc:
        raise ImportFailed(f"{shown}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    if not isinstance(data, dict):
        raise ImportFailed(f"{shown}: not a JSON object")
    return data


def _estimate(est: dict, key: str, where: str) -> dict | None:
    e = est.get(key)
    if e is None:
        return None
    if not isinstance(e, dict) or not isinstance(e.get("confidence_interval"), dict):
        raise ImportFailed(f"{where}: '{key}' has no confidence_interval")
    return e


def parse_folder(folder: Path) -> Measured:
    shown = str(folder)
    bench = _read(folder / "benchmark.json", f"{shown}/benchmark.json")
    est = _read(folder / "estimates.json", f"{shown}/estimates.json")
    sample_path = folder / "sample.json"
    samples: list[float] = []
    if sample_path.exists():
        s = _read(sample_path, f"{shown}/sample.json")
        iters, times = s.get("iters"), s.get("times")
        if not isinstance(iters, list) or not isinstance(times, list) or len(iters) != len(times):
            raise ImportFailed(f"{shown}/sample.json: 'iters' and 'times' are not two lists of one length")
        for k, (n, t) in enumerate(zip(iters, times)):
            n = number(n, f"{shown}/sample.json iters[{k}]")
            if n <= 0:
                raise ImportFailed(f"{shown}/sample.json iters[{k}] is {n:g}")
            samples.append(number(t, f"{shown}/sample.json times[{k}]") / n)
    mean = _estimate(est, "mean", f"{shown}/estimates.json")
    if mean is None:
        raise ImportFailed(f"{shown}/estimates.json: no 'mean'")
    ci = mean["confidence_interval"]
    where = f"{shown}/estimates.json mean"
    median = _estimate(est, "median", f"{shown}/estimates.json")
    sd = _estimate(est, "std_dev", f"{shown}/estimates.json")
    fig = ToolFigures(mean=number(mean.get("point_estimate"), f"{where}.point_estimate"),
                      ci_low=number(ci.get("lower_bound"), f"{where}.confidence_interval.lower_bound"),
                      ci_high=number(ci.get("upper_bound"), f"{where}.confidence_interval.upper_bound"),
                      confidence=number(ci.get("confidence_level"), f"{where}.confidence_interval.confidence_level"),
                      se=mean["standard_error"] if finite(mean.get("standard_error")) else None,
                      median=median["point_estimate"] if median and finite(median.get("point_estimate")) else None,
                      stddev=sd["point_estimate"] if sd and finite(sd.get("point_estimate")) else None,
                      n=len(samples) or None)
    fig.how = f"a bootstrap of its samples in one process, {fig.confidence:.0%}"
    group, function, value = bench.get("group_id"), bench.get("function_id"), bench.get("value_str")
    if not isinstance(group, str):
        raise ImportFailed(f"{shown}/benchmark.json: no group_id")
    if function:
        name, grp = str(function), group
    else:
        name, grp = group, ""
    params = {"value": str(value)} if value not in (None, "") else {}
    notes = []
    slope = est.get("slope")
    if isinstance(slope, dict) and finite(slope.get("point_estimate")):
        notes.append(f"criterion's headline (slope) {slope['point_estimate']:.6g} ns; the mean is shown")
    return Measured(name=name, group=grp, params=params, bench_id=str(bench.get("full_id") or group),
                    units=[samples] if samples else [], unit_kind="samples in one process", figures=fig,
                    notes=notes)


def parse(path: str, folder_list: list[Path]) -> Imported:
    cases, failed = [], []
    for f in folder_list:
        try:
            cases.append(parse_folder(f))
        except ImportFailed as exc:  # one damaged benchmark folder fails alone
            failed.append(str(exc))
    return Imported(tool=TOOL, path=path, cases=cases, language="rust", runtime="criterion",
                    failed=failed)
