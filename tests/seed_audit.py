"""The rules of the seed corpus's audit (suites/seeds/README.md, "Fidelity"), each testable alone.

A port of a seed's benchmark carries `seed` and `section` and, once audited, `fidelity`: "faithful",
"partial: <why>" or "different: <why>". A benchmark that is not a method of the seed is an extra:
`extra` true, `related` naming the seed and section it sits beside, and no seed tags (so no claim of
the seed is ever checked on it)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIDELITY = re.compile(r"^(faithful|partial: \S.*|different: \S.*)$")


def seeds_folder(root: Path = ROOT) -> Path | None:
    """The seed documents: `../shared/seeds` beside the checkout (or beside a folder holding it, as for a
    worktree under /work/wt); None when there are none."""
    for parent in root.parents:
        folder = parent / "shared" / "seeds"
        if any(folder.glob("[0-9][0-9][0-9]_*.txt")):
            return folder
    return None


def seed_texts(folder: Path | None) -> dict[str, str]:
    """Seed number ("000") → the seed document's text."""
    if folder is None:
        return {}
    return {p.name[:3]: p.read_text(encoding="utf-8") for p in sorted(folder.glob("[0-9][0-9][0-9]_*.txt"))}


def _true(value) -> bool:
    return str(value).lower() == "true"


def method_of(name: str, meta: dict) -> str:
    """The seed's method a port stands for: its own name's last component, unless `seed_method` says
    otherwise (the seed's Old/New pairs are ported under the API's name)."""
    return str(meta.get("seed_method") or name.split(".")[-1])


def problems(name: str, meta: dict, categories, texts: dict[str, str], claimed: set) -> list[str]:
    """What breaks the audit's rules for one benchmark (empty: nothing)."""
    out = []
    if _true(meta.get("extra")):
        if "seed" in meta or "section" in meta:
            out.append("an extra must not carry seed/section tags (a claim would be checked on it)")
        if not meta.get("related"):
            out.append("an extra names the seed section it sits beside in meta['related']")
        return out
    seed, section = str(meta.get("seed", "")), meta.get("section")
    if not seed or not section:
        return ["neither seed tags nor extra=True"]
    fidelity = meta.get("fidelity")
    if fidelity is not None and not FIDELITY.match(str(fidelity)):
        out.append(f"fidelity {fidelity!r} is not 'faithful', 'partial: <why>' or 'different: <why>'")
    method = method_of(name, meta)
    if (seed, section, method) in claimed and fidelity is None:
        out.append("carries a claim of seed_claims.json but has no fidelity tag")
    if "quick" in categories and fidelity is None:
        out.append("in the quick slice but not audited (no fidelity tag)")
    text = texts.get(seed)
    if text is not None and not _true(meta.get("scenario")) and not re.search(rf"\b{re.escape(method)}\s*\(", text):
        out.append(f"{method}( does not occur in seed {seed}'s text: not a seed method (make it an extra)")
    return out
