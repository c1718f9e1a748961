#!/usr/bin/env bash
# The whole test suite on a fresh machine: the host's tests (pytest) and every worker's native tests
# (workers/*/test.sh). pytest runs last so its summary is the closing line.
set -uo pipefail
cd "$(dirname "$0")"
. ./scripts/venv.sh test
. ./scripts/postgres.sh
status=0
for t in workers/*/test.sh; do
  [ -f "$t" ] || continue
  echo "== $t"
  bash "$t" || { echo "FAILED: $t"; status=1; }
done
echo "== pytest"
.venv/bin/python -m pytest -q -p no:cacheprovider "$@" || status=1
exit $status
