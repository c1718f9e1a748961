"""Runtime specs (`python3.11`, `node22:--max-semi-space-size=64`, `/opt/py/bin/python3`) → Runtime objects.

A spec is `NAME_OR_PATH[:ITEMS]` where ITEMS are shell-split words: `KEY=VALUE` words become
environment variables of the worker process, all other words are flags for the runtime.
"""
from __future__ import annotations

import dataclasses
import os
import shlex
from pathlib import Path

from ..errors import UsageError
from ..model import Runtime
from ..toolchains import Toolchain


def parse_spec(spec: str) -> tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]:
    spec = spec.strip()
    if not spec:
        raise UsageError("--runtimes: empty runtime name; give names such as python3.11,python3.13")
    base, _, rest = spec.partition(":")
    try:
        words = shlex.split(rest)
    except ValueError as exc:
        raise UsageError(f"--runtimes: cannot parse flags of '{spec}': {exc}") from None
    flags, env = [], []
    for w in words:
        key, eq, val = w.partition("=")
        if eq and key.isidentifier() and key.upper() == key:
            env.append((key, val))
        else:
            flags.append(w)
    return base, tuple(flags), tuple(env)


def split_specs(text: str) -> list[str]:
    """Split `--runtimes` on commas between specs, keeping commas that belong to a spec's flags:
    `gcc12:-O2,gcc12:-O3` is two specs, `rust-stable:opt-level=3,lto=fat` is one. A piece that looks
    like a flag (`-x…`, or `key=value` without a `:`) continues the previous spec."""
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        continues = specs and ":" in specs[-1] and (
            piece.startswith("-") or (":" not in piece and "=" in piece
                                      and "/" not in piece.split("=")[0]))
        if continues:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def resolve(specs: list[str], toolchains: list[Toolchain]) -> list[Runtime]:
    """Turn specs into runtimes, or raise UsageError listing the available names. Toolchains are
    asked for their runtimes one at a time, only until every name is found: discovering every
    language's runtimes (probing Node, JDK, Go and compiler installations) took 0.4 s of a run that
    names one Python."""
    by_name: dict[str, Runtime] = {}
    pending = list(toolchains)

    def lookup(name: str | None) -> Runtime | None:
        """The runtime called `name`, discovering toolchains until it turns up (None: all of them)."""
        while (name is None or name not in by_name) and pending:
            for rt in pending.pop(0).discover_runtimes():
                by_name.setdefault(rt.name, rt)
        return by_name.get(name) if name is not None else None

    out: list[Runtime] = []
    for spec in specs:
        base, flags, env = parse_spec(spec)
        rt = None if os.sep in base else lookup(base)
        if rt is None and (os.sep in base or Path(base).exists()):
            for tc in toolchains:
                rt = tc.resolve_path(base)
                if rt is not None:
                    break
            if rt is None:
                lookup(None)  # every name, for the message
                raise UsageError(f"--runtimes: '{base}' is not a runtime perflab can use "
                                 "(give an interpreter/SDK path or one of: "
                                 f"{', '.join(sorted(by_name))})")
        if rt is None:
            names = ", ".join(sorted(by_name)) or "(none found)"
            raise UsageError(f"--runtimes: unknown runtime '{base}'; available: {names}")
        out.append(dataclasses.replace(rt, flags=flags, env=env))
    labels = [r.label for r in out]
    dupes = {label for label in labels if labels.count(label) > 1}
    if dupes:
        raise UsageError(f"--runtimes: '{sorted(dupes)[0]}' is listed twice")
    return out
