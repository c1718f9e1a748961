#!/usr/bin/env bash
# Native tests of the C# worker: build the BenchmarkDotNet stand-in, the worker and a test benchmark
# with Mono's mcs (as the host does) and run SelfTest on Mono's JIT and interpreter. Skips without Mono.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v mono >/dev/null 2>&1 || ! command -v mcs >/dev/null 2>&1; then
    echo "workers/csharp: no mono/mcs found (apt-get install mono-complete); skipping" >&2
    exit 0
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
mcs -target:library -optimize+ -warnaserror+ -nowarn:1591 -out:"$out/BenchmarkDotNet.dll" "$here"/BenchmarkDotNet/*.cs
mcs -optimize+ -warnaserror+ -r:"$out/BenchmarkDotNet.dll" -r:System.Core.dll -out:"$out/perflab-worker.dll" -target:library "$here"/src/*.cs
mcs -target:library -optimize+ -r:"$out/BenchmarkDotNet.dll" -out:"$out/SelfTestBench.dll" "$here/tests/SelfTestBench.cs"
mcs -optimize+ -r:"$out/BenchmarkDotNet.dll" -r:"$out/perflab-worker.dll" -r:"$out/SelfTestBench.dll" -r:System.Core.dll \
    -out:"$out/SelfTest.exe" "$here/tests/SelfTest.cs"
for mode in "" --interpreter; do
    (cd "$out" && mono $mode SelfTest.exe "$here/tests/SelfTestBench.cs" "$out/SelfTestBench.dll" "$here/tests/Broken.cs")
done
