"""Flame graph pages: one case's profile, or the difference of two (widths from the new profile, colour
by each frame's change in self share). A standalone page carries the drawing script inline (it opens
from a folder, offline); the dashboard serves the same script from /static (its CSP allows no inline
script). Frame names are user data: they travel as JSON inside a non-executed <script> element, with
`<`, `>` and `&` escaped, and the script puts them in the page as text only.
"""
from __future__ import annotations

import html
import json
from pathlib import Path

from ..judge import Verdict
from ..measures.profile import stacks_of
from ..policy import DEFAULT

SCRIPT = Path(__file__).resolve().parent.parent / "web" / "static" / "flamegraph.js"


def data_json(stacks: dict[str, int], own: list[str], title: str, base: dict[str, int] | None = None) -> str:
    """The flame graph's data as JSON safe inside a <script type="application/json"> element."""
    doc = {"title": title, "stacks": [[k, v] for k, v in sorted(stacks.items())],
           "base": [[k, v] for k, v in sorted(base.items())] if base is not None else None, "own": own}
    text = json.dumps(doc, ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def top_frames(stacks: dict[str, int], n: int = 10) -> list[tuple[str, int, int]]:
    """(frame, self samples, inclusive samples) of the frames with the most self samples."""
    self_: dict[str, int] = {}
    incl: dict[str, int] = {}
    for key, count in stacks.items():
        frames = key.split(";")
        self_[frames[-1]] = self_.get(frames[-1], 0) + count
        for f in set(frames):
            incl[f] = incl.get(f, 0) + count
    return sorted(((f, s, incl[f]) for f, s in self_.items()), key=lambda t: (-t[1], t[0]))[:n]


def self_share_changes(old: dict[str, int], new: dict[str, int]) -> list[tuple[str, float]]:
    """(stack, change of its leaf's self share from `old` to `new`), largest growth first."""
    to, tn = sum(old.values()) or 1, sum(new.values()) or 1
    keys = set(old) | set(new)
    return sorted(((k, new.get(k, 0) / tn - old.get(k, 0) / to) for k in keys), key=lambda kv: (-kv[1], kv[0]))


# a frame's self share must change by more than this many standard errors of sampling (two
# proportions, pooled) to be coloured: with ~1,000 samples a side, a frame at 50 % moves by ±2 points
# from one profile to the next of the same code, and any frame whose self share moved by one sample
# was red — often the benchmark's own frame, the widest of all, above the function that grew
NOISE_Z = DEFAULT.profile.noise_z


def beyond_noise(self_old: int, total_old: int, self_new: int, total_new: int) -> float:
    """The change of a frame's self share from old to new when sampling noise does not explain it,
    else 0.0 (the rule flamegraph.js colours by: red > 0, blue < 0, grey 0)."""
    if total_old <= 0 or total_new <= 0:
        return 0.0
    d = self_new / total_new - self_old / total_old
    p = (self_old + self_new) / (total_old + total_new)
    se = (p * (1 - p) * (1 / total_old + 1 / total_new)) ** 0.5
    return d if abs(d) > NOISE_Z * se else 0.0


def _generic_args_removed(frame: str) -> str:
    """A frame's name with its generic/template arguments cut — a `<…>` right after a name — while a
    qualified path's own brackets stay: `<hashbrown::raw::RawTable<T,A> as Clone>::clone` and
    `<hashbrown::raw::RawTable<(Rc<str>, i32)> as Clone>::clone` both become
    `<hashbrown::raw::RawTable as Clone>::clone`, one function demangled by two toolchains."""
    out: list[str] = []
    skip = 0  # depth inside generic arguments being cut
    for ch in frame:
        if skip:
            skip += ch == "<"
            skip -= ch == ">"
        elif ch == "<" and out and (out[-1].isalnum() or out[-1] == "_"):
            skip = 1
        else:
            out.append(ch)
    return "".join(out)


def paired(old: dict[str, int], new: dict[str, int]) -> dict[str, int]:
    """`old` with each frame that `new` names differently renamed to `new`'s name, where the two are
    one function: the only frame of each side that the other side lacks with the same name once
    generic arguments are cut (Rust 1.95 demangles a hashbrown clone `RawTable<T,A>`, nightly
    `RawTable<(alloc::rc::Rc<str>, i32)>`: unpaired, the whole benchmark drew as new, +52 %)."""
    names_old = {f for k in old for f in k.split(";")}
    names_new = {f for k in new for f in k.split(";")}
    by_key: dict[str, tuple[list[str], list[str]]] = {}
    for f in names_old - names_new:
        by_key.setdefault(_generic_args_removed(f), ([], []))[0].append(f)
    for f in names_new - names_old:
        by_key.setdefault(_generic_args_removed(f), ([], []))[1].append(f)
    rename = {o[0]: n[0] for o, n in by_key.values() if len(o) == 1 and len(n) == 1}
    if not rename:
        return old
    out: dict[str, int] = {}
    for key, count in old.items():
        k = ";".join(rename.get(f, f) for f in key.split(";"))
        out[k] = out.get(k, 0) + count
    return out


def frame_changes(old: dict[str, int], new: dict[str, int]) -> list[tuple[str, float, int, str]]:
    """(frame path, change of its self share, width in the new profile's samples, "red" | "blue" |
    "grey") for every frame of `new` — the difference flame graph as drawn: widths from the new
    profile, colour by the change of self share beyond sampling noise."""
    old = paired(old, new)
    to, tn = sum(old.values()), sum(new.values())
    width: dict[str, int] = {}
    for key, n in new.items():
        frames = key.split(";")
        for i in range(1, len(frames) + 1):
            path = ";".join(frames[:i])
            width[path] = width.get(path, 0) + n
    out = []
    for path, w in width.items():
        d = beyond_noise(old.get(path, 0), to, new.get(path, 0), tn)
        out.append((path, d, w, "red" if d > 0 else "blue" if d < 0 else "grey"))
    return sorted(out, key=lambda t: (-t[2], t[0]))


def page(title: str, stacks: dict[str, int], own: list[str], *, base: dict[str, int] | None = None,
         lines: list[str] = (), script_src: str | None = None) -> str:
    """A whole HTML page. `script_src`: the script's URL (the dashboard), else the script inline."""
    e = html.escape
    total = sum(stacks.values()) or 1
    script = (f'<script src="{e(script_src)}"></script>' if script_src
              else f"<script>{SCRIPT.read_text()}</script>")
    rows = "".join(f"<tr><td>{e(f)}</td><td>{s}</td><td>{s / total:.1%}</td><td>{i / total:.1%}</td></tr>"
                   for f, s, i in top_frames(stacks))
    changes = ""
    if base is not None:
        grown = sorted(((k, d) for k, d, _, c in frame_changes(base, stacks) if c == "red"),
                       key=lambda kv: (-kv[1], kv[0]))[:10]
        changes = ("<h2 style=\"font-size:1em\">Largest growth of self share</h2>"
                   + ("<table>" + "".join(f"<tr><td>{e(k.split(';')[-1])}</td><td>{d:+.1%}</td><td><small>{e(k)}</small></td></tr>"
                                          for k, d in grown) + "</table>" if grown else
                      f"<p>No frame's self share grew by more than sampling noise ({NOISE_Z:g} standard "
                      "errors): profile longer for a finer difference.</p>"))
    legend = ("widths: the new profile; red: a frame's self share grew, blue: it shrank, grey: no change "
              f"beyond sampling noise ({NOISE_Z:g} standard errors)"
              if base is not None else "orange: the benchmark's own frames; grey: perflab and the runtime outside it")
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">', f"<title>{e(title)}</title>",
        "</head><body style=\"font-family:sans-serif;margin:1em\">", f"<h1 style=\"font-size:1.2em\">{e(title)}</h1>",
        *(f"<p>{e(x)}</p>" for x in lines), f"<p><small>{e(legend)}; click a frame to zoom</small></p>",
        f'<script type="application/json" id="flame-data">{data_json(stacks, own, title, base)}</script>',
        '<div class="perflab-flame" data-source="flame-data" style="width:100%"></div>',
        changes, "<h2 style=\"font-size:1em\">Most self samples</h2>",
        f"<table><tr><th>frame</th><th>self samples</th><th>self</th><th>inclusive</th></tr>{rows}</table>",
        script, "</body></html>", ""])


def case_page(case_label: str, profile: dict, script_src: str | None = None) -> str:
    lines = [f"{profile.get('tool', '')}: {profile.get('samples', 0)} samples over {profile.get('calls', 0)} "
             f"call(s), in a launch of its own (the case's figures do not include it)."]
    if profile.get("note"):
        lines.append(str(profile["note"]))
    return page(f"Profile: {case_label}", stacks_of(profile), list(profile.get("own") or []), lines=lines,
                script_src=script_src)


def diff_page(case_label: str, old_label: str, new_label: str, old: dict, new: dict,
              script_src: str | None = None) -> str:
    own = sorted(set(old.get("own") or []) | set(new.get("own") or []))
    lines = [f"{new_label} ({new.get('samples', 0)} samples) against {old_label} ({old.get('samples', 0)} samples)."]
    base = paired(stacks_of(old), stacks_of(new))
    return page(f"Difference: {case_label}", stacks_of(new), own, base=base, lines=lines,
                script_src=script_src)


def write_case_pages(rows, folder: Path) -> dict[str, Path]:
    """A flame graph page per profiled row into `folder`; {case key: page}."""
    from ..engine.profile import case_slug
    from .table import case_label
    out = {}
    for row in rows:
        p = row.result.profile
        if not isinstance(p, dict) or not stacks_of(p):
            continue
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{case_slug(row.result.case)}.html"
        path.write_text(case_page(case_label(row.result.case), p))
        out[row.result.case.key] = path
    return out


def _by_key(doc: dict) -> dict:
    return {c.get("key"): c for c in doc.get("cases") or [] if isinstance(c, dict)}


def slower_with_profiles(result, old_doc: dict, new_doc: dict) -> list[tuple[str, dict, dict]]:
    """(key, old profile, new profile) of every case `compare` called slower whose two sides both
    have a profile with stacks."""
    ca, cb = _by_key(old_doc), _by_key(new_doc)
    out = []
    for c in result.cases:
        slower = c.verdict == Verdict.SLOWER or (c.counts is not None and c.counts.verdict == Verdict.SLOWER)
        pa, pb = (ca.get(c.key) or {}).get("profile"), (cb.get(c.key) or {}).get("profile")
        if slower and stacks_of(pa) and stacks_of(pb):
            out.append((c.key, pa, pb))
    return out


def write_diff_pages(pairs, old_label: str, new_label: str, folder: Path) -> list[tuple[str, Path]]:
    """A difference flame graph page per (key, old, new) into `folder`."""
    from ..engine.profile import case_slug
    from types import SimpleNamespace
    out = []
    for key, pa, pb in pairs:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"diff-{case_slug(SimpleNamespace(key=key))}.html"
        path.write_text(diff_page(key, old_label, new_label, pa, pb))
        out.append((key, path))
    return out


def write_runtime_diffs(rows, folder: Path) -> list[Path]:
    """In one run of two runtimes or revisions (`--runtimes a,b`, `--rev A,B`): a difference flame
    graph of each profiled case against the same case on the first runtime, when both were profiled."""
    from ..engine.profile import case_slug
    from .table import case_label
    by_key = {r.result.case.key: r for r in rows}
    out = []
    for row in rows:
        base = by_key.get(row.runtime_baseline_key or "")
        if base is None or base is row:
            continue
        pa, pb = base.result.profile, row.result.profile
        if not (stacks_of(pa) and stacks_of(pb)):
            continue
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"diff-{case_slug(row.result.case)}.html"
        path.write_text(diff_page(case_label(row.result.case), base.result.case.runtime.label,
                                  row.result.case.runtime.label, pa, pb))
        out.append(path)
    return out


def functions_page(case_label: str, counts: dict, old: dict | None = None, old_label: str = "") -> str:
    """Where a counted case's instructions went: self and inclusive Ir per op per function (callgrind),
    with bars; given `old` (another count of the case), each function's change, largest growth first,
    so a counted regression points at the function that grew."""
    e = html.escape
    rows = _function_rows(counts)
    before = _function_rows(old) if old is not None else {}
    total = max((incl for _, incl in rows.values()), default=0) or 1
    names = list(rows)
    if old is not None:
        names = sorted(set(rows) | set(before), key=lambda f: -(rows.get(f, (0, 0))[0] - before.get(f, (0, 0))[0]))
    head = ("<tr><th>function</th><th>self Ir/op</th><th>inclusive Ir/op</th>"
            + ("<th>self before</th><th>self change</th>" if old is not None else "") + "<th></th></tr>")
    body = []
    for f in names:
        sv, iv = rows.get(f, (0.0, 0.0))
        cells = f"<td>{e(f)}</td><td>{sv:,.2f}</td><td>{iv:,.2f}</td>"
        if old is not None:
            b = before.get(f, (0.0, 0.0))[0]
            d = sv - b
            colour = "#c33" if d > 0 else "#36c" if d < 0 else "#999"
            cells += f'<td>{b:,.2f}</td><td style="color:{colour}">{d:+,.2f}</td>'
        width = 300 * sv / total
        cells += f'<td><div style="background:#f08c28;height:10px;width:{width:.1f}px"></div></td>'
        body.append(f"<tr>{cells}</tr>")
    title = f"Instructions by function: {case_label}" + (f" against {old_label}" if old is not None else "")
    per_op = (counts.get("per_op") or {}).get("Ir")
    lines = [f"{counts.get('tool', 'callgrind')}: the measured workload run of the first launch, per "
             f"operation{f' ({per_op:,.1f} Ir/op net of the empty loop)' if per_op is not None else ''}; "
             "self: the function's own instructions; inclusive: with its callees. The loop's own "
             "instructions (perflab's) are in the table too: they are what the empty loop subtracts."]
    return "\n".join(["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
                      f"<title>{e(title)}</title></head><body style=\"font-family:sans-serif;margin:1em\">",
                      f"<h1 style=\"font-size:1.2em\">{e(title)}</h1>", *(f"<p>{e(x)}</p>" for x in lines),
                      f"<table>{head}{''.join(body)}</table>", "</body></html>", ""])


def _function_rows(counts: dict | None) -> dict[str, tuple[float, float]]:
    out: dict[str, tuple[float, float]] = {}
    for item in (counts or {}).get("functions") or []:
        if isinstance(item, (list, tuple)) and len(item) == 3 and isinstance(item[0], str):
            try:
                out[item[0]] = (float(item[1]), float(item[2]))
            except (TypeError, ValueError):
                continue
    return out


def write_function_pages(rows, folder: Path) -> list[Path]:
    """An instructions-by-function page per counted row that has the table (`--measure instructions`)."""
    from ..engine.profile import case_slug
    from .table import case_label
    out = []
    for row in rows:
        counts = row.result.counts
        if not isinstance(counts, dict) or not _function_rows(counts):
            continue
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"functions-{case_slug(row.result.case)}.html"
        path.write_text(functions_page(case_label(row.result.case), counts))
        out.append(path)
    return out


def count_slower_with_functions(result, old_doc: dict, new_doc: dict) -> list[tuple[str, dict, dict]]:
    """(key, old counts, new counts) of every case whose instruction count `compare` called slower,
    both sides with their per-function table."""
    ca, cb = _by_key(old_doc), _by_key(new_doc)
    out = []
    for c in result.cases:
        if c.counts is None or c.counts.verdict != Verdict.SLOWER:
            continue
        a, b = (ca.get(c.key) or {}).get("counts"), (cb.get(c.key) or {}).get("counts")
        if _function_rows(a) and _function_rows(b):
            out.append((c.key, a, b))
    return out
