"""`perflab profile PATH…`: profile chosen cases without timing them (engine/profile.py), and write
each one's collapsed stacks, raw profile and flame graph page, with `profiles.json` holding every
case's `profile` record."""
from __future__ import annotations

import datetime as dt
import json
import tempfile
from pathlib import Path

from rich.text import Text

from ..console import err, out
from ..engine.plan import build_plan
from ..engine.profile import Profiler, case_slug
from ..errors import UsageError
from ..policy import DEFAULT
from ..report.flame import case_page, top_frames
from ..report.table import case_label
from ..measures.profile import stacks_of
from .common import check_out_dir, prepare_all


def add_profile_parser(sub, runtime_specs) -> None:
    p = sub.add_parser("profile", help="profile benchmarks (flame graphs), without timing them",
                       description="Run each chosen case under its runtime's sampling profiler for a "
                       "fixed number of calls (about --seconds), and write its collapsed stacks, the raw "
                       "profile and an HTML flame graph (docs/profiling.md).")
    p.add_argument("paths", nargs="*", default=["."], help="benchmark files or folders (default .)")
    p.add_argument("--runtimes", "-r", type=runtime_specs, help="comma-separated runtime specs, as for run")
    p.add_argument("--filter", "-f", action="append", default=[],
                   help="glob on benchmark names (Group.method); repeatable")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="skip files and folders matching GLOB when walking folders; repeatable")
    p.add_argument("--out", "-o", default="perflab-results", help="folder for the profiles (default: perflab-results)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for any single worker reply")
    p.add_argument("--seconds", type=float, default=DEFAULT.profile.seconds,
                   help=f"how long the profiled run is sized to last (default {DEFAULT.profile.seconds:g})")


def cmd_profile(args) -> int:
    if not args.seconds > 0:
        raise UsageError(f"--seconds: {args.seconds:g} is not a number of seconds above 0")
    out_dir = Path(args.out)
    check_out_dir(out_dir)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    folder = out_dir / f"perflab-{stamp}-profiles"
    workdir = Path(tempfile.mkdtemp(prefix="perflab-"))
    prepared = prepare_all([Path(p) for p in args.paths], args.runtimes, args.timeout, workdir, args.exclude)
    plan = build_plan(prepared, args.filter, [])
    cases = [c for g in plan.groups for c in g]
    if not cases and not plan.failed:
        raise UsageError("no benchmark matches the filters")
    profiler = Profiler({p.runtime.label: p for p in prepared}, args.timeout, folder, seconds=args.seconds)
    records, failed = {}, 0
    for case, reason in plan.failed:
        failed += 1
        err.print(Text(f"{case_label(case)}: no profile: {reason}"), soft_wrap=True)
    for case in cases:
        rec = profiler.profile(case)
        records[case.key] = rec
        if rec.get("error"):
            failed += 1
            out.print(Text(f"{case_label(case)}: {rec['error']}"), soft_wrap=True)
            continue
        page = folder / f"{case_slug(case)}.html"
        page.write_text(case_page(case_label(case), rec))
        stacks = stacks_of(rec)
        total = sum(stacks.values()) or 1
        top = ", ".join(f"{f} {s / total:.0%}" for f, s, _ in top_frames(stacks, 3))
        out.print(Text(f"{case_label(case)}: {rec['samples']} samples ({rec['tool']}); most self time: {top}; {page}"),
                  soft_wrap=True)
    if records:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "profiles.json").write_text(json.dumps(records, indent=1))
    err.print(Text(f"{len(records) - sum(bool(r.get('error')) for r in records.values())} profile(s) in {folder}; "
                   f"{failed} case(s) without one"), soft_wrap=True)
    return 1 if failed else 0
