"""The main job's choice of runtimes: the versions the reports compare when installed, else what is."""
import importlib.util
from pathlib import Path
from types import SimpleNamespace

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "main_job_runtimes.py"


def load():
    spec = importlib.util.spec_from_file_location("main_job_runtimes", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def tc(language, *names, missing=()):
    rts = [SimpleNamespace(name=n, installed=True) for n in names]
    rts += [SimpleNamespace(name=n, installed=False) for n in missing]
    return SimpleNamespace(language=language, discover_runtimes=lambda: rts)


def test_preferred_pairs_when_installed_else_what_is_found(monkeypatch):
    mod = load()
    fakes = [tc("python", "python3.8", "python3.9", "python3.11", "python3.13", "pypy3"),
             tc("node", "node20", missing=["node18", "node22"]),   # installable, not installed
             tc("go", "go1.21", "go1.24", "go1.26"),
             tc("java"),                                            # none: the language is skipped
             tc("cpp", "gcc12", "gcc13", "gcc14")]
    monkeypatch.setattr(mod.toolchains, "all_toolchains", lambda: fakes)
    assert mod.pick() == ["python3.8", "python3.11", "python3.13", "node20", "go1.21", "go1.26",
                          "gcc12"]
