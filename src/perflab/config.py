"""A project's own perflab settings: `[tool.perflab]` in pyproject.toml, or a perflab.toml.

    [tool.perflab]                 # perflab.toml: the same keys at the top level
    paths = ["benchmarks"]         # what `perflab run` / `perflab list` measure with no path given
    runtimes = "python3.11,python3.13"
    job = "short"
    store = "sqlite:///…/history.db"
    out = "perflab-results"
    exclude = ["vendor/*", "old_benchmarks"]
    measure = "time,instructions"  # what `perflab run` measures (see --measure)
    memory_limit = "2g"            # resident memory per worker (see --memory-limit)

The file is found by walking up from the working directory to the repository root (the folder with
.git), nearest first; paths and `out` are relative to the file's folder. Flags on the command line
win over the file. A bad file or key is a one-line UsageError naming both.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from .errors import UsageError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10
    import tomli as tomllib

# key → what it must be ("text", "list" of text, or "text or list" joined with commas)
KEYS = {"paths": "list", "runtimes": "text or list", "job": "text", "store": "text", "out": "text",
        "exclude": "list", "measure": "text or list", "memory_limit": "text"}


@dataclass
class Config:
    file: Path | None = None
    values: dict = field(default_factory=dict)

    @property
    def folder(self) -> Path:
        return self.file.parent if self.file else Path.cwd()

    def get(self, key: str):
        return self.values.get(key)


def find_file(start: Path) -> tuple[Path, dict] | None:
    """The nearest perflab.toml, or pyproject.toml with a [tool.perflab] table, from `start` up to the
    repository root; with the table it holds."""
    here = start.resolve()
    for folder in (here, *here.parents):
        own = folder / "perflab.toml"
        if own.is_file():
            return own, _read(own)
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            table = _read(pyproject).get("tool", {}).get("perflab")
            if table is not None:
                if not isinstance(table, dict):
                    raise UsageError(f"{pyproject}: [tool.perflab] must be a table")
                return pyproject, table
        if (folder / ".git").exists():  # the repository root: a project's settings end here
            return None
    return None


def _read(path: Path) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML ({exc})") from None


def validate(path: Path, table: dict) -> dict:
    """The table's values, checked: unknown keys and wrong types are errors naming file and key."""
    where = "[tool.perflab]" if path.name == "pyproject.toml" else ""
    out = {}
    for key, value in table.items():
        name = f"{path}: {where + ' ' if where else ''}'{key}'"
        kind = KEYS.get(key)
        if kind is None:
            raise UsageError(f"{name}: unknown key; perflab reads {', '.join(KEYS)}")
        is_list = isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)
        if kind == "text" and not (isinstance(value, str) and value.strip()):
            raise UsageError(f"{name}: must be a non-empty string")
        if kind == "list" and not is_list:
            raise UsageError(f"{name}: must be a list of non-empty strings, e.g. {key} = [\"…\"]")
        if kind == "text or list":
            if is_list:
                value = ",".join(value)
            elif not (isinstance(value, str) and value.strip()):
                raise UsageError(f"{name}: must be a string or a list of strings")
        if key == "measure":
            from .engine.measure import parse_measure
            parse_measure(value, where=name)
        if key == "memory_limit":
            from .engine.memory import parse_size
            parse_size(value, where=name)
        out[key] = value
    return out


def load(start: Path | None = None) -> Config:
    found = find_file(start or Path.cwd())
    if found is None:
        return Config()
    path, table = found
    return Config(path, validate(path, table))


def apply(args, config: Config) -> None:
    """Fill the flags the user did not give (None) from the project's file. Paths in the file are
    relative to its folder."""
    if getattr(args, "paths", None) == [] and config.get("paths"):
        args.paths = [str(config.folder / p) for p in config.get("paths")]
    for key in ("runtimes", "job", "store", "measure", "memory_limit"):
        if hasattr(args, key) and getattr(args, key) is None and config.get(key) is not None:
            setattr(args, key, config.get(key))
    store = config.get("store")
    if getattr(args, "store", None) == store and store and store.startswith("sqlite://") \
            and not store[len("sqlite://"):].startswith(("/", "~")):
        args.store = "sqlite://" + str(config.folder / store[len("sqlite://"):])  # the file's folder
    if hasattr(args, "out") and args.out is None and config.get("out"):
        args.out = str(config.folder / config.get("out"))
    if hasattr(args, "exclude"):
        args.exclude = list(config.get("exclude") or []) + list(args.exclude or [])
