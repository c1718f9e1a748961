"""Startup experiments: seed 000 (".NET 6": Startup — a "Hello, World" app timed from outside) and
seed 003 (".NET Core 3.0": Process — ProcessStartWait on a no-op program). Ported as scenarios: one
invocation starts a process and waits for it. sys.executable is the runtime under test, so the
Runtime column compares the interpreters' own start-up."""
import subprocess
import sys

import perflab

_DEVNULL = subprocess.DEVNULL


@perflab.benchmark(name="HelloWorld", categories=["startup", "quick"], meta={
    "seed": "000", "section": "Startup", "scenario": True,
    "claim": {"text": "Hello, World app (Measure-Command): 63.9716 ms (.NET 5) → 43.2652 ms (.NET 6)",
              "before_ms": 63.9716, "after_ms": 43.2652, "expect": "faster"}})
def hello_world():
    """Start `python -c "print('Hello, World!')"` and wait for it."""
    subprocess.run([sys.executable, "-c", "print('Hello, World!')"], stdout=_DEVNULL, check=True)


@perflab.benchmark(name="ProcessStartWait", categories=["startup"], meta={
    "seed": "003", "section": "Process",
    "claim": {"text": "ProcessStartWait: 1,663.0 μs (netcoreapp2.1) → 536.0 μs (netcoreapp3.0)",
              "before_us": 1663.0, "after_us": 536.0, "expect": "faster"}})
def process_start_wait():
    """Start the interpreter with -S -c pass (no site import: the closest to the seed's nop program)."""
    subprocess.run([sys.executable, "-S", "-c", "pass"], check=True)


@perflab.benchmark(name="ProcessStartWaitNop", categories=["startup"], meta={"seed": "003", "section": "Process"})
def process_start_wait_nop():
    """The seed's exact target: a no-op native program (/bin/true); same for every runtime, so it
    measures the runtime's process-start path (subprocess/fork+exec) alone."""
    subprocess.run(["/bin/true"], check=True)
