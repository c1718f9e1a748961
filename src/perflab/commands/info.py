"""`perflab list`, `perflab runtimes`, `perflab conformance`: what perflab finds and whether workers
speak the protocol."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .. import toolchains
from ..console import out
from ..engine.plan import build_plan
from ..runtimes import resolve
from .common import prepare_all
from .history import cells, listing


def cmd_list(args) -> int:
    paths = [Path(p) for p in args.paths]
    prepared = prepare_all(paths, args.runtimes, 60.0, Path(tempfile.mkdtemp(prefix="perflab-")),
                           args.exclude)
    plan = build_plan(prepared, args.filter, args.category)
    t = listing("benchmarks")
    for col in ("Benchmark", "Params", "Cases", "Runtimes", "Source"):
        t.add_column(col)
    # a group may hold several benchmarks (all methods of a class with a baseline are measured
    # together): list every case's benchmark, counting its parameter combinations
    seen: dict[str, list] = {}
    for group in plan.groups:
        for c in group:
            entry = seen.setdefault(c.benchmark.id, [c.benchmark, set(), set()])
            entry[1].add(c.params)
            entry[2].add(c.runtime.label)
    for b, combos, rts in seen.values():
        axes = "; ".join(f"{a.name} ∈ {{{', '.join(a.values)}}}" for a in b.params)
        t.add_row(*cells([b.full_name + (" (baseline)" if b.baseline else ""), axes, str(len(combos)),
                          ", ".join(sorted(rts)), f"{os.path.relpath(b.file)}:{b.line}"]))
    out.print(t)
    return 1 if any(p.error for p in prepared) else 0


def cmd_runtimes(args) -> int:
    t = listing("runtimes")
    for col in ("Name", "Language", "Version", "Implementation", "Status", "Path"):
        t.add_column(col)
    for tc in toolchains.all_toolchains():
        for rt in tc.discover_runtimes():
            t.add_row(*cells([rt.name, rt.language, rt.version, rt.implementation,
                              "installed" if rt.installed else (rt.note or "installable"),
                              rt.executable]))
    out.print(t)
    return 0


def cmd_conformance(args) -> int:
    from ..conformance import run_conformance
    rt = resolve([args.runtime], toolchains.all_toolchains())[0]
    return run_conformance(rt, Path(args.fixtures) if args.fixtures else None, out)


