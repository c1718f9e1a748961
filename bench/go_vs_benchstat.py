"""perflab's Go worker versus the usual `go test -bench -count 10` + benchstat, on a workload with a
known answer.

One ordinary testing.B benchmark does `AB_SIZE` dependent xor-shift steps per op (AB_SIZE comes from
the environment, so both tools compare *the same binary* under two settings):

- A/B: AB_SIZE=100 vs AB_SIZE=110 — the true ratio is ~1.10; a good harness says "slower, ~+10%".
- A/A: AB_SIZE=100 on both sides — the true ratio is 1; saying "different" is a false positive.

For each scenario and repetition we record the wall time to a verdict (go test ×2 + benchstat, or one
`perflab run` with both settings as runtime env items: `-r go1.26:AB_SIZE=100,go1.26:AB_SIZE=110`),
the estimated ratio, and whether the tool called the difference significant (benchstat: a delta rather
than `~` at its default α=0.05; perflab: the 99.9% CI of the ratio excludes 1).

benchstat is `golang.org/x/perf/cmd/benchstat` (install with
`go install golang.org/x/perf/cmd/benchstat@latest`, from the Go module proxy).

    .venv/bin/python bench/go_vs_benchstat.py [--reps 3] [--runtime go1.26] [--job short]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import perflab_run  # noqa: E402
from _compare import ab_report, ab_rows, perflab_ab_cases, perflab_ab_row, pick_runtime  # noqa: E402
from perflab.toolchains.go import GoToolchain  # noqa: E402

SOURCE = """package ab

import (
	"os"
	"strconv"
	"testing"
)

var size = func() int {
	n, _ := strconv.Atoi(os.Getenv("AB_SIZE"))
	if n <= 0 {
		n = 100
	}
	return n
}()

var sink uint64

// BenchmarkWork performs AB_SIZE dependent xor-shift steps per op.
func BenchmarkWork(b *testing.B) {
	x := uint64(88172645463325252)
	for i := 0; i < b.N; i++ {
		for j := 0; j < size; j++ {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
	}
	sink = x
}
"""


def make_module() -> Path:
    root = Path(tempfile.mkdtemp(prefix="perflab-go-ab-")) / "ab"
    root.mkdir()
    (root / "go.mod").write_text("module example.com/ab\n\ngo 1.21\n")
    (root / "ab.go").write_text("package ab\n")
    (root / "ab_test.go").write_text(SOURCE)
    return root


def find_benchstat() -> str:
    found = shutil.which("benchstat")
    if found:
        return found
    gobin = Path(os.environ.get("GOBIN") or Path.home() / "go" / "bin") / "benchstat"
    if not gobin.is_file():  # from the Go module proxy, the ordinary way
        print("installing benchstat: go install golang.org/x/perf/cmd/benchstat@latest", flush=True)
        subprocess.run(["go", "install", "golang.org/x/perf/cmd/benchstat@latest"],
                       env=dict(os.environ, GOBIN=str(gobin.parent)), check=False)
    if gobin.is_file():
        return str(gobin)
    raise SystemExit("benchstat not found: go install golang.org/x/perf/cmd/benchstat@latest")


def go_test(go: str, root: Path, size: int, count: int) -> str:
    env = dict(os.environ, GOTOOLCHAIN="local", GOWORK="off", AB_SIZE=str(size))
    out = subprocess.run([go, "test", "-run", "^$", "-bench", "^BenchmarkWork$", "-count", str(count)],
                         cwd=root, env=env, capture_output=True, text=True, check=True)
    return out.stdout


_BENCHSTAT_ROW = re.compile(r"^Work\S*\s.*?(~|[+-]\d+\.\d+%)\s+\(p=([\d.]+) n=(\d+)")


def benchstat_verdict(benchstat: str, old: str, new: str) -> tuple[float | None, bool, float]:
    """(ratio new/old, significant, p) from benchstat's sec/op table."""
    d = Path(tempfile.mkdtemp())
    (d / "old.txt").write_text(old)
    (d / "new.txt").write_text(new)
    out = subprocess.run([benchstat, "old.txt", "new.txt"], cwd=d, capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():  # the first table is sec/op
        m = _BENCHSTAT_ROW.match(line.strip())
        if m:
            delta, p = m.group(1), float(m.group(2))
            if delta == "~":
                return None, False, p
            return 1 + float(delta.rstrip("%")) / 100, True, p
    raise SystemExit(f"cannot read benchstat output:\n{out}")


def median_ns_per_op(text: str) -> float:
    vals = sorted(float(m.group(1)) for m in re.finditer(r"\s([\d.]+) ns/op", text))
    return vals[len(vals) // 2] if vals else float("nan")


def run_gotest(go: str, benchstat: str, root: Path, a: int, b: int, count: int) -> dict:
    t0 = time.perf_counter()
    old = go_test(go, root, a, count)
    new = go_test(go, root, b, count)
    ratio, significant, p = benchstat_verdict(benchstat, old, new)
    wall = time.perf_counter() - t0
    if ratio is None:
        ratio = median_ns_per_op(new) / median_ns_per_op(old)
    return {"tool": f"go test -count {count} + benchstat", "wall_s": wall, "ratio": ratio,
            "significant": significant, "detail": f"p={p}"}


def run_perflab(runtime: str, root: Path, a: str, b: str, job: str) -> dict:
    """One `perflab run` with both settings as runtime env items; the ratio B/A from its document."""
    label_a, label_b = f"{runtime}:AB_SIZE={a}", f"{runtime}:AB_SIZE={b}"
    doc, wall, cases = perflab_ab_cases(root, label_a, label_b, job)
    if label_a not in cases or label_b not in cases:
        raise SystemExit(f"perflab did not measure both settings: {sorted(cases)}")
    return perflab_ab_row(doc, wall, cases[label_a], cases[label_b], job)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--runtime", default=None, help="Go runtime name (default: the go on PATH)")
    ap.add_argument("--job", default="short")
    ap.add_argument("--count", type=int, default=10, help="go test -count")
    ap.add_argument("--out", default=None, help="write the rows as JSON here")
    args = ap.parse_args()

    tc = GoToolchain()
    installed = [r for r in tc.discover_runtimes() if r.installed and r.executable]
    rt = pick_runtime(installed, args.runtime, -1)
    benchstat = find_benchstat()
    root = make_module()
    # warm both tools' build caches so the timings compare measuring, not compiling
    go_test(rt.executable, root, 100, 1)
    perflab_run(root, "-r", f"{rt.name}:AB_SIZE=100,{rt.name}:AB_SIZE=110", "-j", "dry")
    perflab_run(root, "-r", f"{rt.name}:AB_SIZE=100,{rt.name}:AB_SIZE=100 GOGC=100", "-j", "dry")

    def measure(a: int, b: int) -> list[dict]:
        # the two labels must differ: GOGC=100 is Go's default, so A/A behaviour is identical
        b_items = f"{b} GOGC=100" if a == b else str(b)
        return [run_gotest(rt.executable, benchstat, root, a, b, args.count),
                run_perflab(rt.name, root, str(a), b_items, args.job)]

    ab_report(ab_rows(args.reps, measure), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
