"""`perflab report RESULT.json… --title "…" [--out DIR]`: the seeds' report from perflab results.

Writes an index (`<stem>.md`, `<stem>.html`) and one page per language family
(`<stem>-<language>.md/.html`, plots as PNG files beside the Markdown), each HTML file self-contained
(inline CSS, plots embedded as base64 PNG: it opens without a network). A family page compares the
family's pair (perflab.report.families: its first and last runtime, oldest → newest in the main job):
a summary (geometric mean of the ratios, wins, losses: perflab.report.family), then, like the seed
documents, a part per seed, a section per seed section (from each benchmark's `meta`: `seed`,
`section`; benchmarks without them go to "Other"), and in each section

- the table `Method | Runtime | Params | Mean | Ratio | Allocated`,
- a plot of every ratio against the family's oldest runtime with its 99.9 % interval,
- for every claim a seed made with figures, the seed's figure beside ours, the comparison that
  stands for it and whether ours confirms it (rules: perflab.report.claims, `CLAIM_RULE`).

A claim (the registry `seed_claims.json`, or a benchmark's own `meta["claim"]`) is a string (shown,
not checked) or a dict::

    {"text": "Ubuntu: PreallocationSize False 96.65 ms → True 43.70 ms",
     "before_ms": 96.65, "after_ms": 43.70,        # or before_us/after_us, before_ns/after_ns
     "expect": "faster",                           # "faster" | "slower" | "same" (default: from figures)
     "params": {"fileSize": "1048576"},            # optional: only these cases
     "comparison": {"param": "specifyPreallocationSize", "values": ["False", "True"]}}
                # or {"methods": ["Write", "WriteGather"]} (two methods of the section),
                # or "versions" (the default): the family's oldest → newest runtime.
"""
from __future__ import annotations

from types import SimpleNamespace

import argparse
import base64
import datetime as dt
import html
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..policy import DEFAULT
from ..units import format_time
from . import seeds_counts as counts_section
from ..judge import confidence_text
from .claims import Claim, claim_rule, claims_of
from .plots import ratio_plot_png
from ..ratios import DEFINITION as RATIO_DEFINITION
from .escape import md_cell
from .results_view import (Report, Section, _params_text, is_numeric_column, load_report, section_rows,
                           sections_of, seed_heading, table_cells)

# -- rendering ----------------------------------------------------------------------------------

def _env_lines(report: Report) -> list[tuple[str, str]]:
    out = []
    env = next((d.get("environment") for d in report.docs if isinstance(d.get("environment"), dict)), {})
    cpu = env.get("cpu") or {}
    if cpu:
        out.append(("CPU", f"{cpu.get('model', '?')}, {cpu.get('logical_cores', '?')} logical cores"))
    os_ = env.get("os") or {}
    if os_:
        out.append(("OS", f"{os_.get('system', '')} {os_.get('release', '')} {os_.get('machine', '')}".strip()))
    versions = {}
    for d in report.docs:
        for rt in (d.get("environment") or {}).get("runtimes") or []:
            if isinstance(rt, dict):
                versions.setdefault(rt.get("label") or rt.get("name"), rt)
    for c in report.cases:
        versions.setdefault(c.runtime, c.raw.get("runtime") or {})
    rts = []
    for label in report.runtimes:
        rt = versions.get(label) or {}
        extra = " ".join(x for x in (rt.get("implementation"), rt.get("version")) if x)
        rts.append(f"{label}" + (f" ({extra})" if extra else "")
                   + (" — baseline" if label in report.baselines else ""))
    out.append(("Runtimes", "; ".join(rts)))
    jobs = sorted({str((d.get("job") or {}).get("name", "?")) for d in report.docs})
    out.append(("Job", ", ".join(jobs)))
    return out


def _provenance_md(report: Report) -> list[str]:
    """Where the figures come from, at the end of the page: the seeds open with the change and what
    it bought, not with a page of file paths and notes (issue 39)."""
    md = ["", "## About these results", ""] + [f"- results file: {md_cell(p)}" for p in report.paths]
    md += [""] + [f"> note: {md_cell(n)}" for n in report.notes]
    return md


def _provenance_html(report: Report) -> list[str]:
    out = ['<h2 id="about">About these results</h2><ul class="paths">'
           + "".join(f"<li><code>{html.escape(p)}</code></li>" for p in report.paths) + "</ul>"]
    out += [f'<p class="note">note: {html.escape(n)}</p>' for n in report.notes]
    return out


_md_escape = md_cell  # every cell: `|`, backslashes, newlines, HTML (perflab.report.escape)


def _md_table(columns: list[str], rows: list[list[str]], escaped: bool = False) -> list[str]:
    """`escaped`: the rows' cells are Markdown already (links whose text went through md_cell)."""
    cell = (lambda x: x) if escaped else _md_escape
    out = ["| " + " | ".join(_md_escape(c) for c in columns) + " |",
           "|" + "|".join("---:" if is_numeric_column(c) else "---" for c in columns) + "|"]
    out += ["| " + " | ".join(cell(x) for x in r) + " |" for r in rows]
    return out


def _claim_rows(claim: Claim) -> list[list[str]]:
    if not claim.checks:
        return [[claim.text, claim.seed_text(), "—", "—", claim.note or "not checked", "—", ""]]
    rows = []
    for ch in claim.checks:
        ours = "—"
        if ch.before.ok and ch.after.ok:
            ours = f"{format_time(ch.before.mean)} → {format_time(ch.after.mean)}"
            ours += f" (×{ch.ratio.text()})" if ch.ratio else ""
        rows.append([claim.text, claim.seed_text(), ch.comparison, ours, ch.shown_verdict, ch.seed_inside,
                     ch.note])
    return rows


def section_sentence(claims: list[Claim]) -> str:
    """The sentence a section opens with, as the seeds open theirs with the change and what it bought:
    what the seed claimed, our figure and the verdict (the comparison that decides, else why none does)."""
    if not claims:
        return "The seed states no figure here that we check: the table compares the family's runtimes."
    parts = []
    for cl in claims:
        seed = f" (×{cl.seed_ratio:.2f})" if cl.seed_ratio else ""
        head = f"The seed claims {cl.text.rstrip('.')}{seed}"
        if cl.mechanism:
            head += f", crediting {cl.mechanism.rstrip('.')}"
        deciding = cl.deciding
        if deciding:
            ch = deciding[0]
            fig = f"×{ch.ratio.text()}" if ch.ratio else "no figure"
            parts.append(f"{head}. Ours: {fig} on {ch.comparison} — **{cl.overall}**.")
            continue
        shown = next((c for c in cl.checks if c.analogue), cl.checks[0] if cl.checks else None)
        if shown is None:
            parts.append(f"{head}. Ours: {cl.note or 'not measured'} — **{cl.overall}**.")
        else:
            fig = f"×{shown.ratio.text()}" if shown.ratio else "no figure"
            parts.append(f"{head}. Ours: {fig} on {shown.comparison}, **{cl.overall}**, not counted: {shown.note}.")
    return " ".join(parts)



CLAIM_COLUMNS = ["Seed claim", "Seed figure", "Our comparison", "Our figure (99.9 % CI)",
                 "Verdict", "Seed ratio in our CI", "Note"]


def _verdict_class(verdict: str) -> str:
    """CSS class of a verdict cell: the verdict's last word (partly confirmed → confirmed)."""
    words = verdict.split()
    return "reference" if verdict in ("for reference", "for reference only") else (words[-1] if words else "")


@dataclass
class Rendered:
    markdown: str
    html: str
    plots: dict[str, bytes]


def flame_link(row, files: dict[str, bytes], folder: str) -> str:
    """The HTML after a row's method: a link to its flame graph page (added to `files`, written into
    `folder` beside the page), or why it has no profile; '' when it was not profiled."""
    from .flame import _function_rows, case_page, functions_page
    from ..engine.profile import case_slug
    from ..measures.profile import stacks_of
    raw = row.case.raw if isinstance(row.case.raw, dict) else {}
    p, counts = raw.get("profile"), raw.get("counts")
    slug = case_slug(SimpleNamespace(key=f"{row.case.key}@{row.case.runtime}"))
    label = f"{row.method} ({_params_text(row.case)}) @ {row.case.runtime}"
    out = ""
    if isinstance(p, dict) and p.get("error"):
        out += f' <small title="{html.escape(str(p["error"]))}">(no profile)</small>'
    elif stacks_of(p):
        files[f"flame-{slug}.html"] = case_page(label, p).encode()
        out += f' <a class="flame" href="{html.escape(folder)}/flame-{html.escape(slug)}.html">flame graph</a>'
    if isinstance(counts, dict) and _function_rows(counts):
        files[f"functions-{slug}.html"] = functions_page(label, counts).encode()
        out += (f' <a class="functions" href="{html.escape(folder)}/functions-{html.escape(slug)}.html">'
                "instructions by function</a>")
    return out


def render(report: Report, plots_dir_name: str, preamble: tuple[list[str], list[str]] = ([], []),
           index_link: str | None = None, details: tuple[list[str], list[str]] = ([], [])) -> Rendered:
    """One page: the seeds' sections of `report`. Its first screen is `preamble` (Markdown lines, HTML
    fragments: the family's summary) and the claims at a glance; then the set-up, `details` (the biggest
    wins and losses) and how to read it; `index_link` (a file name beside this page) links back to the
    index."""
    generated = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    sections = sections_of(report)
    md: list[str] = [f"# {md_cell(report.title)}", "",
                     f"Generated by `perflab report` on {generated}."
                     + (f" Back to [the index]({index_link}.md)." if index_link else ""), ""]
    md += preamble[0]
    overview_at = len(md)  # the claims at a glance go here, right after the summary
    md += [""] + [f"- **{k}**: {md_cell(v)}" for k, v in _env_lines(report)] + [""] + details[0]
    md += ["", RATIO_DEFINITION + f" Baseline runtime: **{md_cell(report.baseline)}**; the plots show "
           f"**Ratio vs** it with its {confidence_text(report.confidence)} confidence interval. **Claims**: "
           + claim_rule(report.confidence), ""]
    overview: list[tuple[Section, Claim]] = []
    plots: dict[str, bytes] = {}
    toc: list[str] = []
    body: list[str] = []
    summary: dict[str, int] = {}
    last_seed = None
    for i, s in enumerate(sections):
        if s.seed != last_seed:
            heading = seed_heading(s.seed)
            md += ["", f"## {heading}", ""]
            body.append(f'<h2 id="seed-{html.escape(s.seed or "other")}">{html.escape(heading)}</h2>')
            toc.append(f'<li><a href="#seed-{html.escape(s.seed or "other")}">{html.escape(heading)}</a><ul>')
            if last_seed is not None:
                toc[-1] = "</ul></li>" + toc[-1]
            last_seed = s.seed
        rows = section_rows(report, s)
        cols, cells = table_cells(rows)
        claims = claims_of(report, s)
        sec_title = s.name if s.seed else "Benchmarks without seed metadata"
        md += [f"### {md_cell(sec_title)}", ""]
        toc.append(f'<li><a href="#{s.anchor}">{html.escape(sec_title)}</a></li>')
        body.append(f'<section id="{s.anchor}"><h3>{html.escape(sec_title)}</h3>')
        overview += [(s, cl) for cl in claims]
        if s.seed:  # the seed's claim, our figure and the verdict, in one sentence, before any table
            sentence = section_sentence(claims)
            md += [md_cell(sentence).replace("\\*\\*", "**"), ""]
            body.append(f'<p class="lead">{_md_bold_to_html(html.escape(sentence))}</p>')
        md += _md_table(cols, cells) + [""]
        body.append('<table class="results"><thead><tr>' + "".join(
            f'<th class="{"num" if is_numeric_column(c) else ""}">{html.escape(c)}</th>'
            for c in cols) + "</tr></thead><tbody>")
        prev = None
        for row, r in zip(cells, rows):
            sep = ' class="first"' if prev is not None and r.case.key != prev else ""
            prev = r.case.key
            flame = flame_link(r, plots, plots_dir_name)  # a profiled case links its flame graph
            body.append(f"<tr{sep}>" + "".join(
                f'<td class="{"num" if is_numeric_column(c) else ""}">{html.escape(x)}'
                f'{flame if j == 0 else ""}</td>'
                for j, (c, x) in enumerate(zip(cols, row))) + "</tr>")
        body.append("</tbody></table>")
        if claims:  # every comparison that stands for a claim, deciding or not, after the results
            crow = [r for cl in claims for r in _claim_rows(cl)]
            md += ["**Claims**", ""] + _md_table(CLAIM_COLUMNS, crow) + [""]
            body.append('<h4>Claims</h4><table class="claims"><thead><tr>'
                        + "".join(f"<th>{html.escape(c)}</th>" for c in CLAIM_COLUMNS) + "</tr></thead><tbody>")
            for r in crow:
                cls = _verdict_class(r[4])
                body.append("<tr>" + "".join(
                    f'<td class="v-{html.escape(cls)}">{html.escape(x)}</td>' if j == 4
                    else f"<td>{html.escape(x)}</td>"
                    for j, x in enumerate(r)) + "</tr>")
            body.append("</tbody></table>")
        # instruction counts, where the results have them: a table of their own, never time columns
        md += counts_section.markdown(report, rows)
        body.append(counts_section.html_fragment(report, rows))
        many = len({r.case.key for r in rows}) >= DEFAULT.claims.plot_min_cases
        png = many and ratio_plot_png(report, rows, f"{seed_heading(s.seed)} · {sec_title}" if s.seed else sec_title)
        if png:
            fname = f"{i:02d}-{s.anchor}.png"
            plots[fname] = png
            md += [f"![ratios against {md_cell(report.baseline)}: {md_cell(sec_title)}]"
                   f"({plots_dir_name}/{fname})", ""]
            body.append(f'<figure><img alt="ratios against {html.escape(report.baseline)}: '
                        f'{html.escape(sec_title)}" src="data:image/png;base64,'
                        f'{base64.b64encode(png).decode("ascii")}"></figure>')
        notes = []
        for r in rows:
            where = f"{r.method} ({_params_text(r.case)}) @ {r.case.runtime}"
            if r.case.absent:
                notes.append(f"{where}: NA: {r.case.absent}")
            elif not r.case.ok:
                notes.append(f"{where}: FAILED: {r.case.error}")
            notes += [f"{where}: {w}" for w in r.case.warnings]
        if notes:
            md += (["<details><summary>Warnings</summary>", ""] + [f"- {_md_escape(n)}" for n in notes]
                   + ["", "</details>", ""])
            body.append("<details><summary>Warnings ({})</summary><ul>".format(len(notes))
                        + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul></details>")
        body.append("</section>")
    if toc:
        toc.append("</ul></li>")
    for _, cl in overview:
        summary[cl.overall] = summary.get(cl.overall, 0) + 1
    verdicts = ", ".join(f"{k}: {v}" for k, v in sorted(summary.items())) or "no claims checked"
    ov_cols = ["Seed", "Section", "Claim", "How it is checked", "Verdict"]
    ov_rows = [[s.seed, s.name, cl.text, cl.checked_as, cl.overall] for s, cl in overview]
    if ov_rows:
        md[overview_at:overview_at] = (["", "## Claims at a glance", ""] + _md_table(ov_cols, ov_rows)
                                       + [""])
    md.insert(4, f"Claims: {verdicts}.")
    md.insert(5, "")
    head = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{html.escape(report.title)}</title>", f"<style>{_CSS}</style></head><body>",
            f"<h1>{html.escape(report.title)}</h1>",
            f'<p class="meta">Generated by <code>perflab report</code> on {html.escape(generated)}. '
            f"Claims: {html.escape(verdicts)}."
            + (f' <a href="{html.escape(index_link)}.html">Back to the index</a>.' if index_link else "")
            + "</p>"]
    head += preamble[1]
    how = (f'<p class="how">{_md_bold_to_html(html.escape(RATIO_DEFINITION))} Baseline runtime: '
           f"<b>{html.escape(report.baseline)}</b>; the plots show <b>Ratio vs</b> it with its "
           f"{confidence_text(report.confidence)} confidence interval (hollow marker: no interval). "
           f"<b>Claims</b>: {_md_bold_to_html(html.escape(claim_rule(report.confidence)))}</p>")
    if ov_rows:
        head.append('<h2 id="claims">Claims at a glance</h2><table class="claims"><thead><tr>'
                    + "".join(f"<th>{html.escape(c)}</th>" for c in ov_cols) + "</tr></thead><tbody>")
        for (s, cl), r in zip(overview, ov_rows):
            cls = _verdict_class(r[4])
            head.append(f"<tr><td>{html.escape(r[0])}</td><td><a href=\"#{s.anchor}\">"
                        f"{html.escape(r[1])}</a></td><td>{html.escape(r[2])}</td>"
                        f'<td>{html.escape(r[3])}</td><td class="v-{html.escape(cls)}">'
                        f"{html.escape(r[4])}</td></tr>")
        head.append("</tbody></table>")
    head.append('<dl class="setup">' + "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>"
                                               for k, v in _env_lines(report)) + "</dl>")
    head += details[1]
    head.append(how)
    head.append('<nav><h2>Contents</h2><ul>' + "".join(toc) + "</ul></nav>")
    md += _provenance_md(report)
    page = "\n".join(head + body + _provenance_html(report) + ["</body></html>", ""])
    return Rendered("\n".join(md) + "\n", page, plots)


def _md_bold_to_html(s: str) -> str:
    return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", s)


_CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1200px;
padding:0 1em;color:#222;line-height:1.4}
h1{border-bottom:2px solid #ddd;padding-bottom:.3em}h2{margin-top:2em;border-bottom:1px solid #eee}
table{border-collapse:collapse;margin:.8em 0;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 8px;vertical-align:top}th{background:#f4f4f4;text-align:left}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.first td{border-top:2px solid #bbb}
table.claims td{max-width:320px}
ul.count-notes{color:#555}
.v-confirmed{background:#e6f4e6;font-weight:bold}.v-contradicted{background:#fbe3e3;font-weight:bold}
.v-inconclusive,.v-mixed,.v-checked{background:#f6f1dc}.v-reference{color:#777}.v-analogue{color:#555;font-style:italic}
dl{display:grid;grid-template-columns:max-content auto;gap:2px 1em}dt{font-weight:bold}dd{margin:0}
figure{margin:1em 0}figure img{max-width:100%}
.meta,.note{color:#555}.how{background:#f8f8f8;padding:.6em;border-left:3px solid #ccc}
nav ul{margin:.2em 0}code{background:#f2f2f2;padding:0 3px}
p.lead{font-size:15px;margin:.4em 0 .6em}
"""


# -- command ------------------------------------------------------------------------------------

def _slug(title: str) -> str:
    s = re.sub(r"[^A-Za-z0-9]+", "-", title).strip("-").lower()
    return s[:80] or "perflab-report"


def add_report_parser(subparsers) -> argparse.ArgumentParser:
    """Add the `report` subcommand to perflab's subparsers (cli.py wires `cmd_report`)."""
    rp = subparsers.add_parser(
        "report", help="a Markdown + self-contained HTML report, structured like the seeds",
        description="Build a report from perflab results files: a section per seed section "
                    "(benchmark meta), tables, ratio plots and the seeds' claims checked.")
    rp.add_argument("results", nargs="+", metavar="RESULT.json", help="perflab results files")
    rp.add_argument("--title", default="perflab report", help="report title")
    rp.add_argument("--out", "-o", default=None,
                    help="output folder (default: the folder of the first results file)")
    rp.add_argument("--baseline", default=None,
                    help="runtime label the ratios are against (default: the first runtime)")
    rp.add_argument("--not-compared", action="append", default=[], metavar="TEXT",
                    help="a family that could not be paired, with the reason (shown on the index; repeatable)")
    rp.add_argument("--force", action="store_true",
                    help="report cases measured on machines whose fingerprints differ (a cluster run)")
    rp.set_defaults(func=cmd_report)
    return rp


def _write_page(out_dir: Path, stem: str, rendered: Rendered, plots_dir_name: str) -> tuple[Path, Path]:
    from .exporters import write_text_atomic
    try:
        if rendered.plots:
            (out_dir / plots_dir_name).mkdir(exist_ok=True)
            for name, data in rendered.plots.items():
                (out_dir / plots_dir_name / name).write_bytes(data)
        md_path, html_path = out_dir / f"{stem}.md", out_dir / f"{stem}.html"
        write_text_atomic(md_path, rendered.markdown)
        write_text_atomic(html_path, rendered.html)
    except OSError as exc:
        raise UsageError(f"--out {out_dir}: not writable ({exc.strerror or exc})") from None
    return md_path, html_path


def _check_machines(paths: list[str], force: bool) -> None:
    """Cases of a cluster run say which machine measured them: a report sets them against each other,
    so machines whose fingerprints differ are refused unless --force (and then said)."""
    from ..machines import differing_parts, has_machines, machines_of
    from ..results import DocumentError, load_document
    docs = []
    for p in paths:
        try:
            docs.append(load_document(Path(p)))
        except DocumentError:
            return  # load_report names the bad file
    if not any(has_machines(d) for d in docs):
        return
    machines = list(machines_of(docs).values())
    fields = differing_parts(machines)
    if not fields:
        return
    what = (f"{len(machines)} machines whose fingerprints differ ({', '.join(fields)}); their times "
            "are not comparable")
    if not force:
        raise UsageError(f"the results were measured on {what}. Use --force to report them anyway "
                         "(the report will say so)")
    print(f"WARNING: reporting results from {what} (--force)")


def cmd_report(args) -> int:
    """The index (`<stem>.md/.html`) and one page per family (`<stem>-<language>.md/.html`)."""
    import dataclasses

    from .families import pairs_of
    from .family import summarize, summary_parts
    from .index_page import render_index
    _check_machines(list(args.results), getattr(args, "force", False))
    report = load_report(list(args.results), args.title or "perflab report",
                         getattr(args, "baseline", None))
    out_dir = Path(args.out) if getattr(args, "out", None) else Path(args.results[0]).resolve().parent
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {out_dir}: cannot create it ({exc.strerror or exc})") from None
    stem = _slug(report.title)
    sums, links = [], []
    for lang, pair in pairs_of(report).items():
        summary = summarize(report, pair)
        fam_stem = f"{stem}-{_slug(lang or 'other')}"
        page = dataclasses.replace(summary.report, title=f"{pair.report_title} — {report.title}")
        top_md, top_html, more_md, more_html = summary_parts(summary)
        rendered = render(_relative(page, out_dir), f"{fam_stem}_plots", (top_md, top_html), index_link=stem,
                          details=(more_md, more_html))
        _write_page(out_dir, fam_stem, rendered, f"{fam_stem}_plots")
        sums.append(summary)
        links.append(fam_stem)
    not_compared = list(getattr(args, "not_compared", None) or [])
    not_compared += [f"{s.pair.family_name}: only {s.pair.old} was measured; nothing to compare it with"
                     for s in sums if s.pair.new is None]
    md_path, html_path = _write_page(out_dir, stem, render_index(_relative(report, out_dir), sums, links,
                                                                  not_compared), "")
    print_summary(sums, not_compared)
    print(f"report: {md_path} and {html_path} (index of {len(sums)} family report(s); "
          f"{len(report.cases)} cases, {len(report.runtimes)} runtimes)")
    return 0


def _relative(report: Report, folder: Path) -> Report:
    """The report with its results files named relative to the folder the pages are written to (the
    results folder), in the paths and in the notes that name them."""
    import dataclasses
    import os
    rel = {}
    for p in report.paths:
        try:
            rel[p] = os.path.relpath(Path(p).resolve(), folder.resolve())
        except ValueError:  # another drive: keep it as given
            rel[p] = p
    notes = []
    for n in report.notes:
        for a, b in sorted(rel.items(), key=lambda kv: -len(kv[0])):
            n = n.replace(a, b)
        notes.append(n)
    return dataclasses.replace(report, paths=[rel[p] for p in report.paths], notes=notes)


def print_summary(sums, not_compared: list[str]) -> None:
    """The console's view: one line per family; the tables are in the files."""
    from rich.table import Table

    from ..console import out
    from .index_page import FAMILY_COLUMNS, family_row
    t = Table(title="per family (ratios newer / older)", title_justify="left")
    for c in FAMILY_COLUMNS:
        t.add_column(c, justify="left" if c in ("Report", "Comparison") else "right")
    for s in sums:
        t.add_row(*family_row(s))
    out.print(t)
    for n in not_compared:
        out.print(f"not compared: {n}", soft_wrap=True, markup=False)


def main(argv: list[str] | None = None) -> int:
    """Standalone entry (`python -m perflab.report.seeds_report …`) until cli.py wires `report`."""
    import sys
    p = argparse.ArgumentParser(prog="perflab")
    sub = p.add_subparsers(dest="command", required=True)
    add_report_parser(sub)
    args = p.parse_args(["report", *(sys.argv[1:] if argv is None else argv)])
    try:
        return cmd_report(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
