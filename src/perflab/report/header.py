"""The environment block above the tables (BenchmarkDotNet's header): perflab version, OS, CPU, each
runtime with its version, and the job. Plain text lines; renderers escape them like any cell."""
from __future__ import annotations

from typing import Any


def header_lines(env: dict[str, Any], job: dict[str, Any]) -> list[str]:
    os_ = env.get("os") or {}
    cpu = env.get("cpu") or {}
    lines = [f"perflab {env.get('perflab_version', '?')}, OS={os_.get('system', '?')} "
             f"{os_.get('release', '')} ({os_.get('machine', '?')}), host Python "
             f"{env.get('host_python', '?')}",
             f"{cpu.get('model') or 'unknown CPU'}, {cpu.get('logical_cores', '?')} logical cores"]
    runtimes = [rt for rt in env.get("runtimes") or [] if isinstance(rt, dict)]
    width = max((len(str(rt.get("label", ""))) for rt in runtimes), default=0)
    first: dict[str, str] = {}
    for rt in runtimes:
        first.setdefault(str(rt.get("language", "")), str(rt.get("label", "")))
    several = {lang for lang in first
               if sum(str(rt.get("language", "")) == lang for rt in runtimes) > 1}
    for rt in runtimes:
        label, lang = str(rt.get("label", "")), str(rt.get("language", ""))
        impl = " ".join(str(x) for x in (rt.get("implementation"), rt.get("version")) if x)
        flags = " ".join(str(f) for f in rt.get("flags") or [])
        base = " [baseline runtime]" if lang in several and first[lang] == label else ""
        lines.append(f"  {label.ljust(width)} : {lang} {impl}{' ' + flags if flags else ''}{base}")
    if job:
        lines.append(
            f"Job={job.get('name', '?')}  Launches={job.get('launches_min', '?')}-"
            f"{job.get('launches_max', '?')}  WarmupCount>={job.get('warmup_min', '?')}  "
            f"IterationTime={_seconds(job.get('iteration_time_s'))}  "
            f"Target=±{(job.get('target_rel_error') or 0):.0%}  "
            f"Budget={_seconds(job.get('budget_s'))}/case{_language_budgets(job)}  "
            f"Confidence={(job.get('confidence') or 0):.1%}")
    return lines


def _language_budgets(job: dict) -> str:
    """" (java 6 s)": the languages with a budget of their own in this job."""
    pairs = [p for p in job.get("budget_by_language") or [] if isinstance(p, (list, tuple)) and len(p) == 2]
    return f" ({', '.join(f'{lang} {_seconds(s)}' for lang, s in pairs)})" if pairs else ""


def _seconds(s: Any) -> str:
    if not isinstance(s, (int, float)):
        return "?"
    return f"{s * 1000:g} ms" if 0 < s < 1 else f"{s:g} s"
