"""The hint a run prints when cases were contended and the kernel's session autogroup makes `nice` on
other work useless (engine/host.autogroup_on, commands/run.contention_hint). Files and rows are fakes."""
from __future__ import annotations

from types import SimpleNamespace

from perflab.commands.run import contention_hint
from perflab.engine.host import autogroup_on


def test_autogroup_is_read_from_the_kernel_setting(tmp_path):
    on, off = tmp_path / "on", tmp_path / "off"
    on.write_text("1\n")
    off.write_text("0\n")
    assert autogroup_on(str(on)) is True
    assert autogroup_on(str(off)) is False
    assert autogroup_on(str(tmp_path / "missing")) is False  # no such setting: nothing to say


def test_the_hint_needs_contended_cases_and_autogroup_on():
    calm, busy = SimpleNamespace(contended=False), SimpleNamespace(contended=True)
    assert contention_hint([calm, busy], autogroup=True).startswith("hint: some cases were measured under contention")
    assert "sched_autogroup_enabled" in contention_hint([busy], autogroup=True)
    assert contention_hint([busy], autogroup=False) == ""
    assert contention_hint([calm], autogroup=True) == ""
