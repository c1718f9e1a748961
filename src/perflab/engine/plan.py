"""From paths and runtime specs to the groups of cases the engine measures — all checks happen here,
before anything runs: unknown runtimes, files that do not load, empty or oversized parameter spaces."""
from __future__ import annotations

import contextlib
import fnmatch
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import PrepareError, ProtocolError, UsageError, WorkerFailure
from ..model import Benchmark, Case, Runtime
from ..toolchains import Toolchain
from ..toolchains.base import LaunchSpec
from .memory import limit_spec
from .worker import WorkerProcess

MAX_CASES_PER_BENCHMARK = 1000


@dataclass
class Prepared:
    """A runtime made ready: how to launch its workers, and what they found."""

    runtime: Runtime
    toolchain: Toolchain
    spec: LaunchSpec | None = None
    benchmarks: list[Benchmark] = field(default_factory=list)
    load_errors: list[dict] = field(default_factory=list)
    error: str | None = None  # the runtime as a whole is unusable (not installed, build failed)


@dataclass
class Plan:
    groups: list[list[Case]]
    prepared: list[Prepared]
    failed: list[tuple[Case, str]]  # cases that cannot run at all, with the reason
    # cases that legitimately do not exist on their runtime (a file that version does not build),
    # with the reason: shown as NA, not failed
    absent: list[tuple[Case, str]] = field(default_factory=list)

    @property
    def case_count(self) -> int:
        return sum(len(g) for g in self.groups) + len(self.failed)


def find_sources(paths: list[Path], toolchains: list[Toolchain], exclude: list[str] = ()
                 ) -> dict[str, list[Path]]:
    """Each language's benchmark sources under `paths`; a folder's walk skips fixtures, ignored files
    and the `exclude` globs (perflab.excludes)."""
    from ..excludes import filter_sources
    by_lang: dict[str, list[Path]] = {}
    for p in paths:
        if not p.exists():
            raise UsageError(f"{p}: no such file or directory")
        for tc in toolchains:
            for src in filter_sources(p, tc.find_sources(p), list(exclude)):
                lst = by_lang.setdefault(tc.language, [])
                if src not in lst:
                    lst.append(src)
    return by_lang


def open_worker(spec: LaunchSpec, timeout: float, paths: list[str] | None = None,
                only: str | None = None) -> tuple[WorkerProcess, dict]:
    worker = WorkerProcess(spec, connect_timeout=max(timeout, 30.0))
    try:
        loaded = worker.load(paths or spec.load_paths, spec.root, timeout, only)
    except BaseException:
        worker.close()
        raise
    return worker, loaded


def make_launcher(by_label: dict[str, "Prepared"], timeout: float):
    """The engine's launcher: a fresh worker of the case's runtime that has loaded its benchmark's
    file (only that file, when the runtime loads files one by one)."""
    def launch(case: Case, index: int) -> WorkerProcess:
        prep = by_label[case.runtime.label]
        paths = [case.benchmark.file] if case.benchmark.file in prep.spec.load_paths else None
        worker, loaded = open_worker(prep.spec, timeout, paths, only=case.benchmark.id)
        if not any(b.get("id") == case.benchmark.id for b in loaded["benchmarks"]):
            worker.close()
            raise WorkerFailure(f"benchmark {case.benchmark.id} not found when relaunched")
        return worker
    return launch


def prepare(runtime: Runtime, toolchain: Toolchain, sources: list[Path], workdir: Path,
            timeout: float, step=None, memory_limit: int = 0) -> Prepared:
    """`step(what)` is a context manager around each slow step (progress lines with durations);
    `memory_limit`: bytes each worker's processes may hold (engine/memory.py; 0: none)."""
    step = step or (lambda what: contextlib.nullcontext())
    prep = Prepared(runtime, toolchain)
    try:
        if not runtime.installed:
            with step(f"{runtime.label}: provisioning"):
                runtime = toolchain.provision(runtime)
            prep.runtime = runtime
        with step(f"{runtime.label}: building the worker and {len(sources)} benchmark file(s)"):
            prep.spec = toolchain.prepare(runtime, sources, workdir)
            # a worker may bound its own imports by the reply deadline, to name the line that hangs
            prep.spec.env.setdefault("PERFLAB_LOAD_TIMEOUT", f"{timeout:g}")
            if memory_limit:
                prep.spec = limit_spec(prep.spec, runtime.language, memory_limit)
        # a worker that cannot start fails its runtime; one that fails while loading several
        # files is asked file by file, to name the file that hangs or exits at import
        with step(f"{runtime.label}: loading the benchmarks"):
            worker = WorkerProcess(prep.spec, connect_timeout=max(timeout, 30.0))
            try:
                loaded = worker.load(prep.spec.load_paths, prep.spec.root, timeout)
                worker.close()
            except WorkerFailure:
                worker.close()
                if len(prep.spec.load_paths) < 2:
                    raise
                loaded = _load_each(prep.spec, timeout)
            except BaseException:
                worker.close()
                raise
    except (PrepareError, NotImplementedError) as exc:
        prep.error = str(exc)
        return prep
    except (WorkerFailure, ProtocolError) as exc:
        detail = getattr(exc, "detail", "")
        paths = prep.spec.load_paths if prep.spec else []
        what = paths[0] if len(paths) == 1 else "benchmarks"
        prep.error = f"worker for {runtime.label} failed while loading {what}: {exc}" + (
            f"\n{detail}" if detail else "")
        return prep
    prep.benchmarks = [Benchmark.from_json(b, runtime.language) for b in loaded["benchmarks"]]
    prep.load_errors = list(loaded.get("errors") or [])
    return prep


def _load_each(spec: LaunchSpec, timeout: float) -> dict:
    """Loading every file at once failed (a file hangs or kills the worker at import): load them one
    by one, so each file that does so is named in a load error and the others still run."""
    benchmarks, errors, good = [], [], []
    for path in spec.load_paths:
        try:
            worker, loaded = open_worker(spec, timeout, [path])
            worker.close()
        except WorkerFailure as exc:
            # one failed row named after the file: it fails alone, the other files still run
            errors.append({"file": path, "line": 0, "kind": "load",
                           "message": f"{exc.reason} while loading this file (does it hang or exit "
                                      "at import?)",
                           "benchmark": {"id": f"{path}:<load>", "name": Path(path).name,
                                         "group": Path(path).stem}})
            continue
        benchmarks += loaded["benchmarks"]
        errors += list(loaded.get("errors") or [])
        good.append(path)
    if not good:
        raise WorkerFailure("no file could be loaded: " + "; ".join(format_load_error(e) for e in errors))
    spec.load_paths = good  # launches never load a file that hangs
    return {"benchmarks": benchmarks, "errors": errors}


def _matches(bench: Benchmark, filters: list[str], categories: list[str]) -> bool:
    if filters:
        names = [bench.full_name.lower(), bench.id.lower(), bench.name.lower()]
        if not any(fnmatch.fnmatchcase(n, f.lower()) for f in filters for n in names):
            return False
    if categories and not set(c.lower() for c in bench.categories) & set(c.lower() for c in categories):
        return False
    return True


def format_load_error(err: dict) -> str:
    where = err.get("file", "?")
    if err.get("line"):
        where += f":{err['line']}"
    return f"{where}: {err.get('message', 'failed to load')}"


def build_plan(prepared: list[Prepared], filters: list[str], categories: list[str],
               max_cases: int = MAX_CASES_PER_BENCHMARK) -> Plan:
    """Groups of cases (same benchmark and params across runtimes, in the order runtimes were given)."""
    # A file that fails to load on every runtime of its language (syntax error, failing import, throw
    # at top level) fails alone, one row per runtime with its file:line and reason, when other files
    # of that language loaded; when none did, there is nothing to measure: bad input, one line.
    by_lang: dict[str, list[Prepared]] = {}
    for p in prepared:
        by_lang.setdefault(p.runtime.language, []).append(p)
    broken_files: list[tuple[Prepared, dict]] = []
    for lang, preps in by_lang.items():
        usable = [p for p in preps if p.error is None]
        if not usable:
            continue
        failing: dict[str, list[tuple[Prepared, dict]]] = {}
        for p in usable:
            for err in p.load_errors:
                if isinstance(err.get("benchmark"), dict):
                    continue  # one benchmark's error: it fails alone (below)
                failing.setdefault(f"{err.get('file')}:{err.get('message')}", []).append((p, err))
        others_loaded = any(p.benchmarks for p in usable)
        for errs in failing.values():
            if len(errs) == len(usable):
                if not others_loaded:
                    raise UsageError(format_load_error(errs[0][1]))
                broken_files += errs

    groups: list[list[Case]] = []
    failed: list[tuple[Case, str]] = []
    absent: list[tuple[Case, str]] = []
    index: dict[tuple, list[Case]] = {}
    # A group with a baseline method is compared against it: all its methods with the same
    # parameters are measured together (interleaved, paired), like the runtimes of one benchmark.
    with_baseline = {(p.runtime.language, b.group, b.file) for p in prepared for b in p.benchmarks
                     if b.baseline and _matches(b, filters, categories)}
    for p in prepared:
        for bench in p.benchmarks:
            if not _matches(bench, filters, categories):
                continue
            unavailable = getattr(p.toolchain, "unavailable_reason", None)
            why = unavailable(p.runtime, bench) if unavailable else None
            if why:  # its file needs a newer language than this runtime compiles: NA, not measured
                if "fidelity" in bench.meta:  # a seed port that does not run as written here
                    bench = replace(bench, meta={**bench.meta, "fidelity": f"not run: {why}"})
                absent += [(Case(bench, tuple(combo.items()), p.runtime), why) for combo in bench.expand()]
                continue
            for axis in bench.params:
                if not axis.values:
                    raise UsageError(f"{bench.file}:{bench.line}: {bench.full_name}: parameter "
                                     f"'{axis.name}' has an empty list of values")
            if bench.case_count() > max_cases:
                raise UsageError(f"{bench.file}:{bench.line}: {bench.full_name}: its parameters make "
                                 f"{bench.case_count()} cases (limit {max_cases}); use fewer values "
                                 "or raise the limit with --max-cases")
            for combo in bench.expand():
                case = Case(bench, tuple(combo.items()), p.runtime)
                params_key = tuple(bench.param_display(combo).items())
                if (p.runtime.language, bench.group, bench.file) in with_baseline:
                    key = (p.runtime.language, "group:" + bench.group, bench.file, params_key)
                else:
                    key = (p.runtime.language, bench.id, params_key)
                if key not in index:
                    index[key] = []
                    groups.append(index[key])
                index[key].append(case)
    # a benchmark the worker found but could not describe (a parameter whose repr raises) fails
    # alone, as one case per runtime, with the worker's reason
    for p in prepared:
        for err in p.load_errors:
            who = err.get("benchmark")
            if not isinstance(who, dict) or not isinstance(who.get("id"), str):
                continue
            bench = Benchmark(id=who["id"], name=str(who.get("name") or who["id"]),
                              group=str(who.get("group") or ""), language=p.runtime.language,
                              file=str(err.get("file") or ""), line=int(err.get("line") or 0))
            if _matches(bench, filters, categories):
                failed.append((Case(bench, (), p.runtime), format_load_error(err)))
    for p, err in broken_files:
        file = str(err.get("file") or "")
        name = Path(file).name or "?"
        bench = Benchmark(id=name, name=name, group="", language=p.runtime.language, file=file,
                          line=int(err.get("line") or 0))
        failed.append((Case(bench, (), p.runtime), format_load_error(err)))
    # benchmarks that exist on some runtimes but not others (a file failing on one version)
    na_here = {(c.benchmark.id, c.runtime.label) for c, _ in absent}
    for group in groups:
        templates: dict[str, Case] = {}
        for c in group:
            templates.setdefault(c.benchmark.id, c)
        for template in templates.values():
            have = {c.runtime.label for c in group if c.benchmark.id == template.benchmark.id}
            for p in by_lang.get(template.runtime.language, []):
                if (template.benchmark.id, p.runtime.label) in na_here:
                    continue  # NA there already (unavailable_reason)
                if p.runtime.label in have or any(
                        (e.get("benchmark") or {}).get("id") == template.benchmark.id for e in p.load_errors
                        if isinstance(e.get("benchmark"), dict)):
                    continue  # measured there, or failed alone there with its own load error
                case = Case(template.benchmark, template.params, p.runtime)
                absence = getattr(p.toolchain, "absence_reason", None)
                load_error = next((e for e in p.load_errors
                                   if e.get("file") == template.benchmark.file), None)
                why_absent = (absence(p.runtime, template.benchmark, load_error)
                              if absence and not p.error else None)
                if why_absent:
                    absent.append((case, why_absent))
                    continue
                reason = p.error or next(
                    (format_load_error(e) for e in p.load_errors
                     if e.get("file") == template.benchmark.file),
                    "benchmark not found on this runtime")
                failed.append((case, reason))
    return Plan(groups=groups, prepared=prepared, failed=failed, absent=absent)
