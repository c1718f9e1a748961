"""The rules of the seed corpus's audit (suites/seeds/README.md, "Fidelity"), each testable alone.

A port of a seed's benchmark carries `seed` and `section` and, once audited, `fidelity`: "faithful",
"partial: <why>" or "different: <why>". A benchmark that is not a method of the seed is an extra:
`extra` true, `related` naming the seed and section it sits beside, and no seed tags (so no claim of
the seed is ever checked on it).

What a seed's methods and parameter rows are comes from committed data only (nothing reads the seed
documents beside the checkout): the seeds' own C# (`suites/seeds/*/csharp/*.cs`, extracted with a header
naming seed and section) gives each section's `[Benchmark]` methods and their `[Params]` values; the
seeds' programs that are not BenchmarkDotNet classes are `SCENARIOS`; the rows of a seed that draws its
arguments from a source it does not show (002's `SyncArguments`/`AsyncArguments`) are `SEED_ROWS`,
copied from the seed's result tables. A port named after an API (`HashData`, `Pbkdf2`) says which seed
method it stands for in `meta["seed_method"]`."""
from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIDELITY = re.compile(r"^(faithful|partial: \S.*|different: \S.*)$")

# The seeds' programs timed outside BenchmarkDotNet (a console app or a Blazor page with a Stopwatch):
# (seed, section) → their method names. 000 L1741 (the starvation console app), L4060 (Hello, World
# under Measure-Command), L4242 (the Blazor page's `Hash`, 2000 SHA256.HashData calls).
SCENARIOS = {("000", "Threading"): {"ThreadPoolStarvation"}, ("000", "Startup"): {"HelloWorld"},
             ("000", "Blazor and mono"): {"Hash"}}

# 002 draws its (fileSize, userBufferSize) arguments from SyncArguments/AsyncArguments, which it does not
# show; these are the rows of its result tables (002 lines 253-404 and 495-506).
_MiB, _100MiB = 1048576, 104857600
_BUFFERED = [(_MiB, 512), (_MiB, 4096), (_100MiB, 4096)]
SEED_ROWS = {
    ("002", "Read & Write", "Read"): (("fileSize", "userBufferSize"), _BUFFERED),
    ("002", "Read & Write", "Write"): (("fileSize", "userBufferSize"), _BUFFERED),
    ("002", "ReadAsync", "ReadAsync"): (("fileSize", "userBufferSize"), _BUFFERED),
    ("002", "WriteAsync", "WriteAsync"): (("fileSize", "userBufferSize"), [(1024, 1024)] + _BUFFERED),
    ("002", "ReadAsync", "ReadAsync_NoBuffering"): (("fileSize", "userBufferSize"), [(_MiB, 16384), (_100MiB, 16384)]),
    ("002", "WriteAsync", "WriteAsync_NoBuffering"): (("fileSize", "userBufferSize"), [(_MiB, 16384), (_100MiB, 16384)]),
}

# Sections the ports name differently from the heading the seed's C# sits under: 003's ProcessStartWait
# is in the document's "Console" part (its "Process" paragraph has no heading of its own); the ports and
# the claim call it "Process".
CSHARP_SECTION = {("003", "Process"): "Console"}

_HEADER = re.compile(r"^// perflab: (\{.*\})\s*$", re.M)
_BENCHMARK = re.compile(r"\[Benchmark[^\]]*\]\s*(?:\[[^\]]*\]\s*)*(?:(?:public|private|internal|static|async|unsafe|"
                        r"override|virtual)\s+)*[\w<>\[\],.?\s]+?\s(\w+)\s*\(", re.S)
_PARAMS = re.compile(r"\[Params\(([^\]]*)\)\]\s*public\s+[\w<>?.]+\s+(\w+)")


def seed_methods(root: Path = ROOT) -> dict[tuple[str, str], dict[str, dict[str, set[str]]]]:
    """(seed, section) → {[Benchmark] method → {[Params] property → its values}} from the committed C#."""
    out: dict[tuple[str, str], dict[str, dict[str, set[str]]]] = {}
    for f in sorted(root.glob("suites/seeds/*/csharp/*.cs")):
        text = f.read_text(encoding="utf-8")
        head = _HEADER.search(text)
        if not head:
            continue
        h = json.loads(head.group(1))
        params = {name: {v.strip().strip('"').rstrip("L").lower() for v in values.split(",") if v.strip()}
                  for values, name in _PARAMS.findall(text)}
        methods = out.setdefault((str(h["seed"]), str(h["section"])), {})
        for m in _BENCHMARK.finditer(text):
            methods.setdefault(m.group(1), {}).update(params)
    for key, names in SCENARIOS.items():
        for n in names:
            out.setdefault(key, {}).setdefault(n, {})
    return out


def _true(value) -> bool:
    return str(value).lower() == "true"


def method_of(name: str, meta: dict) -> str:
    """The seed's method a port stands for: its own name's last component, unless `seed_method` says
    otherwise (a port named after the API it calls: `Pbkdf2` for the seed's `New`)."""
    return str(meta.get("seed_method") or name.split(".")[-1])


def row_name(name: str, meta: dict) -> str:
    """The port's row in the README's audit table: the seed's method, or the port's own name where
    it is named after an API (`Pbkdf2`, `HashData`: the row says which seed method it stands for)."""
    return name.split(".")[-1] if meta.get("seed_method") else method_of(name, meta)


def problems(name: str, meta: dict, categories, methods: dict, claimed: set,
             params: dict | None = None) -> list[str]:
    """What breaks the audit's rules for one benchmark (empty: nothing). `methods`: seed_methods();
    `params`: the benchmark's axes, name → values (its parameter rows are checked by `row_problems`)."""
    out = []
    if _true(meta.get("extra")):
        if "seed" in meta or "section" in meta:
            out.append("an extra must not carry seed/section tags (a claim would be checked on it)")
        if not meta.get("related"):
            out.append("an extra names the seed section it sits beside in meta['related']")
        return out
    seed, section = str(meta.get("seed", "")), meta.get("section")
    if not seed or not section:
        return ["neither seed tags nor extra=True"]
    fidelity = meta.get("fidelity")
    if fidelity is not None and not FIDELITY.match(str(fidelity)):
        out.append(f"fidelity {fidelity!r} is not 'faithful', 'partial: <why>' or 'different: <why>'")
    method = method_of(name, meta)
    if (seed, section, method) in claimed and fidelity is None:
        out.append("carries a claim of seed_claims.json but has no fidelity tag")
    if "quick" in categories and fidelity is None:
        out.append("in the quick slice but not audited (no fidelity tag)")
    if methods:
        known = methods.get((seed, CSHARP_SECTION.get((seed, str(section)), str(section))), {})
        if method not in known:
            out.append(f"{method} is not a [Benchmark] method of seed {seed} · {section} (the seeds' C# in "
                       "suites/seeds/*/csharp): name the port after it, say which in meta['seed_method'], or "
                       "make it an extra")
        elif _true(meta.get("scenario")) and method not in SCENARIOS.get((seed, str(section)), ()):
            out.append(f"{method} is tagged a scenario but is a BenchmarkDotNet method of the seed")
        elif params:
            for axis, values in params.items():
                seed_values = known[method].get(axis)
                if seed_values is None:
                    continue
                extra = [v for v in values if str(v).lower() not in seed_values]
                if extra:
                    out.append(f"{axis}={', '.join(map(str, extra))}: not a value of the seed's [Params] "
                               f"({', '.join(sorted(seed_values))})")
    return out


def row_problems(benchmarks) -> list[str]:
    """The seed's parameter rows (SEED_ROWS) against one language's ports: `benchmarks` are (id, name,
    meta, params as {axis: values}). A port runs the seed's rows — every one of them, and no other."""
    found: dict[tuple, set] = {}
    where: dict[tuple, list[str]] = {}
    for bid, name, meta, params in benchmarks:
        if _true(meta.get("extra")) or "seed" not in meta:
            continue
        key = (str(meta["seed"]), str(meta.get("section")), method_of(name, meta))
        if key not in SEED_ROWS:
            continue
        axes, _ = SEED_ROWS[key]
        grid = [[]]
        for a in axes:
            grid = [g + [int(v)] for g in grid for v in (params or {}).get(a, [])]
        found.setdefault(key, set()).update(tuple(g) for g in grid)
        where.setdefault(key, []).append(bid)
    out = []
    for key, rows in found.items():
        axes, seed_rows = SEED_ROWS[key]
        extra, missing = sorted(rows - set(seed_rows)), sorted(set(seed_rows) - rows)
        label = f"{', '.join(where[key])} ({key[0]} · {key[1]} · {key[2]})"
        if extra:
            out.append(f"{label}: runs rows the seed did not ({', '.join(map(str, extra))} as {axes})")
        if missing:
            out.append(f"{label}: misses the seed's rows {', '.join(map(str, missing))} ({axes})")
    return out
