"""What measuring over Ray costs, on a loopback cluster of two nodes on this machine.

    .venv/bin/python bench/cluster.py [--groups 20] [--tasks 50]

1. Scheduling cost per group: a no-op Ray task holding one perflab_slot, as `--cluster` submits a
   group (resources, queue actor), one at a time (latency) and all at once (throughput), in ms.
2. The same dry run (N trivial benchmarks, one group each) here without Ray, on two nodes, and on one
   node. Both nodes share this machine's cores: the figure is Ray's overhead, not a speed-up.
3. A short run across two nodes (8 groups of 2 s each) with the second node killed (kill -9 of all
   its processes) once two cases are stored: how many groups were lost and how many cases were
   measured again, and that each case is in the document once.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import perflab_run

ENV = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}
os.environ.update(ENV)


def start_cluster(nodes: int):
    proc = subprocess.Popen([sys.executable, "-m", "perflab.cluster.loopback", str(nodes)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env=ENV)
    line = proc.stdout.readline()
    if not line:
        raise SystemExit("the loopback Ray cluster did not start")
    return proc, json.loads(line)["address"]


def command(proc, text: str) -> None:
    proc.stdin.write(text + "\n")
    proc.stdin.flush()
    if text.startswith("kill"):
        proc.stdout.readline()


def scheduling_cost(address: str, tasks: int) -> tuple[float, float]:
    import ray
    from ray.util.queue import Queue
    ray.init(address=address, logging_level="ERROR", log_to_driver=False)
    try:
        queue = Queue(actor_options={"num_cpus": 0})

        @ray.remote
        def group(q):
            q.put(1)
            return 1
        options = {"resources": {"perflab_slot": 1}, "num_cpus": 0, "max_retries": 0}
        ray.get(group.options(**options).remote(queue))  # workers started
        t0 = time.perf_counter()
        for _ in range(tasks):
            ray.get(group.options(**options).remote(queue))
        serial = (time.perf_counter() - t0) / tasks
        t0 = time.perf_counter()
        ray.get([group.options(**options).remote(queue) for _ in range(tasks)])
        batch = (time.perf_counter() - t0) / tasks
        return 1000 * serial, 1000 * batch
    finally:
        ray.shutdown()


def bench_file(folder: Path, n: int, sleep_s: float) -> Path:
    body = "\n".join(f"@perflab.benchmark\ndef b{i:03d}():\n    time.sleep({sleep_s})\n" for i in range(n))
    path = folder / "bench_cluster.py"
    path.write_text("import time, perflab\n\n" + body)
    return path


def dry(path: Path, *args: str) -> tuple[float, int]:
    doc, wall = perflab_run(path, "--job", "dry", "--store", "none", "--quiet", *args)
    return wall, len({c["key"] for c in doc["cases"]})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", type=int, default=20, help="benchmarks (groups) in the dry run")
    ap.add_argument("--tasks", type=int, default=50, help="no-op tasks for the scheduling cost")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="perflab-cluster-"))
    for sub in ("dry", "kill"):
        (folder / sub).mkdir()
    dry_path = bench_file(folder / "dry", args.groups, 0.0)
    kill_path = bench_file(folder / "kill", 8, 0.002)

    wall_here, n_here = dry(dry_path)
    proc, address = start_cluster(2)
    try:
        serial, batch = scheduling_cost(address, args.tasks)
        print(f"scheduling cost per group: {serial:.1f} ms one at a time, {batch:.1f} ms submitted together "
              f"({args.tasks} no-op tasks holding a perflab_slot)")
        wall_two, n_two = dry(dry_path, "--cluster", address)

        out = folder / "kill-out"
        url = f"sqlite:///{folder / 'kill.db'}"
        # a target no case reaches: every group measures its whole 2 s, so the kill lands mid-run on a
        # fast machine too (cases that stop early reach the store in batches, and the store could show
        # two only once the run had ended)
        run = subprocess.Popen([sys.executable, "-m", "perflab.cli", "run", str(kill_path), "--job", "short",
                                "--budget", "2", "--target", "0.00001", "--cluster", address, "--store", url, "-o", str(out),
                                "--exporters", "json", "--quiet"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, env=ENV)
        from perflab.store import open_store
        store = open_store(url)
        while run.poll() is None:
            runs = store.runs()
            if runs and runs[0]["cases"] >= 2:
                break
            time.sleep(0.1)
        # halfway through the node's next group, not in the moment Ray takes to hand it one (killed
        # then, it loses nothing)
        time.sleep(1.0)
        command(proc, "kill 1")
        _, stderr = run.communicate()
        [doc_path] = out.glob("perflab-*.json")
        doc = json.loads(doc_path.read_text())
        keys = [c["key"] for c in doc["cases"]]
        line = next((ln for ln in stderr.splitlines() if ln.startswith("cluster:")), "(no cluster line)")
        reruns = sum(1 for c in doc["cases"] if c.get("rerun"))
        print(f"node killed mid-run: {line.removeprefix('cluster: ')}; {reruns} case(s) marked as "
              f"measured again; {len(keys)} cases in the document, {len(set(keys))} distinct (of 8)")

        wall_one, n_one = dry(dry_path, "--cluster", address)  # the second node is gone: one node
    finally:
        command(proc, "stop")
        proc.wait(timeout=120)
    print(f"\n| dry run of {args.groups} groups | wall (s) | cases |")
    print("| --- | ---: | ---: |")
    print(f"| here, without Ray | {wall_here:.1f} | {n_here} |")
    print(f"| two Ray nodes (one machine) | {wall_two:.1f} | {n_two} |")
    print(f"| one Ray node | {wall_one:.1f} | {n_one} |")


if __name__ == "__main__":
    main()
