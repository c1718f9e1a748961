"""Where a run's finished cases go, at a host cost per case that does not grow with the run.

Per case (O(1) in the run's size):
- the case is judged with the cases it is compared with alone (its *neighbourhood*: same language,
  group and parameters: every case its two ratios can pair it with, perflab.ratios), for the
  progress line and the history store;
- one JSON line is appended to the log beside the results and flushed: what a `kill -9` cannot take
  away (the store, when there is one, holds the same and is what `--resume` reads).

Per interval (every `interval_s` once the run has grown by Recording.document_growth since the last write, and
never more than a tenth of the host's time): the results document is rewritten, each case as the latest judgement of its neighbourhood made it; only the
neighbourhoods that got cases since the last write are judged and turned into text again (judging
and writing out the whole run each time cost the host O(run) per interval: 0.26 s at 1,000 cases,
about 2 ms per case of a dry run, and ten times that per case at 10,000). A neighbourhood is judged
as the whole run would judge it (perflab.ratios.pair: the run's runtimes of each language are all it
needs of the rest). At the end: the whole run is judged once more, the document complete. The
document was rewritten after every case before: that is quadratic (300 cases: half the host's time in
json.dump). A rewrite is O(run) bytes, so one every 30 s is still O(run) per case over a long run (78
rewrites of up to 20 MB at 10,000 cases); waiting until the run has grown by a fixed share makes the
bytes written O(1) per case (a geometric series: at most 1/Recording.document_growth + 1 times the final
document in all). The log is the durable record meanwhile.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import time
from pathlib import Path
from typing import Callable

from .analysis import Row, analyse
from .jobs import Job
from .model import CaseResult
from .results import case_line, document, document_head, row_to_json, write_atomic
from .policy import DEFAULT


def neighbourhood(result: CaseResult, baseline_groups: set = frozenset()) -> tuple:
    """The cases a case's ratios can pair it with share this (perflab.ratios): the runtime ratio pairs
    one method with the same parameters across runtimes; the method ratio, in a group that has a
    baseline method (`baseline_groups`: (language, group) pairs), all its methods with the same
    parameters."""
    c = result.case
    params = tuple(sorted(c.param_values.items()))
    method = "" if (c.runtime.language, c.benchmark.group) in baseline_groups else c.benchmark.name
    return (c.runtime.language, c.benchmark.group, method, params)


class Recorder:
    def __init__(self, *, job: Job, environment: dict, command: list[str], started: dt.datetime,
                 runtime_order: list[str], json_path: Path | None,
                 on_cases: Callable[[list[dict]], None] = lambda cases: None,
                 baseline_groups: set = frozenset(),
                 interval_s: float = DEFAULT.recording.document_interval_s, clock: Callable[[], float] = time.monotonic):
        self.job, self.environment, self.command, self.started = job, environment, command, started
        self.runtime_order = runtime_order
        self.json_path = json_path
        self.log_path = log_path(json_path) if json_path is not None else None
        self.on_cases = on_cases  # each finished case's JSON, as the log has it (the store takes it)
        self.baseline_groups = set(baseline_groups)
        self.interval_s, self.clock = interval_s, clock
        self.results: list[CaseResult] = []
        self._near: dict[tuple, list[CaseResult]] = {}
        # each language's runtimes in the run so far: what judging a neighbourhood needs of the rest
        self._runtimes: dict[str, dict[str, None]] = {}
        # the document's text of each case (by id: self.results holds the objects), as its
        # neighbourhood was last judged; the neighbourhoods with cases since then (`_dirty`), and
        # their latest judgements when `add` made them
        self._lines: dict[int, bytes] = {}
        self._dirty: set[tuple] = set()
        self._judged: dict[tuple, list[Row]] = {}
        self._estimates: dict = {}  # finished cases' estimates: samples never change once finished
        self._log = None
        self._pending: list[dict] = []  # logged, not stored yet
        self._next_store = clock()
        self._next_write = clock() + interval_s
        self._written_cases = 0  # cases the last rewrite held
        # the JSON `add` made of a case's row, for the next rewrite when its judgement still stands
        # (by id of the row, kept alive with it): not serialised twice
        self._json_of: dict[int, tuple[Row, dict]] = {}
        self.document_writes = 0

    def extend(self, results: list[CaseResult]) -> None:
        """Cases known before measuring starts (resumed, failed or absent ones): no per-case work."""
        for r in results:
            self._remember(r)

    def _remember(self, result: CaseResult) -> tuple:
        self.results.append(result)
        key = neighbourhood(result, self.baseline_groups)
        self._near.setdefault(key, []).append(result)
        self._dirty.add(key)
        rt = result.case.runtime
        known = self._runtimes.setdefault(rt.language, {})
        if rt.label not in known:
            # a language's baseline runtime or its number of runtimes may change: every neighbourhood
            # is judged afresh at the next write (a few times per run, while runtimes first appear)
            known[rt.label] = None
            self._judged.clear()
            self._dirty = set(self._near)
        return key

    def _analyse(self, results: list[CaseResult], part: bool = False) -> list[Row]:
        """Judge cases: the whole run, or (`part`) a part of it as the whole run would."""
        return analyse(results, self.job.confidence, self.job.target_rel_error, self.job.overhead,
                       self.runtime_order, self._estimates, self._runtimes if part else None)

    def add(self, result: CaseResult) -> Row:
        """A case finished: judge it among its neighbours, log it, store it; the document only when
        the interval is up. Returns its (provisional) row."""
        key = self._remember(result)
        rows = self._analyse(self._near[key], part=True)
        self._judged[key] = rows
        mine = next(r for r in rows if r.result is result)
        case = row_to_json(mine)  # once: the log, the store and the document take the same JSON
        self._json_of[id(mine)] = (mine, case)
        self._append_log(case)
        self._pending.append(case)
        if self.log_path is None or self.clock() >= self._next_store:  # without a log: no batching
            self.flush_store()
        if self.clock() >= self._next_write and len(self.results) >= self._written_cases * (1 + DEFAULT.recording.document_growth):
            self.write(complete=False)
        return mine

    def flush_store(self) -> None:
        """Hand the cases not stored yet to the store (`on_cases`), in one batch."""
        pending, self._pending = self._pending, []
        self._next_store = self.clock() + DEFAULT.recording.store_interval_s
        if pending:
            self.on_cases(pending)

    def _append_log(self, case: dict) -> None:
        if self.log_path is None:
            return
        if self._log is None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = open(self.log_path, "a", encoding="utf-8")
        # flushed to the kernel: a killed host (kill -9) loses nothing; a power cut is the store's job
        self._log.write(json.dumps(case, allow_nan=True) + "\n")
        self._log.flush()

    def write(self, complete: bool) -> list[Row]:
        """Rewrite the document: complete, the whole run judged (returns its rows); else with what
        changed since the last write judged (returns the rows judged)."""
        t0 = self.clock()
        rows = self._analyse(self.results) if complete else self._refresh()
        if self.json_path is not None:
            if complete:
                write_atomic(self.json_path, document(rows, self.job, self.environment, self.command,
                                                      self.started, complete))
            else:
                write_atomic(self.json_path, document_head(self.results, self.job, self.environment,
                                                           self.command, self.started, complete),
                             [self._lines[id(r)] for r in self.results])
            self.document_writes += 1
        cost = self.clock() - t0
        self._next_write = self.clock() + max(self.interval_s, cost / DEFAULT.recording.max_document_share)
        self._written_cases = len(self.results)
        return rows

    def _refresh(self) -> list[Row]:
        """The document's text of every case in a neighbourhood that changed since the last write."""
        rows = []
        if self.json_path is None:  # no document: no text to keep
            self._dirty.clear()
            self._judged.clear()
            self._json_of.clear()
            return rows
        for key in self._dirty:
            judged = self._judged.pop(key, None) or self._analyse(self._near[key], part=True)
            for row in judged:
                made = self._json_of.get(id(row))
                case = made[1] if made is not None and made[0] is row else row_to_json(row)
                self._lines[id(row.result)] = case_line(case)
            rows += judged
        self._dirty.clear()
        self._json_of.clear()  # rows judged again since are new objects: their JSON is made anew
        return rows

    def finish(self) -> list[Row]:
        """The complete document; the log has served its purpose once the document holds it all."""
        rows = self.write(complete=True)
        self.close()
        if self.log_path is not None and self.json_path is not None and self.json_path.exists():
            try:
                os.unlink(self.log_path)
            except FileNotFoundError:
                pass
        return rows

    def close(self) -> None:
        self.flush_store()
        if self._log is not None:
            self._log.close()
            self._log = None


def log_path(json_path: Path) -> Path:
    """The log beside a results document."""
    return json_path.with_suffix(".jsonl")


def resumable(stored: list[dict], log: Path | None) -> list[dict]:
    """The finished cases of an interrupted run: those in its store, then those only its log has (a
    batch the store had not received when the host was killed)."""
    keys = {c.get("key") for c in stored}
    return stored + [c for c in (read_log(log) if log is not None else []) if c.get("key") not in keys]


def read_log(path: Path) -> list[dict]:
    """The cases of a log (a results document's .jsonl), skipping a last line cut short by a kill."""
    cases = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    for line in lines:
        try:
            cases.append(json.loads(line))
        except ValueError:
            continue  # the line being written when the host died
    latest = {c.get("key"): c for c in cases}  # a case logged twice (resumed, re-run): the last wins
    return list(latest.values())
