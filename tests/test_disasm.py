"""`perflab run --disasm`: native benchmark functions are disassembled next to the results."""
import subprocess
import sys
from pathlib import Path

from perflab.runtimes import cpp as cppruntimes

ROOT = Path(__file__).resolve().parents[1]


def test_cpp_benchmark_functions_are_disassembled(tmp_path):
    compilers = [r.name for r in cppruntimes.discover() if r.installed]
    assert compilers, "no C/C++ compiler found"
    r = subprocess.run([sys.executable, "-m", "perflab.cli", "run", "examples/cpp", "--runtimes",
                        f"{compilers[0]}:-O2", "--job", "short", "--budget", "0.3", "--filter",
                        "*adler*", "--disasm", "-o", str(tmp_path)], cwd=ROOT, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    [listing] = list(tmp_path.glob("perflab-*-disasm/*.asm"))
    text = listing.read_text()
    assert "adler32" in text and "bytes at 0x" in text
    instructions = [ln for ln in text.splitlines() if ln.startswith(" ") and ":\t" in ln]
    assert len(instructions) > 5  # real machine code, not an empty range


def test_python_runs_say_there_is_nothing_native_to_disassemble(tmp_path):
    r = subprocess.run([sys.executable, "-m", "perflab.cli", "run", "examples/python/bench_empty.py",
                        "--job", "short", "--budget", "0.3", "--disasm", "-o", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "no case has native code to disassemble" in r.stderr
