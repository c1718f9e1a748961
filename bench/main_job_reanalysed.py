"""A main job's claims tally as its result files say, and re-judged from their raw samples with
this tree's analysis (cleaning, estimates, ratios): what a change to the analysis does to the
figure, without measuring again.

    python bench/main_job_reanalysed.py <main job folder> [--verbose]

<main job folder> is the one bench/main_job.py or scripts/main_job.py wrote (`main-job.json` lists
its result files; their folders are looked up beside it when it has moved). Each file's cases go
through `perflab.analysis.analyse` again, in the runtime order of the file; nothing is measured.
A placement or engine change needs a new run to show: the samples were taken as they were.
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))


def result_files(folder: Path) -> list[Path]:
    summary = json.loads((folder / "main-job.json").read_text(encoding="utf-8"))
    out = []
    for name in summary["results"]:
        p = Path(name)
        moved = folder / p.parent.name / p.name  # the folder was copied elsewhere
        out.append(p if p.is_file() else moved)
    return out


def reanalysed(path: Path, into: Path) -> Path:
    """`path` with every case's estimate, ratios, warnings and notes computed again."""
    from perflab.analysis import analyse
    from perflab.results import case_result_from_json, row_to_json
    doc = json.loads(path.read_text(encoding="utf-8"))
    order: list[str] = []
    for c in doc["cases"]:
        if c["runtime"]["label"] not in order:
            order.append(c["runtime"]["label"])
    rows = analyse([case_result_from_json(c) for c in doc["cases"]], runtime_order=order)
    doc["cases"] = [row_to_json(r) for r in rows]
    out = into / path.parent.name / path.name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc), encoding="utf-8")
    return out


def undecided(files: list[Path]) -> list[str]:
    from perflab.report.families import pairs_of
    from perflab.report.family import summarize
    from perflab.report.results_view import load_report
    report = load_report([str(f) for f in files], "main job")
    lines = []
    for lang, pair in pairs_of(report).items():
        for _, claim in summarize(report, pair).claims:
            if claim.deciding and not claim.decided:
                for ch in claim.deciding:
                    lines.append(f"  {lang}: {ch.comparison}: {ch.ratio.text() if ch.ratio else 'no ratio'}"
                                 f" — {ch.verdict}")
    return lines


def main(argv: list[str]) -> int:
    args = [a for a in argv if a != "--verbose"]
    if len(args) != 1 or not (Path(args[0]) / "main-job.json").is_file():
        print("usage: bench/main_job_reanalysed.py <main job folder (with main-job.json)> [--verbose]",
              file=sys.stderr)
        return 2
    from main_job import tally
    from perflab.report.results_view import load_report
    files = result_files(Path(args[0]))
    print("as recorded: ", tally(load_report([str(f) for f in files], "main job")).text())
    with tempfile.TemporaryDirectory(prefix="perflab-reanalysed-") as tmp:
        again = [reanalysed(f, Path(tmp)) for f in files]
        print("re-analysed:", tally(load_report([str(f) for f in again], "main job")).text())
        if "--verbose" in argv:
            print("\n".join(undecided(again)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
