"""A Ray cluster of several nodes on this machine (perflab.cluster.loopback, in its own process), for
the cluster tests: started, its address read, stopped however the test ends."""
import contextlib
import json
import os
import subprocess
import sys

ENV = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}


@contextlib.contextmanager
def loopback_cluster(*args: str):
    """Yields (process, address); the process reads `kill I` / `stop` on its stdin."""
    proc = subprocess.Popen([sys.executable, "-m", "perflab.cluster.loopback", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV)
    try:
        line = proc.stdout.readline()
        assert line, "the loopback Ray cluster did not start"
        yield proc, json.loads(line)["address"]
    finally:
        try:
            proc.stdin.write("stop\n")
            proc.stdin.close()
            proc.wait(timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
