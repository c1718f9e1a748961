#!/usr/bin/env bash
# perflab's main job on a fresh machine: set up the host in .venv, then measure the benchmark corpus
# on every runtime found and write the results (JSON with raw samples, Markdown, CSV) to perflab-results/.
# Extra arguments go to `perflab run` (e.g. ./run.sh --job default).
set -euo pipefail
cd "$(dirname "$0")"
. ./scripts/venv.sh
exec .venv/bin/perflab run examples/python --runtimes all --job short --out perflab-results "$@"
