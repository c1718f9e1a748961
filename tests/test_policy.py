"""perflab.policy: every tuned number in one Policy per job, saved in the results; and the lint that
keeps it so — no numeric module-level constant anywhere else in the package."""
from __future__ import annotations

import ast
import dataclasses
import fnmatch
import json
from pathlib import Path

from perflab.jobs import JOBS, get_job
from perflab.policy import DEFAULT, Policy, for_confidence

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "perflab"

# Module constants that are numbers but not tuned ones, each group with why. A new entry needs the
# same kind of reason: a number someone could tune to change a figure or a verdict belongs in Policy.
NOT_TUNED = [
    # formats and protocols: changing one breaks what other programs or older files read
    ("model.py", {"PROTOCOL_VERSION"}), ("results.py", {"SCHEMA_VERSION"}), ("store/base.py", {"SCHEMA_VERSION"}),
    ("engine/worker.py", {"MAX_LINE"}), ("importers/benchmarkdotnet.py", {"LEVELS"}),
    ("stats/estimate.py", {"PERCENTILES"}),
    # unit conversions and mathematics
    ("engine/memory.py", {"_UNITS"}), ("importers/common.py", {"TIME_UNITS_NS"}), ("stats/robust.py", {"MAD_TO_SD"}),
    # facts about other programs: the widest vector valgrind's VEX decodes (AVX2)
    ("too_fast.py", {"VALGRIND_VECTOR_BYTES"}),
    # the language versions perflab supports or installs
    ("runtimes/*.py", {"MIN_MINOR", "LATEST_PATCH", "MIN_FEATURE", "INSTALLABLE_MAJORS", "MIN_VERSION"}),
    ("toolchains/go.py", {"WORKER_GO_MINOR"}),
    # sizes of buffers, caches and listings: what is kept or shown, never what is measured or decided
    ("engine/capture.py", {"HEAD", "TAIL", "CHUNK"}), ("stats/clean.py", {"_MEMO_SIZE"}),
    ("web/queries.py", {"RUNS_PER_PAGE", "CACHED", "SERIES_REMEMBERED"}), ("report/family.py", {"TOP"}),
    ("measures/callgrind_functions.py", {"TOP"}), ("report/results_view.py", {"MAX_LISTED"}),
    ("engine/proctree.py", {"MAX_PROCESSES"}), ("engine/plan.py", {"MAX_CASES_PER_BENCHMARK"}),
    ("report/plots.py", {"PLOT_MIN", "PLOT_MAX"}),
    # building and caching the languages' toolchains, before anything is measured
    ("toolchains/*.py", {"COMPILE_TIMEOUT", "BUILD_TIMEOUT", "DISCOVERY_TIMEOUT", "PRUNE_AFTER_DAYS"}),
    # reading a recorded profile, after everything is measured
    ("toolchains/profiling.py", {"PERF_INLINE_TIMEOUT_S", "PERF_SCRIPT_TIMEOUT_S"}),
]


def _numeric(node: ast.AST) -> bool:
    """A number, or a tuple/list/set/dict of them, or arithmetic on them (1 << 20, 64 * 1024)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return _numeric(node.operand)
    if isinstance(node, ast.BinOp):
        return _numeric(node.left) and _numeric(node.right)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_numeric(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.values) and all(_numeric(v) for v in node.values)
    return False


def numeric_module_constants(path: Path) -> list[tuple[str, int]]:
    out = []
    for st in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(st, ast.Assign):
            targets, value = st.targets, st.value
        elif isinstance(st, ast.AnnAssign) and st.value is not None:
            targets, value = [st.target], st.value
        else:
            continue
        names = [n.id for t in targets for n in ([t] if isinstance(t, ast.Name) else getattr(t, "elts", []))
                 if isinstance(n, ast.Name)]
        if _numeric(value):
            out += [(name, st.lineno) for name in names]
    return out


def _allowed(rel: str, name: str) -> bool:
    return any(fnmatch.fnmatch(rel, pattern) and name in names for pattern, names in NOT_TUNED)


def test_no_numeric_module_constant_outside_the_policy():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "policy.py":
            continue
        found += [f"src/perflab/{rel}:{line}: {name}" for name, line in numeric_module_constants(path)
                  if not _allowed(rel, name)]
    assert not found, ("tuned numbers belong in perflab.policy (grouped by the rule that uses them), "
                       "or, if not tuned, in NOT_TUNED with a reason:\n" + "\n".join(found))


def test_the_lint_catches_a_constant(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("A = 3\nB: float = 0.5\nC = 1 << 20\nD = (1, 2)\nE = 'text'\nF = DEFAULT.stop\nG = -2.5\n")
    assert [n for n, _ in numeric_module_constants(f)] == ["A", "B", "C", "D", "G"]


def test_the_robust_scale_factor_is_typed_once():
    typed = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
             if "1.4826" in p.read_text(encoding="utf-8")]
    assert typed == ["stats/robust.py"]


def test_a_jobs_policy_follows_its_confidence_and_target():
    short, default = get_job("short").policy, get_job("default").policy
    assert (short.stop.target_rel_error, default.stop.target_rel_error) == (0.05, 0.02)
    assert short.stop.confidence == default.stop.confidence == JOBS["default"].confidence
    assert short.diagnosis.drift_significance == 0.001  # 1 − 99.9 %
    strict = get_job("default", confidence=0.99).policy
    assert strict.stop.confidence == 0.99 and strict.diagnosis.drift_significance == 0.01
    # every other group is the same in every job's policy
    assert short.cleaning == default.cleaning == DEFAULT.cleaning and short.pilot == DEFAULT.pilot


def test_a_policy_survives_the_results_document_and_an_older_one_reads_as_today():
    policy = get_job("short").policy
    assert Policy.from_json(json.loads(json.dumps(policy.to_json()))) == policy
    # a saved policy missing a group or a number, or holding one this perflab does not know
    saved = policy.to_json()
    del saved["history"]
    saved["cleaning"].pop("gross_k")
    saved["cleaning"]["retired_number"] = 7
    back = Policy.from_json(saved)
    assert back.history == DEFAULT.history and back.cleaning.gross_k == DEFAULT.cleaning.gross_k
    assert back.stop == policy.stop
    assert Policy.from_json(None) == DEFAULT


def test_the_results_document_saves_the_jobs_policy():
    import datetime as dt

    from perflab.results import document, policy_of
    job = get_job("short")
    doc = json.loads(json.dumps(document([], job, {}, ["perflab", "run"], dt.datetime.now(dt.timezone.utc), True)))
    assert doc["policy"]["stop"]["target_rel_error"] == 0.05
    assert policy_of(doc) == job.policy
    del doc["policy"]  # written before policies were saved: the job's confidence and target, today's numbers
    assert policy_of(doc) == for_confidence(job.confidence, job.target_rel_error)


def test_every_number_of_the_policy_is_a_number():
    for group in dataclasses.fields(Policy):
        for f in dataclasses.fields(getattr(DEFAULT, group.name)):
            value = getattr(getattr(DEFAULT, group.name), f.name)
            assert isinstance(value, (int, float, tuple)), (group.name, f.name)
