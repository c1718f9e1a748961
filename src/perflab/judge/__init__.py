"""perflab.judge: every verdict perflab prints is decided here, in golang/perf benchmath's shape.

- an **assumption** per measure gives its summary (`assumption.py`: Robust for time, Exact for
  instruction counts);
- **one** ratio interval (`interval.py`: the paired launch-pair ratio, or the delta method, chosen by
  the pairing the data have) and one geometric-mean interval for families;
- `compare(a, b, pairing, thresholds) -> Comparison(ratio, low, high, p, verdict, reasons)`
  (`compare.py`), with the rules it applies named once in `rules.py`: the change rule, contention
  (judged for the comparison, both sides), claims, processes that disagree;
- the verdict words (`verdict.py`).

The run's table, the stop rule, `compare`, count verdicts, seed claims, history and the dashboard
read their verdicts from here (docs/architecture.md).
"""
from .compare import Comparison, Pairing, adjust, compare, verdict_from_interval
from .interval import GeometricMean, LogRatio, geometric_mean
from .rules import (Thresholds, claim_verdict, confidence_text, contention_reason, decide_change, expected,
                    processes_disagree)
from .verdict import ClaimVerdict, Verdict

__all__ = ["Comparison", "Pairing", "adjust", "compare", "verdict_from_interval", "GeometricMean",
           "LogRatio", "geometric_mean", "Thresholds", "claim_verdict", "confidence_text",
           "contention_reason", "decide_change", "expected", "processes_disagree", "ClaimVerdict",
           "Verdict"]
