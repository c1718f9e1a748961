#!/usr/bin/env bash
# Native tests of the Rust worker (JSON, protocol over a loopback socket, panics, allocation counting,
# code size, dead-code trap). The build goes to perflab's cache, never into the repository.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v cargo >/dev/null 2>&1; then
  echo "workers/rust/test.sh: cargo not found on PATH" >&2
  exit 1
fi
export CARGO_TARGET_DIR="${PERFLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perflab}/rust/worker-test-target"
JOBS="${PERFLAB_BUILD_JOBS:-1}"
cargo test -j "$JOBS" --release --quiet
# without the counting allocator (for benchmarks that install their own) it must still build and pass
cargo test -j "$JOBS" --release --quiet --no-default-features --lib
echo "workers/rust: ok"
