"""`perflab import FILE…`: results written by other harnesses become runs of the history (and, with
--out, perflab results files), each case naming the tool that measured it (perflab.importers).

Every argument is checked first: one of a shape perflab does not read stops the command before
anything is imported (exit 2). Then each file (or criterion folder) is read on its own: one that is
damaged fails alone, with what and where, and the others are still imported (exit 1).
"""
from __future__ import annotations

import re
from pathlib import Path

from rich.text import Text

from ..console import err, out
from ..errors import UsageError

IMPORT_HELP = "import results of criterion, Google Benchmark, pyperf, pytest-benchmark, BenchmarkDotNet, " \
              "JMH, hyperfine or go test -bench as runs of the history"


def add_import_parser(sub, store_help: str) -> None:
    p = sub.add_parser("import", help=IMPORT_HELP,
                       description="Read results written by other harnesses and store each file as a run "
                       "of the history (perflab history, compare, serve), its cases naming the tool that "
                       "measured them; --out also writes each as a perflab results file (for report). "
                       "Formats: " + "; ".join(_formats()))
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="result files (pyperf's may be .json.gz), or a target/criterion folder")
    p.add_argument("--store", help=store_help)
    p.add_argument("--out", "-o", metavar="DIR",
                   help="also write each as DIR/<file>.perflab.json (a perflab results document)")
    p.add_argument("--runtime", metavar="LABEL",
                   help="the runtime label of the imported cases (default: what the file names, e.g. "
                   "python3.11, jdk17, or the tool); give a perflab run's label to compare against it")
    p.add_argument("--label", default="", help="a name for the run(s) in the history "
                   "(default: 'import: <tool>')")


def _formats() -> tuple[str, ...]:
    from ..importers import FORMATS
    return FORMATS


def _criterion_root(folder: Path) -> Path:
    """The `target/criterion` folder a `<id>/new` folder belongs to (else its benchmark's folder)."""
    for parent in folder.parents:
        if parent.name == "criterion":
            return parent
    return folder.parent


def plan(files: list[str]) -> list[tuple[str, str, object]]:
    """(shown path, kind, what) per import, in order; criterion files of one tree are one import.
    UsageError (exit 2) for an argument perflab cannot read."""
    from ..importers import UnknownFormat, classify
    items: list[tuple[str, str, object]] = []
    trees: dict[Path, list[Path]] = {}
    for arg in files:
        try:
            kind, what = classify(arg)
        except UnknownFormat as exc:
            raise UsageError(str(exc)) from None
        if kind == "criterion" and Path(arg).is_file():
            root = _criterion_root(what[0])
            if root not in trees:
                trees[root] = []
                items.append((str(root), "criterion", trees[root]))
            trees[root] += [f for f in what if f not in trees[root]]
        else:
            items.append((arg, kind, what))
    return items


def cmd_import(args) -> int:
    from ..environment import fingerprint
    from ..importers import UnknownFormat, criterion, detect_file, parse_file
    from ..importers.common import ImportFailed, build_document
    from ..results import write_atomic
    from ..store import StoreError, open_store
    from .history import cells, listing
    if args.store is None:  # the project's store (perflab.config), as the other commands use it
        import argparse

        from .. import config
        only_store = argparse.Namespace(store=None)
        config.apply(only_store, config.load())
        args.store = only_store.store
    items = plan(list(args.files))
    detected = []
    failures: list[str] = []
    for shown, kind, what in items:  # every file's shape is known before anything is stored
        if kind == "criterion":
            detected.append((shown, criterion, what))
            continue
        try:
            mod, data = detect_file(shown)
        except UnknownFormat as exc:
            raise UsageError(str(exc)) from None
        except ImportFailed as exc:
            failures.append(f"{shown}: {exc}")
            continue
        detected.append((shown, mod, data))
    store = None
    if args.store != "none" or not args.out:
        store = open_store(args.store)
        if store is None and not args.out:
            raise UsageError("import: --store is none and no --out: the results would go nowhere")
    out_dir = Path(args.out) if args.out else None
    if out_dir:
        from .common import check_out_dir
        check_out_dir(out_dir)
    table = listing("imported")
    for c in ("File", "Tool", "Runtime", "Cases", "Failed", "Run", "Written"):
        table.add_column(c)
    written_names: set[str] = set()
    for shown, mod, data in detected:
        try:
            imp = parse_file(shown, mod, data)
            doc = build_document(imp, args.runtime, ["perflab", "import", shown])
        except ImportFailed as exc:
            failures.append(f"{shown}: {exc}")
            continue
        failures += [f"{shown}: {mod.TOOL} file: {f}" for f in imp.failed]
        if not doc["cases"]:
            failures.append(f"{shown}: {mod.TOOL} file: no benchmark could be imported")
            continue
        run_id = ""
        if store is not None:
            env = doc["environment"]
            try:
                rid = store.begin_run(command=doc["command"],
                                      args={"paths": [shown], "runtimes": ",".join(r["label"] for r in env["runtimes"])},
                                      job=doc["job"], environment=env, fingerprint=fingerprint(env),
                                      label=args.label or f"import: {imp.tool}")
                store.add_cases(rid, doc["cases"])
                store.finish_run(rid, complete=True)
            except StoreError as exc:
                raise UsageError(str(exc)) from None
            doc["run_id"] = run_id = rid
        written = ""
        if out_dir:
            name = _out_name(shown, written_names)
            write_atomic(out_dir / name, doc)
            written = str(out_dir / name)
        failed = sum(c["status"] == "failed" for c in doc["cases"])
        table.add_row(*cells([shown, imp.tool + (f" {imp.tool_version}" if imp.tool_version else ""),
                              ", ".join(r["label"] for r in doc["environment"]["runtimes"]),
                              str(len(doc["cases"])), str(failed), f"#{run_id}" if run_id != "" else "-",
                              written or "-"]))
        for note in imp.problems:
            err.print(Text(f"note: {shown}: {note}"), soft_wrap=True)
    if table.rows:
        out.print(table)
    for f in failures:  # user file names and content: text, never markup
        err.print(Text.assemble(("error:", "red"), f" {f}"), soft_wrap=True)
    return 1 if failures else 0


def _out_name(shown: str, taken: set[str]) -> str:
    stem = re.sub(r"(\.json|\.txt)?(\.gz)?$", "", Path(shown.rstrip("/")).name) or "imported"
    name, n = f"{stem}.perflab.json", 2
    while name in taken:
        name, n = f"{stem}-{n}.perflab.json", n + 1
    taken.add(name)
    return name
