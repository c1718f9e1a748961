"""Cases of a cluster run name the machine that measured them; compare and report refuse to set
figures from machines whose fingerprints differ against each other unless --force."""
import json

import numpy as np
import pytest

from perflab.compare import compare_docs
from perflab.errors import UsageError
from perflab.report.seeds_report import _check_machines
from test_compare import case, doc

FAST = {"cpu_model": "A", "cpu_flags": "f", "logical_cores": 8, "kernel": "6.1", "machine": "x86_64",
        "perflab": "1"}
SLOW = {**FAST, "cpu_model": "B"}


def on(machine_parts, c, node="n1"):
    return {**c, "machine": {"node": node, "host": node, "fingerprint": "x",
                             "fingerprint_parts": machine_parts}}


def test_compare_refuses_a_case_measured_on_another_kind_of_machine_unless_forced():
    rng = np.random.default_rng(3)
    old = doc([on(FAST, case("a", 100.0, rng)), on(FAST, case("b", 100.0, rng))])
    new = doc([on(FAST, case("a", 100.0, rng)), on(SLOW, case("b", 100.0, rng), "n2")])
    with pytest.raises(UsageError, match="different machines.*cpu_model: A vs B.*--force"):
        compare_docs(("old", old), ("new", new))
    assert compare_docs(("old", old), ("new", new), force=True).forced_mismatch == ["cpu_model"]


def test_compare_accepts_two_machines_of_one_kind():
    rng = np.random.default_rng(4)
    old = doc([on(FAST, case("a", 100.0, rng), "n1")])
    new = doc([on(FAST, case("a", 100.0, rng), "n2")])  # another host, same fingerprint
    assert compare_docs(("old", old), ("new", new)).forced_mismatch == []


def test_report_refuses_machines_whose_fingerprints_differ_unless_forced(tmp_path, capsys):
    rng = np.random.default_rng(5)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc([on(FAST, case("a", 1.0, rng)), on(SLOW, case("b", 1.0, rng), "n2")])))
    with pytest.raises(UsageError, match="2 machines whose fingerprints differ \\(cpu_model\\).*--force"):
        _check_machines([str(path)], force=False)
    _check_machines([str(path)], force=True)
    assert "WARNING" in capsys.readouterr().out
    same = tmp_path / "s.json"
    same.write_text(json.dumps(doc([on(FAST, case("a", 1.0, rng)), on(FAST, case("b", 1.0, rng), "n2")])))
    _check_machines([str(same)], force=False)
