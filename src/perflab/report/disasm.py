"""`perflab run --disasm`: the machine code of each native benchmark function, written next to the
results. Workers that can (C/C++, Rust) report the function's address in their executable and its size;
objdump disassembles exactly that range, so the listing is the code the Code Size column counts."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from ..analysis import Row


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._=-]+", "_", name).strip("_")[:150]


def write_disassembly(rows: list[Row], folder: Path) -> tuple[list[Path], list[str]]:
    """One .asm file per case with a located function; returns (files, problems)."""
    objdump = shutil.which("objdump")
    located = [r for r in rows if r.result.diagnostics and r.result.diagnostics.binary
               and r.result.diagnostics.code_address is not None and r.result.diagnostics.code_size]
    if not located:
        return [], ["no case has native code to disassemble (C/C++ and Rust benchmarks do)"]
    if objdump is None:
        return [], ["objdump not found: install binutils for --disasm"]
    folder.mkdir(parents=True, exist_ok=True)
    files, problems = [], []
    for r in located:
        d = r.result.diagnostics
        start, stop = d.code_address, d.code_address + d.code_size
        proc = subprocess.run([objdump, "-d", "-C", "--no-show-raw-insn", f"--start-address={start:#x}",
                               f"--stop-address={stop:#x}", d.binary], capture_output=True, text=True)
        if proc.returncode != 0:
            problems.append(f"{r.key}: objdump failed: {proc.stderr.strip()[:200]}")
            continue
        body = proc.stdout.split("Disassembly of section", 1)[-1]
        path = folder / f"{_safe(r.key)}.asm"
        path.write_text(f"; {r.key}\n; {d.code_size} bytes at {start:#x} in {d.binary}\n"
                        f"; Disassembly of section{body}")
        files.append(path)
    return files, problems
