"""`perflab conformance --runtime NAME`: drive a worker through protocol/vectors/worker/*.json.

Each vector runs in a fresh worker process. Requests may refer to a fixture benchmark by name with
`"@name"`; `load` requests get the fixture's paths filled in. See protocol/PROTOCOL.md §5.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console

from .report.escape import markup
from . import toolchains
from .engine.worker import CpuClock, WorkerProcess, check_cpu_times
from .errors import PrepareError, ProtocolError, WorkerFailure
from .model import PROTOCOL_VERSION, Runtime
from .paths import REPO_ROOT

VECTORS = REPO_ROOT / "protocol" / "vectors" / "worker"
FIXTURES = REPO_ROOT / "protocol" / "fixtures"


class VectorFailed(Exception):
    pass


def _check(reply: Any, expect: dict, request: dict, ids: dict[str, str],
           cpu_clock: CpuClock | None = None) -> None:
    if not isinstance(reply, dict):
        raise VectorFailed(f"reply is not a JSON object: {reply!r}")
    if reply.get("v") != PROTOCOL_VERSION:
        raise VectorFailed(f"reply lacks \"v\": {PROTOCOL_VERSION}: {reply}")
    want_id = expect.get("id", request.get("id"))
    if reply.get("id") != want_id:
        raise VectorFailed(f"reply id {reply.get('id')!r}, expected {want_id!r}")
    if reply.get("type") != expect["type"]:
        raise VectorFailed(f"expected a '{expect['type']}' reply, got {json.dumps(reply)[:300]}")
    if expect["type"] == "error":
        err = reply.get("error") or {}
        if not isinstance(err.get("message"), str):
            raise VectorFailed("error reply lacks error.message")
        if "kind" in expect and err.get("kind") != expect["kind"]:
            raise VectorFailed(f"error kind {err.get('kind')!r}, expected {expect['kind']!r}: "
                               f"{err.get('message')}")
        if "message_contains" in expect and expect["message_contains"] not in err["message"]:
            raise VectorFailed(f"error message {err['message']!r} lacks {expect['message_contains']!r}")
    if expect["type"] == "samples":
        ns = reply.get("ns")
        if not isinstance(ns, list) or len(ns) != expect.get("count", len(ns or [])):
            raise VectorFailed(f"expected {expect.get('count')} samples, got {ns!r}")
        if not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in ns):
            raise VectorFailed(f"samples must be non-negative integers: {ns!r}")
        if expect.get("positive") and not all(x > 0 for x in ns):
            raise VectorFailed(f"1000 calls took 0 ns? {ns!r}")
        if reply.get("invocations") != request.get("invocations"):
            raise VectorFailed("samples.invocations does not echo the request")
        if "overhead_count" in expect:  # null: the reply must not carry overhead samples
            over = reply.get("overhead_ns")
            want = expect["overhead_count"]
            if want is None and over is not None:
                raise VectorFailed(f"overhead_ns sent though not asked for: {over!r}")
            if want is not None and (not isinstance(over, list) or len(over) != want or not all(
                    isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in over)):
                raise VectorFailed(f"expected {want} overhead samples (non-negative integers), got {over!r}")
            if want and expect.get("positive") and not all(x > 0 for x in over):
                raise VectorFailed(f"overhead iterations took 0 ns? {over!r}")
        _check_cpu(reply, cpu_clock)
    if expect["type"] == "loaded":
        if expect.get("no_errors") and reply.get("errors"):
            raise VectorFailed(f"fixture reported load errors: {reply['errors']}")
        by_name = {b.get("name"): b for b in reply.get("benchmarks", [])}
        for want in expect.get("benchmarks", []):
            got = by_name.get(want["name"])
            if got is None:
                raise VectorFailed(f"benchmark '{want['name']}' missing; found {sorted(by_name)}")
            for key in ("params", "baseline", "ops_per_invoke"):
                if key in want and got.get(key, {"baseline": False, "ops_per_invoke": 1,
                                                   "params": []}.get(key)) != want[key]:
                    raise VectorFailed(f"{want['name']}.{key} = {got.get(key)!r}, expected {want[key]!r}")
        ids.update({name: b["id"] for name, b in by_name.items()})


def _check_cpu(reply: dict, cpu_clock: CpuClock | None) -> None:
    """The CPU times of a samples reply, by the host's own rules (present when hello declared a
    cpu_clock, one per iteration, non-negative, a thread's within its wall time plus slack)."""
    try:
        if "overhead_ns" in reply:
            check_cpu_times(reply, "overhead_cpu_ns", reply["overhead_ns"], cpu_clock)
        check_cpu_times(reply, "cpu_ns", reply["ns"], cpu_clock)
    except ProtocolError as exc:
        raise VectorFailed(str(exc)) from None


def run_vector(spec, vector: dict, timeout: float = 30.0) -> None:
    try:
        worker = WorkerProcess(spec, connect_timeout=60)
    except (WorkerFailure, ProtocolError) as exc:  # e.g. a hello of another protocol version
        raise VectorFailed(f"{exc} {getattr(exc, 'detail', '')}".strip()) from None
    ids: dict[str, str] = {}
    next_id = 0
    try:
        if vector.get("cpu_clock") == "required" and worker.hello.cpu_clock is None:
            raise VectorFailed(f"hello declares no cpu_clock: {worker.hello.raw.get('cpu_clock')!r}")
        for step in vector["steps"]:
            expect = step["expect"]
            if "raw" in step:
                worker.send_raw(step["raw"])
                request: dict = {"id": None}
            else:
                next_id += 1
                request = {"v": PROTOCOL_VERSION, "id": next_id, **step["send"]}
                if request["type"] == "load":
                    request.setdefault("paths", spec.load_paths)
                    request.setdefault("root", spec.root)
                ref = request.get("benchmark")
                if isinstance(ref, str) and ref.startswith("@"):
                    request["benchmark"] = ids.get(ref[1:], ref)
                worker.send_raw(json.dumps(request))
            _check(worker.read_message(timeout), expect, request, ids, worker.hello.cpu_clock)
            if "exits" in expect:
                code = worker.proc.wait(timeout=timeout)
                if code != expect["exits"]:
                    raise VectorFailed(f"worker exited with {code}, expected {expect['exits']}")
    except (WorkerFailure, ProtocolError) as exc:
        raise VectorFailed(f"{exc} {getattr(exc, 'detail', '')}".strip()) from None
    finally:
        worker.close()


def run_conformance(runtime: Runtime, fixtures: Path | None, console: Console) -> int:
    tc = toolchains.get(runtime.language)
    folder = fixtures or FIXTURES / runtime.language
    sources = tc.find_sources(folder) or [p for p in folder.rglob("*") if p.is_file()]
    try:
        if not runtime.installed:
            runtime = tc.provision(runtime)
        spec = tc.prepare(runtime, sources, Path(tempfile.mkdtemp(prefix="perflab-conf-")))
    except PrepareError as exc:
        console.print(f"[red]cannot prepare {markup(runtime.label)}:[/red] {markup(str(exc))}")
        return 1
    failures = 0
    for path in sorted(VECTORS.glob("*.json")):
        vector = json.loads(path.read_text())
        try:
            run_vector(spec, vector)
            console.print(f"[green]pass[/green] {markup(path.stem)}: "
                          f"{markup(str(vector.get('description', '')))}")
        except VectorFailed as exc:
            failures += 1
            console.print(f"[red]FAIL[/red] {markup(path.stem)}: {markup(str(exc))}")
    total = len(list(VECTORS.glob("*.json")))
    console.print(f"{markup(runtime.label)}: {total - failures} passed, {failures} failed")
    return 1 if failures else 0
