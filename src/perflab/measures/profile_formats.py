"""Readers of the profilers' own files, each into [(stack root-first, samples)] (measures/profile.py).

- perflab's Python sampler: JSON lines {"stack": [[function, file], ...] root first, "count": n};
- V8's `.cpuprofile` (node --cpu-prof): a JSON tree of nodes and the node id of every sample;
- Go's `runtime/pprof` CPU profile: gzip'd protobuf (profile.proto), decoded here with no dependency;
- JDK Flight Recorder's `jfr print --events jdk.ExecutionSample --json`.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from .profile import Frame, Stack


def read_python_samples(path: Path) -> list[tuple[Stack, int]]:
    out = []
    for line in path.read_text(errors="replace").splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        out.append((tuple(Frame(str(n), str(f)) for n, f in item["stack"]), int(item["count"])))
    return out


def read_cpuprofile(path: Path) -> list[tuple[Stack, int]]:
    """V8's CPU profile: nodes {id, callFrame{functionName, url}, children}, `samples` (node ids)."""
    doc = json.loads(path.read_text(errors="replace"))
    nodes = {n["id"]: n for n in doc.get("nodes", [])}
    parent = {c: n["id"] for n in doc.get("nodes", []) for c in n.get("children", [])}
    hits: dict[int, int] = {}
    for s in doc.get("samples", []):
        hits[s] = hits.get(s, 0) + 1
    out = []
    for nid, count in hits.items():
        frames = []
        cur = nid
        while cur in nodes:
            cf = nodes[cur].get("callFrame", {})
            # an anonymous function is told apart by its line (V8's are 0-based)
            name = cf.get("functionName") or f"(anonymous:{int(cf.get('lineNumber', -1)) + 1})"
            if name != "(root)":
                frames.append(Frame(name, cf.get("url", "")))
            cur = parent.get(cur)
        out.append((tuple(reversed(frames)), count))
    return out


# -- a minimal protobuf reader for pprof's profile.proto ----------------------------------------

def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, i
        shift += 7


def _fields(buf: bytes):
    """(field number, wire type, value) of a message: ints for varints, bytes for length-delimited."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            val, i = _varint(buf, i)
        elif wt == 2:
            n, i = _varint(buf, i)
            val, i = buf[i:i + n], i + n
        elif wt == 1:
            val, i = int.from_bytes(buf[i:i + 8], "little"), i + 8
        elif wt == 5:
            val, i = int.from_bytes(buf[i:i + 4], "little"), i + 4
        else:
            raise ValueError(f"pprof: unsupported wire type {wt}")
        yield num, wt, val


def _ints(wt: int, val) -> list[int]:
    """A repeated integer field: packed (bytes) or one varint."""
    if wt == 0:
        return [val]
    out, i = [], 0
    while i < len(val):
        v, i = _varint(val, i)
        out.append(v)
    return out


def read_pprof(path: Path) -> list[tuple[Stack, int]]:
    """A Go CPU profile: each sample's locations (leaf first) and its count (the first value)."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    strings: list[str] = []
    functions: dict[int, tuple[int, int]] = {}  # id -> (name index, file index)
    locations: dict[int, list[int]] = {}  # id -> function ids, innermost (inlined) first
    samples: list[tuple[list[int], int]] = []
    for num, wt, val in _fields(data):
        if num == 2:
            locs, values = [], []
            for n, w, v in _fields(val):
                if n == 1:
                    locs += _ints(w, v)
                elif n == 2:
                    values += _ints(w, v)
            samples.append((locs, values[0] if values else 0))
        elif num == 4:
            lid, funcs = 0, []
            for n, w, v in _fields(val):
                if n == 1:
                    lid = v
                elif n == 4:
                    fid = next((v2 for n2, _, v2 in _fields(v) if n2 == 1), 0)
                    funcs.append(fid)
            locations[lid] = funcs
        elif num == 5:
            fid = name = fname = 0
            for n, _, v in _fields(val):
                if n == 1:
                    fid = v
                elif n == 2:
                    name = v
                elif n == 4:
                    fname = v
            functions[fid] = (name, fname)
        elif num == 6:
            strings.append(val.decode("utf-8", "replace"))

    def s(i: int) -> str:
        return strings[i] if 0 <= i < len(strings) else ""

    out = []
    for locs, count in samples:
        frames = []
        for lid in locs:  # leaf first; a location's inlined functions innermost first
            for fid in locations.get(lid, []):
                name, fname = functions.get(fid, (0, 0))
                frames.append(Frame(s(name) or "?", s(fname)))
        out.append((tuple(reversed(frames)), count))
    return out


def read_jfr_json(path: Path) -> list[tuple[Stack, int]]:
    """`jfr print --events jdk.ExecutionSample --json`: each event's stackTrace.frames (leaf first)."""
    doc = json.loads(path.read_text(errors="replace"))
    events = doc.get("recording", {}).get("events", [])
    hits: dict[Stack, int] = {}
    for ev in events:
        frames = (ev.get("values", {}).get("stackTrace") or {}).get("frames") or []
        stack = []
        for fr in reversed(frames):
            m = fr.get("method") or {}
            t = (m.get("type") or {}).get("name", "").replace("/", ".")  # internal names: a/b/C
            name = f"{t}.{m.get('name', '?')}" if t else m.get("name", "?")
            # JFR names the class, not the file: the top-level class's source file, by convention
            top = t.rsplit(".", 1)[-1].split("$", 1)[0]
            stack.append(Frame(name, f"{top}.java" if top else ""))
        key = tuple(stack)
        hits[key] = hits.get(key, 0) + 1
    return list(hits.items())


def read_perf_script(text: str) -> list[tuple[Stack, int]]:
    """`perf script -F comm,tid,ip,sym,dso` output: a header line per sample, then its frames leaf
    first (`ADDR SYMBOL+OFF (DSO)`), then a blank line."""
    hits: dict[Stack, int] = {}
    frames: list[Frame] = []

    def flush():
        if frames:
            key = tuple(reversed(frames))
            hits[key] = hits.get(key, 0) + 1
        frames.clear()

    for line in text.splitlines():
        if not line.strip() or not line[0].isspace():  # the blank line after a sample, a header
            flush()
            continue
        parts = line.strip().split(None, 1)
        rest = parts[1] if len(parts) > 1 else "[unknown]"
        dso = ""
        if rest.endswith(")") and " (" in rest:
            rest, dso = rest.rsplit(" (", 1)
            dso = dso[:-1]
        sym = rest.rsplit("+0x", 1)[0] if "+0x" in rest else rest
        frames.append(Frame(sym or "[unknown]", dso))
    flush()
    return list(hits.items())
