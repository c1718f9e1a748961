"""A generated history for the dashboard's tests and bench/serve.py: runs with provenance (git commit,
branch, runtimes), cases with raw samples, params, one series that shifts, and hostile user data.

Seeded, so every test sees the same history. Cases go in one transaction per run (Store.add_cases):
a 1,000 × 500 history would take long case by case.
"""
from __future__ import annotations

import numpy as np


HOSTILE_GROUP = "<script>alert('group')</script>"
HOSTILE_NAME = "x'; DROP TABLE runs; --"
HOSTILE_PARAMS = {"s": "\"quoted\" <b>bold</b>\nnext line", "u": "ünïcödé ✓ 'q'"}
HOSTILE_LABEL = "<img src=x onerror=alert(1)> & 'label' \"dq\"\n2nd"
SHIFTING = "Shift.Work"     # the benchmark whose runtime `py-a` gets 30 % slower from SHIFT_RUN
SHIFT_FACTOR = 1.3
ENV = {"cpu": {"model": "Fake CPU", "logical_cores": 2, "flags_sha256": "f00"},
       "os": {"system": "Linux", "release": "6.1", "machine": "x86_64"},
       "perflab_version": "0.1.0", "host_python": "3.11.2"}
RUNTIMES = ("py-a", "py-b")


def _bench(group: str, name: str, params: dict) -> dict:
    return {"id": f"{group}.{name}", "name": name, "group": group, "language": "python",
            "file": "bench_demo.py", "line": 1, "baseline": False, "categories": [],
            "ops_per_invoke": 1, "params": [{"name": k, "values": [v]} for k, v in params.items()],
            "meta": {}}


def _runtime(label: str) -> dict:
    return {"name": label, "label": label, "language": "python", "version": "3.11.2",
            "executable": "/usr/bin/python3", "flags": [], "env": {}, "implementation": "CPython"}


def case_doc(group: str, name: str, params: dict, runtime: str, mean: float, rng,
             samples: int = 18, launches: int = 6, status: str = "ok") -> dict:
    return _docs([(group, name, params, runtime, mean, status)], rng, samples, launches)[0]


def _docs(specs: list[tuple], rng, samples: int = 18, launches: int = 6) -> list[dict]:
    """One case document per (group, name, params, runtime, mean, status). The samples of all of
    them are drawn and summarised at once: numpy per case made a 1,000 × 500 history take minutes."""
    means = np.array([spec[4] for spec in specs], dtype=float)
    values = (means[:, None] * (1 + 0.005 * rng.standard_normal((len(specs), samples)))).round(3)
    m, sd = values.mean(axis=1), values.std(axis=1)
    errors = 3.0 * sd / np.sqrt(samples)
    docs = []
    for (group, name, params, runtime, _, status), row, mi, sdi, ei in zip(
            specs, values.tolist(), m.tolist(), sd.tolist(), errors.tolist()):
        p = ",".join(f"{k}={v}" for k, v in params.items())
        ok = status == "ok"
        err = ei or mi * 0.001
        docs.append({
            "key": f"{group}.{name}[{p}]@{runtime}", "benchmark": _bench(group, name, params),
            "params": params, "runtime": _runtime(runtime), "status": status,
            "error": None if ok else "ValueError: boom <b>", "warnings": [],
            "launches": [{"index": i, "invocations": 1, "workload": row[i::launches]}
                         for i in range(launches)] if ok else [],
            "estimate": {"mean": mi, "error": err, "ci_low": mi - err, "ci_high": mi + err,
                         "se": err / 3, "df": samples - 1, "median": mi, "stddev": sdi,
                         "n": samples, "launches": launches, "confidence": 0.999} if ok else None})
    return docs


def cases_of_run(run: int, cases: int, shift_run: int, rng, hostile: bool = True) -> list[dict]:
    """`cases` cases: SHIFTING on both runtimes, hostile ones, then Load.N benchmarks with a param."""
    specs = []
    for rt in RUNTIMES:
        slow = SHIFT_FACTOR if (rt == "py-a" and run >= shift_run) else 1.0
        specs.append(("Shift", "Work", {}, rt, 1000.0 * slow, "ok"))
    if hostile:
        specs.append((HOSTILE_GROUP, HOSTILE_NAME, HOSTILE_PARAMS, "py-a", 500.0, "ok"))
        specs.append(("Fail", "Broken", {}, "py-a", 0, "failed"))
    i = 0
    while len(specs) < cases:
        n, size = divmod(i, 4)
        specs.append(("Load", f"N{n}", {"size": str(10 ** size)}, RUNTIMES[i % 2],
                      100.0 * (1 + n % 7) * (1 + size), "ok"))
        i += 1
    return _docs(specs[:cases], rng)


def make_history(store, runs: int = 12, cases: int = 8, shift_run: int | None = None,
                 hostile: bool = True, seed: int = 1) -> list[int]:
    """Fill `store` with `runs` finished runs of `cases` cases; returns the run ids."""
    rng = np.random.default_rng(seed)
    shift_run = shift_run if shift_run is not None else runs // 2
    ids = []
    for r in range(runs):
        env = {**ENV, "runtimes": [_runtime(x) for x in RUNTIMES],
               "git": {"bench": {"commit": f"{r:04x}" + "ab" * 18, "branch": "main",
                                 "root": "/src/demo", "dirty": r % 5 == 4}}}
        label = HOSTILE_LABEL if hostile and r == 1 else f"nightly {r}"
        rid = store.begin_run(command=["perflab", "run", "bench", "-r", ",".join(RUNTIMES)],
                              args={"paths": ["bench"], "runtimes": ",".join(RUNTIMES), "label": label},
                              job={"name": "short", "overhead": False}, environment=env,
                              fingerprint="fake-machine", label=label)
        store.add_cases(rid, cases_of_run(r, cases, shift_run, rng, hostile))
        store.finish_run(rid)
        ids.append(rid)
    return ids
