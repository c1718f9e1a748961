"""perflab's Java worker versus JMH (from Maven Central), on a workload with a known answer.

One JMH-annotated class (the same source for both tools: perflab runs JMH's annotations as they are)
does `AB_SIZE` dependent xor-shift steps per op; AB_SIZE comes from the environment:

- A/B: AB_SIZE=100 vs AB_SIZE=110 — the true ratio is ~1.10; a good harness says "slower, ~+10%".
- A/A: AB_SIZE=100 on both sides — the true ratio is 1; saying "different" is a false positive.

For each scenario and repetition we record the wall time to a verdict (two JMH runs, one per setting,
with the --jmh options; or one `perflab run` with both settings as runtime env items), the estimated
ratio, and whether the tool called the difference significant (JMH: the two 99.9% score intervals do
not overlap; perflab: the 99.9% CI of the ratio excludes 1).

JMH comes from Maven Central through the ordinary client, once:
    mvn dependency:get -Dartifact=org.openjdk.jmh:jmh-generator-annprocess:1.37

    .venv/bin/python bench/java_vs_jmh.py [--reps 3] [--runtime jdk17] [--job short]
        [--jmh "-f 2 -wi 3 -w 1s -i 5 -r 1s"]
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
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
from perflab.toolchains.java import JavaToolchain  # noqa: E402

JMH_VERSION = "1.37"
SOURCE = """package ab;

import org.openjdk.jmh.annotations.*;

@State(Scope.Benchmark)
public class XorBench {
    static final int SIZE = size();
    long seed = 88172645463325252L;

    static int size() {
        try {
            int n = Integer.parseInt(System.getenv("AB_SIZE"));
            return n > 0 ? n : 100;
        } catch (RuntimeException e) {
            return 100;
        }
    }

    /** AB_SIZE dependent xor-shift steps per op. */
    @Benchmark
    public long work() {
        long x = seed;
        for (int j = 0; j < SIZE; j++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }
}
"""


def m2() -> Path:
    return Path(os.environ.get("M2_REPO") or Path.home() / ".m2" / "repository")


def jmh_jars() -> tuple[list[str], list[str]]:
    """(runtime classpath, annotation processor path) from the local Maven repository."""
    base = m2()
    core = base / f"org/openjdk/jmh/jmh-core/{JMH_VERSION}/jmh-core-{JMH_VERSION}.jar"
    ann = base / f"org/openjdk/jmh/jmh-generator-annprocess/{JMH_VERSION}/jmh-generator-annprocess-{JMH_VERSION}.jar"
    jopt = base / "net/sf/jopt-simple/jopt-simple/5.0.4/jopt-simple-5.0.4.jar"
    math3 = base / "org/apache/commons/commons-math3/3.6.1/commons-math3-3.6.1.jar"
    if not all(p.is_file() for p in (core, ann, jopt, math3)):
        subprocess.run(["mvn", "-q", "-B", "dependency:get",
                        f"-Dartifact=org.openjdk.jmh:jmh-generator-annprocess:{JMH_VERSION}"], check=True)
    return [str(core), str(jopt), str(math3)], [str(ann), str(core)]


def build_jmh(java_home: Path, src: Path, out: Path) -> list[str]:
    cp, proc = jmh_jars()
    subprocess.run([str(java_home / "bin" / "javac"), "-cp", os.pathsep.join(cp), "-processorpath",
                    os.pathsep.join(proc), "-d", str(out), str(src)], check=True)
    return [str(out), *cp]


def jmh_score(java: str, cp: list[str], size: int, jmh_args: str) -> tuple[float, float, float]:
    """(score, low, high) in ns/op: JMH's 99.9% confidence interval."""
    res = Path(tempfile.mkdtemp(prefix="perflab-jmh-")) / "r.json"
    subprocess.run([java, "-cp", os.pathsep.join(cp), "org.openjdk.jmh.Main", "ab.XorBench.work",
                    "-bm", "avgt", "-tu", "ns", *shlex.split(jmh_args), "-rf", "json", "-rff", str(res)],
                   env=dict(os.environ, AB_SIZE=str(size)), check=True, capture_output=True, text=True)
    [doc] = json.loads(res.read_text())
    pm = doc["primaryMetric"]
    lo, hi = pm["scoreConfidence"]
    return pm["score"], lo, hi


def run_jmh(java: str, cp: list[str], a: int, b: int, jmh_args: str) -> dict:
    t0 = time.perf_counter()
    sa, la, ha = jmh_score(java, cp, a, jmh_args)
    sb, lb, hb = jmh_score(java, cp, b, jmh_args)
    wall = time.perf_counter() - t0
    significant = hb < la or lb > ha
    return {"tool": f"JMH {jmh_args}", "wall_s": wall, "ratio": sb / sa, "significant": significant,
            "detail": f"A {sa:.2f} [{la:.2f}, {ha:.2f}] B {sb:.2f} [{lb:.2f}, {hb:.2f}] ns"}


def run_perflab(runtime: str, root: Path, a: str, b: str, job: str) -> dict:
    label_a, label_b = f"{runtime}:{a}", f"{runtime}:{b}"
    doc, wall, cases = perflab_ab_cases(root, label_a, label_b, job)
    if len(cases) != 2:
        raise SystemExit(f"perflab did not measure both settings: {sorted(cases)}")
    ca, cb = cases[label_a] if label_a in cases else None, cases[label_b] if label_b in cases else None
    if ca is None or cb is None:  # labels are normalised by the host: take them in order
        ca, cb = list(cases.values())
    return perflab_ab_row(doc, wall, ca, cb, job)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--runtime", default=None, help="JDK runtime name (default: the oldest installed)")
    ap.add_argument("--job", default="short")
    ap.add_argument("--jmh", default="-f 2 -wi 3 -w 1s -i 5 -r 1s", help="JMH options for each of its runs")
    ap.add_argument("--out", default=None, help="write the rows as JSON here")
    args = ap.parse_args()

    installed = [r for r in JavaToolchain().discover_runtimes() if r.installed and not r.note]
    rt = pick_runtime(installed, args.runtime, 0)
    java_home = Path(rt.executable).parent.parent
    root = Path(tempfile.mkdtemp(prefix="perflab-java-ab-"))
    src = root / "ab" / "XorBench.java"
    src.parent.mkdir()
    src.write_text(SOURCE)
    cp = build_jmh(java_home, src, Path(tempfile.mkdtemp(prefix="perflab-jmh-build-")))
    # warm perflab's build cache so the timings compare measuring, not compiling
    perflab_run(root, "-r", f"{rt.name}:AB_SIZE=100,{rt.name}:AB_SIZE=110", "-j", "dry")

    def measure(a: int, b: int) -> list[dict]:
        # the two labels must differ: an unused system property changes nothing
        b_items = f"AB_SIZE={b} -Dperflab.aa=b" if a == b else f"AB_SIZE={b}"
        return [run_jmh(rt.executable, cp, a, b, args.jmh),
                run_perflab(rt.name, root, f"AB_SIZE={a}", b_items, args.job)]

    ab_report(ab_rows(args.reps, measure), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
