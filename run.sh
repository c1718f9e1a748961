#!/usr/bin/env bash
# perflab's main job on a fresh machine: set up the host in .venv, then (scripts/main_job.py) put each
# language family's oldest and newest runtime side by side on the seed corpus's quick slice
# (suites/seeds: the .NET reports' experiments ported to Python, Node, Go, Java, Rust and C/C++) —
# CPython 3.8 → 3.13, Node 18 → 24, Go 1.21 → 1.26, JDK 17 → 25, Rust stable → nightly, C/C++ gcc →
# clang (else -O1 → -O3), provisioning Node and Go versions that are missing (npm, Go module proxy; no
# root) — within one total budget (--budget-total, default 1200 s): a first pass with the short job
# over every case, then the time left to the comparisons that stand for a seed claim and are still
# inconclusive. Runs are kept in the project's history (.perflab/history.db at the repository root).
# Results and the report (an index and a page per family) go to perflab-results/seeds-<UTC time>/;
# the console shows one line per family. Options: see `python scripts/main_job.py --help`; unknown
# arguments go to `perflab run`.
set -euo pipefail
cd "$(dirname "$0")"
. ./scripts/venv.sh ""  # an argument of its own: run.sh's arguments are not venv.sh's extras
exec .venv/bin/python scripts/main_job.py "$@"
