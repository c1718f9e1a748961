"""A Java file that javac rejects fails alone: one failed row named after its class, with javac's
file:line and first error; the other files' benchmarks are measured and the run exits 1 (it used to
stop the whole run as bad input, exit 2, nothing measured)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from workerkit import installed_runtimes

from perflab.toolchains.java import JavaToolchain, _load_error

RUNTIMES, needs_jdk = installed_runtimes(JavaToolchain(), "no JDK >= 17 with javac", without_note=True)

GOOD = """package alone;

import perflab.Benchmark;

public class GoodBench {
    @Benchmark
    public int fine() { return 42; }
}
"""

BAD = """package alone;

import perflab.Benchmark;

public class BadBench {
    @Benchmark
    public int broken() {
        return undefinedThing;
    }
}
"""

JAVAC_SAYS = """{path}:8: error: cannot find symbol
        return undefinedThing;
               ^
  symbol:   variable undefinedThing
  location: class BadBench
1 error
"""


def test_a_rejected_file_is_one_failed_row_with_javacs_file_line(tmp_path):
    path = tmp_path / "alone" / "BadBench.java"
    path.parent.mkdir()
    path.write_text(BAD)
    err = _load_error(path, JAVAC_SAYS.format(path=path))
    assert err["file"] == str(path) and err["line"] == 8
    assert err["message"] == ("does not compile: javac: cannot find symbol "
                              "(symbol: variable undefinedThing)")
    assert err["benchmark"] == {"id": "alone.BadBench", "name": "BadBench", "group": "alone.BadBench"}


def test_a_file_that_needs_a_newer_jdk_stays_absent_not_failed(tmp_path):
    path = tmp_path / "RecordBench.java"
    path.write_text("public class RecordBench {}\n")
    said = (f"{path}:3: error: records are not supported in -source 11\n"
            "  (use -source 16 or higher to enable records)\n1 error\n")
    err = _load_error(path, said)
    assert "benchmark" not in err  # no failed row: its benchmarks are NA on this JDK
    assert "not supported in -source 11" in err["message"]


@needs_jdk
def test_the_other_files_are_measured_and_the_run_exits_1(tmp_path):
    src = tmp_path / "src" / "alone"
    src.mkdir(parents=True)
    (src / "GoodBench.java").write_text(GOOD)
    (src / "BadBench.java").write_text(BAD)
    proc = subprocess.run([sys.executable, "-m", "perflab.cli", "run", str(src.parent), "--job", "dry",
                           "--runtimes", RUNTIMES[0].name, "--store", "none", "--out",
                           str(tmp_path / "out"), "--json", "--quiet"],
                          capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr[-3000:]
    cases = {c["benchmark"]["name"]: c for c in json.loads(proc.stdout)["cases"]}
    assert cases["fine"]["status"] == "ok"
    bad = cases["BadBench"]
    assert bad["status"] == "failed"
    assert bad["error"] == (f"{src / 'BadBench.java'}:8: does not compile: javac: cannot find symbol "
                            "(symbol: variable undefinedThing)")
