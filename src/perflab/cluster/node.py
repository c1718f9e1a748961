"""What a benchmark machine does with one comparison group: prepare its runtimes (once per machine
process and runtime), measure the group as `perflab run` does on one machine, and send each case back
as it finishes, labelled with the machine that measured it.

Plain Python: Ray only carries the call (perflab.cluster.driver); the tests call it directly too.
"""
from __future__ import annotations

import dataclasses
import hashlib
import platform
import random
import tempfile
from pathlib import Path
from typing import Callable

from .. import toolchains
from ..engine.affinity import Placement, idle_times
from ..engine.runqueue import RunQueueWatch
from ..engine.plan import Prepared, make_launcher, prepare
from ..engine.runner import Engine
from ..environment import collect, fingerprint, fingerprint_parts
from ..jobs import Job
from ..model import Case, CaseResult, Runtime

# prepared runtimes of this machine's process, by (runtime, sources): a runtime is provisioned and its
# benchmarks built once per machine, not once per group
_PREPARED: dict[tuple, Prepared] = {}
_WORKDIR: list[Path] = []


class RuntimeMissing(Exception):
    """This machine cannot run the group's runtime; another machine may."""


def machine(node_id: str = "") -> dict:
    """Who measured: the Ray node, its host name, and the fingerprint that must match for two
    machines' figures to be set against each other (perflab.environment)."""
    env = collect([])
    return {"node": node_id, "host": platform.node(), "fingerprint": fingerprint(env),
            "fingerprint_parts": fingerprint_parts(env)}


def prepared_here(runtime: Runtime, sources: tuple[str, ...], timeout: float,
                  memory_limit: int = 0) -> Prepared:
    key = (runtime, sources, memory_limit)
    if key not in _PREPARED:
        if not _WORKDIR:
            _WORKDIR.append(Path(tempfile.mkdtemp(prefix="perflab-node-")))
        missing = [s for s in sources if not Path(s).is_file()]
        if missing:
            prep = Prepared(runtime, toolchains.get(runtime.language),
                            error=f"{missing[0]}: not on this machine (every machine needs the "
                                  "benchmarks at the driver's path)")
        else:
            prep = prepare(runtime, toolchains.get(runtime.language), [Path(s) for s in sources],
                           _WORKDIR[0], timeout, memory_limit=memory_limit)
        _PREPARED[key] = prep
    return _PREPARED[key]


def sources_key(sources) -> str:
    return hashlib.sha256("\n".join(sources).encode()).hexdigest()[:12]


def measure_group(cases: list[Case], sources: dict[str, tuple[str, ...]], job: Job, seed: int | None,
                  send: Callable[[CaseResult], None], who: dict) -> None:
    """Measure one group (its contenders interleaved, as on one machine); `send` each case as it
    finishes. Raises RuntimeMissing (nothing measured) when a runtime cannot be prepared here."""
    by_label: dict[str, Prepared] = {}
    for rt in {c.runtime for c in cases}:
        prep = prepared_here(rt, sources[rt.language], job.timeout_s, job.memory_limit)
        if prep.error:
            raise RuntimeMissing(f"{who.get('host')} ({who.get('node', '')[:8]}): {prep.error}")
        by_label[rt.label] = prep
    # this machine's own view of each benchmark (its files are found at the same paths)
    local: list[Case] = []
    for c in cases:
        bench = next((b for b in by_label[c.runtime.label].benchmarks if b.id == c.benchmark.id), None)
        if bench is None:
            raise RuntimeMissing(f"{who.get('host')}: {c.benchmark.id} not found on {c.runtime.label}")
        local.append(Case(bench, c.params, by_label[c.runtime.label].runtime))
    original = {lc.key: c for lc, c in zip(local, cases)}

    def done(result: CaseResult) -> None:
        # the driver's own case (its paths), and the machine that measured it
        send(dataclasses.replace(result, case=original[result.case.key], machine=dict(who)))

    job = job.for_language(cases[0].runtime.language)  # a group is one language's
    engine = Engine(job, make_launcher(by_label, job.timeout_s), rng=random.Random(seed),
                    on_case_done=done,
                    placement=Placement.choose("auto", idle_times()) if job.warmup_max > 0 else Placement(),
                    starts_aside=lambda case: by_label[case.runtime.label].spec.starts_aside,
                    runqueue=RunQueueWatch)
    try:
        engine.run_group(local)
    finally:
        engine.close()
