"""Plots of ratios against the baseline runtime (matplotlib, Agg backend)."""
from __future__ import annotations

import io

from .results_view import Report, Row, _params_text

# -- plots --------------------------------------------------------------------------------------

PLOT_MIN, PLOT_MAX = 0.01, 100.0  # intervals beyond are cut at the edge (arrow heads)


def ratio_plot_png(report: Report, rows: list[Row], title: str) -> bytes | None:
    """Horizontal plot: one line per (method, params, runtime ≠ baseline), the ratio against the
    baseline runtime on a log axis with its 99.9 % interval; a hollow marker = no interval."""
    items = [r for r in rows if r.case.runtime not in report.baselines and r.ratio is not None
             and r.ratio.value > 0]
    if not items:
        return None
    import matplotlib
    matplotlib.use("Agg", force=False)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
    rt_colour = {rt: colours[i % len(colours)] for i, rt in enumerate(report.runtimes[1:])}
    height = 1.2 + 0.28 * len(items)
    # names and labels are user data: `$…$` in them is text, not mathtext to typeset (or to fail on)
    matplotlib.rcParams["text.parse_math"] = False
    fig = Figure(figsize=(9, height), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    labels, shown = [], set()
    for y, r in enumerate(items):
        col = rt_colour.get(r.case.runtime, "#333333")
        lab = r.case.runtime if r.case.runtime not in shown else None
        shown.add(r.case.runtime)
        v = min(max(r.ratio.value, PLOT_MIN), PLOT_MAX)
        if r.ratio.has_interval:
            lo, hi = max(r.ratio.low, PLOT_MIN), min(r.ratio.high, PLOT_MAX)
            lo, hi = min(lo, v), max(hi, v)
            ax.errorbar([v], [y], xerr=[[v - lo], [hi - v]], fmt="o", color=col,
                        ecolor=col, capsize=3, markersize=4, label=lab)
            # an interval cut at the plot's edge ends in an arrow head instead of a cap
            if r.ratio.low < PLOT_MIN:
                ax.plot([PLOT_MIN], [y], marker="<", color=col, markersize=6)
            if r.ratio.high > PLOT_MAX:
                ax.plot([PLOT_MAX], [y], marker=">", color=col, markersize=6)
        else:
            ax.plot([v], [y], "o", mfc="none", color=col, markersize=5, label=lab)
        p = _params_text(r.case)
        labels.append(f"{r.method}" + (f" ({p})" if p != "-" else ""))
    ax.axvline(1.0, color="#555555", lw=1, ls="--")
    span = [min(max(r.ratio.value, PLOT_MIN), PLOT_MAX) for r in items]
    span += [min(max(x, PLOT_MIN), PLOT_MAX) for r in items if r.ratio.has_interval
             for x in (r.ratio.low, r.ratio.high)]
    left, right = min(span + [0.9]), max(span + [1.1])
    ax.set_xlim(left / 1.15, right * 1.15)
    ax.set_xscale("log")
    from matplotlib.ticker import FuncFormatter, LogLocator
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=30))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda x, _: ""))
    ax.set_yticks(range(len(items)))
    ax.set_yticklabels([lb if len(lb) <= 60 else lb[:57] + "…" for lb in labels], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"ratio of Mean to {report.baseline} (log scale; 99.9 % interval, cut at "
                  f"{PLOT_MIN:g}–{PLOT_MAX:g}; < 1 = faster)")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", metadata={"Software": None})
    return buf.getvalue()
