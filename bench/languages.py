"""Every language, short job: a planted 10 % change must be found in ≥ 90 % of trials and the same code
(A/A) called different in none — quiet by default, any condition on request.

For each language with an installed runtime (Python, Node, Go, Rust, C/C++, Java), the benchmark of
bench/workloads/<language>/ does AB_SIZE units of work per call, AB_SIZE coming from the environment,
so one `perflab run` compares one build under two runtime specs: `RT:AB_SIZE=100` against
`RT:AB_SIZE=110` (planted 10 %) or `RT:AB_SIZE=100 AB_AA=1` (A/A; the extra variable is unused).
A trial is "different" when the ratio's 99.9 % interval excludes 1.00 and the ratio is more than 2 %
away (as `perflab compare`); a planted change is "found" when it is different and slower.

    .venv/bin/python bench/languages.py [--repeat 20] [--languages python,node,go,rust,cpp,java]
        [--job short] [--conditions quiet] [--quick]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "src"))
sys.path.insert(0, str(BENCH))

import _conditions  # noqa: E402
from _common import NO_RATIO, compared_case, inconclusive, perflab_run, ratio_of  # noqa: E402

WORKLOADS = BENCH / "workloads"
LANGUAGES = ("python", "node", "go", "rust", "cpp", "java")
PAIRS = {"10 %": ("AB_SIZE=100", "AB_SIZE=110"), "A/A": ("AB_SIZE=100", "AB_SIZE=100 AB_AA=1")}


def runtime_for(language: str) -> str | None:
    """The name of one installed runtime of the language (the newest found), or None."""
    from perflab.toolchains import get
    if language == "python":
        return sys.executable  # the interpreter running this study
    installed = [r for r in get(language).discover_runtimes() if r.installed and r.executable
                 and not getattr(r, "note", "")]
    return installed[-1].name if installed else None


def trial(language: str, rt: str, pair: str, job: str, out: Path) -> dict:
    a, b = PAIRS[pair]
    doc, wall = perflab_run(WORKLOADS / language, "--runtimes", f"{rt}:{a},{rt}:{b}", "--job", job,
                            "--store", "none", out=out)
    case = compared_case(doc)
    r = ratio_of(case) or NO_RATIO
    return {"ratio": r.value, "low": r.low, "high": r.high, "different": r.different,
            "inconclusive": inconclusive(case, doc), "wall": wall}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    _conditions.add_arguments(ap, repeat=20, quick=2, conditions="quiet")
    ap.add_argument("--job", default="short")
    ap.add_argument("--languages", default=",".join(LANGUAGES))
    args = ap.parse_args()
    asked = [x.strip() for x in args.languages.split(",") if x.strip()]
    if bad := [x for x in asked if x not in LANGUAGES]:
        sys.exit(f"--languages: unknown {', '.join(bad)}; choose from {', '.join(LANGUAGES)}")
    study = _conditions.Study("languages", args)
    runtimes = {}
    for language in asked:
        rt = runtime_for(language)
        if rt is None:
            print(f"{language}: no installed runtime, left out", flush=True)
            continue
        runtimes[language] = rt
    print("runtimes: " + ", ".join(f"{lang} {rt}" for lang, rt in runtimes.items()), flush=True)
    typical, longest = _conditions.perflab_seconds(args.job)
    study.estimate(study.repeat, 2 * len(runtimes) * (typical + 3), 2 * len(runtimes) * (longest + 5))
    for language, rt in runtimes.items():
        # build once, outside the trials (compiled languages build each spec's binary the first time)
        for a, b in PAIRS.values():
            perflab_run(WORKLOADS / language, "--runtimes", f"{rt}:{a},{rt}:{b}", "--job", "dry",
                        "--store", "none", out=study.folder / "build" / language / b.replace(" ", "_"))
    rows: dict[tuple[str, str, str], list[dict]] = {}
    for rep, cond in study.schedule():
        with study.trial(cond, rep, "languages") as out:
            for language, rt in runtimes.items():
                for pair in PAIRS:
                    folder = out / f"{language}-{pair.replace(' ', '').replace('/', '')}"
                    r = trial(language, rt, pair, args.job, folder)
                    rows.setdefault((language, pair, cond), []).append(r)
                    print(f"{cond:6} rep {rep + 1} {language:6} {pair:4}: ratio {r['ratio']:.4f} "
                          f"[{r['low']:.4f}, {r['high']:.4f}] {'DIFFERENT' if r['different'] else 'same'}"
                          f"{' (inconclusive)' if r['inconclusive'] else ''}; {r['wall']:.1f} s", flush=True)
    (study.folder / "rows.json").write_text(json.dumps({"|".join(k): v for k, v in rows.items()}, indent=1))

    def cell(language: str, cond: str, col: str) -> str:
        pair = "10 %" if col.startswith("10 %") else "A/A"
        rs = rows.get((language, pair, cond), [])
        if not rs:
            return "–"
        if col.endswith("ratio median"):
            return f"{statistics.median(r['ratio'] for r in rs):.4f}"
        if col.endswith("median s"):
            return f"{statistics.median(r['wall'] for r in rs):.1f}"
        if col.endswith("inconclusive"):
            return f"{sum(r['inconclusive'] for r in rs)}/{len(rs)}"
        if col == "10 % found":  # only the right way round (slower)
            return f"{sum(r['different'] and r['ratio'] > 1 for r in rs)}/{len(rs)}"
        return f"{sum(r['different'] for r in rs)}/{len(rs)}"

    study.table(f"Every language, job {args.job}: a planted 10 % change found, the same code called different",
                [lang for lang in runtimes], ["10 % found", "10 % ratio median", "10 % inconclusive", "A/A different",
                                              "A/A ratio median", "A/A inconclusive", "10 % median s"], cell)
    print("runtimes: " + ", ".join(f"{lang} {rt}" for lang, rt in runtimes.items()))


if __name__ == "__main__":
    main()
