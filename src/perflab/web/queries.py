"""What the dashboard's pages show, read through the store's interface (bound parameters only).

The server is read-only and long-lived, so it keeps what cannot change: a run's provenance is written
once when it begins, and a finished run's case counts never change afterwards. What depends on the
whole history (the benchmark list, every change point) is kept until the store's state moves.
"""
from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ..policy import DEFAULT
from ..history import Change, StoredCases, find_changes
from ..provenance import Provenance, provenance
from ..store import Store

RUNS_PER_PAGE = 100
CACHED = 64  # results kept per store state: the pages people flip between
SERIES_REMEMBERED = 100_000  # series whose change points are kept (a few hundred bytes each)
SORTS = ("started", "label", "revision", "cases", "failed")


@dataclass
class RunRow:
    id: int
    started: str
    finished: str | None
    complete: bool
    prov: Provenance
    cases: int
    failed: int

    def matches(self, text: str) -> bool:
        hay = " ".join([self.prov.label, self.prov.commit, self.prov.branch, self.prov.command,
                        " ".join(self.prov.runtimes), " ".join(self.prov.paths), str(self.id)]).lower()
        return all(word in hay for word in text.lower().split())


@dataclass
class Point:
    run_id: int
    x: str                    # the run's date or commit, as the axis shows it
    mean: float | None
    low: float | None
    high: float | None
    status: str


@dataclass
class CountPoint:
    """A run that counted the case's instructions (`--measure instructions`)."""
    run_id: int
    x: str
    ir: float | None         # per-op Ir; None when the runtime could not be counted
    spread: str              # the launches' spread, as text ("" when not counted)
    note: str                # why it was not counted, or the count's own note
    step: str = ""           # "+1.00%" when compare would call this run different from the last


@dataclass
class Series:
    key: str
    runtime: str
    params: dict[str, str]
    points: list[Point] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    counts: list[CountPoint] = field(default_factory=list)
    # who measured its runs: "perflab", or the harness an imported run came from → run ids
    sources: dict[str, list[int]] = field(default_factory=dict)

    @property
    def params_text(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.params.items()) or "-"


class History:
    def __init__(self, store: Store):
        self.store = store
        self._runs: dict[int, dict[str, Any]] = {}        # id → provenance, started (never change)
        self._finished_counts: dict[int, tuple[int, int]] = {}
        self._series_changes: dict[tuple, list[Change]] = {}  # a series' exact points → changes
        self._memo_lock = threading.Lock()
        self._by_state: OrderedDict[str, tuple[Any, Any]] = OrderedDict()  # name → (state, value)

    # -- runs ----------------------------------------------------------------------------------
    def _cached(self, name: str, compute):
        """compute(), or what it gave while the store's state was the same (the last CACHED pages)."""
        state = self.store.state()
        hit = self._by_state.get(name)
        if hit is None or hit[0] != state:
            hit = (state, compute())
            self._by_state[name] = hit
            while len(self._by_state) > CACHED:
                self._by_state.popitem(last=False)
        self._by_state.move_to_end(name)
        return hit[1]

    def runs(self) -> list[RunRow]:
        return self._cached("runs", lambda: self.load_runs(self.store))

    def load_runs(self, store: Store) -> list[RunRow]:
        """Every run with its provenance and counts. Only what may have changed is read: the
        provenance of runs not seen before, the counts of runs not finished when last seen."""
        known = max(self._runs, default=0)
        for r in store.run_records(after=known):
            self._runs.setdefault(r["id"], {"prov": provenance(r), "started": r["started"]})
        states = store.run_states()
        unknown = [rid for rid, *_ in states if rid not in self._finished_counts]
        counts = dict(self._finished_counts)
        if unknown:
            counts.update(store.case_counts(since_run=min(unknown) - 1))
        rows = []
        for rid, started, finished, complete in states:
            c, f = counts.get(rid, (0, 0))
            if finished is not None:
                self._finished_counts[rid] = (c, f)
            rows.append(RunRow(rid, started, finished, complete, self._runs[rid]["prov"], c, f))
        return rows

    def run_page(self, q: str = "", status: str = "", sort: str = "started", order: str = "desc",
                 page: int = 1) -> tuple[list[RunRow], int, int]:
        """The runs to show (filtered, sorted, one page), the number that matched, the page count."""
        rows = self.runs()
        if q:
            rows = [r for r in rows if r.matches(q)]
        if status == "complete":
            rows = [r for r in rows if r.complete]
        elif status == "incomplete":
            rows = [r for r in rows if not r.complete]
        elif status == "failures":
            rows = [r for r in rows if r.failed]
        key = {"started": lambda r: (r.started, r.id), "label": lambda r: (r.prov.label, r.id),
               "revision": lambda r: (r.prov.revision, r.id), "cases": lambda r: (r.cases, r.id),
               "failed": lambda r: (r.failed, r.id)}[sort if sort in SORTS else "started"]
        rows = sorted(rows, key=key, reverse=order != "asc")
        pages = max(1, math.ceil(len(rows) / RUNS_PER_PAGE))
        page = min(max(page, 1), pages)
        return rows[(page - 1) * RUNS_PER_PAGE: page * RUNS_PER_PAGE], len(rows), pages

    def run_info(self, run_id: int) -> dict[str, Any]:
        meta = self.store.run(run_id)
        return {**meta, "prov": provenance(meta)}

    def axis_label(self, run_id: int, axis: str) -> str:
        r = self._runs.get(run_id)
        if r is None:
            self.runs()
            r = self._runs.get(run_id, {"prov": Provenance(), "started": "?"})
        tool = f" ({r['prov'].source})" if r["prov"].source else ""  # an imported run names its harness
        if axis == "commit":
            return f"#{run_id} {r['prov'].short_commit or 'no commit'}{tool}"
        return f"#{run_id} {r['started'][:16].replace('T', ' ')}{tool}"

    def source_of(self, run_id: int) -> str:
        """The harness that measured a run: perflab, or the tool an imported run came from."""
        r = self._runs.get(run_id)
        return (r["prov"].source if r else "") or "perflab"

    # -- benchmarks ----------------------------------------------------------------------------
    def benchmarks(self) -> list[tuple[str, int]]:
        return self._cached("benchmarks", self.store.benchmark_names)

    def benchmark(self, name: str, axis: str = "date", min_shift: float = DEFAULT.history.min_shift) -> list[Series]:
        """The series of one benchmark, one per (runtime, params), with their change points."""
        def compute():
            rows = self.store.benchmark_series(name)
            series: dict[str, Series] = {}
            records: dict[str, list[dict]] = {}  # each series' counts records, for its steps
            for r in rows:
                s = series.setdefault(r["key"], Series(r["key"], r["runtime"], r["params"]))
                s.points.append(Point(r["run_id"], self.axis_label(r["run_id"], axis), r["mean_ns"],
                                      r["ci_low_ns"], r["ci_high_ns"], r["status"]))
                s.sources.setdefault(self.source_of(r["run_id"]), []).append(r["run_id"])
                if r.get("counts") is not None:
                    s.counts.append(_count_point(r, self.axis_label(r["run_id"], axis)))
                    records.setdefault(r["key"], []).append(r["counts"])
            for key, counts in records.items():
                _mark_steps(series[key].counts, counts)
            for ch in self._changes_of(self.store, rows, min_shift):
                series[ch.key].changes.append(ch)
            return sorted(series.values(), key=lambda s: (s.params_text, s.runtime))
        return self._cached(f"benchmark\0{name}\0{axis}\0{min_shift}", compute)

    # -- regressions ---------------------------------------------------------------------------
    def changes(self, min_shift: float = DEFAULT.history.min_shift) -> list[tuple[Change, dict[str, Any]]]:
        """Every change point of every series, largest shift first, with its series' identity."""
        def compute():
            return self.every_change(self.store, min_shift)
        return self._cached(f"changes@{min_shift}", compute)

    def warm(self, store: Store) -> int:
        """What the first visitors would wait for, computed on `store` (serve's own connection, in a
        thread of its own): every run's provenance and counts, every series' change points."""
        self.load_runs(store)
        return len(self.every_change(store))

    def every_change(self, store: Store, min_shift: float = DEFAULT.history.min_shift
                     ) -> list[tuple[Change, dict[str, Any]]]:
        rows = store.all_means()
        ident = {r["key"]: r for r in rows}
        found = self._changes_of(store, rows, min_shift)
        found.sort(key=lambda c: -abs(math.log(c.after_mean / c.before_mean)))
        return [(c, ident[c.key]) for c in found]

    def _changes_of(self, store: Store, rows: list[dict[str, Any]], min_shift: float) -> list[Change]:
        """find_changes per series, each remembered by its exact points: a series no run has added
        to since is not tested again (a permutation test over 1,000 runs takes a good fraction of
        a second), and the benchmark and regressions pages share what either computed."""
        by_key: dict[str, list[dict[str, Any]]] = {}
        for r in rows:
            by_key.setdefault(r["key"], []).append(r)
        out = []
        for key, points in by_key.items():
            # the points' hash, not the points: 500 series of 1,000 runs would hold 100 MB
            memo = (key, min_shift, len(points),
                    hash(tuple((p["run_id"], p["status"], p["mean_ns"]) for p in points)))
            found = self._series_changes.get(memo)
            if found is None:
                found = find_changes(points, min_shift, StoredCases(store))
                with self._memo_lock:  # serve's warm-up thread fills it too
                    self._series_changes[memo] = found
                    while len(self._series_changes) > SERIES_REMEMBERED:
                        self._series_changes.pop(next(iter(self._series_changes)))
            out += found
        return out


def _count_point(row: dict[str, Any], x: str) -> CountPoint:
    from ..count_verdicts import per_op, spread
    counts = row["counts"]
    ir = per_op(counts)
    sp = spread(counts) if ir is not None else None
    note = f"not counted: {counts['error']}" if counts.get("error") else str(counts.get("note") or "")
    text = "" if ir is None else "one launch" if sp is None else f"{sp:.3%}" + (
        "" if counts.get("agreed", True) else " (did not agree)")
    return CountPoint(row["run_id"], x, ir, text, note)


def _mark_steps(points: list[CountPoint], counts: list[dict]) -> None:
    """The step of each counted run from the one counted before it, where compare would call them
    different (perflab.history.count_steps: the same rule as `history --changes`)."""
    from ..history import count_steps
    from ..count_verdicts import per_op
    counted = [(p, c) for p, c in zip(points, counts) if per_op(c) is not None]
    for i in count_steps([{"counts": c} for _, c in counted], DEFAULT.change.count_threshold):
        before, after = counted[i - 1][0], counted[i][0]
        after.step = f"{after.ir / before.ir - 1:+.2%}"
