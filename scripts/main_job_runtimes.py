"""Print the runtimes the main job (./run.sh) compares: per language, the pairs the seed reports are
about when they are installed (CPython 3.8/3.11/3.13, Node 18/22, Go 1.21/1.26, JDK 17/25, Rust stable/
nightly, gcc/clang), otherwise the installed ones of that language (at most two). Nothing is provisioned:
the main job runs on what this machine has."""
from __future__ import annotations

from perflab import toolchains

PREFERRED = {
    "python": ["python3.8", "python3.11", "python3.13"],
    "node": ["node18", "node22"],
    "go": ["go1.21", "go1.26"],
    "java": ["jdk17", "jdk25"],
    "rust": ["rust-stable", "rust-nightly"],
    "cpp": ["gcc12", "clang14"],
}


def pick() -> list[str]:
    chosen = []
    for tc in toolchains.all_toolchains():
        found = [r.name for r in tc.discover_runtimes() if r.installed]
        if tc.language == "python":  # PyPy is in the corpus's scope, but not in the main job's pairs
            found = [n for n in found if n.startswith("python")]
        wanted = [n for n in PREFERRED.get(tc.language, []) if n in found]
        chosen += wanted if wanted else found[:2]
    return chosen


if __name__ == "__main__":
    print(",".join(pick()))
