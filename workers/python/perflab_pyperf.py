"""pyperf's Runner API, for pyperf scripts run unchanged by perflab's Python worker.

A script that imports pyperf is run as `__main__` with this module standing in for `pyperf` (only
while that script runs: nothing is installed, and pyperf need not be). Each `Runner` call registers a
benchmark instead of spawning pyperf's worker processes; perflab then decides the processes, loops and
warm-up, as for any benchmark:

- `bench_func(name, func, *args)`: func(*args) in perflab's timed loop.
- `bench_time_func(name, time_func, *args)`: time_func(loops, *args) returns the seconds it timed;
  that figure is the sample (nothing is subtracted: the function timed only its own work).
- `timeit(name, stmt, setup, teardown)`: pyperf's timeit shape (setup and teardown outside the timed
  loop, the statement inlined in it), timed like bench_time_func; the empty statement's loop is what
  is subtracted, as perflab subtracts the empty call everywhere.
- `bench_async_func(name, coro_func, *args)`: awaits coro_func(*args) `loops` times in a fresh event
  loop, timing only the awaits, as pyperf does.
- `bench_command` and APIs perflab does not provide fail that benchmark (or the script) alone,
  naming the API.

`inner_loops` becomes the benchmark's operations per call; `metadata` is copied into the results.
"""
import argparse
import itertools
import os
import sys
import time
import types

import perflab

perf_counter = time.perf_counter
VERSION = (2, 11, 0)
__version__ = "2.11.0 (perflab)"

_SUPPORTED = "Runner.bench_func, bench_time_func, bench_async_func, timeit"


def python_implementation():
    import platform
    return platform.python_implementation().lower()


def python_has_jit():
    return python_implementation() == "pypy"


def __getattr__(name):  # the module's other names: fail the script naming the API (PEP 562)
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError("pyperf.%s is not provided by perflab's pyperf (perflab runs %s)"
                         % (name, _SUPPORTED))


class _Registry:
    def __init__(self, path):
        self.path = path
        self.stem = perflab.module_name(path)  # its file name, or its path when another shares it
        self.benches = []
        self.names = set()

    def add(self, name, line, make_case, ops=None, metadata=None):
        if not isinstance(name, str) or not name:
            raise TypeError("a pyperf benchmark name must be a non-empty str, got %r" % (name,))
        bid = "%s.%s" % (self.stem, name)
        if bid in self.names:  # pyperf refuses a duplicate name too
            raise ValueError("duplicated benchmark name: %r" % name)
        self.names.add(bid)
        try:
            ops = int(ops or 1)
        except (TypeError, ValueError):
            raise TypeError("inner_loops must be an int, got %r" % (ops,))
        meta = {}
        for k, v in dict(metadata or {}).items():
            meta[str(k)] = v if isinstance(v, (str, int, float, bool)) or v is None else repr(v)
        self.benches.append(perflab.CompatBench(bid, name, self.stem, self.path, line, make_case,
                                                ops=max(1, ops), meta=meta))


_CURRENT = [None]  # the registry of the script being loaded


def _caller_line():
    """The line of the script that called the Runner method (the benchmark's line in the table)."""
    frame = sys._getframe(2)
    registry = _CURRENT[0]
    while frame is not None:
        if registry is not None and frame.f_code.co_filename == registry.path:
            return frame.f_lineno
        frame = frame.f_back
    return 0


def _no_keywords(kwargs, api):
    if kwargs:
        raise TypeError("%s: unexpected keyword argument %s" % (api, ", ".join(map(repr, sorted(kwargs)))))


def _add_options(parser, min_time):
    """pyperf's command-line options, so a script that adds its own and calls parse_args() works;
    perflab ignores them all (it decides processes, loops and warm-ups itself)."""
    flags = ["--rigorous", "--fast", "--debug-single-value", "-v", "--verbose", "-q", "--quiet",
             "--worker", "--in-process", "--calibrate-loops", "--recalibrate-loops",
             "--calibrate-warmups", "--recalibrate-warmups", "-d", "--dump", "-m", "--metadata",
             "-g", "--hist", "-t", "--stats", "--copy-env", "--no-locale", "--tracemalloc",
             "--track-memory"]
    groups = [("-v", "--verbose"), ("-q", "--quiet"), ("-d", "--dump"), ("-m", "--metadata"),
              ("-g", "--hist"), ("-t", "--stats")]
    grouped = {f for g in groups for f in g}
    for g in groups:
        parser.add_argument(*g, action="store_true")
    for f in flags:
        if f not in grouped:
            parser.add_argument(f, action="store_true")
    parser.add_argument("-p", "--processes", type=int, default=None)
    parser.add_argument("-n", "--values", dest="values", type=int, default=None)
    parser.add_argument("-w", "--warmups", type=int, default=None)
    parser.add_argument("-l", "--loops", type=int, default=0)
    for opt in ("--pipe", "--worker-task", "--timeout"):
        parser.add_argument(opt, type=int, default=None)
    for opt in ("-o", "--output"), ("--append",), ("--affinity",), ("--inherit-environ",), \
            ("--python",), ("--compare-to",), ("--python-names",), ("--profile",), ("--hook",):
        parser.add_argument(*opt, default=None, action="append" if opt == ("--hook",) else "store")
    parser.add_argument("--min-time", type=float, default=min_time)
    return parser


class Runner:
    """pyperf.Runner: registers benchmarks; perflab measures them."""

    def __init__(self, values=None, processes=None, loops=0, min_time=0.1, metadata=None,
                 show_name=True, program_args=None, add_cmdline_args=None, _argparser=None,
                 warmups=1, hooks=None):
        self.metadata = metadata if metadata is not None else {}
        self.args = None
        self.argparser = _add_options(
            _argparser if _argparser is not None else argparse.ArgumentParser(), min_time)
        self.argparser.description = "Benchmark"

    def parse_args(self, args=None):
        if self.args is not None and args is None:
            return self.args
        self.args = self.argparser.parse_args(args)
        return self.args

    def is_worker(self):
        return True  # every process perflab starts measures

    def _registry(self):
        if self.args is None:
            self.parse_args()
        registry = _CURRENT[0]
        if registry is None:
            raise RuntimeError("pyperf.Runner used after its script was loaded")
        return registry

    def bench_func(self, name, func, *args, **kwargs):
        inner_loops, metadata = kwargs.pop("inner_loops", None), kwargs.pop("metadata", None)
        _no_keywords(kwargs, "bench_func")
        self._registry().add(name, _caller_line(), lambda: perflab._CallCase(func, args),
                             inner_loops, metadata)

    def bench_time_func(self, name, time_func, *args, **kwargs):
        inner_loops, metadata = kwargs.pop("inner_loops", None), kwargs.pop("metadata", None)
        _no_keywords(kwargs, "bench_time_func")
        self._registry().add(name, _caller_line(),
                             lambda: perflab._CallCase(None, args, time_func=time_func),
                             inner_loops, metadata)

    def bench_async_func(self, name, func, *args, **kwargs):
        inner_loops, metadata = kwargs.pop("inner_loops", None), kwargs.pop("metadata", None)
        loop_factory = kwargs.pop("loop_factory", None)
        _no_keywords(kwargs, "bench_async_func")

        def time_awaits(loops):
            import asyncio

            async def main():
                timer, it = time.perf_counter, range(loops)
                t0 = timer()
                for _ in it:
                    await func(*args)
                return timer() - t0
            loop = loop_factory() if loop_factory is not None else asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            try:
                return loop.run_until_complete(main())
            finally:
                asyncio.set_event_loop(None)
                loop.close()
        self._registry().add(name, _caller_line(),
                             lambda: perflab._CallCase(None, (), time_func=time_awaits),
                             inner_loops, metadata)

    def timeit(self, name, stmt=None, setup="pass", teardown="pass", inner_loops=None,
               duplicate=None, metadata=None, globals=None):
        stmt = name if stmt is None else stmt
        timed = _timeit_function(stmt, setup, teardown, globals, duplicate)  # errors: at load
        empty = _timeit_function("pass", "pass", "pass", None, duplicate)
        if duplicate and duplicate > 1:
            inner_loops = (inner_loops or 1) * duplicate
        self._registry().add(name, _caller_line(),
                             lambda: perflab._CallCase(None, (), time_func=timed,
                                                       empty_time_func=empty),
                             inner_loops, metadata)

    def bench_command(self, name, command):
        self._unsupported(name, "bench_command",
                          "it times a whole command in new processes, not code in this one")

    def _unsupported(self, name, api, why):
        def refuse():
            raise NotImplementedError("pyperf.Runner.%s is not supported by perflab: %s" % (api, why))
        self._registry().add(name, _caller_line(), refuse)

    def __getattr__(self, api):
        if api.startswith("_"):
            raise AttributeError(api)

        def unsupported(name=None, *args, **kwargs):
            if isinstance(name, str):
                return self._unsupported(name, api, "perflab runs " + _SUPPORTED)
            raise AttributeError("pyperf.Runner.%s is not supported by perflab (it runs %s)"
                                 % (api, _SUPPORTED))
        return unsupported


def _statements(src):
    if isinstance(src, (list, tuple)):
        src = "\n".join(s.rstrip() for s in src if s.rstrip())
    return src


def _timeit_function(stmt, setup, teardown, globals_, duplicate):
    """pyperf's timeit: f(loops) runs setup, times `loops` passes of the statement inlined in a loop,
    runs teardown, and returns the seconds timed."""
    names, init = {}, ""
    parts = {}
    for key, value in (("setup", setup), ("stmt", stmt), ("teardown", teardown)):
        value = _statements(value)
        if callable(value):
            names["_" + key] = value
            init += ", _%s=_%s" % (key, key)
            parts[key] = "_%s()" % key
        elif isinstance(value, str):
            compile(value, "<timeit-%s>" % key, "exec")  # a statement that does not compile: at load
            parts[key] = value
        else:
            raise ValueError("%s is neither a string nor callable" % key)
    body = parts["stmt"]
    if duplicate and duplicate > 1:
        body = "\n".join([body] * duplicate)

    def indent(text, n):
        return text.replace("\n", "\n" + " " * n)
    src = ("def inner(_it, _timer%s):\n    %s\n    _t0 = _timer()\n    for _i in _it:\n        %s\n"
           "    _t1 = _timer()\n    %s\n    return _t1 - _t0\n"
           % (init, indent(parts["setup"], 4), indent(body, 8), indent(parts["teardown"], 4)))
    code = compile(src, "<timeit-src>", "exec")

    def time_func(loops):
        namespace = dict(names)
        exec(code, dict(globals_) if globals_ is not None else {}, namespace)
        return namespace["inner"](itertools.repeat(None, loops), time.perf_counter)
    return time_func


def load(path):
    """Run the pyperf script at `path` as `__main__` with this module as `pyperf`; returns
    (benchmarks, errors) as perflab's _load_file does."""
    registry = _Registry(path)
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__builtins__ = __builtins__
    saved = (sys.argv, sys.modules.get("__main__"))
    sys.argv = [path]
    sys.modules["__main__"] = module
    sys.modules["pyperf"] = sys.modules[__name__]
    _CURRENT[0] = registry
    try:
        with open(path, "rb") as f:
            source = f.read()
        with perflab.import_deadline(path):
            exec(compile(source, path, "exec"), module.__dict__)
    except SystemExit as exc:  # a script may end with sys.exit(); a failing code fails the file
        if exc.code not in (None, 0):
            return [], [perflab.load_failure(path, exc)]
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        return [], [perflab.load_failure(path, exc)]
    finally:
        _CURRENT[0] = None
        sys.argv = saved[0]
        # `pyperf` stays this module: the script's functions may import it when they run
        if saved[1] is None:
            sys.modules.pop("__main__", None)
        else:
            sys.modules["__main__"] = saved[1]
    _KEEP.append(module)  # its functions' globals stay alive with it
    if not registry.benches:
        return [], [perflab.file_failure(path, 0, "this pyperf script registered no benchmark "
                                         "(perflab runs %s)" % _SUPPORTED)]
    return registry.benches, []


_KEEP = []
