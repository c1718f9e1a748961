"""How long a killed perflab's processes take to go: per language, a real `perflab run` of
tests/fixtures/orphans/<language>/ is signalled while its worker spins in one long call (the procedure
of tests/test_orphans.py), and the time until no process carrying the run's tag is left is measured,
polling /proc every 0.1 s (so a figure is a bound, at that resolution). Builds go to a throw-away
cache; the first run of a compiled language includes its build before the kill, not in the figure.

    python bench/orphans.py [--signals KILL,TERM,INT] [--languages python,node,...]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_orphans import runtime_name, stuck_run, tagged, wait_until  # noqa: E402

LANGUAGES = ["python", "node", "go", "java", "rust", "cpp"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--signals", default="KILL,TERM,INT")
    ap.add_argument("--languages", default=",".join(LANGUAGES))
    args = ap.parse_args()
    os.environ["PERFLAB_CACHE"] = tempfile.mkdtemp(prefix="perflab-orphans-cache-")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"{'language':10} {'runtime':12} {'signal':8} {'perflab gone':>13} {'all gone':>9}")
    for language in args.languages.split(","):
        runtime, _ = runtime_name(language)
        if not runtime:
            print(f"{language:10} (no runtime installed)")
            continue
        for sig in args.signals.split(","):
            with tempfile.TemporaryDirectory() as tmp, stuck_run(language, runtime, Path(tmp)) as run:
                t0 = time.monotonic()
                run.signal(sig)
                host_ok = wait_until(lambda: run.host.poll() is not None, 60)
                t_host = time.monotonic() - t0
                all_ok = wait_until(lambda: not tagged(run.tag), 60)
                t_all = time.monotonic() - t0
                fmt = lambda ok, t: f"{t:.2f} s" if ok else "> 60 s"  # noqa: E731
                print(f"{language:10} {runtime:12} SIG{sig:5} {fmt(host_ok, t_host):>13} {fmt(all_ok, t_all):>9}",
                      flush=True)


if __name__ == "__main__":
    main()
