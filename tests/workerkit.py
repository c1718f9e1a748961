"""Scaffolding shared by the tests that drive a language worker over protocol v2 as the host would: the
source tree on sys.path when perflab is not installed, runtime discovery with its skip mark, a private
perflab cache, a WorkerProcess for a toolchain's prepared spec (loaded or not), and the setup-then-run
request pair of one case. Import it before perflab (tests import their siblings as plain modules)."""
from __future__ import annotations

import contextlib
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
try:
    import perflab  # noqa: F401
except ImportError:  # not installed: use the source tree
    sys.path.insert(0, str(REPO / "src"))

from perflab.engine.worker import WorkerProcess  # noqa: E402
from perflab.model import Runtime  # noqa: E402

T = 60  # generous per-request timeout: the machine is shared


def installed_runtimes(toolchain, reason: str, *,
                       without_note: bool = False) -> tuple[list[Runtime], pytest.MarkDecorator]:
    """The toolchain's installed runtimes (with `without_note`, only those discovery said nothing against,
    e.g. a JDK that has javac), and a mark that skips with `reason` when there are none."""
    runtimes = [r for r in toolchain.discover_runtimes() if r.installed and not (without_note and r.note)]
    return runtimes, pytest.mark.skipif(not runtimes, reason=reason)


def preferred(runtimes: list[Runtime], wanted) -> Runtime:
    """The first runtime for which wanted(runtime) holds, else the first one."""
    return next((r for r in runtimes if wanted(r)), runtimes[0])


@pytest.fixture(scope="module", autouse=True)
def private_cache(tmp_path_factory):
    """Builds of a module's throw-away sources go to a temporary perflab cache (the toolchain's own
    caches still make them quick), so test runs do not pile up binaries in ~/.cache/perflab."""
    mp = pytest.MonkeyPatch()
    mp.setenv("PERFLAB_CACHE", str(tmp_path_factory.mktemp("perflab-cache")))
    yield
    mp.undo()


def write(path: Path, text: str) -> Path:
    """`text`, dedented, as the file `path` (its folders made as needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def prepare_file(toolchain, runtime: Runtime, path: Path, text: str):
    """(path, spec): `text` written to `path`, prepared alone with its folder as the work folder."""
    path.write_text(text)
    return path, toolchain.prepare(runtime, [path], path.parent)


@contextlib.contextmanager
def worker(spec, *, load: bool = False):
    """A worker for a prepared spec, closed on the way out; with `load`, the spec's files loaded first."""
    w = WorkerProcess(spec, connect_timeout=60)
    try:
        if load:
            w.request("load", T, paths=spec.load_paths, root=spec.root)
        yield w
    finally:
        w.close()


def case_runner(group: str):
    """run_case(w, name, ...): set up `group.name` (or another group's), then run one stage of it."""
    def run_case(w, name, stage="workload", invocations=16, iterations=2, timeout=T, group=group):
        w.request("setup", T, benchmark=f"{group}.{name}", params={})
        return w.request("run", timeout, stage=stage, invocations=invocations, iterations=iterations)
    return run_case


def perflab_cli() -> list[str]:
    """The argv prefix of the perflab command beside this Python (or the module, when not installed)."""
    exe = Path(sys.executable).parent / "perflab"
    return [str(exe)] if exe.is_file() else [sys.executable, "-c", "from perflab.cli import main; main()"]


def builds_before_and_after_editing(toolchain, runtime: Runtime, tmp_path: Path, helper: tuple[str, str, str],
                                    bench: tuple[str, str]) -> tuple[list[str], list[str]]:
    """A benchmark file `bench` = (name, source) in tmp/suite that brings in a helper shared from another
    folder, `helper` = (name, source, edited source) in tmp/common: the worker's argv built before and
    after the helper is edited (equal argv means the cached build was reused)."""
    shared = write(tmp_path / "common" / helper[0], helper[1])
    src = write(tmp_path / "suite" / bench[0], bench[1])
    first = toolchain.prepare(runtime, [src], tmp_path / "w1").argv
    shared.write_text(helper[2])
    return first, toolchain.prepare(runtime, [src], tmp_path / "w2").argv
