"""`go test -bench` text output: one line per benchmark run (`BenchmarkName-P  N  T ns/op  [B B/op  A allocs/op]`).

Several lines of one benchmark (`-count N`) are its samples; each re-ran the benchmark from its own b.N
calibration, in the one test process (`go test` runs every count in one binary), so they are
"repetitions in one process". Names follow perflab's Go worker: group = the package's last path
element, name = the function without `Benchmark`, `b.Run` leaves as parameters (`n=10` → n; other
leaves → `case`); the `-P` suffix (GOMAXPROCS) becomes a parameter `procs` only when a benchmark ran
with several.
"""
from __future__ import annotations

import re

from .common import Imported, ImportFailed, Measured

TOOL = "go test"
RESULT = re.compile(r"^(Benchmark\S*)\s+(\d+)\s+(.*)$")
HEADER = re.compile(r"^(goos|goarch|pkg|cpu):\s*(.*)$")


def sniff(text: str) -> bool:
    return any(RESULT.match(line) for line in text.splitlines()[:5000])


def _split_name(full: str) -> tuple[str, str, str]:
    """(function, sub-benchmark path, procs) of `BenchmarkX/sub-4`."""
    m = re.match(r"^(.*?)(?:-(\d+))?$", full)
    name, procs = m.group(1), m.group(2) or ""
    func, _, sub = name.partition("/")
    return func, sub, procs


def _params(sub: str) -> dict[str, str]:
    if not sub:
        return {}
    parts = sub.split("/")
    if all("=" in p for p in parts):
        return dict(p.split("=", 1) for p in parts)
    return {"case": sub}


def parse(path: str, text: str) -> Imported:
    header: dict[str, str] = {}
    runs: dict[tuple[str, str, str, str], list[tuple[float, float | None, float | None]]] = {}
    order = []
    for lineno, line in enumerate(text.splitlines(), 1):
        h = HEADER.match(line)
        if h:
            header[h.group(1)] = h.group(2).strip()
            continue
        m = RESULT.match(line)
        if not m:
            continue
        fields = m.group(3).split()
        if len(fields) % 2:
            raise ImportFailed(f"line {lineno}: '{line.strip()}' has a value without its unit")
        metrics: dict[str, float] = {}
        for value, unit in zip(fields[::2], fields[1::2]):
            try:
                metrics[unit] = float(value)
            except ValueError:
                raise ImportFailed(f"line {lineno}: '{value}' ({unit}) is not a number") from None
        if "ns/op" not in metrics:
            raise ImportFailed(f"line {lineno}: no ns/op in '{line.strip()}'")
        func, sub, procs = _split_name(m.group(1))
        pkg = header.get("pkg", "")
        key = (pkg, func, sub, procs)
        if key not in runs:
            order.append(key)
        runs.setdefault(key, []).append((metrics["ns/op"], metrics.get("B/op"), metrics.get("allocs/op")))
    if not runs:
        raise ImportFailed("no benchmark result line (BenchmarkX-N  iterations  T ns/op)")
    procs_of: dict[tuple[str, str, str], set[str]] = {}
    for pkg, func, sub, procs in order:
        procs_of.setdefault((pkg, func, sub), set()).add(procs)
    cases = []
    for key in order:
        pkg, func, sub, procs = key
        lines = runs[key]
        params = _params(sub)
        if len(procs_of[(pkg, func, sub)]) > 1:
            params["procs"] = procs
        name = func.removeprefix("Benchmark").lstrip("_") or func
        allocs = [b for _, b, _ in lines if b is not None]
        counts = [a for _, _, a in lines if a is not None]
        cases.append(Measured(
            name=name, group=pkg.rsplit("/", 1)[-1], params=params,
            bench_id=f"{pkg}.{func}{'/' + sub if sub else ''}" if pkg else func + (f"/{sub}" if sub else ""),
            units=[[ns] for ns, _, _ in lines], unit_kind="repetitions in one process",
            alloc_bytes_per_op=sum(allocs) / len(allocs) if allocs else None,
            allocs_per_op=sum(counts) / len(counts) if counts else None,
            notes=[f"GOMAXPROCS {procs}"] if procs and "procs" not in params else []))
    machine = {"cpu": {"model": header["cpu"]}} if header.get("cpu") else {}
    return Imported(tool=TOOL, path=path, cases=cases, language="go", runtime="go", machine=machine)
