#!/bin/sh
# Every trust study of docs/measuring.md, one after the other, under the three conditions.
#   bench/studies.sh --quick     # the small presets (about 25-30 min on an idle 2-core machine)
#   bench/studies.sh             # the full counts (hours: each study prints its estimate first)
# Extra arguments go to every study that takes them (e.g. --seed 7). Run nothing else meanwhile.
set -e
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
for study in aa known_ratio run_to_run aa_power revisions time_to_verdict languages; do
    "$PY" bench/$study.py "$@"
done
"$PY" bench/coverage.py "$@"
"$PY" bench/coverage.py --ratio --job short --call-ms 10 --between 0,2 --within 2,5 "$@"
