"""Startup experiments: seed 000 (".NET 6": Startup — a "Hello, World" app timed from outside) and
seed 003 (".NET Core 3.0": Process — ProcessStartWait on a no-op program). Ported as scenarios: one
invocation starts a process and waits for it. sys.executable is the runtime under test, so the
Runtime column compares the interpreters' own start-up."""
import subprocess
import sys

import perflab

_DEVNULL = subprocess.DEVNULL


@perflab.benchmark(name="HelloWorld", categories=["startup", "quick"], meta={
    "seed": "000", "section": "Startup", "scenario": True})
def hello_world():
    """Start `python -c "print('Hello, World!')"` and wait for it."""
    subprocess.run([sys.executable, "-c", "print('Hello, World!')"], stdout=_DEVNULL, check=True)


@perflab.benchmark(name="ProcessStartWait", categories=["startup"], meta={"seed": "003", "section": "Process"})
def process_start_wait():
    """Start the interpreter with -S -c pass (no site import: the closest to the seed's nop program)."""
    subprocess.run([sys.executable, "-S", "-c", "pass"], check=True)


@perflab.benchmark(name="ProcessStartWaitNop", categories=["startup"], meta={"seed": "003", "section": "Process"})
def process_start_wait_nop():
    """The seed's exact target: a no-op native program (/bin/true); same for every runtime, so it
    measures the runtime's process-start path (subprocess/fork+exec) alone."""
    subprocess.run(["/bin/true"], check=True)
