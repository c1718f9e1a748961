#!/usr/bin/env python3
"""Extract the seed documents' own C# benchmarks into suites/seeds/<folder>/csharp/, as they stand.

The seeds (NNN_*.txt, plain text; not in the repository: suites/seeds/README.md names them) show BenchmarkDotNet code in one of two forms:

* a whole program (seed 001: usings, a top-level `BenchmarkSwitcher…Run(args);`, a `Tests` class) —
  written out unchanged;
* a member snippet (fields and `[Benchmark]` methods) that the author tells the reader to paste into
  the seed's `Program` class ("// BENCHMARKS GO HERE" in 000, "// ... paste benchmark code here" in
  003) — written out inside that seed's own Program boilerplate (000's for seeds 002 and 004, which
  show none), the snippet's lines unchanged. Usings of the boilerplate whose namespaces Mono's class
  library does not have (MONO_LACKS) are left out, and the header says which: otherwise every snippet
  of seed 003 would fail on `using System.IO.Pipelines;` whatever its own code uses.

A code block is found around each `[Benchmark]` line by brace balance and by what a line looks like at
brace depth 0 (a declaration, attribute, brace or statement end, not a sentence or a result table).
Every file starts with a `// perflab: {json}` header — seed, section, seed file, line range, the
category of its folder, a group name — that the C# worker reads; nothing else in the file is ours.

Usage: scripts/extract_csharp_seeds.py --seeds DIR [--out suites/seeds]   (or PERFLAB_SEED_DOCS=DIR)
Re-running rewrites the same files (and removes stale ones in the csharp/ folders).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
from perflab.toolchains.csharp import declared_benchmarks, method_name  # noqa: E402  (how the host reads them too)

# Section headings per seed (a line holding exactly this text starts the section) → corpus folder.
SECTIONS = {
    "000": [("JIT", "jit"), ("GC", "gc"), ("Threading", "threading"), ("System Types", "parsing_formatting"),
            ("Arrays, Strings, Spans", "arrays_strings"), ("Buffering", "arrays_strings"), ("IO", "file_io"),
            ("Networking", "networking"), ("Reflection", "reflection"),
            ("Collections and LINQ", "collections_linq"), ("Cryptography", "crypto"),
            ("Peanut Butter", "misc"), ("JSON", "json"), ("Interop", "interop"), ("Tracing", "misc"),
            ("Startup", "startup"), ("Size", "misc"), ("Blazor and mono", "misc")],
    "001": [("ThreadStatic", "threading"), ("ThreadPool", "threading"), ("Tasks", "threading"),
            ("Parallel", "threading")],
    "002": [("Seek and Position", "file_io", "Seek/Position"), ("Length", "file_io"),
            ("WriteAsync", "file_io"), ("ReadAsync", "file_io"), ("Read & Write", "file_io"),
            ("Thread-Safe File IO", "file_io", "RandomAccess"), ("Scatter/Gather IO", "file_io", "Scatter/Gather"),
            ("Preallocation Size", "file_io", "Preallocation"), ("FileStreamOptions", "file_io")],
    "003": [("Span and Friends", "arrays_strings"), ("Arrays and Strings", "arrays_strings"),
            ("Parsing/Formatting", "parsing_formatting"), ("Regular Expressions", "regex"),
            ("Threading", "threading"), ("Collections", "collections_linq"), ("Networking", "networking"),
            ("System.IO", "file_io"), ("Console", "misc"), ("Process", "startup"), ("LINQ", "collections_linq"),
            ("Interop", "interop"), ("Peanut butter", "misc"), ("GC", "gc"), ("JIT", "jit")],
    "004": [("Span<T>", "arrays_strings"), ("Idle Connections", "networking"), ("Blazor", "misc"),
            ("Hodgepodge", "misc")],
}
DEFAULT_FOLDER = {"001": ("threading", "Threading")}
CATEGORY = {"collections_linq": "collections"}
# The `quick` slice (the main job's): the methods the other languages' quick slice ports, and those
# with a claim in src/perflab/report/seed_claims.json. A file holding one is in the slice — except
# 000 IO `Read`: its 1-byte-buffer cases take seconds per call on Mono and time out interpreted.
QUICK = {"Clone", "IndexOf", "ParseO", "ParseR", "Pbkdf2", "RegexCompiled", "WithCancellationToken",
         "CreateTokenDispose", "GetBytes", "HttpDownload", "JsonSerializerWithoutFastPath"}  # the corpus's category names (suites/seeds/README.md)

# Namespaces of the seeds' Program boilerplate that Mono 6.8's class library does not have (they are
# NuGet packages or .NET Core-only); left out of the wrapper so they do not fail every snippet.
MONO_LACKS = {"System.Collections.Immutable", "System.IO.Pipelines", "System.Threading.Channels",
              "System.Runtime.Intrinsics", "System.Runtime.Intrinsics.X86"}

_BENCH = re.compile(r"(^|[\];}])\s*\[Benchmark\b")
_MODIFIERS = re.compile(r"^(public|private|protected|internal|static|readonly|const|async|unsafe|sealed|abstract|"
                        r"partial|class|struct|record|enum|interface|override|virtual|volatile|using|namespace|"
                        r"fixed|extern|new|delegate|event)\b")
_CLASS = re.compile(r"^\s*(?:\[[^\]]*\]\s*)*(?:(?:public|internal|sealed|static|abstract|partial)\s+)*"
                    r"(?:class|struct)\s+\w+")


def strip_literals(line: str) -> str:
    """The line with string and char literals emptied (verbatim @"…" strings too)."""
    s = re.sub(r'@"(?:[^"]|"")*"', '""', line)
    s = re.sub(r'"(?:\\.|[^"\\])*"', '""', s)
    return re.sub(r"'(?:\\.|[^'\\])'", "''", s)


_PROSE = re.compile(r"\b[a-z]+ [a-z]+ [a-z]+ [a-z]+\b")


def code_like(line: str) -> bool:
    """A line that can stand at brace depth 0 of a C# snippet (not prose, a table or a command)."""
    s = line.strip()
    if not s or result_table(s):
        return False
    if s.startswith(("[", "{", "}", "//", "#if", "#endif", "#else", "#region", "#endregion", "/*", "*")):
        return True
    if s.endswith((".", ":", "!", "?", "…")):  # a sentence (code ends a line with ; { } ( , = =>)
        return False
    if _MODIFIERS.match(s):
        return True
    code = strip_literals(s).split("//", 1)[0]
    if _PROSE.search(code) or re.search(r"[。，]", s):
        return False
    # a statement's end, or a line an expression continues from (`new Regex(`, `@"…",`)
    return code.rstrip().endswith((";", "{", "}", "(", ",", "=", "=>", "+"))


def depth_change(line: str) -> int:
    """Braces and parentheses opened minus closed, ignoring string/char literals. Comments are not
    skipped: seed 003 flattened each snippet onto one line, so a `//` there does not end the code."""
    s = strip_literals(line)
    return s.count("{") + s.count("(") - s.count("}") - s.count(")")


def continues(line: str) -> bool:
    """Does the statement go on after this line (`public Task PingPong() =>`, `x = a +`)?"""
    code = strip_literals(line).split("//", 1)[0].rstrip()
    return code.endswith(("=>", "=", "+", "(", ",", "&&", "||", "?")) and not line.strip().startswith("//")


def result_table(line: str) -> bool:
    """A row of a Markdown result table (`Method | Runtime | Mean |`, `---|---|`): never code."""
    s = line.strip()
    return s.endswith("|") or s.startswith("---|")


@dataclass
class Block:
    start: int  # 0-based, inclusive
    end: int    # 0-based, inclusive
    lines: list[str]


def find_blocks(lines: list[str], anchor: re.Pattern = _BENCH) -> list[Block]:
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        if not anchor.search(lines[i]) or (blocks and i <= blocks[-1].end):
            i += 1
            continue
        start = i
        # upward: lines that belong to a member above (bridging blank lines between members)
        k = i - 1
        depth = 0
        while k >= 0:
            s = lines[k]
            if not s.strip():
                j = k
                while j >= 0 and not lines[j].strip():
                    j -= 1
                if j < 0 or not code_like(lines[j]) or (blocks and j <= blocks[-1].end):
                    break
                k = j
                continue
            d = depth_change(s)
            if result_table(s) or (depth == 0 and not code_like(s)):
                break
            depth -= d  # going up: a '}' opens, a '{' closes
            if depth < 0:  # an unmatched '{' above: we are inside a class; the class line is code too
                depth = 0
            if blocks and k <= blocks[-1].end:
                break
            start = k
            k -= 1
        # downward: brace-balanced, then more members while they look like code
        end = i
        depth = 0
        k = start
        while k < len(lines):
            s = lines[k]
            open_statement = k > start and continues(lines[end])
            if k > i and (result_table(s) or depth <= 0 and s.strip() and not code_like(s) and not open_statement):
                break
            if k > i and depth <= 0 and not s.strip():
                j = k
                while j < len(lines) and not lines[j].strip():
                    j += 1
                if j >= len(lines) or not code_like(lines[j]):
                    break
                k = j
                continue
            depth += depth_change(s)
            end = k
            k += 1
        while end > start and not lines[end].strip():
            end -= 1
        blocks.append(Block(start, end, lines[start:end + 1]))
        i = end + 1
    return blocks


# -- members a class's snippets share --------------------------------------------------------------
# A seed shows one benchmark class in several snippets (003's LoopBytes declares `_buffer`, the
# LoopLongs and LoopVectors snippets after it use it). Each snippet becomes a file of its own, so the
# members it uses but does not declare are carried in, unchanged, from the other snippets of the same
# seed section: fields, helpers, nested types, and the setup methods that assign a carried field.
# Benchmarks are never carried (each is measured in its own file).

@dataclass
class Member:
    text: str
    names: set[str]
    benchmark: bool
    setup: bool
    refs: set[str]


# a member declared at the start of a line: where a seed's helper code (no [Benchmark]) starts
_MEMBER_LINE = re.compile(r"^(?:public|private|protected|internal)\s+(?:(?:static|readonly|const|async|unsafe|"
                          r"override|virtual|sealed)\s+)*[\w<>\[\](),.? ]+?\s+\w+\s*(?:\(|=|;)")
_SETUP = re.compile(r"\[\s*(?:GlobalSetup|IterationSetup|GlobalCleanup|IterationCleanup)\b")
_TYPE_DECL = re.compile(r"\b(?:class|struct|enum|interface|record)\s+(\w+)")
KEYWORDS = set("""abstract as base bool break byte case catch char checked class const continue decimal default
delegate do double else enum event explicit extern false finally fixed float for foreach goto if implicit in int
interface internal is lock long namespace new null object operator out override params private protected public
readonly ref return sbyte sealed short sizeof stackalloc static string struct switch this throw true try typeof
uint ulong unchecked unsafe ushort using virtual void volatile while var async await get set value nameof""".split())
_IDENT = re.compile(r"(?<![\w.])([A-Za-z_]\w*)")


def _code_only(text: str) -> str:
    """The text with comments and string/char literals blanked (same length)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith('@"', i) or text.startswith('$@"', i) or text.startswith('@$"', i):
            j = text.find('"', i) + 1
            while j < n and (text[j] != '"' or text.startswith('""', j)):
                j += 2 if text.startswith('""', j) else 1
            j += 1
        elif c == '"' or (c == "$" and text.startswith('$"', i)):
            j = text.find('"', i) + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j += 1
        elif c == "'" and re.match(r"'(?:\\.[^']*|[^'\\])'", text[i:]):
            j = i + re.match(r"'(?:\\.[^']*|[^'\\])'", text[i:]).end()
        else:
            out.append(c)
            i += 1
            continue
        j = min(j, n)
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        i = j
    return "".join(out)


def split_members(text: str) -> list[Member]:
    """The members of a snippet at brace depth 0: a `;` ends one, and so does the `}` closing a
    body (not an initializer's: a member with `=`/`=>` at depth 0 ends at its `;`)."""
    code = _code_only(text)
    members, start, depth, assigned = [], 0, 0, False
    for i, c in enumerate(code):
        if c in "{([":
            depth += 1
        elif c in "})]":
            depth -= 1
            if c == "}" and depth == 0 and not assigned:
                members.append((start, i + 1))
                start, assigned = i + 1, False
        elif depth == 0 and c == "=":
            assigned = True
        elif depth == 0 and c == ";":
            members.append((start, i + 1))
            start, assigned = i + 1, False
    if code[start:].strip():
        members.append((start, len(code)))
    out = []
    for a, b in members:
        body, raw = code[a:b], text[a:b].strip()
        if not body.strip():
            continue
        decl = re.sub(r"^\s*(?:\[[^\]]*\]\s*)*", "", body)  # attributes off
        names: set[str] = set()
        t = _TYPE_DECL.match(re.sub(r"^(?:(?:public|private|protected|internal|static|sealed|abstract|partial|"
                                    r"readonly|unsafe|ref)\s+)*", "", decl.strip()))
        head = re.split(r"=>|=(?!=)|\{|;", decl, maxsplit=1)[0]
        head = re.sub(r"\bwhere\b.*$", "", head, flags=re.S).rstrip()
        while re.search(r"<[^<>]*>", head):  # generic arguments hold commas too
            head = re.sub(r"<[^<>]*>", " ", head)
        if t:
            names.add(t.group(1))
        elif head.endswith(")"):  # a method: the name before its parameter list
            level, k = 0, len(head) - 1
            for k in range(len(head) - 1, -1, -1):
                level += {")": 1, "(": -1}.get(head[k], 0)
                if level == 0:
                    break
            m = re.search(r"(\w+)\s*$", head[:k])
            if m:
                names.add(m.group(1))
        else:  # fields: `int a, b;`, `(int, long) _t;`
            for part in re.sub(r"\([^()]*\)", " ", head).split(","):
                m = re.search(r"(\w+)\s*$", part)
                if m:
                    names.add(m.group(1))
        names -= KEYWORDS
        out.append(Member(raw, names, bool(_BENCH.search(body)), bool(_SETUP.search(body)),
                          set(_IDENT.findall(body)) - KEYWORDS))
    return out


def shared_members(block: Block, others: list[Block]) -> tuple[list[str], list[Block]]:
    """What `block` uses from `others` (the same section's other snippets, nearest first) and does
    not declare: those members' text, in the order they appear in the seed, and their blocks."""
    own = split_members("\n".join(block.lines))
    declared = set().union(*(m.names for m in own)) if own else set()
    needed = set().union(*(m.refs for m in own)) - declared if own else set()
    pool = [(o, k, m) for o in others for k, m in enumerate(split_members("\n".join(o.lines)))
            if not m.benchmark]
    carried: dict[tuple[int, int], Member] = {}
    have: set[str] = set(declared)
    changed = True
    while changed:
        changed = False
        for o, k, m in pool:
            key = (o.start, k)
            if key in carried:
                continue
            wanted = m.names & (needed - have)
            fields = set().union(*(c.names for c in carried.values() if not c.setup)) if carried else set()
            # a setup method assigning a carried field (and not clashing with a name the file has)
            sets_carried = m.setup and bool(m.refs & fields) and not m.names & have
            if wanted or sets_carried:
                carried[key] = m
                have |= m.names
                needed |= m.refs
                changed = True
    keys = sorted(carried)
    return [carried[k].text for k in keys], sorted([o for o in others if any(k[0] == o.start for k in keys)],
                                                     key=lambda b: b.start)


def section_of(seed: str, lines: list[str], line_no: int) -> tuple[str, str]:
    """(section name, folder) of the heading above 0-based line `line_no`."""
    best = DEFAULT_FOLDER.get(seed, ("misc", ""))
    best = (best[1], best[0])
    for k in range(line_no, -1, -1):
        text = lines[k].strip().strip("“”\"")
        for entry in SECTIONS.get(seed, []):
            if text == entry[0]:
                return (entry[2] if len(entry) > 2 else entry[0]), entry[1]
    return best


def boilerplate(seed: str, seeds_text: dict[str, list[str]]) -> tuple[list[str], list[str], str]:
    """(usings, class lines before the snippet, closing lines) of the seed's Program, and which seed
    it came from: 000's multi-line Program (also used for 002/004) or 003's one-line Program."""
    if seed == "003":
        line = next(ln for ln in seeds_text["003"] if ln.startswith("using BenchmarkDotNet.Attributes; using"))
        usings = [u.strip() + ";" for u in line.split("[MemoryDiagnoser]")[0].split(";") if u.strip()]
        head = ["[MemoryDiagnoser]", "public class Program", "{",
                "    static void Main(string[] args) => BenchmarkSwitcher.FromTypes(new[] { typeof(Program) }).Run(args);"]
        return usings, head, "003"
    lines = seeds_text["000"]
    first = next(k for k, ln in enumerate(lines) if ln.strip() == "using BenchmarkDotNet.Attributes;")
    marker = next(k for k, ln in enumerate(lines) if "// BENCHMARKS GO HERE" in ln)
    body = lines[first:marker]
    usings = [ln for ln in body if ln.startswith(("using ", "#if", "#endif"))]
    head = [ln for ln in body if not ln.startswith(("using ", "#if", "#endif")) and ln.strip()]
    return usings, head, "000"


def wrap(block: Block, seed: str, seeds_text, shared: list[str] = ()) -> tuple[list[str], str]:
    usings, head, source = boilerplate(seed, seeds_text)
    kept = [u for u in usings if u.split()[-1].rstrip(";") not in MONO_LACKS]
    dropped = [u.split()[-1].rstrip(";") for u in usings if u not in kept]
    # a snippet's own leading `using` lines go with the usings
    own_usings = []
    body = list(block.lines)
    while body and body[0].strip().startswith("using ") and body[0].strip().endswith(";"):
        own_usings.append(body.pop(0))
    note = (f"// A member snippet: pasted into seed {source}'s Program class as the seed instructs."
            + (f" Left out of its usings (absent from Mono): {', '.join(dropped)}." if dropped else ""))
    carried = [*shared, ""] if shared else []
    return [*kept, *own_usings, "", *head, "", *carried, *body, "}"], note


def is_program(block: Block) -> bool:
    """A whole program: the first [Benchmark] sits inside a class declared in the block (a snippet's
    helper classes come after its benchmarks, at depth 0)."""
    depth, declared = 0, False
    for ln in block.lines:
        code = strip_literals(ln)
        if _BENCH.search(ln):
            return declared and depth + code.split("[Benchmark", 1)[0].count("{") \
                - code.split("[Benchmark", 1)[0].count("}") > 0
        declared = declared or bool(_CLASS.match(ln))
        depth += code.count("{") - code.count("}")
    return False


def extract(seeds_dir: Path, out: Path) -> list[Path]:
    seeds_text = {}
    files = {}
    for f in sorted(seeds_dir.glob("[0-9][0-9][0-9]_*.txt")):
        seed = f.name[:3]
        seeds_text[seed] = f.read_text(encoding="utf-8").splitlines()
        files[seed] = f.name
    written: list[Path] = []
    for seed, lines in seeds_text.items():
        blocks = find_blocks(lines)
        sections = {}
        for block in blocks:
            bench_line = next(k for k in range(block.start, block.end + 1) if _BENCH.search(lines[k]))
            sections[block.start] = section_of(seed, lines, bench_line)
        snippets = [b for b in blocks if not is_program(b)]
        # code the seed shows without a [Benchmark] (000's `ContainsSpace` helper): members to carry
        helpers = [h for h in find_blocks(lines, _MEMBER_LINE)
                   if not any(b.start <= h.start <= b.end for b in blocks) and not _BENCH.search("\n".join(h.lines))]
        helper_section = {h.start: section_of(seed, lines, h.start) for h in helpers}
        for block in blocks:
            section, folder = sections[block.start]
            methods = declared_benchmarks("\n".join(block.lines))
            first = methods[0]["name"] if methods else "Benchmark"
            stem = f"seed{seed}_L{block.start + 1:04d}_{first}"
            header = {"seed": seed, "section": section, "source": files[seed],
                      "lines": f"{block.start + 1}-{block.end + 1}",
                      "categories": [CATEGORY.get(folder, folder), "seed_csharp"]
                      + (["quick"] if QUICK & {m["name"] for m in methods} else []),
                      "group": f"{seed} L{block.start + 1} {first}", "fidelity": "faithful"}
            shared, sources = [], []
            if is_program(block):
                body, note = list(block.lines), "// A whole program, as the seed shows it."
            else:
                # the same section's other snippets, the nearest above first, then those below
                others = [b for b in snippets if b is not block and sections[b.start] == sections[block.start]]
                others = ([b for b in reversed(others) if b.start < block.start]
                          + [b for b in others if b.start > block.start])
                others += [h for h in sorted(helpers, key=lambda h: abs(h.start - block.start))
                           if helper_section[h.start] == sections[block.start]]
                shared, sources = shared_members(block, others)
                body, note = wrap(block, seed, seeds_text, shared)
                if sources:
                    header["shared_from"] = [f"{b.start + 1}-{b.end + 1}" for b in sources]
                    note += (" Members it uses that the seed declares in the same class's other snippet(s) "
                             f"(lines {', '.join(header['shared_from'])}) come first, unchanged.")
            text = "\n".join([f"// perflab: {json.dumps(header, ensure_ascii=False)}",
                              f"// Extracted by scripts/extract_csharp_seeds.py from {files[seed]}, lines "
                              f"{block.start + 1}-{block.end + 1} (seed {seed}, section {section}), unedited.",
                              note, *body]) + "\n"
            path = out / folder / "csharp" / f"{stem}.cs"
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
            written.append(path)
    for stale in sorted(out.glob("*/csharp/seed*.cs")):
        if stale not in written:
            stale.unlink()
    return written


def status(files: list[Path], runtime_spec: str) -> str:
    """A Markdown table of the files that do not compile with that Mono's mcs (built as `perflab run`
    builds them, so cached builds are reused) and a count of those that do."""
    from perflab import toolchains
    from perflab.runtimes import resolve
    rt = resolve([runtime_spec], toolchains.all_toolchains())[0]
    tc = toolchains.get("csharp")
    _, mcs = tc._mono(rt)
    shim = tc.build_shim(rt, mcs)
    rows, ok_files, ok_methods, bad_methods = [], 0, 0, 0
    for f in files:
        entry = tc.build_file(mcs, shim, f)
        methods = [b["name"] for b in declared_benchmarks(f.read_text(encoding="utf-8"))]
        if "assembly" in entry:
            ok_files += 1
            ok_methods += len(methods)
            continue
        bad_methods += len(methods)
        first = re.sub(r"^.*?: error ", "", entry["error"]["message"].removeprefix("mcs: ").splitlines()[0])
        rows.append(f"| `{f.parent.parent.name}/csharp/{f.name}` | {', '.join(methods)} | "
                    f"{first.replace('|', '&#124;')} |")
    head = (f"{ok_files} of {len(files)} files compile with Mono {rt.version}'s mcs ({ok_methods} "
            f"[Benchmark] methods); {len(files) - ok_files} do not ({bad_methods} methods):\n\n"
            "| file | benchmarks | first compiler error |\n|---|---|---|")
    return "\n".join([head, *rows])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    # the documents are not in the repository (suites/seeds/README.md names them): say where they are
    default = os.environ.get("PERFLAB_SEED_DOCS")
    ap.add_argument("--seeds", type=Path, default=Path(default) if default else None,
                    help="folder of the seed documents (NNN_*.txt); default: $PERFLAB_SEED_DOCS")
    ap.add_argument("--out", type=Path, default=REPO / "suites" / "seeds")
    ap.add_argument("--status", metavar="RUNTIME", help="also compile every file with this Mono runtime "
                    "(e.g. mono) and print a Markdown table of those that fail")
    args = ap.parse_args(argv)
    if args.seeds is None:
        print("extract_csharp_seeds: give --seeds DIR (the folder of the seed documents) or set PERFLAB_SEED_DOCS",
              file=sys.stderr)
        return 2
    if not args.seeds.is_dir():
        print(f"extract_csharp_seeds: no seed folder at {args.seeds} (give --seeds DIR)", file=sys.stderr)
        return 2
    written = extract(args.seeds, args.out)
    methods = sum(len(declared_benchmarks(p.read_text(encoding="utf-8"))) for p in written)
    print(f"{len(written)} files, {methods} [Benchmark] methods under {args.out}/*/csharp/")
    if args.status:
        print(status(sorted(written), args.status))
    return 0


if __name__ == "__main__":
    sys.exit(main())
