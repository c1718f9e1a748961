"""Where a run's finished cases go, at a host cost per case that does not grow with the run.

Per case (O(1) in the run's size):
- the case is judged with the cases it is compared with alone (its *neighbourhood*: same language,
  group and parameters: every case its two ratios can pair it with, perflab.ratios), for the
  progress line and the history store;
- one JSON line is appended to the log beside the results and flushed: what a `kill -9` cannot take
  away (the store, when there is one, holds the same and is what `--resume` reads).

Per interval (every `interval_s`, and never more than a tenth of the host's time): the whole run is
judged and the results document rewritten. At the end: once more, complete. The document was
rewritten after every case before: that is quadratic (300 cases: half the host's time in json.dump).
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
from .results import document, row_to_json, write_atomic

DOCUMENT_INTERVAL_S = 30.0
# a rewrite that costs c seconds waits at least c × this: the document never takes more than a
# tenth of the host's time, however large the run
MAX_DOCUMENT_SHARE = 0.1


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
                 interval_s: float = DOCUMENT_INTERVAL_S, clock: Callable[[], float] = time.monotonic):
        self.job, self.environment, self.command, self.started = job, environment, command, started
        self.runtime_order = runtime_order
        self.json_path = json_path
        self.log_path = json_path.with_suffix(".jsonl") if json_path is not None else None
        self.on_cases = on_cases  # each finished case's JSON, as the log has it (the store takes it)
        self.baseline_groups = set(baseline_groups)
        self.interval_s, self.clock = interval_s, clock
        self.results: list[CaseResult] = []
        self._near: dict[tuple, list[CaseResult]] = {}
        self._estimates: dict = {}  # finished cases' estimates: samples never change once finished
        self._log = None
        self._next_write = clock() + interval_s
        self.document_writes = 0

    def extend(self, results: list[CaseResult]) -> None:
        """Cases known before measuring starts (resumed, failed or absent ones): no per-case work."""
        for r in results:
            self._remember(r)

    def _remember(self, result: CaseResult) -> None:
        self.results.append(result)
        self._near.setdefault(neighbourhood(result, self.baseline_groups), []).append(result)

    def _analyse(self, results: list[CaseResult]) -> list[Row]:
        return analyse(results, self.job.confidence, self.job.target_rel_error, self.job.overhead,
                       self.runtime_order, self._estimates)

    def add(self, result: CaseResult) -> Row:
        """A case finished: judge it among its neighbours, log it, store it; the document only when
        the interval is up. Returns its (provisional) row."""
        self._remember(result)
        near = self._near[neighbourhood(result, self.baseline_groups)]
        rows = self._analyse(near)
        mine = next(r for r in rows if r.result is result)
        case = row_to_json(mine)  # once: the log and the store take the same JSON
        self._append_log(case)
        self.on_cases([case])
        if self.clock() >= self._next_write:
            self.write(complete=False)
        return mine

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
        """Judge the whole run and rewrite the document; returns the rows."""
        t0 = self.clock()
        rows = self._analyse(self.results)
        if self.json_path is not None:
            write_atomic(self.json_path, document(rows, self.job, self.environment, self.command,
                                                  self.started, complete))
            self.document_writes += 1
        cost = self.clock() - t0
        self._next_write = self.clock() + max(self.interval_s, cost / MAX_DOCUMENT_SHARE)
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
        if self._log is not None:
            self._log.close()
            self._log = None


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
