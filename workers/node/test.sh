#!/usr/bin/env bash
# Native tests of the Node.js worker (node --test), plus a type check of index.d.ts when the
# TypeScript compiler perflab installs from npm is in its cache. Exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")"
NODE="${NODE:-node}"
if ! command -v "$NODE" >/dev/null 2>&1; then
  echo "workers/node/test.sh: no node on PATH; skipping" >&2
  exit 0
fi
"$NODE" --test test/*.test.js
TSC="${PERFLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perflab}/typescript/node_modules/typescript/bin/tsc"
if [ -f "$TSC" ]; then
  echo "type check: tsc -p test/tsconfig.json"
  "$NODE" "$TSC" -p test/tsconfig.json
fi
