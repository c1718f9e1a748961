"""Instruction counts (`perflab run --measure instructions`) under the three conditions, per language:
the same cases counted in two runs (A, B) per trial. Per language it prints the count of a trivial
case and of work(N) in run A, how much run B differs, work(2N)/work(N) (must be 2.000 ± 0.5 %), what
counting the trivial case cost (wall seconds, from its `counts.wall_s`), and two verdicts per trial
with the count-fit threshold (0.1 %): a planted 1 % extra work (work(1.01 N) in B against work(N) in A)
detected, and A/A (work(N) in A against B) called different.

    .venv/bin/python bench/instructions.py [--repeat 20] [--conditions quiet,busy,stress] [--languages cpp,rust] [--quick]

A language is measured when its toolchain finds an installed runtime; one whose runtime cannot be
counted (its toolchain's count_profile raises NotCountable) is listed with the reason. Each language's
benchmark file is in SOURCES: a language helper adds its own (noop, work with n in {N, 2N},
work_plus = work(1.01 N)).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _conditions  # noqa: E402
from _common import perflab_run  # noqa: E402
from perflab.count_verdicts import judge_counts  # noqa: E402

N = 1000
THRESHOLD = 0.001  # the count-fit threshold: a change under 0.1 % is "same"

SOURCES = {
    "cpp": ("count_bench.cpp", r'''
        #include "perflab.hpp"
        static long long n_;
        static unsigned long long work(long long n) {
            unsigned long long s = 0;
            for (long long i = 0; i < n; ++i) s += (unsigned long long)(i * i) ^ (s >> 3);
            return s;
        }
        PERFLAB_BENCH(noop) {}
        PERFLAB_BENCH(work, perflab::param("n", {1000, 2000}),
                      perflab::setup([](perflab::State& st) { n_ = st.param_int("n"); })) {
            perflab::do_not_optimize(work(n_));
        }
        PERFLAB_BENCH(work_plus, perflab::setup([](perflab::State&) { n_ = 1010; })) {
            perflab::do_not_optimize(work(n_));
        }
    '''),
    "rust": ("count_bench.rs", r'''
        use perflab::{black_box, Bencher, Registry};
        fn work_of(n: u64) -> u64 {
            let mut s = 0u64;
            for i in 0..black_box(n) {
                s = s.wrapping_add((i * i) ^ (s >> 3));
            }
            s
        }
        fn work(b: &mut Bencher) {
            let n: u64 = b.param_as("n");
            b.iter(move || work_of(n));
        }
        pub fn register(r: &mut Registry) {
            r.bench("noop", |b| b.iter(|| ()));
            r.bench("work", work).param("n", &[1000, 2000]);
            r.bench("work_plus", |b| b.iter(|| work_of(1010)));
        }
    '''),
    "python": ("bench_count.py", r'''
        from itertools import repeat

        import perflab


        def _work(n):
            x = 0
            for _ in repeat(None, n):
                x = x + 1 if x < 100 else 0   # small ints only: no allocation, the same cost every pass
            return x


        @perflab.benchmark
        def noop():
            pass


        @perflab.params(n=[1000, 2000])
        @perflab.benchmark
        def work(n):
            return _work(n)


        @perflab.benchmark
        def work_plus():
            return _work(1010)
    '''),
    # a module of its own (perflab builds Go module packages): go.mod beside the benchmark file
    "go": ({"go.mod": "module example.com/countbench\n\ngo 1.21\n"}, "count/count_test.go", r'''
        package count

        import (
            "strconv"

            "perflab.dev/go/perflab"
        )

        var sink uint64

        //go:noinline
        func step(x uint64) uint64 { return x*6364136223846793005 + 1442695040888963407 }

        func work(size int) func(int) {
            return func(n int) {
                for i := 0; i < n; i++ {
                    x := uint64(3)
                    for j := 0; j < size; j++ {
                        x = step(x)
                    }
                    sink = x
                }
            }
        }

        func init() {
            perflab.Register(perflab.Benchmark{Name: "noop", Setup: func(map[string]string) func(int) {
                return func(n int) {
                    for i := 0; i < n; i++ {
                    }
                }
            }})
            perflab.Register(perflab.Benchmark{
                Name:   "work",
                Params: []perflab.Axis{{Name: "n", Values: []string{"1000", "2000"}}},
                Setup: func(p map[string]string) func(int) {
                    size, _ := strconv.Atoi(p["n"])
                    return work(size)
                },
            })
            perflab.Register(perflab.Benchmark{Name: "work_plus", Setup: func(map[string]string) func(int) {
                return work(1010)
            }})
        }
    '''),
}


def write_sources(folder, lang: str) -> None:
    """A language's benchmark file (and, for Go, the go.mod of its module) under `folder`."""
    entry = SOURCES[lang]
    extra, (name, text) = (entry[0], entry[1:]) if isinstance(entry[0], dict) else ({}, entry)
    sub = folder / lang if extra else folder
    for rel_name, body in [*extra.items(), (name, textwrap.dedent(text).lstrip())]:
        path = sub / rel_name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)


def countable_languages(wanted: list[str]) -> dict[str, str]:
    """language → "" when it can be counted here, else why not (no runtime, NotCountable)."""
    from perflab.measures.callgrind import NotCountable
    from perflab.toolchains import get
    out = {}
    for lang in wanted:
        try:
            tc = get(lang)
        except KeyError:
            out[lang] = "unknown language"
            continue
        installed = [r for r in tc.discover_runtimes() if r.installed]
        if not installed:
            out[lang] = "no runtime installed"
            continue
        try:
            tc.count_profile(installed[0])
            out[lang] = ""
        except NotCountable as exc:
            out[lang] = f"not countable: {exc}"
    return out


def counts_of(doc: dict) -> dict[tuple[str, str], dict]:
    """(language, case name) → its counts record; case names: noop, work(n=1000), work_plus."""
    out = {}
    for c in doc["cases"]:
        params = ",".join(f"{k}={v}" for k, v in (c.get("params") or {}).items())
        name = c["benchmark"]["name"] + (f"({params})" if params else "")
        out[(c["runtime"]["language"], name)] = {**(c.get("counts") or {}), "case_error": c.get("error")}
    return out


def ir(rec: dict | None) -> float | None:
    return (rec or {}).get("per_op", {}).get("Ir") if rec and rec.get("per_op") else None


def verdict(old: dict | None, new: dict | None) -> str:
    """perflab compare's verdict on two counts records at the count threshold ("" when neither)."""
    judged = judge_counts(old, new, THRESHOLD)
    return judged.verdict if judged is not None else ""


def rel(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or a == 0 else b / a - 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    _conditions.add_arguments(ap, repeat=20, quick=1)
    ap.add_argument("--languages", default=",".join(SOURCES), help="comma-separated (default: every one in SOURCES)")
    args = ap.parse_args()
    langs = [x.strip() for x in args.languages.split(",") if x.strip() in SOURCES]
    study = _conditions.Study("instructions", args)
    status = countable_languages(langs)
    for lang, why in status.items():
        if why:
            print(f"{lang}: {why}", flush=True)
    langs = [x for x in langs if status[x] != "no runtime installed" and status[x] != "unknown language"]
    src = study.folder / "src"
    src.mkdir(exist_ok=True)
    for lang in langs:
        write_sources(src, lang)
    # a case counts in about 5 s (two launches under valgrind); four cases per language, two runs a trial
    study.estimate(study.repeat, 2 * 4 * 5.0 * len(langs) + 30, 2 * 4 * 20.0 * len(langs) + 60)
    trials: dict[str, list[dict]] = {c: [] for c in study.conditions}
    for rep, cond in study.schedule():
        with study.trial(cond, rep, "counts") as out:
            docs = [perflab_run(src, "--measure", "instructions", "--store", "none", out=out / side)[0]
                    for side in ("a", "b")]
        a, b = counts_of(docs[0]), counts_of(docs[1])
        for lang in langs:
            row = {"lang": lang, "noop": ir(a.get((lang, "noop"))), "noop_b": ir(b.get((lang, "noop"))),
                   "work": ir(a.get((lang, f"work(n={N})"))), "work_b": ir(b.get((lang, f"work(n={N})"))),
                   "work2": ir(a.get((lang, f"work(n={2 * N})"))), "plus_b": ir(b.get((lang, "work_plus"))),
                   "noop_wall": (a.get((lang, "noop")) or {}).get("wall_s"),
                   "note": "; ".join(str(x) for x in {(r or {}).get("note") or (r or {}).get("case_error") or ""
                                                     for (lg, _), r in a.items() if lg == lang} if x)}
            row["ratio"] = (row["work2"] / row["work"]) if row["work"] and row["work2"] else None
            aa, planted = rel(row["work"], row["work_b"]), rel(row["work"], row["plus_b"])
            # the verdicts perflab compare gives (count_verdicts), not a threshold of this script's own
            work_a = a.get((lang, f"work(n={N})"))
            row["aa_different"] = verdict(work_a, b.get((lang, f"work(n={N})"))) in ("slower", "faster")
            row["planted_found"] = verdict(work_a, b.get((lang, "work_plus"))) == "slower"
            trials[cond].append(row)
            print(f"{cond:6} rep {rep + 1} {lang}: noop {row['noop']} (B {row['noop_b']}), work {row['work']} "
                  f"(B {row['work_b']}), ratio {row['ratio']}, planted {planted}, noop wall {row['noop_wall']}"
                  + (f"; {row['note']}" if row["note"] else ""), flush=True)
    (study.folder / "rows.json").write_text(json.dumps(trials, indent=1))

    def cell(lang: str, cond: str, col: str) -> str:
        rs = [r for r in trials[cond] if r["lang"] == lang]
        if not rs:
            return "–"
        if col == "trivial Ir/op (A)":
            return _median(rs, "noop", "{:.3g}")
        if col == "work(N) Ir/op (A)":
            return _median(rs, "work", "{:,.1f}")
        if col == "max abs(B/A−1) (trivial, work)":
            worst = [abs(x) for r in rs for x in (rel(r["noop"], r["noop_b"]), rel(r["work"], r["work_b"]))
                     if x is not None]
            return f"{100 * max(worst):.4f} %" if worst else "–"
        if col == "work(2N)/work(N)":
            values = [r["ratio"] for r in rs if r["ratio"] is not None]
            return f"{min(values):.4f}–{max(values):.4f}" if values else "–"
        if col == "trivial case s":
            return _median(rs, "noop_wall", "{:.1f}")
        if col == "planted 1 % found":
            return _conditions.fraction(sum(r["planted_found"] for r in rs), len(rs))
        return _conditions.fraction(sum(r["aa_different"] for r in rs), len(rs))

    study.table(f"Instruction counts, two runs a trial; verdicts at the {THRESHOLD:.1%} threshold",
                langs, ["trivial Ir/op (A)", "work(N) Ir/op (A)", "max abs(B/A−1) (trivial, work)",
                        "work(2N)/work(N)", "trivial case s", "planted 1 % found", "A/A different"], cell)


def _median(rows: list[dict], key: str, fmt: str) -> str:
    values = [r[key] for r in rows if r[key] is not None]
    return fmt.format(statistics.median(values)) if values else "–"


if __name__ == "__main__":
    main()
