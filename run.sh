#!/usr/bin/env bash
# perflab's main job on a fresh machine: set up the host in .venv, run a quick slice of the seed corpus
# (suites/seeds, the .NET reports' experiments ported to Python) on the CPython versions found, keep the
# run in the history (SQLite, ~/.local/share/perflab/history.db) and write a report in the seeds' shape.
# Results, report and plots go to perflab-results/seeds-<UTC time>/. Extra arguments go to `perflab run`.
set -euo pipefail
cd "$(dirname "$0")"
. ./scripts/venv.sh
runtimes=$(.venv/bin/python - <<'PY'
from perflab.runtimes.python import discover
found = [r.name for r in discover() if r.implementation == "CPython"]
wanted = [n for n in ("python3.8", "python3.11", "python3.13") if n in found]
print(",".join(wanted or found[:1]))
PY
)
out="perflab-results/seeds-$(date -u +%Y%m%d-%H%M%S)"
rc=0
.venv/bin/perflab run suites/seeds --category quick --runtimes "$runtimes" --job short --out "$out" "$@" || rc=$?
.venv/bin/perflab report "$out"/perflab-*.json --title "perflab seed corpus — quick slice" --out "$out/report"
echo "report: $out/report"
exit $rc
