"""The results document: versioned JSON holding every raw sample, the judgement, and the environment.

Written atomically (a temporary file in the same folder, then rename), and rewritten as cases finish,
so an interrupted run keeps everything measured so far. Read back by one function (`load_document`,
one schema constant) into one typed model (`ResultsDocument`, `CaseRecord`) that report, compare, the
dashboard's run page and the bench/ studies read.
"""
from __future__ import annotations

import datetime as dt
import json
import math
import os
import re
import tempfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Iterator

from . import __version__
from .analysis import Row
from .jobs import Job
from .policy import DEFAULT, Policy, for_confidence
from .model import Status
from .report import rates
from .stats.contention import run_contention

SCHEMA = "perflab.results"
SCHEMA_VERSION = 1


def row_to_json(row: Row) -> dict[str, Any]:
    res = row.result
    c = res.case
    return {
        "key": c.key,
        "benchmark": c.benchmark.to_json(),
        "params": c.param_values,
        "runtime": c.runtime.to_json(),
        # plain strings in the document: a results file is read by other tools too
        "status": str(Status.FAILED if not res.ok else Status.NA if res.absent
                      else Status.SKIPPED if res.skipped else Status.OK),
        "error": res.error, "error_detail": res.error_detail, "absent": res.absent, "skipped": res.skipped,
        "stop_reason": str(res.stop_reason), "wall_seconds": res.wall_seconds,
        "launch_cost_s": res.launch_cost_s, "iteration_cost_s": res.iteration_cost_s,
        "output_bytes": res.output_bytes, "clock_resolution_ns": res.clock_resolution_ns,
        "worker_runtime": res.worker_runtime, "round_group": res.round_group,
        "judged_by": res.judged_by, "contention": res.contention,
        "machine": res.machine, "rerun": res.rerun,
        "launches": [ln.to_json() for ln in res.launches],
        "diagnostics": res.diagnostics.to_json() if res.diagnostics else None,
        "estimate": row.estimate.to_json() if row.estimate else None,
        "baseline": row.baseline_key, "is_baseline": row.is_baseline,
        "ratio": row.ratio.to_json() if row.ratio else None,
        "alloc_ratio": row.alloc_ratio,
        # the two ratios of perflab.ratios: "ratio" against the group's baseline method,
        # "runtime_ratio" against the same case on the first runtime of its language
        "runtime_baseline": row.runtime_baseline_key, "is_runtime_baseline": row.is_runtime_baseline,
        "runtime_ratio": row.runtime_ratio.to_json() if row.runtime_ratio else None,
        "runtime_alloc_ratio": row.runtime_alloc_ratio,
        # throughput and rate counters per second, against this case's mean (report/rates.py)
        "rates": rates.per_second_all(res.diagnostics, row.estimate),
        "warnings": row.warnings, "notes": row.notes,
        # instructions counted under valgrind (--measure instructions); schema: docs/instructions.md
        "counts": res.counts,
        # the profile of `run --profile` (collapsed stacks); schema: docs/profiling.md
        "profile": res.profile,
    }


def document(rows: list[Row], job: Job, environment: dict, command: list[str],
             started: dt.datetime, complete: bool, errors: list[str] | None = None) -> dict[str, Any]:
    return {**document_head([r.result for r in rows], job, environment, command, started, complete, errors),
            "cases": [row_to_json(r) for r in rows]}


def document_head(results: list, job: Job, environment: dict, command: list[str],
                  started: dt.datetime, complete: bool, errors: list[str] | None = None) -> dict[str, Any]:
    """The document's fields but its cases (which come last)."""
    return {
        "schema": SCHEMA, "version": SCHEMA_VERSION, "perflab_version": __version__,
        "started": started.isoformat(timespec="seconds"),
        "written": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "complete": complete, "command": command,
        # the run's contention summary beside the machine it describes (stats/contention.py)
        "job": job.__dict__, "environment": {**environment, "contention": run_contention(results)},
        # every tuned number that judged this run (perflab.policy): a result says which numbers decided it
        "policy": job.policy.to_json(),
        "errors": errors or [],
    }


def policy_of(doc: dict[str, Any]) -> Policy:
    """The policy a results document was judged with: the one it saved, or (a document from before
    policies were saved) today's numbers at its job's confidence and target."""
    if isinstance(doc.get("policy"), dict):
        return Policy.from_json(doc["policy"])
    job = doc.get("job") or {}
    return for_confidence(float(job.get("confidence", DEFAULT.stop.confidence)),
                          float(job.get("target_rel_error", DEFAULT.stop.target_rel_error)))


def _compact(value) -> str:
    return json.dumps(value, allow_nan=True, ensure_ascii=False)


def case_line(case: dict[str, Any]) -> bytes:
    """One case as the document writes it (its own line, UTF-8)."""
    return ("  " + _compact(case)).encode("utf-8")


def document_chunks(doc: dict[str, Any], case_lines: list[bytes] | None = None) -> Iterator[bytes]:
    """The document as UTF-8 text, in pieces: a top-level field per line and a case per line. json's C
    encoder only writes compact JSON (indenting falls back to its Python encoder, 5-10 times slower:
    most of a large run's host time), and a case per line still reads and diffs line by line.
    `case_lines`: the cases already as `case_line` wrote them (a document without "cases" then gets
    them, last). In pieces, because joined into one string a 10,000-case document (26 MB) was
    copied three times per write."""
    fields = [(key, [case_line(v) for v in value]
               if isinstance(value, list) and value and all(isinstance(v, dict) for v in value) else value)
              for key, value in doc.items()]
    if case_lines is not None:
        fields.append(("cases", case_lines))
    yield b"{\n"
    for i, (key, value) in enumerate(fields):
        head = (",\n" if i else "") + f" {_compact(key)}: "
        if isinstance(value, list) and value and isinstance(value[0], bytes):
            yield (head + "[\n").encode()
            for k, line in enumerate(value):
                yield b",\n" + line if k else line
            yield b"\n ]"
        else:
            yield (head + _compact(value)).encode()
    yield b"\n}\n"


def write_atomic(path: Path, doc: dict[str, Any], case_lines: list[bytes] | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes it 0600; a results file is an ordinary file
        with os.fdopen(fd, "wb", buffering=1 << 20) as f:
            for chunk in document_chunks(doc, case_lines):
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


class DocumentError(Exception):
    """A results file that cannot be used; the message names the file and says why."""


def read_text(path: Path) -> str:
    """A results file's text; a compressed or binary file (a CI artifact as downloaded) is a one-line
    DocumentError, not a decoding traceback."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DocumentError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if data[:2] == b"\x1f\x8b":
        raise DocumentError(f"{path}: gzip-compressed, not a results document; unpack it first "
                            f"(gunzip -c {path} > results.json)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentError(f"{path}: not UTF-8 text (byte {exc.start}); a perflab results document "
                            "is JSON: give the perflab-*.json file") from None
    return text


def load_document(path: Path, parts: bool = True) -> dict[str, Any]:
    """A results document, checked (`case_problem`). `parts`: a case's counts and profile records
    are checked too; `perflab report` leaves them to its own per-case notes (an unreadable counts
    record is a note on that case, not a reason to refuse the file)."""
    text = read_text(path)
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise DocumentError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}); the file is "
                            "corrupt or truncated") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise DocumentError(f"{path}: not a perflab results document")
    version = doc.get("version")
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise DocumentError(f"{path}: written by a newer perflab (results version {version}); "
                            f"this perflab reads version {SCHEMA_VERSION}; upgrade perflab")
    if not isinstance(doc.get("cases"), list):
        raise DocumentError(f"{path}: has no 'cases' list; the file is truncated or damaged")
    for name in ("environment", "job", "policy"):
        if not isinstance(doc.get(name, {}), dict):
            raise DocumentError(f"{path}: '{name}' must be an object")
    from .model import case_key_of
    for i, case in enumerate(doc["cases"], 1):
        problem = case_problem(case, parts)
        if problem:
            raise DocumentError(f"{path}: case {i} {problem}; the file is damaged or not from perflab")
        case["key"] = case_key_of(case)  # files from before keys were quoted read as today's keys
    return doc


def _kind(value) -> str:
    return "null" if value is None else type(value).__name__


def case_problem(c, parts: bool = True) -> str:
    """What makes a case of a results document unusable ('' when nothing): the fields compare and
    resume read, with their types (and, with `parts`, its counts and profile records)."""
    if not isinstance(c, dict):
        return f"is {_kind(c)}, not an object"
    for name in ("key", "status"):
        if name not in c:
            return f"lacks '{name}'"
        if not isinstance(c[name], str) or not c[name]:
            return f"has '{name}' {_kind(c[name])}, not a string"
    for name, fields in (("benchmark", ("name",)), ("runtime", ("label",))):
        part = c.get(name)
        if not isinstance(part, dict):
            return f"lacks '{name}'" if part is None else f"has '{name}' {_kind(part)}, not an object"
        for f in fields:
            if not isinstance(part.get(f), str):
                return f"has '{name}.{f}' {_kind(part.get(f))}, not a string"
        if not isinstance(part.get("group", ""), str):
            return f"has '{name}.group' {_kind(part.get('group'))}, not a string"
    if not isinstance(c.get("params", {}), dict):
        return f"has 'params' {_kind(c.get('params'))}, not an object"
    if not isinstance(c["benchmark"].get("params", []), list):
        return f"has 'benchmark.params' {_kind(c['benchmark'].get('params'))}, not a list"
    est = c.get("estimate")
    if est is not None:
        if not isinstance(est, dict):
            return f"has 'estimate' {_kind(est)}, not an object"
        for f in ("mean", "error"):
            if est.get(f) is not None and (not isinstance(est[f], (int, float)) or isinstance(est[f], bool)):
                return f"has 'estimate.{f}' {_kind(est[f])}, not a number"
    launches = c.get("launches", [])
    if not isinstance(launches, list):
        return f"has 'launches' {_kind(launches)}, not a list"
    for j, ln in enumerate(launches, 1):
        if not isinstance(ln, dict):
            return f"launch {j} is {_kind(ln)}, not an object"
        for f in ("index", "invocations"):
            if not isinstance(ln.get(f), int) or isinstance(ln.get(f), bool):
                return f"launch {j} has '{f}' {_kind(ln.get(f))}, not an integer"
        for f in ("workload", "overhead", "workload_rounds", "overhead_rounds", "workload_cpu",
                  "overhead_cpu", "workload_wait", "warmup"):
            v = ln.get(f, [])
            if not isinstance(v, list) or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                  for x in v):
                return f"launch {j} has '{f}' that is not a list of numbers"
    if not parts:
        return ""
    from .measures.profile import profile_problem
    return counts_problem(c.get("counts")) or profile_problem(c.get("profile"))


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def counts_problem(counts) -> str:
    """What makes a case's instruction counts unreadable (docs/instructions.md), '' when nothing."""
    if counts is None:
        return ""
    if not isinstance(counts, dict):
        return f"has 'counts' {_kind(counts)}, not an object"
    per_op = counts.get("per_op", {})
    if not isinstance(per_op, dict) or not all(v is None or _number(v) for v in per_op.values()):
        return "has 'counts.per_op' that is not an object of numbers"
    for f in ("spread", "tolerance"):
        if counts.get(f) is not None and not _number(counts[f]):
            return f"has 'counts.{f}' {_kind(counts[f])}, not a number"
    if counts.get("error") is not None and not isinstance(counts["error"], str):
        return f"has 'counts.error' {_kind(counts['error'])}, not a string"
    launches = counts.get("launches", [])
    if not isinstance(launches, list):
        return f"has 'counts.launches' {_kind(launches)}, not a list"
    for j, ln in enumerate(launches, 1):
        if not isinstance(ln, dict) or not isinstance(ln.get("per_op", {}), dict):
            return f"counts launch {j} is not an object with a 'per_op' object"
        if not all(v is None or _number(v) for v in ln.get("per_op", {}).values()):
            return f"counts launch {j} has 'per_op' that is not an object of numbers"
    return ""


def launches_from_json(c: dict[str, Any]) -> list:
    """A case's raw launches from its JSON form. A document written before launches recorded their
    CPU clock's scope takes it from the case's `worker_runtime.cpu_clock`."""
    from .model import LaunchSamples
    scope = ((c.get("worker_runtime") or {}).get("cpu_clock") or {}).get("scope")
    launches = []
    for ln in c.get("launches", []):
        ls = LaunchSamples(index=ln["index"], invocations=ln["invocations"], pid=ln.get("pid", 0),
                           cpu=ln.get("cpu"), cpu_share=ln.get("cpu_share"),
                           handoff_rate=ln.get("handoff_rate"),
                           cpu_scope=ln.get("cpu_scope", scope))
        ls.pilot = [tuple(p) for p in ln.get("pilot", [])]
        for k in ("warmup", "overhead", "workload", "workload_rounds", "overhead_rounds",
                  "workload_cpu", "overhead_cpu", "workload_wait"):
            setattr(ls, k, list(ln.get(k, [])))
        launches.append(ls)
    return launches


def case_result_from_json(c: dict[str, Any]):
    """Rebuild a CaseResult (raw samples included) from its JSON form, e.g. to resume a run."""
    from .model import Benchmark, Case, CaseResult, Diagnostics, Runtime
    bench = Benchmark.from_json(c["benchmark"], c["benchmark"].get("language", ""))
    rt = c["runtime"]
    runtime = Runtime(name=rt["name"], language=rt["language"], version=rt["version"],
                      executable=rt["executable"], flags=tuple(rt.get("flags", ())),
                      env=tuple((rt.get("env") or {}).items()),
                      implementation=rt.get("implementation", ""), revision=rt.get("revision", ""))
    indices = {a.name: a.values.index(c["params"][a.name]) for a in bench.params}
    case = Case(bench, tuple(indices.items()), runtime)
    launches = launches_from_json(c)
    d = c.get("diagnostics")
    diag = Diagnostics(**{k: d.get(k) for k in ("alloc_bytes_per_op", "allocs_per_op",
                                                "gc_per_1000_ops", "code_size", "code_address",
                                                "binary")},
                       notes=list(d.get("notes", [])),
                       metrics=dict(d.get("metrics") or {}),
                       rates=rates.parse(d.get("rates"))) if d else None
    return CaseResult(case=case, launches=launches, diagnostics=diag, error=c.get("error"),
                      absent=c.get("absent") or "", skipped=c.get("skipped") or "",
                      error_detail=c.get("error_detail", ""), output_bytes=c.get("output_bytes", 0),
                      wall_seconds=c.get("wall_seconds", 0.0), stop_reason=c.get("stop_reason", ""),
                      launch_cost_s=c.get("launch_cost_s", 0.0), iteration_cost_s=c.get("iteration_cost_s", 0.0),
                      clock_resolution_ns=c.get("clock_resolution_ns", 1.0),
                      worker_runtime=c.get("worker_runtime", {}),
                      round_group=int(c.get("round_group") or 0),
                      judged_by=str(c.get("judged_by") or ""),
                      contention=dict(c.get("contention") or {}),
                      machine=c.get("machine") if isinstance(c.get("machine"), dict) else None,
                      rerun=str(c.get("rerun") or ""),
                      counts=c.get("counts") if isinstance(c.get("counts"), dict) else None,
                      profile=c.get("profile") if isinstance(c.get("profile"), dict) else None)


# -- the typed model: one case, one document ------------------------------------------------------

def _finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


@dataclass
class CaseRecord:
    """One case of a results document, typed: what `perflab report`, `perflab compare`, the dashboard
    and the bench/ studies read of it. `raw` is the case's JSON object as written (a field no reader
    names yet stays reachable); `doc` and `path` say which document of several it came from."""
    doc: int
    path: str
    raw: dict
    confidence: float = DEFAULT.stop.confidence  # its run's job's: every interval of the run is at it

    @property
    def bench(self) -> dict:
        return self.raw.get("benchmark") or {}

    @property
    def bench_id(self) -> str:
        b = self.bench
        return str(b.get("id") or f"{b.get('group', '')}.{b.get('name', '?')}")

    @property
    def name(self) -> str:
        return str(self.bench.get("name") or self.bench_id)

    @property
    def language(self) -> str:
        return str(self.bench.get("language") or "")

    @property
    def method_name(self) -> str:
        """The method alone, as the seeds name it: `Seek.SeekForward` and Go's `BenchmarkSeekForward`
        are `SeekForward` (claims are keyed by it, across languages)."""
        return method_of(self.name)

    @property
    def group(self) -> str:
        return str(self.bench.get("group") or "")

    @property
    def meta(self) -> dict:
        m = self.bench.get("meta")
        return m if isinstance(m, dict) else {}

    @property
    def params(self) -> dict[str, str]:
        p = self.raw.get("params")
        return {str(k): str(v) for k, v in p.items()} if isinstance(p, dict) else {}

    @property
    def key(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        return self.bench_id, tuple(sorted(self.params.items()))

    @property
    def runtime(self) -> str:
        rt = self.raw.get("runtime") or {}
        return str(rt.get("label") or rt.get("name") or "?")

    @property
    def revision(self) -> str:
        """`--rev`: the revision the case ran ("" in a run without revisions)."""
        rt = self.raw.get("runtime") or {}
        return str(rt.get("revision") or "")

    @property
    def ok(self) -> bool:
        return self.raw.get("status", Status.OK) == Status.OK and self.mean is not None

    @property
    def estimate(self) -> dict:
        e = self.raw.get("estimate")
        return e if isinstance(e, dict) else {}

    @property
    def mean(self) -> float | None:
        m = self.estimate.get("mean")
        return float(m) if _finite(m) else None

    @property
    def se(self) -> float | None:
        s = self.estimate.get("se")
        return float(s) if _finite(s) else None

    @property
    def df(self) -> float | None:
        d = self.estimate.get("df")
        return float(d) if _finite(d) and d > 0 else None

    @property
    def alloc(self) -> float | None:
        d = self.raw.get("diagnostics") or {}
        a = d.get("alloc_bytes_per_op") if isinstance(d, dict) else None
        return float(a) if _finite(a) else None

    @property
    def error(self) -> str:
        return str(self.raw.get("error") or "failed")

    @property
    def absent(self) -> str | None:
        """Why the benchmark does not exist on this runtime (status "na"), or None."""
        if self.raw.get("status") != Status.NA:
            return None
        return str(self.raw.get("absent") or "not available on this runtime")

    @property
    def skipped(self) -> str | None:
        """Why the benchmark skipped itself (status "skipped": Go's b.Skip), or None."""
        if self.raw.get("status") != Status.SKIPPED:
            return None
        return str(self.raw.get("skipped") or "skipped")

    @property
    def warnings(self) -> list[str]:
        w = self.raw.get("warnings") or []
        return [str(x) for x in w] if isinstance(w, list) else []

    @property
    def contended(self) -> bool:
        """Measured under heavy or changing contention (stats/contention.py): its absolute time is
        no confident figure (see `contention_stands` for its ratios)."""
        c = self.raw.get("contention")
        return isinstance(c, dict) and c.get("level") in ("heavy", "changing")

    @property
    def cpu_timed(self) -> bool:
        """Timed by its measuring thread's CPU time (stats/clean.py rule 0)."""
        return self.estimate.get("cpu_timed") is True

    @property
    def key_text(self) -> str:
        """The case's key as the document writes it (`group.name[params]@runtime`)."""
        return str(self.raw.get("key") or "")

    @property
    def status(self) -> str:
        return str(self.raw.get("status") or Status.OK)

    @property
    def contention_level(self) -> str | None:
        """quiet, light, heavy or changing (stats/contention.py); None when not recorded."""
        c = self.raw.get("contention")
        return c.get("level") if isinstance(c, dict) else None

    @property
    def ops_per_invoke(self) -> int:
        return int(self.bench.get("ops_per_invoke") or 1)

    def stored_ratio(self, field: str) -> dict | None:
        """The run's own ratio as written ("ratio" against the baseline method, "runtime_ratio"
        against the baseline runtime: perflab.ratios), when it has a finite value."""
        r = self.raw.get(field)
        return r if isinstance(r, dict) and _finite(r.get("value")) else None

    def launches(self) -> list:
        """The raw launches, rebuilt as model.LaunchSamples (what the estimates are made from)."""
        return launches_from_json(self.raw)


@dataclass
class ResultsDocument:
    """A results document, typed: its job, environment and cases as report, compare and bench read
    them (`raw` is the JSON object, checked by `load_document`; `index` orders several)."""
    raw: dict
    path: str = ""
    index: int = 0

    @classmethod
    def read(cls, path: Path, index: int = 0) -> "ResultsDocument":
        return cls(load_document(path), str(path), index)

    @property
    def job(self) -> dict:
        return self.raw.get("job") or {}

    @property
    def environment(self) -> dict:
        return self.raw.get("environment") or {}

    @property
    def complete(self) -> bool:
        return self.raw.get("complete") is not False

    @property
    def confidence(self) -> float:
        """The confidence of the run's intervals: its job's, perflab run's default when not said."""
        conf = self.job.get("confidence")
        return float(conf) if _finite(conf) and 0 < conf < 1 else DEFAULT.stop.confidence

    @property
    def overhead(self) -> bool:
        """Whether the run subtracted the empty loop's cost (`--no-overhead` turns it off)."""
        return bool(self.job.get("overhead", True))

    @property
    def policy(self) -> Policy:
        return policy_of(self.raw)

    @cached_property
    def cases(self) -> list[CaseRecord]:
        return [CaseRecord(self.index, self.path, c, self.confidence) for c in self.raw.get("cases") or []]

    def by_key(self) -> dict[str, CaseRecord]:
        return {c.key_text: c for c in self.cases}


def method_of(name: str) -> str:
    """A benchmark's method as the seeds name it (see Case.method_name)."""
    last = re.split(r"[./]", name)[-1]
    m = re.fullmatch(r"Benchmark_?([A-Z].*)", last)
    return m.group(1) if m else last
