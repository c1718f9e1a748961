#!/usr/bin/env bash
# Native tests of the Go worker (protocol, native API, sub-benchmark axes, dead-code sink).
# The testing.B path needs perflab's overlay build and is covered by tests/test_go_worker.py.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v go >/dev/null 2>&1; then
  echo "workers/go/test.sh: go not found on PATH" >&2
  exit 1
fi
export GOTOOLCHAIN=local GOWORK=off
export GOFLAGS="${GOFLAGS:--p=1}"
unformatted=$(gofmt -l perflab cmd)
if [ -n "$unformatted" ]; then
  echo "gofmt needed: $unformatted" >&2
  exit 1
fi
go vet ./...
go test -count=1 ./...
# The worker must also build with the oldest supported toolchain (go.mod says go 1.21), if present.
GO121=$(ls -d "$(go env GOMODCACHE)"/golang.org/toolchain@v0.0.1-go1.21.*/bin/go 2>/dev/null | tail -n1 || true)
if [ -n "$GO121" ]; then
  "$GO121" test -count=1 ./...
fi
echo "workers/go: ok"
