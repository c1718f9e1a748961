"""Issue 40's targets for `perflab run --profile`, measured (docs/profiling.md):

  coverage   the seed corpus's quick slice (`--category quick`, as scripts/main_job.py chooses it) on
             one runtime per family (the one perflab picks by default), the short job, run twice in the
             same stretch — with `--profile` and without, the order alternating from family to family —
             and per family:
             a. cases, cases with a profile, cases with "no profile: <reason>" (target: ≥ 95 % with one);
             b. each profiled case's profile launch (its `profile.wall_s`) against the case's measuring
                time (`wall_seconds`): the ratio's median and maximum, and how many are ≤ 1× (target);
             c. the same cases' figures with and without `--profile`: how many of their intervals overlap.
  planted    (d.) in every language, a benchmark that calls a helper which at a second commit is 10 %
             slower (more of the same work), in a scratch git repository, measured with
             `perflab run --rev A,B --profile`; prints whether the helper is the widest red frame of the
             difference flame graph (the rule of report/flame.py: red = the frame's self share grew
             beyond sampling noise), and what the widest red frame is when it is not.

Each part prints `uptime` beside its figures. Run it niced on a shared machine:

    nice -n 19 .venv/bin/python bench/profiles.py coverage [--families python,go] [--out DIR]
    nice -n 19 .venv/bin/python bench/profiles.py planted [--languages go,rust] [--seconds S] [--rounds N]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import perflab_run  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "suites" / "seeds"
# one runtime per family: the one `perflab run` picks by default on this machine
FAMILIES = {"python": "python3.11", "node": "node20", "go": "go1.26", "java": "jdk17",
            "rust": "rust-stable", "cpp": "gcc12", "csharp": "mono"}


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def overlap(a: dict, b: dict) -> bool | None:
    ea, eb = a.get("estimate") or {}, b.get("estimate") or {}
    if not (ea.get("ci_low") is not None and eb.get("ci_low") is not None):
        return None
    return ea["ci_low"] <= eb["ci_high"] and eb["ci_low"] <= ea["ci_high"]


def coverage(args) -> None:
    families = args.families.split(",") if args.families else list(FAMILIES)
    out = Path(args.out or tempfile.mkdtemp(prefix="perflab-profiles-"))
    print(f"coverage: seeds quick slice, short job, with and without --profile; results in {out}")
    totals = Counter()
    for i, fam in enumerate(families):
        rt = FAMILIES[fam]
        common = [str(SEEDS), "--category", "quick", "-r", rt, "--job", "short", "--store", "none"]
        order = ["profile", "plain"] if i % 2 == 0 else ["plain", "profile"]
        docs, walls = {}, {}
        for which in order:
            extra = ["--profile"] if which == "profile" else []
            docs[which], walls[which] = perflab_run(SEEDS, *common[1:], *extra,
                                                    out=out / f"{fam}-{which}", timeout_s=3600)
        load = uptime()
        prof_cases = [c for c in docs["profile"]["cases"] if c.get("runtime", {}).get("language")]
        cases = len(prof_cases)
        with_p = [c for c in prof_cases if (c.get("profile") or {}).get("stacks")]
        reasons = Counter()
        for c in prof_cases:
            p = c.get("profile") or {}
            if not p.get("stacks"):
                reasons[p.get("error") or f"no profile record (status {c.get('status')}: "
                        f"{(c.get('error') or '')[:80]})"] += 1
        ratios = [c["profile"]["wall_s"] / c["wall_seconds"] for c in with_p if c.get("wall_seconds")]
        plain = {c["key"]: c for c in docs["plain"]["cases"]}
        pairs = [overlap(c, plain[c["key"]]) for c in prof_cases if c["key"] in plain]
        judged = [x for x in pairs if x is not None]
        share = 100 * len(with_p) / cases if cases else 0.0
        print(f"\n{fam} ({rt}): {cases} cases, {len(with_p)} with a profile ({share:.0f} %), "
              f"{cases - len(with_p)} without")
        for r, n in reasons.most_common():
            print(f"    {n} × {r}")
        if ratios:
            print(f"  cost: profile launch / measuring time: median {statistics.median(ratios):.2f}×, "
                  f"max {max(ratios):.2f}×, {sum(r <= 1 for r in ratios)}/{len(ratios)} ≤ 1×")
        print(f"  unchanged: {sum(judged)}/{len(judged)} cases' intervals overlap with and without "
              f"--profile ({len(pairs) - len(judged)} without an interval); runs took "
              f"{walls['profile']:.0f} s with, {walls['plain']:.0f} s without")
        print(f"  uptime: {load}")
        totals.update(cases=cases, profiled=len(with_p), overlap=sum(judged), judged=len(judged),
                      costly=sum(r > 1 for r in ratios), ratios=len(ratios))
    print(f"\nall families: {totals['profiled']}/{totals['cases']} cases profiled; "
          f"{totals['ratios'] - totals['costly']}/{totals['ratios']} profiles cost ≤ 1× the measuring time; "
          f"{totals['overlap']}/{totals['judged']} intervals overlap with and without --profile")
    print(f"uptime: {uptime()}")


# --- d. the planted hot function -------------------------------------------------------------------
# Each benchmark calls `hot_helper` and `other_work`, equal work at the first commit; at the second
# commit hot_helper does 10 % more of the same work. Neither helper may be inlined into the other or
# into the benchmark (the profile must see them as frames).
HELPER_N, SLOW_N, OTHER_N = 2000, 2200, 2000

PLANTED = {
    "python": ("bench_planted.py", """\
        def hot_helper(n):
            s = 0
            for i in range(HOT):
                s = (s * 31 + i + n) % 1000003
            return s

        def other_work(n):
            s = 0
            for i in range(OTHER):
                s = (s * 17 + i + n) % 1000033
            return s

        def bench_planted():
            return hot_helper(1) + other_work(2)
        """, {}),
    "node": ("planted.bench.mjs", """\
        import { bench } from 'perflab';
        export function hot_helper(n) {
          let s = n;
          for (let i = 0; i < HOT; i++) s = (s * 31 + i) % 1000003;
          return s;
        }
        export function other_work(n) {
          let s = n;
          for (let i = 0; i < OTHER; i++) s = (s * 17 + i) % 1000033;
          return s;
        }
        bench('planted', () => hot_helper(1) + other_work(2));
        """, {}),
    "go": ("planted_test.go", """\
        package planted

        import "testing"

        var sink int

        //go:noinline
        func hotHelper(n int) int {
        \ts := n
        \tfor i := 0; i < HOT; i++ {
        \t\ts = (s*31 + i) % 1000003
        \t}
        \treturn s
        }

        //go:noinline
        func otherWork(n int) int {
        \ts := n
        \tfor i := 0; i < OTHER; i++ {
        \t\ts = (s*17 + i) % 1000033
        \t}
        \treturn s
        }

        func BenchmarkPlanted(b *testing.B) {
        \tfor i := 0; i < b.N; i++ {
        \t\tsink += hotHelper(i) + otherWork(i)
        \t}
        }
        """, {"go.mod": "module planted\n\ngo 1.21\n"}),
    "java": ("PlantedBench.java", """\
        import perflab.Benchmark;

        public class PlantedBench {
            int seed = 1;

            static int hotHelper(int n) {
                int s = n;
                for (int i = 0; i < HOT; i++) s = (s * 31 + i) % 1000003;
                return s;
            }

            static int otherWork(int n) {
                int s = n;
                for (int i = 0; i < OTHER; i++) s = (s * 17 + i) % 1000033;
                return s;
            }

            @Benchmark
            public int planted() {
                return hotHelper(seed) + otherWork(seed);
            }
        }
        """, {}),
    "rust": ("bench_planted.rs", """\
        use perflab::{black_box, Registry};

        #[inline(never)]
        fn hot_helper(n: u64) -> u64 {
            let mut s = n;
            for i in 0..HOT {
                s = (s * 31 + black_box(i)) % 1000003;
            }
            s
        }

        #[inline(never)]
        fn other_work(n: u64) -> u64 {
            let mut s = n;
            for i in 0..OTHER {
                s = (s * 17 + black_box(i)) % 1000033;
            }
            s
        }

        fn planted() -> u64 {
            hot_helper(black_box(1)) + other_work(black_box(2))
        }

        pub fn register(r: &mut Registry) {
            r.func("planted", planted);
        }
        """, {}),
    "cpp": ("bench_planted.cpp", """\
        #include "perflab.hpp"
        #include <cstdint>

        __attribute__((noinline)) uint64_t hot_helper(uint64_t n) {
            uint64_t s = n;
            for (uint64_t i = 0; i < HOT; i++) { s = (s * 31 + i) % 1000003; perflab::do_not_optimize(s); }
            return s;
        }

        __attribute__((noinline)) uint64_t other_work(uint64_t n) {
            uint64_t s = n;
            for (uint64_t i = 0; i < OTHER; i++) { s = (s * 17 + i) % 1000033; perflab::do_not_optimize(s); }
            return s;
        }

        PERFLAB_BENCH(Planted) {
            uint64_t r = hot_helper(1) + other_work(2);
            perflab::do_not_optimize(r);
        }
        """, {}),
}
PLANTED_RUNTIME = {"python": "python3.11", "node": "node20", "go": "go1.26", "java": "jdk17",
                   "rust": "rust-stable", "cpp": "gcc12"}
# the helper's frame in each language's terms: hot_helper (x.py), planted.hotHelper (x_test.go),
# PlantedBench.hotHelper (…), bench_planted::hot_helper (binary), hot_helper(unsigned long) (binary)
HELPER = re.compile(r"(^|[.:])(hot_helper|hotHelper)\b")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def planted_repo(lang: str, folder: Path) -> tuple[Path, str, str]:
    """A scratch git repository with the language's planted benchmark at two commits."""
    name, source, extra = PLANTED[lang]
    repo = folder / f"planted-{lang}"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q")
    for k, v in extra.items():
        (repo / k).write_text(v)
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    revs = []
    for hot in (HELPER_N, SLOW_N):
        path.write_text(textwrap.dedent(source).replace("HOT", str(hot)).replace("OTHER", str(OTHER_N)))
        _git(repo, "add", "-A")
        _git(repo, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-q", "-m",
             f"hot helper: {hot} steps")
        revs.append(_git(repo, "rev-parse", "--short", "HEAD"))
    return repo, revs[0], revs[1]


def widest_red(old: dict[str, int], new: dict[str, int]) -> tuple[str, float, int] | None:
    """(frame path, change of self share, width in samples) of the widest frame the difference flame
    graph colours red, by the rule the page draws with (report/flame.py: frame_changes)."""
    from perflab.report.flame import frame_changes
    red = [(path, d, width) for path, d, width, colour in frame_changes(old, new) if colour == "red"]
    return max(red, key=lambda t: (t[2], t[1])) if red else None


def planted(args) -> None:
    langs = args.languages.split(",") if args.languages else list(PLANTED)
    print(f"planted: a helper 10 % slower at the second commit ({HELPER_N} → {SLOW_N} steps; the other "
          f"work {OTHER_N} steps), `perflab run --rev A,B --profile --job short"
          + (f" --profile-seconds {args.seconds:g}" if args.seconds else "") + "`, "
          f"{args.rounds} round(s) a language")
    found = Counter()
    with tempfile.TemporaryDirectory(prefix="perflab-planted-") as tmp:
        for lang in langs:
            repo, a, b = planted_repo(lang, Path(tmp))
            for r in range(args.rounds):
                extra = ["--profile-seconds", str(args.seconds)] if args.seconds else []
                try:
                    doc, wall = perflab_run(repo, "--rev", f"{a},{b}", "-r", PLANTED_RUNTIME[lang], "--job",
                                            "short", "--profile", "--store", "none", *extra,
                                            out=Path(tmp) / f"out-{lang}-{r}")
                except SystemExit as exc:
                    print(f"  {lang}: the run failed: {str(exc)[:400]}")
                    continue
                cases = {c["runtime"]["label"].rsplit("@", 1)[-1]: c for c in doc["cases"]}
                ca, cb = cases.get(a), cases.get(b)
                pa, pb = (ca or {}).get("profile") or {}, (cb or {}).get("profile") or {}
                from perflab.measures.profile import stacks_of
                sa, sb = stacks_of(pa), stacks_of(pb)
                if not (sa and sb):
                    print(f"  {lang}: no profile: {pa.get('error') or pb.get('error') or 'no cases'}")
                    continue
                ratio = (cb or {}).get("runtime_ratio") or {}
                w = widest_red(sa, sb)
                leaf = w[0].split(";")[-1] if w else ""
                hit = bool(HELPER.search(leaf))
                found[lang] += hit
                rv = ratio.get("value") if isinstance(ratio, dict) else ratio
                from perflab.report.flame import beyond_noise
                hot = [k for k in set(sa) | set(sb) if HELPER.search(k.split(";")[-1])]
                ha, hb = sum(sa.get(k, 0) for k in hot), sum(sb.get(k, 0) for k in hot)
                ta, tb = sum(sa.values()), sum(sb.values())
                print(f"  {lang} round {r + 1}: the helper's self share {ha / ta:.1%} → {hb / tb:.1%} "
                      f"({'beyond' if beyond_noise(ha, ta, hb, tb) else 'within'} sampling noise)")
                print(f"  {lang} round {r + 1}: {'YES' if hit else 'no '} widest red frame: "
                      + (f"{leaf} ({w[1]:+.1%} self share, {w[2]} samples wide)" if w else "none (no change "
                         "beyond sampling noise)")
                      + f"; samples {pa.get('samples')} → {pb.get('samples')}; time ratio "
                      + (f"{rv:.3f}" if isinstance(rv, (int, float)) else "—") + f"; {wall:.0f} s")
            print(f"  {lang}: helper the widest red frame in {found[lang]}/{args.rounds}; uptime: {uptime()}")
    print(f"\nplanted: {sum(found.values())}/{len(langs) * args.rounds} runs; uptime: {uptime()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="part", required=True)
    c = sub.add_parser("coverage")
    c.add_argument("--families", default=None, help=f"some of {','.join(FAMILIES)}")
    c.add_argument("--out", default=None)
    p = sub.add_parser("planted")
    p.add_argument("--languages", default=None, help=f"some of {','.join(PLANTED)}")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--seconds", type=float, default=0.0, help="--profile-seconds (default: perflab's)")
    args = ap.parse_args()
    print(f"uptime at start: {uptime()}; pid {os.getpid()}; {time.strftime('%H:%M:%S', time.gmtime())} UTC")
    {"coverage": coverage, "planted": planted}[args.part](args)


if __name__ == "__main__":
    main()
