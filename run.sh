#!/usr/bin/env bash
# perflab's main job on a fresh machine: set up the host in .venv, run a quick slice of the seed corpus
# (suites/seeds, the .NET reports' experiments ported to Python, Node, Go, Java, Rust and C/C++) on the
# runtimes found (per language the versions the reports compare, when installed: see
# scripts/main_job_runtimes.py), keep the run in the history (SQLite, ~/.local/share/perflab/history.db)
# and write a report in the seeds' shape, each language against its oldest runtime.
# Results, report and plots go to perflab-results/seeds-<UTC time>/. Extra arguments go to `perflab run`.
set -euo pipefail
cd "$(dirname "$0")"
. ./scripts/venv.sh
runtimes=$(.venv/bin/python scripts/main_job_runtimes.py)
echo "runtimes: $runtimes"
out="perflab-results/seeds-$(date -u +%Y%m%d-%H%M%S)"
rc=0
# Java gets 6 s a case: a JVM process costs 0.3 s, so the short job's 2 s bought 2-6 of them, and
# a ratio's interval needs about six a side (3 of 34 Java cases reached ±5 % with 2 s, 13 with 6 s)
.venv/bin/perflab run suites/seeds --category quick --runtimes "$runtimes" --job short --budget java=6 \
  --out "$out" "$@" || rc=$?
.venv/bin/perflab report "$out"/perflab-*.json --title "perflab seed corpus — quick slice" --out "$out/report"
echo "report: $out/report"
exit $rc
