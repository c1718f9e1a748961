"""The main job's runtimes: per language family, the OLDEST and the NEWEST supported version side by
side, provisioned when this machine lacks them and perflab can obtain them without root from the
registries it reaches (Node 18–24 from npm, Go 1.21–1.26 from the Go module proxy; both cached in
perflab's cache folder). Families and their pairs:

    CPython  python3.8 → python3.13      (installed ones only; PyPy is not in the main job's pairs)
    Node     node18 → node24             (npm)
    Go       go1.21 → go1.26             (Go module proxy)
    JDK      jdk17 → jdk25               (installed ones only)
    Rust     rust-stable → rust-nightly  (installed rustup toolchains only)
    C/C++    gcc → clang when both are installed (compilers, not versions), else one compiler at
             -O1 → -O3 (an optimisation comparison, not a version one)
    C#/Mono  mono → mono:--interpreter   (Mono's JIT → its IL interpreter: execution modes, not
             versions; Debian has one Mono, 6.8, and no registry perflab reaches offers another)

When a wanted version is missing and cannot be obtained, the family's oldest and newest INSTALLED
versions stand in (said so); a family with fewer than two is named with the reason.

`python scripts/main_job_runtimes.py [--no-provision]` prints the specs, comma-separated, on stdout
(oldest first in each family) and what it chose, installed or skipped on stderr.
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Callable

from perflab import toolchains
from perflab.errors import PrepareError

WANTED = {
    "python": ("python3.8", "python3.13"),
    "node": ("node18", "node24"),
    "go": ("go1.21", "go1.26"),
    "java": ("jdk17", "jdk25"),
    "rust": ("rust-stable", "rust-nightly"),
}
FAMILY = {"python": "CPython", "node": "Node", "go": "Go", "java": "JDK", "rust": "Rust", "cpp": "C/C++",
          "csharp": "C#/Mono"}
OPT_LEVELS = ("-O1", "-O3")  # a single C/C++ compiler is compared with itself at these levels


@dataclass
class Choice:
    language: str
    specs: list[str]                 # runtime specs, oldest first; two when paired
    kind: str                        # versions | compilers | optimisation | modes | none
    reason: str = ""                 # why not paired, or why not the wanted pair
    provisioned: list[str] = field(default_factory=list)  # "node24: Node 24.11.1 in 12.3 s"

    @property
    def paired(self) -> bool:
        return len(self.specs) == 2

    def describe(self) -> str:
        name = FAMILY.get(self.language, self.language)
        if not self.paired:
            return f"{name}: not compared — {self.reason}"
        what = {"versions": "", "compilers": " (two compilers, not versions)",
                "optimisation": " (optimisation levels, not versions)",
                "modes": " (JIT → interpreter: execution modes, not versions)"}[self.kind]
        return f"{name}: {self.specs[0]} → {self.specs[1]}{what}" + (f" — {self.reason}" if self.reason else "")


def _installed(tc) -> list:
    found = tc.discover_runtimes()
    if tc.language == "python":
        found = [r for r in found if r.name.startswith("python")]
    return found


def _obtain(tc, rt, say: Callable[[str], None]) -> tuple[str | None, str]:
    """(the runtime's name once installed or None, a line on what happened)."""
    started = time.monotonic()
    try:
        got = tc.provision(rt)
    except (PrepareError, NotImplementedError) as exc:
        return None, f"{rt.name} could not be obtained: {exc}"
    line = f"{rt.name}: {FAMILY.get(tc.language, '')} {got.version} at {got.executable} ({time.monotonic() - started:.1f} s)"
    say(f"provisioned {line}")
    return got.name, line


def choose_versions(tc, provision: bool, say: Callable[[str], None]) -> Choice:
    lang = tc.language
    found = _installed(tc)
    by_name = {r.name: r for r in found}
    have = [r.name for r in found if r.installed]
    choice = Choice(lang, [], "versions")
    problems = []
    for name in WANTED[lang]:
        rt = by_name.get(name)
        if rt is not None and rt.installed:
            continue
        if rt is None or not provision:
            problems.append(f"{name} is not installed" + ("" if rt is None else " (--no-provision)"))
            continue
        got, line = _obtain(tc, rt, say)
        if got is None:
            problems.append(line)
        else:
            have.append(got)
            choice.provisioned.append(line)
    if all(n in have for n in WANTED[lang]):
        choice.specs = list(WANTED[lang])
        return choice
    order = [r.name for r in found]  # discovery order: oldest first (Rust: stable, beta, nightly, …)
    usable = sorted(set(have), key=lambda n: order.index(n) if n in order else len(order))
    if len(usable) >= 2:
        choice.specs = [usable[0], usable[-1]]
        choice.reason = "; ".join(problems) + f": comparing {usable[0]} → {usable[-1]} instead"
    else:
        choice.kind = "none"
        choice.specs = usable
        choice.reason = "; ".join(problems) + (f"; only {usable[0]} is installed" if usable else "; none is installed")
    return choice


def choose_cpp(tc) -> Choice:
    found = [r for r in tc.discover_runtimes() if r.installed]

    def newest(prefix: str):
        mine = [r for r in found if re.fullmatch(prefix + r"\d+", r.name)]
        return mine[-1].name if mine else None  # discovery sorts each family by version
    gcc, clang = newest("gcc"), newest("clang")
    if gcc and clang:
        return Choice("cpp", [gcc, clang], "compilers")
    one = gcc or clang
    if one:
        other = "clang" if gcc else "gcc"
        return Choice("cpp", [f"{one}:{OPT_LEVELS[0]}", f"{one}:{OPT_LEVELS[1]}"], "optimisation",
                      reason=f"no {other} installed, so {one} is compared with itself at "
                             f"{OPT_LEVELS[0]} and {OPT_LEVELS[1]}")
    return Choice("cpp", [], "none", reason="no C/C++ compiler (g++ or clang++) on PATH")


def choose_csharp(tc) -> Choice:
    """Mono's JIT against its interpreter, on the `mono` on PATH (else the newest Mono found)."""
    found = [r for r in tc.discover_runtimes() if r.installed and not getattr(r, "note", "")]
    if not found:
        return Choice("csharp", [], "none", reason="no Mono with its C# compiler installed "
                                                   "(apt-get install mono-complete)")
    mono = next((r for r in found if r.name == "mono"), found[-1]).name
    return Choice("csharp", [mono, f"{mono}:--interpreter"], "modes")


def pick(provision: bool = True, say: Callable[[str], None] | None = None,
         languages: list[str] | None = None) -> list[Choice]:
    """A choice per family (only `languages` when given), in perflab's language order."""
    say = say or (lambda m: print(m, file=sys.stderr, flush=True))
    out = []
    for tc in toolchains.all_toolchains():
        if languages is not None and tc.language not in languages:
            continue
        if tc.language == "cpp":
            out.append(choose_cpp(tc))
        elif tc.language == "csharp":
            out.append(choose_csharp(tc))
        elif tc.language in WANTED:
            out.append(choose_versions(tc, provision, say))
    return out


def specs(choices: list[Choice]) -> list[str]:
    """Every runtime to run; a family with one runtime still runs (its tables, without ratios)."""
    return [s for c in choices for s in c.specs]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-provision", action="store_true", help="use only what is installed")
    args = ap.parse_args(argv)
    choices = pick(provision=not args.no_provision)
    for c in choices:
        print(c.describe(), file=sys.stderr)
    print(",".join(specs(choices)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
