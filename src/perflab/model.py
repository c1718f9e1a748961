"""One vocabulary for every layer: benchmarks, cases, runtimes, samples and results.

Everything here is plain data (dataclasses) so the engine, statistics, exporters and store can pass
it around without knowing about processes or languages.
"""
from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

PROTOCOL_VERSION = 2  # protocol/PROTOCOL.md; v2 added per-iteration CPU time (cpu_ns)


@dataclass(frozen=True)
class Runtime:
    """A concrete runtime to run benchmarks on: an interpreter, a VM or a compiler, plus flags.

    `name` is the family name users type (`python3.11`, `node22`, `gcc12`); `flags` are extra
    arguments given in the spec (`python3.11:-X dev` → flags=("-X", "dev")); `env` holds
    `KEY=VALUE` items of the spec (`go1.22:GOGC=50`).
    """

    name: str
    language: str
    version: str  # full version string, e.g. "3.11.7"
    executable: str
    flags: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    implementation: str = ""  # "CPython", "PyPy", "V8", "HotSpot"…
    installed: bool = True
    note: str = ""  # e.g. "installable from npm"
    # `perflab run --rev A,B`: the revision whose benchmark files this runtime runs ("" without --rev)
    revision: str = ""

    @property
    def label(self) -> str:
        """The name shown in the Runtime column: the family name plus any flags/env, and `@rev`
        when the run compares revisions."""
        extra = [f"{k}={v}" for k, v in self.env] + list(self.flags)
        base = f"{self.name}:{' '.join(extra)}" if extra else self.name
        return f"{base}@{self.revision}" if self.revision else base

    def to_json(self) -> dict[str, Any]:
        out = {
            "name": self.name, "label": self.label, "language": self.language,
            "version": self.version, "executable": self.executable,
            "flags": list(self.flags), "env": dict(self.env),
            "implementation": self.implementation,
        }
        if self.revision:
            out["revision"] = self.revision
        return out


@dataclass(frozen=True)
class ParamAxis:
    name: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class Benchmark:
    """A benchmark as a worker described it in its `loaded` reply."""

    id: str
    name: str
    group: str
    language: str
    file: str = ""
    line: int = 0
    baseline: bool = False
    categories: tuple[str, ...] = ()
    ops_per_invoke: int = 1
    params: tuple[ParamAxis, ...] = ()
    description: str = ""
    iteration_setup: bool = False  # needs setup before every iteration → one invocation per iteration
    meta: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def full_name(self) -> str:
        return f"{self.group}.{self.name}" if self.group else self.name

    def case_count(self) -> int:
        n = 1
        for axis in self.params:
            n *= len(axis.values)
        return n

    def expand(self) -> list[dict[str, int]]:
        """The cartesian product of the parameter axes, as name → value-index maps."""
        axes = [range(len(a.values)) for a in self.params]
        names = [a.name for a in self.params]
        return [dict(zip(names, combo)) for combo in itertools.product(*axes)]

    def param_display(self, indices: dict[str, int]) -> dict[str, str]:
        return {a.name: a.values[indices[a.name]] for a in self.params}

    @staticmethod
    def from_json(doc: dict[str, Any], language: str) -> "Benchmark":
        return Benchmark(
            id=str(doc["id"]), name=str(doc.get("name") or doc["id"]),
            group=str(doc.get("group", "")), language=language,
            file=str(doc.get("file", "")), line=int(doc.get("line") or 0),
            baseline=bool(doc.get("baseline", False)),
            categories=tuple(str(c) for c in doc.get("categories", ()) or ()),
            ops_per_invoke=int(doc.get("ops_per_invoke") or 1),
            params=tuple(ParamAxis(str(p["name"]), tuple(str(v) for v in p["values"]))
                         for p in doc.get("params", ()) or ()),
            description=str(doc.get("description", "") or ""),
            iteration_setup=bool(doc.get("iteration_setup", False)),
            meta=dict(doc.get("meta") or {}),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "group": self.group, "language": self.language,
            "file": self.file, "line": self.line, "baseline": self.baseline,
            "categories": list(self.categories), "ops_per_invoke": self.ops_per_invoke,
            "params": [{"name": a.name, "values": list(a.values)} for a in self.params],
            "description": self.description, "iteration_setup": self.iteration_setup,
            "meta": self.meta,
        }


@dataclass(frozen=True)
class Case:
    """One measured unit: benchmark × parameter values × runtime."""

    benchmark: Benchmark
    params: tuple[tuple[str, int], ...]  # axis name → value index, in axis order
    runtime: Runtime

    @property
    def param_indices(self) -> dict[str, int]:
        return dict(self.params)

    @property
    def param_values(self) -> dict[str, str]:
        return self.benchmark.param_display(self.param_indices)

    @property
    def key(self) -> str:
        """Stable identity of the case across runs: benchmark, params, runtime label."""
        return case_key(self.benchmark.full_name, self.param_values, self.runtime.label)


# characters that would let two parameter lists read the same: `p="x,q=y", q="z"` and
# `p="x", q="y,q=z"` both printed as p=x,q=y,q=z before they were quoted
_KEY_SPECIAL = frozenset(',=[]"\\')


def key_part(text: str) -> str:
    """A parameter name or value as it appears in a case key: as it is when plain, else a JSON string."""
    return json.dumps(text, ensure_ascii=False) if _KEY_SPECIAL & set(text) else text


def case_key(full_name: str, params: dict[str, str], runtime_label: str) -> str:
    """`Group.method[name=value,…]@runtime`; names and values holding , = [ ] " or \\ are quoted
    (JSON), so different cases never share a key and ordinary keys read as they always did."""
    p = ",".join(f"{key_part(k)}={key_part(v)}" for k, v in params.items())
    return f"{full_name}[{p}]@{runtime_label}"


def case_key_of(doc: dict[str, Any]) -> str:
    """The key of a case from its JSON form (results file or store), by today's rule."""
    bench = doc["benchmark"]
    full_name = f"{bench['group']}.{bench['name']}" if bench.get("group") else str(bench["name"])
    values = doc.get("params") or {}
    order = [a["name"] for a in bench.get("params") or () if a.get("name") in values]
    order += [k for k in values if k not in order]
    return case_key(full_name, {k: str(values[k]) for k in order}, doc["runtime"]["label"])


@dataclass
class LaunchSamples:
    """Raw measurements from one worker process (launch) of one case."""

    index: int
    invocations: int = 0
    pilot: list[tuple[int, int]] = field(default_factory=list)  # (invocations, ns)
    warmup: list[int] = field(default_factory=list)
    overhead: list[int] = field(default_factory=list)
    workload: list[int] = field(default_factory=list)
    # round number of each workload iteration, so paired/interleaved analysis can line them up
    workload_rounds: list[int] = field(default_factory=list)
    # round of each overhead iteration (0 = measured before the rounds started)
    overhead_rounds: list[int] = field(default_factory=list)
    # CPU time (ns) the measuring thread got in each workload / overhead iteration (protocol v2
    # `cpu_ns`/`overhead_cpu_ns`); empty when the worker cannot read it. Wall ≫ CPU means the
    # iteration was preempted: interference, not slow code.
    workload_cpu: list[int] = field(default_factory=list)
    overhead_cpu: list[int] = field(default_factory=list)
    # ns the measuring thread waited for a CPU in each workload iteration, at least (the host's reading
    # of the kernel's run-queue wait, engine/runqueue.py); empty when not read
    workload_wait: list[int] = field(default_factory=list)
    pid: int = 0
    cpu: int | None = None  # the CPU the launch was pinned to after warmup (None: not pinned)
    cpu_share: float | None = None  # its CPU seconds per wall second at the end of warmup
    # how often its second most woken thread was scheduled in per second then (engine/affinity.py
    # Placement.handoff_rate: threads handing work to each other are not pinned); None: not read
    handoff_rate: float | None = None
    # what *_cpu were read with (hello.cpu_clock.scope): "thread" or "process"; None: unknown. Only a
    # thread clock can time a CPU-bound case's iterations in place of the wall clock (stats/clean.py)
    cpu_scope: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index, "invocations": self.invocations, "pid": self.pid,
            "cpu": self.cpu, "cpu_share": self.cpu_share, "handoff_rate": self.handoff_rate,
            "cpu_scope": self.cpu_scope,
            "pilot": [list(p) for p in self.pilot], "warmup": self.warmup,
            "overhead": self.overhead, "workload": self.workload,
            "workload_rounds": self.workload_rounds, "overhead_rounds": self.overhead_rounds,
            "workload_cpu": self.workload_cpu, "overhead_cpu": self.overhead_cpu,
            "workload_wait": self.workload_wait,
        }


@dataclass
class Diagnostics:
    alloc_bytes_per_op: float | None = None
    allocs_per_op: float | None = None
    gc_per_1000_ops: list[float] | None = None
    code_size: int | None = None
    # native code: where the benchmark function lives, for --disasm
    code_address: int | None = None
    binary: str | None = None
    notes: list[str] = field(default_factory=list)
    # the benchmark's own figures by unit, as it reported them (Go: b.ReportMetric(v, "vowels/op"))
    metrics: dict[str, float] = field(default_factory=dict)
    # quantities per op that are shown as rates against the measured mean (report/rates.py):
    # criterion's Throughput, Google Benchmark's SetBytesProcessed/SetItemsProcessed and rate counters
    rates: dict[str, dict] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "alloc_bytes_per_op": self.alloc_bytes_per_op, "allocs_per_op": self.allocs_per_op,
            "gc_per_1000_ops": self.gc_per_1000_ops, "code_size": self.code_size,
            "code_address": self.code_address, "binary": self.binary, "notes": self.notes,
            "metrics": self.metrics, "rates": self.rates,
        }


class Status(str, Enum):
    """A case's status in the results (`status`): measured, failed, not on this runtime, or skipped by
    the benchmark itself (Go's b.Skip)."""
    OK = "ok"
    FAILED = "failed"
    NA = "na"
    SKIPPED = "skipped"

    def __str__(self) -> str:
        return self.value

    __format__ = str.__format__


class StopReason(str, Enum):
    """Why a case stopped being measured (`stop_reason`), as its row shows it. The stop rule
    (engine/stop.py) gives the first six; an imported case says which tool it came from instead."""
    TARGET = "target reached"               # a lone case's mean reached the precision target
    RATIO_TARGET = "ratio target reached"   # every ratio of a comparison reached it
    BUDGET = "budget exhausted"
    ITERATION_LIMIT = "iteration limit"
    DRY = "dry run"
    ITERATIONS_DONE = "iterations done"     # a job without a precision target
    FAILED = "failed"
    SKIPPED = "skipped"                     # the benchmark skipped itself (Go's b.Skip)
    NOT_ON_RUNTIME = "not on this runtime"
    COUNTS_AGREED = "counts agreed"         # --measure instructions
    COUNTS_DISAGREED = "counts did not agree"

    def __str__(self) -> str:
        return self.value

    __format__ = str.__format__

    @property
    def short_of_target(self) -> bool:
        """Stopped before its precision target: the warning quotes the interval it reached."""
        return self in (StopReason.BUDGET, StopReason.ITERATION_LIMIT)


@dataclass
class CaseResult:
    """Everything measured for a case, plus the engine's judgement of it (no statistics yet)."""

    case: Case
    launches: list[LaunchSamples] = field(default_factory=list)
    diagnostics: Diagnostics | None = None
    error: str | None = None  # set when the case failed; the reason shown in the table
    # set when the benchmark legitimately does not exist on this runtime (a Go file behind
    # `//go:build go1.24` on go1.21): nothing to measure, shown as NA with this reason, not a failure
    absent: str = ""
    # set when the benchmark skipped itself (Go's b.Skip): not measured, shown as SKIPPED with this
    # reason, not a failure (go test passes a skipped benchmark)
    skipped: str = ""
    error_detail: str = ""  # traceback / stderr tail
    output_bytes: int = 0  # what the benchmark wrote to stdout/stderr
    wall_seconds: float = 0.0
    # what a launch (start, setup, warmup, overhead) and a round iteration cost this case, in seconds:
    # with the estimate's variance components, the cheapest run that could have reached the target
    # (engine/allocation.cheapest_run)
    launch_cost_s: float = 0.0
    iteration_cost_s: float = 0.0
    stop_reason: str = ""  # a StopReason, or "imported from <tool>"
    clock_resolution_ns: float = 1.0
    worker_runtime: dict[str, Any] = field(default_factory=dict)  # from the hello message
    # cases measured in the same interleaved rounds share this number (pairing is only valid then)
    round_group: int = 0
    # the interval the engine stopped on: "mean" (a lone case's) or "ratio" (a comparison's ratios to
    # the baseline); the stop reason and the precision warning speak of that interval
    judged_by: str = ""
    # how contended the machine was while the case was measured (stats/contention.py)
    contention: dict[str, Any] = field(default_factory=dict)
    # the machine that measured it, on a cluster (perflab.cluster.node.machine): node, host, fingerprint
    machine: dict[str, Any] | None = None
    # why it was measured again elsewhere (its first machine died mid-group); "" when it was not
    rerun: str = ""
    # instruction counts under valgrind (`--measure instructions`): the schema is in
    # docs/instructions.md; None when the case was not counted
    counts: dict[str, Any] | None = None
    # the case's profile (`run --profile`): collapsed stacks, or {"error": "no profile: <reason>"};
    # schema in docs/profiling.md; None when it was not profiled
    profile: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.error is None
