"""A Ray cluster of several nodes on this machine, every process bound to loopback: for the tests and
bench/cluster.py. Ray's own `ray start` cannot do that for a second node (it resolves 127.0.0.1 to
the machine's network address, and refuses a second node when told to stay on loopback), so this
uses Ray's test cluster (ray.cluster_utils), whose nodes take the address given.

    python -m perflab.cluster.loopback NODES [--env I:NAME=VALUE]...
(--env: an environment variable of node I's processes only, so that the tests can make one machine
differ from the others, e.g. lack a runtime) prints {"address": ...} once every node is up, then reads commands on stdin: `kill I` (kill -9 every
process of node I, 1 ≤ I < NODES; node 0 is the head), `stop`.
"""
from __future__ import annotations

import json
import os
import sys

# before Ray is imported: the node address is loopback, and nothing is reported anywhere
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"

LOOPBACK = "127.0.0.1"


def node_envs(args: list[str]) -> dict[int, dict[str, str]]:
    """The --env I:NAME=VALUE arguments, by node index."""
    envs: dict[int, dict[str, str]] = {}
    for flag, value in zip(args[::2], args[1::2]):
        if flag != "--env" or ":" not in value or "=" not in value:
            raise SystemExit(f"loopback: expected --env I:NAME=VALUE, got {flag} {value}")
        index, assignment = value.split(":", 1)
        name, _, text = assignment.partition("=")
        envs.setdefault(int(index), {})[name] = text
    return envs


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 2
    envs = node_envs(argv[1:])
    from ray.cluster_utils import Cluster

    from . import SLOT
    node = {"node_ip_address": LOOPBACK, "num_cpus": 1, "resources": {SLOT: 1},
            "object_store_memory": 80 * 1024 * 1024}
    cluster = Cluster(initialize_head=True, head_node_args={
        **node, "include_dashboard": False, "dashboard_host": LOOPBACK, "env_vars": envs.get(0)})
    nodes = [cluster.head_node] + [cluster.add_node(**node, env_vars=envs.get(i))
                                   for i in range(1, count)]
    print(json.dumps({"address": cluster.address}), flush=True)
    try:
        for line in sys.stdin:
            cmd = line.split()
            if cmd and cmd[0] == "kill":
                cluster.remove_node(nodes[int(cmd[1])], allow_graceful=False)
                print("killed", flush=True)
            elif cmd and cmd[0] == "stop":
                break
    finally:
        cluster.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
