"""Test-wide settings: runs started by the tests keep their history in a temporary store, never in
the user's own (~/.local/share/perflab/history.db)."""
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # tests import their fakes as a plain module

os.environ["PERFLAB_STORE"] = "sqlite://" + os.path.join(tempfile.mkdtemp(prefix="perflab-tests-"),
                                                          "history.db")


def pytest_runtest_makereport(item, call):
    """In CI (CI=true) a skipped test is a failure: .ci/run installs every runtime the tests need, so a
    skip there means something went missing, and a green CI must not hide it."""
    if os.environ.get("CI") != "true":
        return None
    import pytest
    from _pytest.reports import TestReport
    report = TestReport.from_item_and_call(item, call)
    if report.skipped:
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, which installs everything the tests need: {report.longrepr}"
    return report


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def quiet_host(monkeypatch):
    """Engines built in-process read a quiet host unless a test gives its own `host=`: a unit test's
    verdict must not depend on how loaded the machine running it is (the real readings are
    perflab.engine.host's, checked by the runs the tests start as subprocesses)."""
    import perflab.engine.runner as runner
    monkeypatch.setattr(runner, "read_host", lambda: {"cpus": 2, "loadavg": 0.0, "ticks_total": 0,
                                                      "ticks_steal": 0})
