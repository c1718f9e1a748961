"""Test-wide settings: runs started by the tests keep their history in a temporary store, never in
the user's own (~/.local/share/perflab/history.db)."""
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # tests import their fakes as a plain module

os.environ["PERFLAB_STORE"] = "sqlite://" + os.path.join(tempfile.mkdtemp(prefix="perflab-tests-"),
                                                          "history.db")
