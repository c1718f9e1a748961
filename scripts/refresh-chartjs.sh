#!/usr/bin/env bash
# Refresh the chart library `perflab serve` ships (src/perflab/web/static/): Chart.js from the npm
# registry, its UMD build and its licence, committed so the dashboard works offline (no CDN).
#   scripts/refresh-chartjs.sh            # the version pinned below
#   scripts/refresh-chartjs.sh 4.7.0      # another version (then update the pin)
set -euo pipefail
version="${1:-4.6.1}"
here="$(cd "$(dirname "$0")/.." && pwd)"
static="$here/src/perflab/web/static"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "chart.js@$version" >/dev/null && tar xzf chart.js-*.tgz)
umd="$tmp/package/dist/chart.umd.min.js"
[ -f "$umd" ] || umd="$tmp/package/dist/chart.umd.js"
cp "$umd" "$static/chart.umd.js"
cp "$tmp/package/LICENSE.md" "$static/chart.js.LICENSE.md"
echo "chart.js@$version" > "$static/chart.js.VERSION"
echo "copied Chart.js $version ($(wc -c < "$static/chart.umd.js") bytes) into $static"
