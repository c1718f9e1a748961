"""How much of the seeds' claims the main job decides within its budget.

    python bench/main_job.py [--budget-total 1200] [main job arguments…]

Runs the main job (scripts/main_job.py, what ./run.sh runs) into a fresh folder, with a fresh
history store there (as on a fresh clone: the history's time-outs would make `--budget-total` skip
cases; give `--store` to use another), and prints the
claims judged (per family: a claim a comparison of ours stands for), how many were decided
(confirmed / contradicted) and the wall time. Target on a quiet machine: ≥ 80 % decided within
20 minutes. It measures for as long as the budget says: do not run it on a shared machine.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    out = Path(tempfile.mkdtemp(prefix="perflab-main-job-"))
    store = [] if any(a == "--store" or a.startswith("--store=") for a in argv) else [
        "--store", f"sqlite:///{out / 'history.db'}"]
    cmd = [sys.executable, str(ROOT / "scripts" / "main_job.py"), "--out", str(out), *argv, *store]
    print("command:", " ".join(cmd), flush=True)
    rc = subprocess.call(cmd, cwd=str(ROOT))
    summary_path = out / "main-job.json"
    if not summary_path.is_file():
        print(f"the main job wrote no summary (status {rc})")
        return rc or 1
    s = json.loads(summary_path.read_text())
    pct = 100 * s["decided"] / s["judged"] if s["judged"] else 0.0
    print(f"claims judged: {s['judged']}; decided: {s['decided']} ({pct:.0f} %) — confirmed "
          f"{s['confirmed']}, contradicted {s['contradicted']}, mixed {s['mixed']}; inconclusive "
          f"{s['inconclusive']}; wall time {s['wall_s']:.0f} s of a {s['budget_total_s']:g} s budget")
    print(f"target (quiet machine): >= 80 % decided within 1200 s: "
          f"{'met' if pct >= 80 and s['wall_s'] <= 1200 else 'NOT met'}")
    print(f"runtimes: {', '.join(s['runtimes'])}; not compared: {'; '.join(s['not_compared']) or 'none'}")
    print(f"report: {s['report']}")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
