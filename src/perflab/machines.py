"""Which machine measured a case: on a cluster each case records its own (perflab.cluster), on one
machine the document's environment says it for all. Figures from machines whose fingerprints differ
are not set against each other unless the user says so (--force)."""
from __future__ import annotations

import json

from .environment import fingerprint_parts


def case_machine_parts(case: dict, environment: dict) -> dict:
    m = case.get("machine")
    if isinstance(m, dict) and isinstance(m.get("fingerprint_parts"), dict):
        return m["fingerprint_parts"]
    return fingerprint_parts(environment or {})


def has_machines(doc: dict) -> bool:
    """Whether the document's cases say which machine measured each (a cluster run)."""
    return any(isinstance(c.get("machine"), dict) for c in doc.get("cases", []))


def machines_of(docs: list[dict]) -> dict[str, dict]:
    """The distinct fingerprints (as JSON text) among the cases of the documents, with their parts."""
    seen: dict[str, dict] = {}
    for doc in docs:
        for c in doc.get("cases", []):
            parts = case_machine_parts(c, doc.get("environment") or {})
            seen.setdefault(json.dumps(parts, sort_keys=True), parts)
    return seen


def differing_parts(machines: list[dict]) -> list[str]:
    """The fingerprint fields that differ between machines (what to name in the refusal)."""
    if not machines:
        return []
    return [k for k in machines[0] if any(m.get(k) != machines[0].get(k) for m in machines[1:])]
