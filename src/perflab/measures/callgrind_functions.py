"""Where a counted run's instructions went (`--measure instructions`): self and inclusive Ir per
function, read from the callgrind dump of the measured workload run (measures/callgrind.py writes
one dump per run, names uncompressed).

In a dump, cost lines after `fn=NAME` are NAME's own (self) cost; a `calls=` line is followed by one
cost line that is the inclusive cost of that call, which counts towards NAME's inclusive cost. A
recursive function's inclusive cost counts its recursive calls again (callgrind's own tools show
the same, unless cycles are detected): the self column has no such ambiguity.
"""
from __future__ import annotations

import re

TOP = 40  # functions kept per case: by self cost, then those with the largest inclusive cost

_NAME = re.compile(r"^\(\d+\)\s*")


def _name(value: str) -> str:
    """A name as written with or without string compression: `(12) name` or `name`."""
    return _NAME.sub("", value.strip()) or value.strip()


def parse_functions(text: str, event: str = "Ir") -> dict[str, tuple[int, int]]:
    """{function: (self, inclusive)} of `event` in one callgrind dump."""
    events: list[str] = []
    col = 0
    names: dict[str, str] = {}  # compressed ids, "(12)" -> name
    self_: dict[str, int] = {}
    incl: dict[str, int] = {}
    fn = None
    in_call = False
    for line in text.splitlines():
        if not line:
            continue
        c = line[0]
        if c.isdigit() or c in "+-*":
            if fn is None:
                continue
            parts = line.split()
            # positions (line only: positions: line) then the events
            try:
                cost = int(parts[1 + col]) if len(parts) > 1 + col else 0
            except ValueError:
                cost = 0
            if in_call:
                incl[fn] = incl.get(fn, 0) + cost
                in_call = False
            else:
                self_[fn] = self_.get(fn, 0) + cost
                incl[fn] = incl.get(fn, 0) + cost
            continue
        if line.startswith("events:"):
            events = line.split(":", 1)[1].split()
            col = events.index(event) if event in events else 0
        elif line.startswith("fn="):
            fn = _resolve(line[3:], names)
            self_.setdefault(fn, 0)
            incl.setdefault(fn, 0)
        elif line.startswith("cfn="):
            _resolve(line[4:], names)
        elif line.startswith("calls="):
            in_call = True
    return {f: (self_.get(f, 0), incl.get(f, 0)) for f in self_ if self_.get(f, 0) or incl.get(f, 0)}


def _resolve(value: str, names: dict[str, str]) -> str:
    m = re.match(r"^\((\d+)\)\s*(.*)$", value.strip())
    if not m:
        return value.strip()
    if m.group(2):
        names[m.group(1)] = m.group(2)
        return m.group(2)
    return names.get(m.group(1), value.strip())


def per_op_table(functions: dict[str, tuple[int, int]], ops: int, top: int = TOP) -> list[list]:
    """[[function, self Ir per op, inclusive Ir per op], ...]: the `top` largest by self cost, and
    the `top // 4` largest by inclusive cost besides (the callers a regression runs through)."""
    ops = max(ops, 1)
    by_self = sorted(functions.items(), key=lambda kv: (-kv[1][0], kv[0]))[:top]
    chosen = dict(by_self)
    for name, v in sorted(functions.items(), key=lambda kv: (-kv[1][1], kv[0]))[:top // 4]:
        chosen.setdefault(name, v)
    return [[name, round(s / ops, 4), round(i / ops, 4)]
            for name, (s, i) in sorted(chosen.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[0]))]
