"""The main job's choice of runtimes: per family the oldest and newest supported version, provisioned
when installable, else the oldest and newest installed ones, else the family is named with the reason."""
import importlib.util
import re
import sys
from pathlib import Path
from types import SimpleNamespace

from perflab.errors import PrepareError

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "main_job_runtimes.py"


def load():
    spec = importlib.util.spec_from_file_location("main_job_runtimes", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["main_job_runtimes"] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


class FakeToolchain:
    """Runtimes in discovery order; `installable` ones provision (or fail with `fails`)."""

    def __init__(self, language, *names, installable=(), fails=()):
        self.language = language
        self.installed = list(names)
        self.installable = list(installable)
        self.fails = set(fails)
        self.provisioned = []

    def discover_runtimes(self):
        """Sorted by version, as the real toolchains list them (names without digits keep their order)."""
        found = ([SimpleNamespace(name=n, installed=True) for n in self.installed]
                 + [SimpleNamespace(name=n, installed=False) for n in self.installable])
        return sorted(found, key=lambda r: [int(x) for x in re.findall(r"\d+", r.name)])

    def provision(self, rt):
        if rt.name in self.fails:
            raise PrepareError("npm view failed: offline")
        self.provisioned.append(rt.name)
        return SimpleNamespace(name=rt.name, version="1.2.3", executable=f"/cache/{rt.name}")


def pick(monkeypatch, fakes, **kw):
    mod = load()
    monkeypatch.setattr(mod.toolchains, "all_toolchains", lambda: fakes)
    said = []
    return mod, {c.language: c for c in mod.pick(say=said.append, **kw)}, said


def test_the_oldest_and_newest_version_of_each_family(monkeypatch):
    fakes = [FakeToolchain("python", "python3.8", "python3.9", "python3.11", "python3.13", "pypy3"),
             FakeToolchain("java", "jdk17", "jdk21", "jdk25"),
             FakeToolchain("rust", "rust-stable", "rust-beta", "rust-nightly", "rust-1.95.0")]
    mod, got, said = pick(monkeypatch, fakes)
    assert got["python"].specs == ["python3.8", "python3.13"] and got["python"].kind == "versions"
    assert got["java"].specs == ["jdk17", "jdk25"] and got["rust"].specs == ["rust-stable", "rust-nightly"]
    assert all(c.reason == "" and c.provisioned == [] for c in got.values()) and said == []
    assert mod.specs(list(got.values())) == ["python3.8", "python3.13", "jdk17", "jdk25", "rust-stable",
                                              "rust-nightly"]


def test_missing_versions_are_provisioned_and_said(monkeypatch):
    node = FakeToolchain("node", "node20", installable=["node18", "node22", "node24"])
    go = FakeToolchain("go", "go1.26", installable=["go1.21", "go1.22"])
    _, got, said = pick(monkeypatch, [node, go])
    assert node.provisioned == ["node18", "node24"] and go.provisioned == ["go1.21"]
    assert got["node"].specs == ["node18", "node24"] and got["go"].specs == ["go1.21", "go1.26"]
    assert len(got["node"].provisioned) == 2 and "/cache/node24" in got["node"].provisioned[1]
    assert any(line.startswith("provisioned node18: Node 1.2.3") for line in said)


def test_without_provisioning_or_when_it_fails_the_installed_extremes_stand_in(monkeypatch):
    node = FakeToolchain("node", "node20", "node22", installable=["node18", "node24"], fails=["node24"])
    _, got, _ = pick(monkeypatch, [node])
    c = got["node"]
    assert c.specs == ["node18", "node22"] and c.kind == "versions"
    assert "node24 could not be obtained: npm view failed: offline" in c.reason
    assert "comparing node18 → node22 instead" in c.reason
    node = FakeToolchain("node", "node20", installable=["node18", "node24"])
    _, got, _ = pick(monkeypatch, [node], provision=False)
    assert node.provisioned == [] and got["node"].specs == ["node20"] and not got["node"].paired
    assert "node18 is not installed (--no-provision)" in got["node"].describe()


def test_a_family_that_cannot_be_paired_is_named_with_the_reason(monkeypatch):
    _, got, _ = pick(monkeypatch, [FakeToolchain("java", "jdk17"), FakeToolchain("rust")])
    assert got["java"].specs == ["jdk17"] and got["java"].kind == "none"
    assert got["java"].describe() == "JDK: not compared — jdk25 is not installed; only jdk17 is installed"
    assert got["rust"].specs == [] and "none is installed" in got["rust"].reason


def test_cpp_compares_gcc_with_clang_else_two_optimisation_levels(monkeypatch):
    _, got, _ = pick(monkeypatch, [FakeToolchain("cpp", "clang14", "clang15", "gcc11", "gcc12")])
    assert got["cpp"].specs == ["gcc12", "clang15"] and got["cpp"].kind == "compilers"
    _, got, _ = pick(monkeypatch, [FakeToolchain("cpp", "gcc12")])
    c = got["cpp"]
    assert c.specs == ["gcc12:-O1", "gcc12:-O3"] and c.kind == "optimisation"
    assert "optimisation levels, not versions" in c.describe() and "no clang installed" in c.reason
    _, got, _ = pick(monkeypatch, [FakeToolchain("cpp")])
    assert got["cpp"].specs == [] and "no C/C++ compiler" in got["cpp"].reason


def test_csharp_compares_monos_jit_with_its_interpreter(monkeypatch):
    mono = FakeToolchain("csharp", "mono")
    _, got, _ = pick(monkeypatch, [mono])
    c = got["csharp"]
    assert c.specs == ["mono", "mono:--interpreter"] and c.kind == "modes"
    assert "execution modes, not versions" in c.describe()
    _, got, _ = pick(monkeypatch, [FakeToolchain("csharp")])
    assert got["csharp"].specs == [] and "mono-complete" in got["csharp"].reason
