"""perflab: one benchmark harness and one table for every language and runtime version.

The decorators benchmark files use (`perflab.benchmark`, `perflab.params`, …) live in the Python
worker, a single stdlib-only file that runs inside the interpreter under test; they are re-exported
here so editors and type checkers see them when the host package is installed.
"""
from __future__ import annotations

__version__ = "0.1.0"


def _authoring_api():
    import importlib.util

    from .paths import worker_dir

    path = worker_dir("python") / "perflab.py"
    spec = importlib.util.spec_from_file_location("perflab._authoring", path)
    if spec is None or spec.loader is None:  # pragma: no cover - broken install
        return {}
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    names = ("benchmark", "params", "arguments", "global_setup", "global_cleanup",
             "iteration_setup", "iteration_cleanup")
    return {n: getattr(module, n) for n in names}


globals().update(_authoring_api())
