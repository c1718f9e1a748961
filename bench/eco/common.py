"""What every ecosystem module of bench/ecosystems.py shares: a pinned package, its fetch from a registry
(by the registry's own client, checked against a pinned sha256, cached), and what a study of one package
found.

An ecosystem module, bench/eco/<name>.py, defines:

    ECOSYSTEM = "rust-criterion"            # the label printed in the table
    MANIFEST = [Package(...), ...]          # at least five packages, pinned by version and sha256
    SLICE = "name"                          # the one package CI runs (with --job dry)
    def fetch(pkg: Package, cache: Path) -> Path      # the unpacked source folder (cached, sha256 checked)
    def study(pkg: Package, src: Path, *, job: str, out: Path, native: bool) -> PackageResult

`study` runs the package's benchmarks under perflab, unchanged, and (when `native`) under the original
harness in the same stretch, and says what it found. Nothing fetched is ever committed: the cache lives
under perflab's cache folder (~/.cache/perflab/eco) unless --cache names another.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    sha256: str            # of the archive the registry served (the .crate, sdist, .tgz, module zip)
    registry: str          # "crates" | "pypi" | "npm" | "go" | "source" (a public repository, never committed)
    note: str = ""         # what in it is benchmarked, e.g. "benches/ with criterion"


@dataclass
class Comparison:
    """One benchmark measured by perflab and by the original harness, in the same stretch (ns per op)."""
    benchmark: str
    perflab_mean: float
    perflab_low: float | None
    perflab_high: float | None
    native_mean: float
    native_low: float | None
    native_high: float | None
    cause: str = ""        # a named, measured cause where they disagree (see the ecosystem's docs page)

    @property
    def ratio(self) -> float:
        return self.perflab_mean / self.native_mean

    @property
    def agrees(self) -> bool:
        """Within 5 % of each other, or their intervals overlap."""
        if abs(self.ratio - 1.0) <= 0.05:
            return True
        if None in (self.perflab_low, self.perflab_high, self.native_low, self.native_high):
            return False
        return self.perflab_low <= self.native_high and self.native_low <= self.perflab_high


@dataclass
class PackageResult:
    package: str
    version: str
    files_found: int = 0
    benchmarks_found: int = 0
    ran_unchanged: int = 0
    failed_alone: list[tuple[str, str]] = field(default_factory=list)   # (benchmark, one-line reason naming the API)
    comparisons: list[Comparison] = field(default_factory=list)
    protocol_errors: int = 0      # must stay 0: an unsupported API fails its benchmark, never the protocol
    error: str = ""               # the package could not be fetched, built or studied at all: why


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def check_sha256(path: Path, pkg: Package) -> None:
    got = sha256_of(path)
    if got != pkg.sha256:
        raise SystemExit(f"{pkg.registry} {pkg.name} {pkg.version}: {path.name} has sha256 {got}, "
                         f"the manifest pins {pkg.sha256}; refusing to run it")


def round_level_cause(case: dict, native_mean: float) -> str:
    """perflab measures one iteration of a launch per round, interleaved with the other launches; its
    warmup ran iterations back to back. Where the rounds run well above the warmup's settled level,
    perflab's short interleaved iterations measure more than a harness's long continuous loop does
    (with Node's allocating code perflab's mean falls as --iteration-time grows: bench/iteration_length.py;
    an untimed re-warm pass before each iteration did not change it, so it is not cold caches; the
    mechanism inside V8 is not found). Read from the case's own samples: the median over launches of
    (round iterations' median / the warmup's second half's median). Named when the rounds ran at least
    10 % above the warmup, perflab read above the harness, and perflab's mean at the warmup's level
    closes at least half the gap."""
    import statistics
    est = case.get("estimate") or {}
    mean = est.get("mean")
    if not mean or not native_mean or mean <= native_mean:
        return ""
    ratios = []
    for launch in case.get("launches") or []:
        warm, work = launch.get("warmup") or [], launch.get("workload") or []
        if len(warm) >= 4 and len(work) >= 3:
            settled = statistics.median(warm[len(warm) // 2:])
            if settled > 0:
                ratios.append(statistics.median(work) / settled)
    if not ratios:
        return ""
    r = statistics.median(ratios)
    without = mean / r
    if r < 1.10 or abs(without - native_mean) > 0.5 * abs(mean - native_mean):
        return ""
    return (f"what is timed: perflab's short interleaved iterations — its round iterations ran {r:.2f}x its "
            f"back-to-back warmup iterations (median over {len(ratios)} processes); at the warmup's level "
            f"{without:.0f} ns against the harness's {native_mean:.0f} ns")
