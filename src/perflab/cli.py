"""`perflab` command line: parses arguments and dispatches; each command lives in perflab.commands."""
from __future__ import annotations

import argparse
import math
import sys

from rich.text import Text

from . import __version__
from .console import err
from .errors import UsageError
from .jobs import JOBS, parse_budget
from .report.exporters import EXPORTERS
from .store import StoreError

DESCRIPTION = """\
Measure benchmarks written in Python, C/C++, Rust, Go, Java and JavaScript, on one or several
runtime versions, and get one table with honest error bars. Benchmarks are ordinary functions in the
language's usual form (bench_*.py, func BenchmarkX, @Benchmark, …); see `perflab <command> --help`.

A project can keep its defaults (paths, runtimes, job, store, out, exclude) in a [tool.perflab]
table of pyproject.toml or in a perflab.toml."""

EPILOG = """\
examples:
  perflab list                              the benchmarks of this project
  perflab run -r python3.11,python3.13      compare two runtimes (the first is the baseline)
  perflab compare latest~1 latest           did the last run get slower?
  perflab history --changes                 where performance shifted across stored runs"""


class Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line (not the usage block) and exit status 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def number(*, positive: bool = True, minimum: float | None = None, maximum: float | None = None,
           integer: bool = False):
    """An argparse type for a finite number, above 0 (or at least `minimum`), at most `maximum`."""
    def parse(text: str):
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a{'n integer' if integer else ' number'}")
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"'{text}' is not a finite number")
        if minimum is not None and value < minimum:
            raise argparse.ArgumentTypeError(f"'{text}' is below {minimum:g}")
        if minimum is None and positive and value <= 0:
            raise argparse.ArgumentTypeError(f"'{text}' must be above 0")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"'{text}' is above {maximum:g}")
        return value
    parse.__name__ = "integer" if integer else "number"  # argparse names the type in its messages
    return parse


def budget(text: str) -> str:
    try:
        parse_budget(text)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--budget: ")) from None
    return text


def runtime_specs(text: str) -> str:
    """--runtimes: at least one name (an empty value used to mean the defaults, silently)."""
    if not any(part.strip() for part in text.split(",")):
        raise argparse.ArgumentTypeError(f"'{text}' names no runtime; give names from `perflab "
                                         "runtimes`, or leave the flag out for one per language")
    return text


STORE_HELP = ("history store: sqlite:///path.db, postgresql://user:pw@host/db, or none (default: "
              "the project file's store, $PERFLAB_STORE, or .perflab/history.db at the root of the "
              "project's git repository)")


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="perflab", description=DESCRIPTION, epilog=EPILOG,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"perflab {__version__}",
                   help="print perflab's version and exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND",
                           help="one of the commands below; `perflab COMMAND --help` for its options")

    run = sub.add_parser("run", help="measure benchmarks on one or more runtimes",
                         description="Measure benchmarks on one or more runtimes and print one table; "
                         "the results (JSON with every raw sample, Markdown, CSV) go to --out, and the "
                         "run is stored in the history.")
    run.add_argument("paths", nargs="*", default=[], help="benchmark files or folders (default: the "
                     "project's `paths`, else .)")
    run.add_argument("--runtimes", "-r", type=runtime_specs, help="comma-separated runtime specs, e.g. python3.8,python3.13 "
                     "(the first is the Ratio baseline), or 'all' for every installed runtime; default: "
                     "one per language (the python3 on PATH, the newest Go the module allows, …)")
    run.add_argument("--rev", metavar="A,B",
                     help="measure two or more revisions side by side in one run: commits, tags, branches "
                     "or worktree folders ('.' is the working tree); each case is paired with itself at "
                     "the first revision (Ratio vs A), interleaved in the same rounds")
    run.add_argument("--fail-on-regression", type=number(minimum=0), metavar="PCT",
                     help="with --rev: exit 1 when a case is surely slower than at the first revision by "
                     "more than PCT %%")
    run.add_argument("--filter", "-f", action="append", default=[],
                     help="glob on benchmark names (Group.method); repeatable")
    run.add_argument("--category", action="append", default=[], help="only these categories; repeatable")
    run.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                     help="skip files and folders matching GLOB when walking folders; repeatable "
                     "(tests/fixtures and git-ignored files are always skipped)")
    run.add_argument("--job", "-j", help=f"one of {', '.join(JOBS)} (default: default)")
    run.add_argument("--exporters", "-e", default="table,md,csv,json",
                     help=f"comma-separated subset of {','.join(EXPORTERS)}")
    run.add_argument("--out", "-o", help="folder for the result files (default: perflab-results)")
    run.add_argument("--hide", default="", help="columns to hide, e.g. Error,StdDev")
    run.add_argument("--timeout", type=number(), help="seconds to wait for any single worker reply")
    run.add_argument("--memory-limit", metavar="SIZE",
                     help="resident memory each worker's processes may hold, e.g. 512m or 4g; a benchmark "
                     "that needs more fails alone, 'out of memory' (default: the machine's memory / "
                     "(2 x CPUs), at least 1 GiB)")
    run.add_argument("--budget", type=budget, help="seconds of measurement per case (overrides the "
                     "job), and per language where it differs: '2,java=6'")
    run.add_argument("--budget-total", type=number(), metavar="SECONDS",
                     help="seconds of wall time for the whole run, builds and launches included: each "
                     "case's budget shrinks to its share of the time left, its replies wait at most a few "
                     "shares, cases that timed out last time are skipped, cases a seed claim stands on "
                     "come first (a target, not a hard stop; docs/main_job.md)")
    run.add_argument("--target", type=number(maximum=1), help="precision target as a fraction of the "
                     "mean, e.g. 0.02")
    run.add_argument("--iteration-time", type=number(), help="seconds per iteration (overrides the job)")
    run.add_argument("--no-overhead", action="store_true", help="do not measure/subtract call overhead")
    run.add_argument("--measure", help="what to measure: time (default), instructions (counted under "
                     "valgrind's callgrind, per operation, net of the empty loop), or time,instructions "
                     "(both, in their own columns)")
    run.add_argument("--max-cases", type=number(integer=True), default=1000,
                     help="limit of cases per benchmark (default 1000)")
    run.add_argument("--seed", type=int, help="seed of the interleaving order (default: random)")
    run.add_argument("--affinity", default="auto",
                     help="where launches run: 'auto' (pin single-threaded launches to the idlest CPU after "
                          "warmup; Linux), 'off', or a CPU number")
    run.add_argument("--duet", choices=("on", "off"),
                     help="a paired comparison (a group of two cases) runs both sides at the same moments, "
                          "one per CPU, round by round (needs --affinity and two CPUs; default: the job's)")
    run.add_argument("--store", help=STORE_HELP)
    run.add_argument("--resume", nargs="?", const="latest", metavar="RUN_ID",
                     help="continue an interrupted run (default: the latest incomplete one), "
                     "measuring only the cases it had not finished")
    run.add_argument("--label", default="", help="a name for this run in the history")
    run.add_argument("--cluster", metavar="ADDRESS",
                     help="measure on a Ray cluster: ray://HOST:PORT, HOST:PORT, or 'local' (a Ray "
                          "started on this machine); each machine offering the resource perflab_slot "
                          "measures one comparison group at a time (pip install perflab[ray])")
    run.add_argument("--quiet", "-q", action="store_true",
                     help="no progress lines (the table and the result files are still written)")
    run.add_argument("--json", action="store_true",
                     help="print the results document (JSON) on stdout and nothing else there; "
                     "progress and the table go to stderr")
    run.add_argument("--profile", action="store_true",
                     help="after each case is measured, one more launch runs it under its runtime's "
                     "sampling profiler (outside the timed launches): collapsed stacks and a flame graph "
                     "per case next to the results (docs/profiling.md)")
    run.add_argument("--profile-seconds", type=float, default=None, metavar="SECONDS",
                     help="with --profile: how long each profiled run is sized to last (default 1); "
                     "more samples tell a smaller change apart in a difference flame graph")
    run.add_argument("--disasm", action="store_true",
                     help="write the disassembly of each native (C/C++, Rust) benchmark function "
                     "next to the results")

    from .commands.profile import add_profile_parser
    add_profile_parser(sub, runtime_specs)

    ls = sub.add_parser("list", help="list the benchmarks perflab finds",
                        description="List the benchmarks perflab finds (loading them on each runtime), "
                        "with their parameters and source.")
    ls.add_argument("paths", nargs="*", default=[],
                    help="benchmark files or folders (default: the project's `paths`, else .)")
    ls.add_argument("--runtimes", "-r", type=runtime_specs, help="comma-separated runtime specs to load them with "
                    "(default: one per language)")
    ls.add_argument("--filter", "-f", action="append", default=[],
                    help="glob on benchmark names (Group.method); repeatable")
    ls.add_argument("--category", action="append", default=[], help="only these categories; repeatable")
    ls.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                    help="skip files and folders matching GLOB when walking folders; repeatable")

    sub.add_parser("runtimes", help="list the runtimes perflab can use",
                   description="List the runtimes perflab finds on this machine and those it can install.")

    cmp_ = sub.add_parser("compare", help="compare two results: files or stored runs (ID, latest, latest~1)",
                          description="Compare two results per case: NEW/OLD with a confidence interval "
                          "and a verdict (faster, slower, same); where both sides counted instructions "
                          "(--measure instructions), New/Old per-op Ir with a verdict of its own. Each "
                          "side is a results JSON file or a stored run: ID, run:ID, latest, latest~N.")
    cmp_.add_argument("old", help="the reference: a results .json file or a stored run (ID, latest~1)")
    cmp_.add_argument("new", nargs="+", help="the results to judge: a results .json file or a stored run "
                      "(ID, latest); given several results files (a glob over a folder that holds "
                      "earlier runs too), the newest run among them is judged, and the others are named "
                      "on stderr as set aside")
    cmp_.add_argument("--threshold", type=number(minimum=0, maximum=100), default=2.0,
                      help="noise threshold in percent: smaller changes are 'same' (default 2)")
    cmp_.add_argument("--count-threshold", type=number(minimum=0, maximum=100), default=0.1,
                      metavar="PCT", help="instruction counts: smaller changes are 'same' unless the "
                      "launches' own spread is wider (default 0.1)")
    cmp_.add_argument("--fail-on-regression", type=number(minimum=0), metavar="PCT",
                      help="exit with status 1 if a case is slower, or counts more instructions, by "
                      "more than PCT percent (see --fail-measure)")
    cmp_.add_argument("--flame-dir", metavar="DIR",
                      help="where difference flame graphs of slower cases go, when both sides were run "
                      "with --profile (default: perflab-results; pages in DIR/flame-diff)")
    cmp_.add_argument("--fail-measure", choices=("any", "time", "instructions"), default="any",
                      help="which measure --fail-on-regression gates on (default any: either)")
    cmp_.add_argument("--format", choices=("table", "md"), default="table",
                      help="a terminal table, or Markdown for a pull-request comment")
    cmp_.add_argument("--force", action="store_true", help="compare results from different setups")
    cmp_.add_argument("--store", help=STORE_HELP)

    from .report.seeds_report import add_report_parser
    add_report_parser(sub)

    hist = sub.add_parser("history", help="stored runs, a benchmark's series, and change points",
                          description="Without arguments: the stored runs. With a PATTERN: that "
                          "benchmark's measurements across runs. --changes: where performance shifted.")
    hist.add_argument("pattern", nargs="?", help="glob on the benchmark's name (Group.method), its "
                      "method alone, or a case key: 'Sort*', '*Sort*', 'textproc.*'")
    hist.add_argument("--changes", action="store_true", help="find where performance shifted")
    hist.add_argument("--min-shift", type=number(minimum=0), default=2.0,
                      help="smallest shift to report, percent (default 2)")
    hist.add_argument("--count-threshold", type=number(minimum=0, maximum=100), default=0.1,
                      metavar="PCT", help="instruction counts: smallest step to report between two "
                      "runs, percent, unless their launches' spread is wider (default 0.1)")
    hist.add_argument("--store", help=STORE_HELP)

    from .commands.serve import add_serve_parser
    add_serve_parser(sub)

    from .commands.imports import add_import_parser
    add_import_parser(sub, STORE_HELP)

    conf = sub.add_parser("conformance", help="check a worker against the protocol vectors",
                          description="Run a language worker against the protocol's test vectors.")
    conf.add_argument("--runtime", required=True, help="the runtime whose worker to check, e.g. python3.11")
    conf.add_argument("--fixtures", help="fixture folder (default: protocol/fixtures/<language>)")
    return p


def _with_project_defaults(args) -> None:
    """Flags not given come from the project's settings (perflab.config), then perflab's defaults."""
    if args.command not in ("run", "list", "compare", "history", "serve"):
        return
    from . import config
    config.apply(args, config.load())
    if getattr(args, "paths", None) == []:
        args.paths = ["."]
    if args.command == "run":
        args.job = args.job or "default"
        args.out = args.out or "perflab-results"


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from .commands import history, imports, info, profile, run, serve
    from .report.seeds_report import cmd_report
    commands = {"report": cmd_report, "run": run.cmd_run, "list": info.cmd_list, "runtimes": info.cmd_runtimes,
                "conformance": info.cmd_conformance, "compare": history.cmd_compare,
                "history": history.cmd_history, "serve": serve.cmd_serve,
                "import": imports.cmd_import, "profile": profile.cmd_profile}
    try:
        _with_project_defaults(args)
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
