"""Counting Python and Go under valgrind: per runtime, the per-op count of work(N) in two launches and
their relative difference, the work(2N)/work(N) ratio, how the first runs of a launch settle, and the
wall time of one launch under callgrind. Uses bench/workloads/count (the tests' benchmarks).

    .venv/bin/python bench/count_python_go.py [RUNTIME ...]     (default: python3.11 go1.26)

A launch: load, set up, 3 warmup runs, then overhead and workload (16 invocations each, one iteration);
per-op = (Ir(workload) - Ir(overhead)) / 16, as the host computes it.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from perflab.measures.callgrind import NotCountable, count_runs  # noqa: E402
from perflab.toolchains.go import GoToolchain  # noqa: E402
from perflab.toolchains.python import PythonToolchain  # noqa: E402

WORKLOADS = Path(__file__).resolve().parent / "workloads" / "count"
INVOCATIONS, WARMUPS = 16, 3
RUNS = [("warmup", INVOCATIONS, 1)] * WARMUPS + [("overhead", INVOCATIONS, 1), ("workload", INVOCATIONS, 1)]


def case(name: str):
    """(toolchain, runtime, sources, benchmark id) for a runtime name."""
    tc = GoToolchain() if name.startswith("go") else PythonToolchain()
    rt = next((r for r in tc.discover_runtimes() if r.name == name), None)
    if rt is None:
        raise SystemExit(f"count_python_go: no runtime {name!r} (see `perflab runtimes`)")
    if name.startswith("go"):
        rt = rt if rt.installed else tc.provision(rt)
        return tc, rt, tc.find_sources(WORKLOADS / "go" / "work"), "example.com/countwork/work.BenchmarkWork"
    return tc, rt, [WORKLOADS / "python" / "bench_count.py"], "bench_count.bench_work"


def measure(name: str, tmp: Path) -> str:
    tc, rt, sources, bench = case(name)
    try:
        profile = tc.count_profile(rt)
    except NotCountable as exc:
        return f"{name}: not countable: {exc}"
    spec = tc.count_spec(tc.prepare(rt, sources, tmp), rt, profile)
    per_op, walls, settle = {}, [], []
    for label, n in (("N", 0), ("N again", 0), ("2N", 1)):
        started = time.monotonic()
        dumps = count_runs(spec, profile, tmp / f"{name}-{len(walls)}", bench, {"n": n}, RUNS)
        walls.append(time.monotonic() - started)
        irs = [d["Ir"] for d in dumps]
        per_op[label] = (irs[-1] - irs[-2]) / INVOCATIONS
        settle.append(" ".join(f"{(ir - irs[-1]) / irs[-1]:+.4%}" for ir in irs[:WARMUPS]))
    diff = (per_op["N again"] - per_op["N"]) / per_op["N"]
    return (f"{name} ({rt.version}): per-op N {per_op['N']:.2f} and {per_op['N again']:.2f} "
            f"(difference {diff:+.5%}), 2N/N {per_op['2N'] / per_op['N']:.4f}, "
            f"launch wall {', '.join(f'{w:.1f}' for w in walls)} s; warmup runs vs workload run "
            f"(N launch): {settle[0]}")


def main(argv: list[str]) -> int:
    names = argv or ["python3.11", "go1.26"]
    with tempfile.TemporaryDirectory(prefix="perflab-count-") as tmp:
        for name in names:
            print(measure(name, Path(tmp)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
