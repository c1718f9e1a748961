"""Startup experiments: seed 000 (".NET 6": Startup — a "Hello, World" app timed from outside) and
seed 003 (".NET Core 3.0": Process — ProcessStartWait on a no-op program). Ported as scenarios: one
invocation starts a process and waits for it. sys.executable is the runtime under test, so
HelloWorld compares the interpreters' own start-up; ProcessStartWait starts the seed's no-op native
program, so it compares the runtimes' process-start path."""
import subprocess
import sys

import perflab

_DEVNULL = subprocess.DEVNULL
# The seed's target: `int main() { return 0; }` compiled with gcc. /bin/true is such a program.
NOP_PROGRAM = "/bin/true"


@perflab.benchmark(name="HelloWorld", categories=["startup", "quick"], meta={
    "seed": "000", "section": "Startup", "scenario": True, "fidelity": "faithful"})
def hello_world():
    """Start `python -c "print('Hello, World!')"` and wait for it."""
    subprocess.run([sys.executable, "-c", "print('Hello, World!')"], stdout=_DEVNULL, check=True)


@perflab.benchmark(name="ProcessStartWait", categories=["startup"], meta={
    "seed": "003", "section": "Process", "fidelity": "faithful"})
def process_start_wait():
    """Process.Start(nop).WaitForExit(): start the no-op native program and wait for it."""
    subprocess.run([NOP_PROGRAM], check=True)


@perflab.benchmark(name="ProcessStartWaitInterpreter", categories=["startup"], meta={
    "extra": True, "related": "003 · Process"})
def process_start_wait_interpreter():
    """Not the seed's experiment: start the interpreter itself with -S -c pass (its start-up, not
    the process-start path alone)."""
    subprocess.run([sys.executable, "-S", "-c", "pass"], check=True)
