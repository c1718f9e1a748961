"""Steps several commands share: choosing runtimes, preparing them, checking the output folder."""
from __future__ import annotations

import tempfile
from pathlib import Path

from rich.text import Text

from .. import toolchains
from ..console import err
from ..engine.plan import find_sources, prepare
from ..errors import UsageError
from ..model import Runtime
from ..progress import Reporter
from ..report.escape import markup
from ..runtimes import resolve, split_specs


def select_runtimes(spec_text: str | None, languages: list[str],
                    sources: dict[str, list[Path]] | None = None) -> list[Runtime]:
    tcs = toolchains.all_toolchains()
    if spec_text and spec_text.strip() == "all":
        found = [rt for tc in tcs if tc.language in languages for rt in tc.discover_runtimes()
                 if rt.installed]
        if not found:
            raise UsageError("--runtimes all: no installed runtime found for "
                             f"{', '.join(languages)}")
        return found
    if spec_text:
        runtimes = resolve(split_specs(spec_text), tcs)
        unused = [r.label for r in runtimes if r.language not in languages]
        if unused:
            err.print(f"[yellow]note:[/yellow] no benchmarks for {markup(', '.join(unused))} here; "
                      "ignored")
        return [r for r in runtimes if r.language in languages]
    chosen, missing = [], []
    for lang in languages:
        tc = toolchains.get(lang)
        default = getattr(tc, "default_runtime", None)
        if default_for := getattr(tc, "default_runtime_for", None):
            # the toolchain picks by what the sources allow (Go: the module's `go` line) and says why
            rt, why = default_for((sources or {}).get(lang, []))
            if rt is not None and why:
                err.print(f"[dim]{markup(lang)}: {markup(why)}[/dim]", soft_wrap=True)
        else:
            rt = default() if default else next((r for r in tc.discover_runtimes() if r.installed), None)
        if rt is None:
            missing.append(lang)
        else:
            chosen.append(rt)
    if not chosen:
        raise UsageError(f"no runtime found for {', '.join(missing)}; install one or give --runtimes")
    if missing:
        # a folder with benchmarks in several languages runs what this machine can run
        err.print(f"[yellow]note:[/yellow] no runtime found for the {', '.join(missing)} benchmarks here; "
                  "they are skipped (install one or give --runtimes)", soft_wrap=True)
    return chosen


def prepare_all(paths: list[Path], spec_text: str | None, timeout: float, workdir: Path,
                exclude: list[str] = (), reporter: Reporter | None = None, memory_limit: int = 0):
    sources = find_sources(paths, toolchains.all_toolchains(), exclude)
    if not sources:
        known = "; ".join(f"{tc.language}: {tc.patterns}" for tc in toolchains.all_toolchains())
        raise UsageError(f"no benchmark files under {', '.join(map(str, paths))} (looked for {known})")
    runtimes = select_runtimes(spec_text, list(sources), sources)
    if not runtimes:
        raise UsageError("none of the given runtimes matches the benchmarks' languages "
                         f"({', '.join(sources)})")
    prepared = []
    reporter = reporter or Reporter(err)
    for rt in runtimes:
        prep = prepare(rt, toolchains.get(rt.language), sources[rt.language], workdir, timeout,
                       step=reporter.step, memory_limit=memory_limit)
        if prep.error:
            err.print(Text.assemble((f"{rt.label}:", "red"), f" {prep.error}"), soft_wrap=True)
        prepared.append(prep)
    return prepared


def prepare_revisions(names: list[str], paths: list[Path], spec_text: str | None, timeout: float,
                      workdir: Path, exclude: list[str] = (), reporter: Reporter | None = None,
                      memory_limit: int | None = None):
    """`--rev`: every revision prepared with every runtime, in the order the revisions were given
    (the first is the baseline of `Ratio vs`). Returns (prepared, revisions)."""
    from ..revisions import as_revision, materialise, paths_in, repository_of
    top = repository_of(paths[0] if paths else Path.cwd())
    revisions = materialise(names, top, workdir / "revisions")
    prepared = []
    reporter = reporter or Reporter(err)
    for i, rev in enumerate(revisions):
        if not reporter.quiet:
            err.print(Text(f"revision {rev.name}: {rev.commit[:12]}{' +changes' if rev.commit.endswith('+changes') else ''}"
                           f" ({rev.root})"), soft_wrap=True)
        for p in prepare_all(paths_in(rev, paths or [Path.cwd()], top), spec_text, timeout,
                             workdir / f"rev{i}-build", exclude, reporter, memory_limit=memory_limit):
            as_revision(p, rev, top)
            prepared.append(p)
    return prepared, revisions


def check_out_dir(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".perflab-write-test-"):
            pass
    except OSError as exc:
        raise UsageError(f"--out {path}: not writable ({exc.strerror or exc}); "
                         "choose a folder you can write to") from None


