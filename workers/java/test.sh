#!/usr/bin/env bash
# Native tests of the Java worker: build it and a test benchmark with the JDK's javac (as the host does),
# generate the loops, and run SelfTest. Uses $JAVA_HOME or the javac on PATH; exits non-zero on failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/javac" ]]; then bin="$JAVA_HOME/bin/"; else bin=""; fi
if ! command -v "${bin}javac" >/dev/null 2>&1; then
    echo "workers/java: no javac found (set JAVA_HOME); skipping" >&2
    exit 0
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"${bin}javac" -encoding UTF-8 -g -Xlint:all,-serial -Werror -d "$out/worker" $(find "$here/src" -name '*.java')
"${bin}javac" -encoding UTF-8 -g -proc:none -cp "$out/worker" -d "$out/classes" "$here/test/SelfTestBench.java"
"${bin}java" -cp "$out/worker:$out/classes" perflab.internal.Gen "$out/classes" "$out/gen"
"${bin}javac" -encoding UTF-8 -g -proc:none -nowarn -cp "$out/worker:$out/classes" -d "$out/classes" $(cat "$out/gen/sources.txt")
"${bin}javac" -encoding UTF-8 -g -proc:none -cp "$out/worker:$out/classes" -d "$out/classes" "$here/test/SelfTest.java"
"${bin}java" -cp "$out/worker:$out/classes" SelfTest
