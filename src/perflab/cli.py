"""`perflab` command line: run · list · runtimes · compare · history · serve · report · conformance.

This module only parses arguments and dispatches; each command lives in perflab.commands.
"""
from __future__ import annotations

import argparse
import sys

from rich.text import Text

from . import __version__
from .console import err
from .errors import UsageError
from .jobs import JOBS
from .report.exporters import EXPORTERS
from .store import StoreError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="perflab", description=__doc__)
    p.add_argument("--version", action="version", version=f"perflab {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="measure benchmarks on one or more runtimes")
    run.add_argument("paths", nargs="*", default=["."], help="benchmark files or folders (default: .)")
    run.add_argument("--runtimes", "-r", help="comma-separated runtime specs, e.g. python3.8,python3.13 "
                     "(the first is the Ratio baseline), or 'all' for every installed runtime; default: the python3 on PATH")
    run.add_argument("--filter", "-f", action="append", default=[],
                     help="glob on benchmark names (Group.method); repeatable")
    run.add_argument("--category", action="append", default=[], help="only these categories")
    run.add_argument("--job", "-j", default="default", help=f"one of {', '.join(JOBS)} (default: default)")
    run.add_argument("--exporters", "-e", default="table,md,csv,json",
                     help=f"comma-separated subset of {','.join(EXPORTERS)}")
    run.add_argument("--out", "-o", default="perflab-results", help="folder for the result files")
    run.add_argument("--hide", default="", help="columns to hide, e.g. Error,StdDev")
    run.add_argument("--timeout", type=float, help="seconds to wait for any single worker reply")
    run.add_argument("--budget", help="seconds of measurement per case (overrides the job), and per "
                     "language where it differs: '2,java=6'")
    run.add_argument("--target", type=float, help="precision target as a fraction, e.g. 0.02")
    run.add_argument("--iteration-time", type=float, help="seconds per iteration (overrides the job)")
    run.add_argument("--no-overhead", action="store_true", help="do not measure/subtract call overhead")
    run.add_argument("--max-cases", type=int, default=1000, help="limit of cases per benchmark")
    run.add_argument("--seed", type=int, help="seed of the interleaving order (default: random)")
    run.add_argument("--affinity", default="auto",
                     help="where launches run: 'auto' (pin single-threaded launches to the idlest CPU after "
                          "warmup; Linux), 'off', or a CPU number")
    run.add_argument("--store", help="history store URL: sqlite:///path.db (default: $PERFLAB_STORE "
                     "or .perflab/history.db at the root of the benchmarks' git repository), postgresql://user:pw@host/db, or none")
    run.add_argument("--resume", nargs="?", const="latest", metavar="RUN_ID",
                     help="continue an interrupted run (default: the latest incomplete one), "
                     "measuring only the cases it had not finished")
    run.add_argument("--label", default="", help="a name for this run in the history")
    run.add_argument("--quiet", "-q", action="store_true",
                     help="no progress lines (the table and the result files are still written)")
    run.add_argument("--json", action="store_true",
                     help="print the results document (JSON) on stdout and nothing else there; "
                     "progress and the table go to stderr")
    run.add_argument("--disasm", action="store_true",
                     help="write the disassembly of each native (C/C++, Rust) benchmark function "
                     "next to the results")

    ls = sub.add_parser("list", help="list the benchmarks perflab finds")
    ls.add_argument("paths", nargs="*", default=["."])
    ls.add_argument("--runtimes", "-r")
    ls.add_argument("--filter", "-f", action="append", default=[])
    ls.add_argument("--category", action="append", default=[])

    sub.add_parser("runtimes", help="list the runtimes perflab can use")

    cmp_ = sub.add_parser("compare", help="compare two results: files or stored runs (ID, latest, latest~1)")
    cmp_.add_argument("old")
    cmp_.add_argument("new")
    cmp_.add_argument("--threshold", type=float, default=2.0,
                      help="noise threshold in percent: smaller changes are 'same' (default 2)")
    cmp_.add_argument("--fail-on-regression", type=float, metavar="PCT",
                      help="exit with status 1 if a case is slower by more than PCT percent")
    cmp_.add_argument("--format", choices=("table", "md"), default="table")
    cmp_.add_argument("--force", action="store_true", help="compare results from different setups")
    cmp_.add_argument("--store")

    from .report.seeds_report import add_report_parser
    add_report_parser(sub)

    hist = sub.add_parser("history", help="stored runs, a benchmark's series, and change points")
    hist.add_argument("pattern", nargs="?", help="glob on benchmark (Group.method) or case key")
    hist.add_argument("--changes", action="store_true", help="find where performance shifted")
    hist.add_argument("--min-shift", type=float, default=2.0, help="smallest shift to report, percent")
    hist.add_argument("--store")

    from .commands.serve import add_serve_parser
    add_serve_parser(sub)

    conf = sub.add_parser("conformance", help="check a worker against the protocol vectors")
    conf.add_argument("--runtime", required=True)
    conf.add_argument("--fixtures", help="fixture folder (default: protocol/fixtures/<language>)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from .commands import history, info, run, serve
    from .report.seeds_report import cmd_report
    commands = {"report": cmd_report,"run": run.cmd_run, "list": info.cmd_list, "runtimes": info.cmd_runtimes,
                "conformance": info.cmd_conformance, "compare": history.cmd_compare,
                "history": history.cmd_history, "serve": serve.cmd_serve}
    try:
        return commands[args.command](args)
    except (UsageError, StoreError) as exc:
        # the message names user files, benchmarks and flags: never markup
        err.print(Text.assemble(("error:", "red"), f" {exc}"), soft_wrap=True)
        return 2
    except KeyboardInterrupt:
        err.print("[red]interrupted[/red]")
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
