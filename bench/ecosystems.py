"""Real projects' benchmarks, as their authors wrote them, under perflab and under their own harness.

Downloads at run time, from the package registries, the pinned packages of each ecosystem module in
bench/eco/ (criterion crates, pytest-benchmark and pyperf sdists, tinybench/mitata/Benchmark.js npm
packages, Go modules with testing.B, Google Benchmark sources), runs their benchmarks unchanged under
perflab and (unless --no-native) under the original harness in the same stretch, and prints per
ecosystem: files and benchmarks found, run unchanged, failed alone (with the unsupported API named), and
perflab's mean against the original's (ratio, and whether they agree: within 5 % or intervals overlap).

    .venv/bin/python bench/ecosystems.py [--ecosystems rust-criterion,...] [--job short] [--no-native]
    .venv/bin/python bench/ecosystems.py --slice --job dry --no-native     # the CI slice: one package each

Nothing fetched is committed; it is cached under ~/.cache/perflab/eco (or --cache).
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
import traceback
from dataclasses import asdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(HERE))

from eco.common import PackageResult  # noqa: E402


def ecosystem_modules() -> dict:
    mods = {}
    for path in sorted((HERE / "eco").glob("*.py")):
        if path.stem in ("__init__", "common"):
            continue
        mod = importlib.import_module(f"eco.{path.stem}")
        mods[mod.ECOSYSTEM] = mod
    return mods


def summarise(eco: str, results: list[PackageResult]) -> str:
    found = sum(r.benchmarks_found for r in results)
    ran = sum(r.ran_unchanged for r in results)
    failed = [f for r in results for f in r.failed_alone]
    comps = [c for r in results for c in r.comparisons]
    agree = sum(c.agrees for c in comps)
    proto = sum(r.protocol_errors for r in results)
    lines = [f"{eco}: {len(results)} package(s), {sum(r.files_found for r in results)} file(s), "
             f"{found} benchmark(s); run unchanged {ran}/{found}"
             + (f" ({100 * ran / found:.0f} %)" if found else "")
             + f"; failed alone {len(failed)}; protocol errors {proto}"]
    if comps:
        lines.append(f"  agreement with the original harness: {agree}/{len(comps)} "
                     f"({100 * agree / len(comps):.0f} %) within 5 % or overlapping")
    for r in results:
        if r.error:
            lines.append(f"  {r.package} {r.version}: not studied: {r.error}")
    for name, why in failed[:20]:
        lines.append(f"  failed alone: {name}: {why}")
    for c in comps:
        if not c.agrees:
            lines.append(f"  differs: {c.benchmark}: perflab/original {c.ratio:.3f}"
                         + (f" ({c.cause})" if c.cause else ""))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ecosystems", help="comma-separated labels (default: all)")
    ap.add_argument("--packages", help="comma-separated package names (default: the whole manifest)")
    ap.add_argument("--slice", action="store_true", help="only each ecosystem's SLICE package (CI)")
    ap.add_argument("--job", default="short")
    ap.add_argument("--no-native", action="store_true", help="skip the original harness")
    ap.add_argument("--cache", type=Path, help="where fetched packages are kept")
    ap.add_argument("--out", type=Path, default=REPO / "bench-out" / time.strftime("ecosystems-%Y%m%dT%H%M%SZ", time.gmtime()))
    args = ap.parse_args(argv)
    from perflab.cache import cache_dir
    cache = args.cache or (cache_dir() / "eco")
    mods = ecosystem_modules()
    wanted = args.ecosystems.split(",") if args.ecosystems else list(mods)
    unknown = [w for w in wanted if w not in mods]
    if unknown:
        print(f"ecosystems.py: unknown ecosystem(s) {', '.join(unknown)}; known: {', '.join(mods)}", file=sys.stderr)
        return 2
    names = set(args.packages.split(",")) if args.packages else None
    args.out.mkdir(parents=True, exist_ok=True)
    status, everything = 0, {}
    for eco in wanted:
        mod = mods[eco]
        pkgs = [p for p in mod.MANIFEST if (p.name == mod.SLICE if args.slice else True)
                and (names is None or p.name in names)]
        results = []
        for pkg in pkgs:
            t0 = time.perf_counter()
            try:
                src = mod.fetch(pkg, cache / eco)
                r = mod.study(pkg, src, job=args.job, out=args.out / eco / pkg.name, native=not args.no_native)
            except Exception as e:  # one package's failure is reported, the others still run
                r = PackageResult(pkg.name, pkg.version, error=f"{type(e).__name__}: {e}")
                traceback.print_exc()
            print(f"[{eco}] {pkg.name} {pkg.version}: {r.ran_unchanged}/{r.benchmarks_found} ran "
                  f"in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
            results.append(r)
            if r.error or r.protocol_errors:
                status = 1
        everything[eco] = [asdict(r) for r in results]
        print(summarise(eco, results), flush=True)
    (args.out / "ecosystems.json").write_text(json.dumps(everything, indent=1))
    print(f"raw: {args.out / 'ecosystems.json'}")
    return status


if __name__ == "__main__":
    sys.exit(main())
