"""How long the flame graph page takes to draw a 5,000-frame profile in Chromium (issue 40's target:
under a second). Prints each draw's milliseconds as the page measured them (data-drawn-ms: building
the tree and placing the frames), over REPEAT fresh page loads, with the load average beside them.

    .venv/bin/python bench/flame_draw.py [REPEAT]
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_flame_browser import ARGS, CHROMIUM, wide_profile  # noqa: E402

from perflab.report.flame import page  # noqa: E402


def main() -> None:
    from playwright.sync_api import sync_playwright
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "flame.html"
        stacks = wide_profile()
        frames = len({f for k in stacks for f in k.split(";")})
        path.write_text(page("bench", stacks, []))
        with sync_playwright() as pw:
            b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ms = []
            for _ in range(repeat):
                p = b.new_page(viewport={"width": 1600, "height": 900})
                p.goto(path.as_uri())
                p.wait_for_selector(".perflab-flame[data-drawn-ms]")
                ms.append(float(p.get_attribute(".perflab-flame", "data-drawn-ms")))
                p.close()
            b.close()
    print(f"{frames} distinct frames, {repeat} loads: draw median {statistics.median(ms):.0f} ms, "
          f"max {max(ms):.0f} ms, {sum(m < 1000 for m in ms)}/{repeat} under a second "
          f"(load average {os.getloadavg()[0]:.2f})")
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
