"""The driver's side of a cluster run: one Ray task per comparison group (or what is left of one),
results streamed back through a queue that lives on the driver's machine, and the faults handled:
a machine that dies mid-group (its missing cases measured again elsewhere, marked), a machine that
lacks a runtime (the group goes to another, or fails with the reasons)."""
from __future__ import annotations

import contextlib
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError
from ..model import Case, CaseResult, StopReason
from . import SLOT, require_ray
from .node import RuntimeMissing, machine, measure_group
from ..policy import DEFAULT


STARTED_ON = "started_on"  # a group task's first message: the node it runs on
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


@dataclass
class Submission:
    index: int                      # the plan's group
    cases: list[Case]
    rerun: str = ""                 # why these cases are measured again ("" the first time)
    refused_by: dict[str, str] = field(default_factory=dict)  # node → why it cannot run the group
    node: str | None = None         # where it was sent, when sent to one machine in particular
    ran_on: str = ""                # the node its task said it started on
    losses: int = 0                 # times its task was lost before this submission


def _remote_group(cases, sources, job, seed, queue, index):
    """Runs on a benchmark machine (a Ray task). Its first message says where it runs, so the driver
    can tell a lost worker process from a lost machine."""
    import ray
    who = machine(ray.get_runtime_context().get_node_id())
    queue.put((index, {STARTED_ON: who["node"]}))
    try:
        measure_group(cases, sources, job, seed, lambda r: queue.put((index, r)), who)
    except RuntimeMissing as exc:
        return {"refused": str(exc), "node": who["node"]}
    return {"node": who["node"]}


class Driver:
    def __init__(self, address: str, job, seed: int | None = None, poll_s: float = 0.1):
        self.ray = require_ray()
        self.address = "auto" if address == "local" else address
        self.job, self.seed, self.poll_s = job, seed, poll_s
        self.stats = {"submitted": 0, "rerun_cases": 0, "refused": 0, "lost_groups": 0,
                      "lost_machines": 0, "lost_workers": 0}

    def connect(self):
        ray = self.ray
        if self.address.startswith("ray://"):
            try:
                import grpc  # noqa: F401 - what Ray Client needs beyond Ray itself
            except ImportError:
                raise UsageError(f"--cluster {self.address}: a ray:// address needs Ray Client: "
                                 "pip install 'perflab[ray]' (or 'ray[client]')") from None
        if not ray.is_initialized():
            options = {}
            if host_of(self.address) in LOOPBACK_HOSTS:
                # a cluster on loopback (one machine): without this Ray translates 127.0.0.1 into
                # the machine's network address and retries the head there for minutes
                # (docs/cluster.md); the switch is read when an address is resolved
                from ray._private import ray_constants
                ray_constants.ENABLE_RAY_CLUSTER = False
                if not self.address.startswith("ray://"):
                    options["_node_ip_address"] = "127.0.0.1"
            try:
                ray.init(address=self.address, log_to_driver=False, logging_level="ERROR", **options)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise UsageError(f"--cluster {self.address}: cannot connect to Ray ({exc}); start one "
                                 "with `ray start --head --resources='{\"perflab_slot\": 1}'`") from None
        if not ray.cluster_resources().get(SLOT):
            raise UsageError(f"--cluster {self.address}: no machine offers the resource {SLOT}; start "
                             f"each benchmark machine with --resources='{{\"{SLOT}\": 1}}'")

    def _what_was_lost(self, exc, node: str) -> str:
        """"its first machine was lost" when the node the task ran on is gone (Ray says so, or its
        raylet no longer answers), else "its worker process was lost (its machine is still up)":
        a benchmark that killed its host process, Ray's memory monitor, a crash in the worker."""
        if isinstance(exc, self.ray.exceptions.NodeDiedError) or not node or not self._machine_up(node):
            return "its first machine was lost"
        return "its worker process was lost (its machine is still up)"

    def _machine_up(self, node: str) -> bool:
        """The node is alive in Ray's view and its raylet accepts a connection: a machine that died a
        moment ago is still "Alive" until Ray's health checks notice (seconds), its raylet is not."""
        import socket
        info = next((n for n in self.ray.nodes() if n.get("NodeID") == node), None)
        if info is None or not info.get("Alive"):
            return False
        try:
            socket.create_connection((info["NodeManagerAddress"], int(info["NodeManagerPort"])),
                                     timeout=2).close()
            return True
        except (OSError, KeyError, ValueError):
            return False

    def _slot_nodes(self) -> list[str]:
        return [n["NodeID"] for n in self.ray.nodes() if n.get("Alive") and n["Resources"].get(SLOT)]

    def run(self, plan, prepared, done, progress) -> dict:
        """Measure the plan on the cluster. Ray's driver prints what the raylets report ("(raylet) A
        worker died…") on sys.stdout from a thread of its own, even with log_to_driver off; perflab's
        stdout holds the table or the --json document alone, so for as long as Ray is connected its
        prints go to stderr, and Ray is shut down before that ends (its thread with it)."""
        with contextlib.redirect_stdout(sys.stderr):
            began = self.ray.is_initialized()
            try:
                return self._run(plan, prepared, done, progress)
            finally:
                if not began and self.ray.is_initialized():
                    self.ray.shutdown()

    def _run(self, plan, prepared, done, progress) -> dict:
        ray = self.ray
        self.connect()
        from ray.util.queue import Queue
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
        # the queue lives on the driver's machine: a benchmark machine that dies takes none of it along
        here = ray.get_runtime_context().get_node_id()
        queue = Queue(actor_options={"num_cpus": 0, "scheduling_strategy":
                                     NodeAffinitySchedulingStrategy(here, soft=False)})
        task = ray.remote(_remote_group)
        sources = {}
        for p in prepared:
            if p.spec is not None:
                sources[p.runtime.language] = tuple(str(Path(s).resolve()) for s in p.spec.load_paths)
        received: set[str] = set()
        pending: dict = {}

        def submit(sub: Submission) -> None:
            options = {"resources": {SLOT: 1}, "num_cpus": 0, "max_retries": 0}
            if sub.node:
                options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(sub.node, soft=False)
            ref = task.options(**options).remote(sub.cases, sources, self.job, self.seed, queue, sub.index)
            pending[ref] = sub
            self.stats["submitted"] += 1

        subs = {}
        for i, group in enumerate(plan.groups):
            subs[i] = Submission(i, list(group))
            submit(subs[i])

        def drain() -> None:
            while True:
                items = queue.get_nowait_batch(queue.qsize()) if queue.qsize() else []
                if not items:
                    return
                for index, result in items:
                    if isinstance(result, dict):  # a task's first message: where it runs
                        if index in subs:
                            subs[index].ran_on = result.get(STARTED_ON, "")
                        continue
                    if result.case.key in received:
                        continue  # a group measured again after a fault: the first finish stands
                    received.add(result.case.key)
                    sub = subs.get(index)
                    if sub is not None and sub.rerun:
                        result.rerun = sub.rerun
                    progress.current(result.case.benchmark.full_name)
                    done(result)

        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=self.poll_s)
            drain()
            for ref in ready:
                sub = pending.pop(ref)
                drain()  # a task's puts all land before it returns
                missing = [c for c in sub.cases if c.key not in received]
                try:
                    outcome = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    # the machine, or only the worker process that ran the task, died mid-group:
                    # what it sent is kept, the rest is measured again wherever a slot is free,
                    # and says which was lost
                    self.stats["lost_groups"] += 1
                    what = self._what_was_lost(exc, sub.ran_on)
                    self.stats["lost_workers" if what.startswith("its worker") else "lost_machines"] += 1
                    if not missing:
                        continue
                    why = _first_line(exc)
                    if sub.losses + 1 >= DEFAULT.cluster.max_losses:
                        reason = (f"lost {DEFAULT.cluster.max_losses} times mid-group, last: {what} ({why}); does the "
                                  "benchmark kill the process that runs it?")
                        for c in missing:
                            received.add(c.key)
                            done(CaseResult(case=c, error=reason, stop_reason=StopReason.FAILED))
                        continue
                    self.stats["rerun_cases"] += len(missing)
                    subs[sub.index] = Submission(sub.index, missing, rerun=(
                        f"measured again: {what} mid-group ({why})"), losses=sub.losses + 1)
                    submit(subs[sub.index])
                    continue
                if "refused" in outcome:
                    self.stats["refused"] += 1
                    sub.refused_by[outcome["node"]] = outcome["refused"]
                    others = [n for n in self._slot_nodes() if n not in sub.refused_by]
                    if others:
                        subs[sub.index] = Submission(sub.index, missing, sub.rerun, sub.refused_by, others[0])
                        submit(subs[sub.index])
                    else:
                        reason = "no machine can run it: " + "; ".join(sub.refused_by.values())
                        for c in missing:
                            received.add(c.key)
                            done(CaseResult(case=c, error=reason, stop_reason=StopReason.FAILED))
        drain()
        return self.stats


def host_of(address: str) -> str:
    """The host of a --cluster address (`HOST:PORT`, `ray://HOST:PORT`); "" for `auto`."""
    rest = address.split("://", 1)[-1]
    if rest.startswith("["):  # [::1]:6379
        return rest[1:].split("]", 1)[0]
    return rest.rsplit(":", 1)[0] if ":" in rest else ("" if rest == "auto" else rest)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:200]
