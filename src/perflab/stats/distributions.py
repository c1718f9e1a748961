"""The distribution functions the statistics need (Student's t and F, the normal quantile), from
scipy.special, imported when first used.

scipy.special's import takes 0.27 s here (it pulls in its array-API layer, numpy.testing and
numpy.f2py), a tenth of a run that should reach its verdict in ~3 s. `perflab run` starts it in the
background (`preload`) while it discovers runtimes and starts the first workers, so the first
judgement finds it ready."""
from __future__ import annotations

import threading


def _special():
    from scipy import special
    return special


def t_quantile(df: float, p: float) -> float:
    return float(_special().stdtrit(df, p))


def f_survival(dfn: float, dfd: float, x: float) -> float:
    return float(_special().fdtrc(dfn, dfd, x))


def normal_quantile(p: float) -> float:
    return float(_special().ndtri(p))


def preload() -> None:
    threading.Thread(target=_special, name="perflab-preload-scipy", daemon=True).start()
