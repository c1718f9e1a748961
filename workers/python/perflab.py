"""perflab's Python worker: the authoring API benchmark files import, and the in-process agent.

Standard library only; runs inside CPython 3.8-3.13 and PyPy 3. The host starts
`perflab_main.py` (which sits beside this file, so `import perflab` in a benchmark file resolves here)
and talks protocol v2 over a loopback socket; see protocol/PROTOCOL.md.

Authoring, in short::

    import perflab

    @perflab.benchmark(baseline=True)
    def lookup():                        # plain function
        return TABLE["k"]

    @perflab.params(n=[10, 1000])
    def bench_build(n):                  # functions named bench_* need no decorator
        return list(range(n))

    class Strings:                       # a class groups benchmarks sharing params and setup
        params = {"size": [10, 1000]}
        def setup(self):                 # once per case, before timing (params are attributes)
            self.parts = ["x"] * self.size
        @perflab.benchmark(ops=100)      # one call performs 100 operations
        def join(self):
            for _ in range(100):
                "".join(self.parts)

Per-iteration setup (`iteration_setup`) runs before every timed iteration, outside the timed region;
it forces one iteration per setup call, so the host cannot batch as freely: use it only when the
benchmark consumes state (e.g. pops from a list).
"""
from __future__ import annotations

import gc
import importlib.util
import itertools
import json
import os
import platform
import socket
import sys
import time
import types

PROTOCOL_VERSION = 2
UNROLL = 16  # calls per pass of the timed loop; the host rounds invocations to a multiple of this

# ---------------------------------------------------------------------------------------------
# Authoring API
# ---------------------------------------------------------------------------------------------

_ATTR = "__perflab__"


def _spec(fn):
    spec = getattr(fn, _ATTR, None)
    if spec is None:
        spec = {}
        try:
            setattr(fn, _ATTR, spec)
        except AttributeError:
            raise TypeError("perflab: cannot decorate %r" % (fn,))
    return spec


def benchmark(fn=None, *, name=None, baseline=False, categories=(), ops=1, setup=None,
              teardown=None, iteration_setup=None, iteration_cleanup=None, meta=None,
              description=None):
    """Mark a function or method as a benchmark. Usable bare (`@benchmark`) or with options.

    ops: operations performed by one call (BenchmarkDotNet's OperationsPerInvoke).
    setup/teardown: called once per case, with the parameters the function accepts.
    iteration_setup/iteration_cleanup: called around every timed iteration (costly: see module doc).
    meta: free-form metadata copied into the results (e.g. {"seed": "002", "section": "Seek"}).
    """
    def mark(f):
        spec = _spec(f)
        spec.update(benchmark=True, name=name, baseline=baseline, categories=list(categories),
                    ops=int(ops), setup=setup, teardown=teardown,
                    iteration_setup=iteration_setup, iteration_cleanup=iteration_cleanup,
                    meta=dict(meta or {}), description=description)
        if spec["ops"] < 1:
            raise ValueError("perflab.benchmark: ops must be >= 1 (got %r)" % (ops,))
        return f
    return mark(fn) if fn is not None else mark


def params(**axes):
    """Parameter axes for a function or a class; every combination is a case (cartesian product)."""
    def mark(target):
        _spec(target).setdefault("params", {}).update(axes)
        return target
    return mark


def arguments(*values):
    """Argument sets for one benchmark (BenchmarkDotNet's [Arguments]). A tuple value supplies several
    positional arguments; anything else supplies one."""
    def mark(fn):
        _spec(fn).setdefault("arguments", []).extend(values)
        return fn
    return mark


def _hook(kind):
    def mark(fn):
        _spec(fn)[kind] = True
        return fn
    return mark


global_setup = _hook("global_setup")          # module function: runs before each case of the module
global_cleanup = _hook("global_cleanup")      # module function: runs after each case of the module
iteration_setup = _hook("iteration_setup_hook")
iteration_cleanup = _hook("iteration_cleanup_hook")


# ---------------------------------------------------------------------------------------------
# Discovery
# ---------------------------------------------------------------------------------------------

class _Bench:
    """One discovered benchmark and how to set it up and call it."""

    def __init__(self, bid, name, group, file, line, func, cls, spec, axes, module):
        self.id, self.name, self.group = bid, name, group
        self.file, self.line = file, line
        self.func, self.cls, self.spec, self.axes, self.module = func, cls, spec, axes, module

    def describe(self):
        return {
            "id": self.id, "name": self.name, "group": self.group, "file": self.file,
            "line": self.line, "baseline": bool(self.spec.get("baseline")),
            "categories": self.spec.get("categories") or [],
            "ops_per_invoke": self.spec.get("ops") or 1,
            "params": [{"name": _axis_label(n), "values": _display(vals)} for n, vals in self.axes],
            "description": self.spec.get("description") or _first_doc_line(self.func, self.cls),
            "meta": self.spec.get("meta") or {},
            "iteration_setup": self._has_iteration_setup(),
        }

    def _has_iteration_setup(self):
        if self.spec.get("iteration_setup") or self.spec.get("iteration_cleanup"):
            return True
        if self.cls is not None:
            for name, value in vars(self.cls).items():
                hook = getattr(value, _ATTR, None) or {}
                if name in ("iteration_setup", "iteration_cleanup") or hook.get(
                        "iteration_setup_hook") or hook.get("iteration_cleanup_hook"):
                    return True
            return False
        hooks = getattr(self.module, "__perflab_hooks__", {})
        return bool(hooks.get("iteration_setup_hook") or hooks.get("iteration_cleanup_hook"))


class CompatBench:
    """A benchmark another harness declared (a pytest-benchmark test, a pyperf Runner call).
    `make_case()` returns its _CallCase, or raises why it cannot run (an unsupported API: the
    benchmark fails alone); `run_case(worker, rid)` instead, when set, runs the case itself
    (pytest: the test calls `benchmark(...)`, which serves the timing requests from inside it)."""

    def __init__(self, bid, name, group, file, line, make_case=None, run_case=None, params=(),
                 ops=1, meta=None, iteration_setup=False, description=""):
        self.id, self.name, self.group, self.file, self.line = bid, name, group, file, line
        self.make_case, self.run_case = make_case, run_case
        self.params, self.ops, self.meta = list(params), int(ops), dict(meta or {})
        self.iteration_setup, self.description = iteration_setup, description

    def describe(self):
        return {"id": self.id, "name": self.name, "group": self.group, "file": self.file,
                "line": self.line, "baseline": False, "categories": [],
                "ops_per_invoke": self.ops,
                "params": [{"name": n, "values": [v]} for n, v in self.params],
                "description": self.description, "meta": self.meta,
                "iteration_setup": self.iteration_setup}


def _display(values):
    shown = [str(v) for v in values]
    if len(set(shown)) != len(shown):
        shown = [repr(v) for v in values]
    return shown


def _first_doc_line(func, cls):
    """The first line of a benchmark's docstring, or of the method it overrides (as inspect.getdoc
    finds it), without importing inspect: every launch describes what it loaded."""
    doc = getattr(func, "__doc__", None)
    for base in (cls.__mro__[1:] if cls is not None and not doc else ()):
        doc = getattr(getattr(base, getattr(func, "__name__", ""), None), "__doc__", None)
        if doc:
            break
    return doc.strip().split("\n")[0].strip() if isinstance(doc, str) else ""


def _inspect():
    """inspect costs a third of a worker's start (it imports ast, dis, re…), and the engine starts a
    fresh worker for every few dozen iterations: it is imported where a benchmark needs it."""
    import inspect
    return inspect


def _source_line(obj):
    """The line a function starts on (its first decorator), as inspect.getsourcelines says, without
    reading the file."""
    while hasattr(obj, "__wrapped__"):
        obj = obj.__wrapped__
    code = getattr(obj, "__code__", None)
    return code.co_firstlineno if code is not None else 0


def _axes_of(spec, owner_params, func, is_method):
    """Parameter axes: params of the owner/class or function, then an arguments axis."""
    axes = []
    merged = dict(owner_params or {})
    merged.update(spec.get("params") or {})
    for name, values in merged.items():
        values = list(values)
        if not values:
            raise ValueError("parameter '%s' has an empty list of values" % name)
        axes.append((name, values))
    if spec.get("arguments"):
        sig = list(_inspect().signature(func).parameters)
        if is_method:
            sig = sig[1:]
        free = [p for p in sig if p not in merged]
        label = ",".join(free) or "args"
        axes.append(("\0args:" + label, list(spec["arguments"])))
    return axes


def _discover_module(module, path):
    """Benchmarks of a module, and per-benchmark errors (e.g. an empty parameter list)."""
    found, errors = [], []

    def add(bid, name, group, func, cls, spec, owner_params, is_method):
        try:
            axes = _axes_of(spec, owner_params, func, is_method)
        except ValueError as exc:
            errors.append({"file": path, "line": _source_line(func), "kind": "load",
                           "message": "%s: %s" % (bid, exc)})
            return
        found.append(_Bench(bid, name, group, path, _source_line(func), func, cls, spec, axes,
                            module))
    stem = module.__name__
    hooks = {k: None for k in ("global_setup", "global_cleanup", "iteration_setup_hook",
                               "iteration_cleanup_hook")}
    for value in vars(module).values():
        spec = getattr(value, _ATTR, None)
        if isinstance(value, types.FunctionType) and spec:
            for k in hooks:
                if spec.get(k):
                    hooks[k] = value
    module.__perflab_hooks__ = hooks
    for attr, value in list(vars(module).items()):
        if getattr(value, "__module__", None) != module.__name__:
            continue
        if isinstance(value, types.FunctionType):
            spec = getattr(value, _ATTR, {}) or {}
            if spec.get("benchmark") or (attr.startswith("bench_") and not _is_hook(spec)):
                add("%s.%s" % (stem, attr), spec.get("name") or attr, stem, value, None, spec, None,
                    False)
        elif isinstance(value, type):
            cls_spec = getattr(value, _ATTR, None) if _ATTR in vars(value) else None
            cls_params = dict(getattr(value, "params", None) or {}) if isinstance(
                getattr(value, "params", None), dict) else {}
            if cls_spec:
                cls_params.update(cls_spec.get("params") or {})
            methods = []
            for mname, member in vars(value).items():
                if not isinstance(member, types.FunctionType):
                    continue
                spec = getattr(member, _ATTR, {}) or {}
                if spec.get("benchmark") or (mname.startswith("bench_") and not _is_hook(spec)):
                    methods.append((mname, member, spec))
            if not methods and not attr.startswith("Bench"):
                continue
            for mname, member, spec in methods:
                add("%s.%s.%s" % (stem, attr, mname), spec.get("name") or mname, attr, member,
                    value, spec, cls_params, True)
    found.sort(key=lambda b: b.line)
    return found, errors


def _is_hook(spec):
    return any(spec.get(k) for k in ("global_setup", "global_cleanup", "iteration_setup_hook",
                                     "iteration_cleanup_hook"))


def _load_file(path, root):
    """Import one benchmark file as a module named after it; returns (benchmarks, error-dicts).
    A pyperf script is run as `__main__` with perflab's pyperf (perflab_pyperf) in its place."""
    stem = os.path.splitext(os.path.basename(path))[0]
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(1, directory)
    if file_kind(path) == "pyperf":
        import perflab_pyperf  # beside this file; only pyperf scripts need it
        return perflab_pyperf.load(path)
    modname = module_name(path)
    try:
        spec = importlib.util.spec_from_file_location(modname, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[modname] = module
        with import_deadline(path):
            spec.loader.exec_module(module)
        return _discover_module(module, path)
    except BaseException as exc:  # an import-time failure fails this file only
        sys.modules.pop(modname, None)
        return [], [load_failure(path, exc)]


def module_name(path):
    """The module name of benchmark file `path`: its stem, or the dotted path the host gave it when
    another file has the same name (PERFLAB_MODULE_NAMES); its benchmarks' ids and group follow it,
    the same in every worker. A name some other module already holds gets the first free `_2`, `_3`…
    (the same in every worker too, unlike a count of the modules loaded)."""
    global _MODULE_NAMES
    if _MODULE_NAMES is None:
        try:
            _MODULE_NAMES = json.loads(os.environ.get("PERFLAB_MODULE_NAMES") or "{}")
        except ValueError:
            _MODULE_NAMES = {}
    name = _MODULE_NAMES.get(os.path.abspath(path)) or os.path.splitext(os.path.basename(path))[0]
    if name not in sys.modules:
        return name
    k = 2
    while "%s_%d" % (name, k) in sys.modules:
        k += 1
    return "%s_%d" % (name, k)


_MODULE_NAMES = None


def file_kind(path):
    """"pytest" for a pytest-benchmark test file (test_*.py, *_test.py: the host sends only those
    whose tests take the `benchmark` fixture), "pyperf" for a script that imports pyperf, else
    "perflab" (this module's own API)."""
    base = os.path.basename(path)
    if base.startswith("test_") or base.endswith("_test.py"):
        return "pytest"
    try:
        with open(path, "rb") as f:
            text = f.read()
    except OSError:
        return "perflab"
    if _PYPERF_IMPORT.search(text):
        return "pyperf"
    return "perflab"


class _LazyPattern:
    def __init__(self, pattern):
        self.pattern, self.compiled = pattern, None

    def search(self, text):
        if self.compiled is None:
            import re
            self.compiled = re.compile(self.pattern, re.M)
        return self.compiled.search(text)


_PYPERF_IMPORT = _LazyPattern(rb"^[ \t]*(?:import[ \t]+pyperf\b|from[ \t]+pyperf\b)")


def file_failure(path, line, message, traceback=None):
    """A load error for a whole file that the host shows as one failed row named after the file, so
    the file fails alone and every other file is still measured."""
    stem = module_name(path)
    err = {"file": path, "line": line, "kind": "load", "message": message,
           "benchmark": {"id": "%s:<load>" % path, "name": os.path.basename(path), "group": stem}}
    if traceback:
        err["traceback"] = traceback
    return err


def load_failure(path, exc):
    """The file-level load error for an exception raised while importing `path`: a SyntaxError at its
    own line, otherwise where the user's code failed (for an import that hung: the line in `path`
    that was running)."""
    if isinstance(exc, SyntaxError):
        return file_failure(exc.filename or path, exc.lineno or 0,
                            "%s: %s" % (type(exc).__name__, exc.msg))
    file, line = _user_frame(exc, path)
    if isinstance(exc, ImportTimeout):
        file, line = _frame_in(exc, path) or (file, line)
    return file_failure(file, line, _exc_message(exc), _format_tb(exc))


def _frame_in(exc, path):
    found = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == path:
            found = (path, tb.tb_lineno)
        tb = tb.tb_next
    return found


class ImportTimeout(Exception):
    """Raised into a benchmark file whose import outlives its deadline (it hangs)."""


class import_deadline:
    """Bounds the import of a benchmark file: after PERFLAB_LOAD_TIMEOUT x 0.8 seconds (the host's
    reply deadline, less a margin so this worker answers first) SIGALRM raises ImportTimeout where
    the import is, so the file fails alone with the line it hung on. An import stuck in C code that
    never checks for signals is still bounded by the host, which then loads the files one by one."""

    def __init__(self, path, what=None):
        self.path = path
        self.what = what or os.path.basename(path)
        try:
            self.seconds = 0.8 * float(os.environ.get("PERFLAB_LOAD_TIMEOUT") or 0)
        except ValueError:
            self.seconds = 0.0

    def __enter__(self):
        import signal
        self.previous = None
        if self.seconds <= 0 or not hasattr(signal, "setitimer"):
            return self
        seconds, what = self.seconds, self.what

        def expire(signum, frame):
            raise ImportTimeout("import did not finish within %.1f s (perflab --timeout %.1f): "
                                "does %s hang at import?" % (seconds, seconds / 0.8, what))
        self.previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        return self

    def __exit__(self, *exc):
        if self.previous is not None:
            import signal
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)
        return False


# ---------------------------------------------------------------------------------------------
# Running one case
# ---------------------------------------------------------------------------------------------

def _make_loop(nargs, unroll, tag):
    """Compile the timed loop for a callable of `nargs` positional arguments, `unroll` calls per pass.

    Arguments are bound as locals (fast), the result of every call is kept in `_r`, and `_r` is stored
    in a module global after the loop, so no call is ever dead (CPython would not remove it anyway, but
    PyPy's JIT could drop a pure call whose result is unused). It returns (wall ns, CPU ns)."""
    args = ", ".join("_a%d" % i for i in range(nargs))
    params = "".join(", _a%d" % i for i in range(nargs))
    body = "\n".join("        _r = _f(%s)" % args for _ in range(unroll))
    # the CPU clock is read just outside the two wall-clock reads: the timed region is unchanged,
    # and nothing that could run a GC pass (an allocation) lies between a CPU and a wall read
    src = ("def _loop(_it, _f, _clock, _cpu%s):\n"
           "    _r = None\n"
           "    _c0 = _cpu()\n"
           "    _t0 = _clock()\n"
           "    for _ in _it:\n%s\n"
           "    _t1 = _clock()\n"
           "    _c1 = _cpu()\n"
           "    _sink[0] = _r\n"
           "    return _t1 - _t0, _c1 - _c0\n") % (params, body)
    ns = {"_sink": _SINK}
    exec(compile(src, "<perflab-loop-%s-%d-%d>" % (tag, nargs, unroll), "exec"), ns)
    return ns["_loop"]


_SINK = [None]


def _make_noop(nargs):
    ns = {}
    exec("def _noop(%s):\n    return None\n" % ", ".join("a%d" % i for i in range(nargs)), ns)
    return ns["_noop"]


def _call_with(fn, available):
    """Call a setup/cleanup hook with the parameters it accepts."""
    if fn is None:
        return None
    names = _plain_parameters(fn)
    if names is not None:
        return fn(**{k: v for k, v in available.items() if k in names})
    try:
        wanted = _inspect().signature(fn).parameters
    except (TypeError, ValueError):
        return fn()
    if any(p.kind == p.VAR_KEYWORD for p in wanted.values()):
        return fn(**available)
    return fn(**{k: v for k, v in available.items() if k in wanted})


def _plain_parameters(fn):
    """The parameter names a plain function or bound method takes by name, read off its code object
    (inspect.signature costs a fifth of a worker's start); None when only inspect can tell (**kwargs,
    positional-only parameters, builtins, partials, callable objects)."""
    func = getattr(fn, "__func__", fn)
    code = getattr(func, "__code__", None)
    if code is None or type(func) is not types.FunctionType or code.co_flags & 0x08:  # CO_VARKEYWORDS
        return None
    if getattr(code, "co_posonlyargcount", 0) or func is not fn and not isinstance(fn, types.MethodType):
        return None
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    return set(names[1:] if func is not fn else names)


class _Case:
    def __init__(self, bench, indices):
        self.bench = bench
        values = {}
        self.args = ()
        for name, vals in bench.axes:
            if name not in indices:
                raise KeyError("missing index for parameter '%s'" % _axis_label(name))
            i = indices[name]
            if not isinstance(i, int) or not 0 <= i < len(vals):
                raise KeyError("parameter '%s' has no value #%r" % (_axis_label(name), i))
            if name.startswith("\0args:"):
                v = vals[i]
                self.args = tuple(v) if isinstance(v, tuple) else (v,)
            else:
                values[name] = vals[i]
        self.values = values
        spec = bench.spec
        hooks = bench.module.__perflab_hooks__
        if bench.cls is not None:
            self.instance = bench.cls()
            for k, v in values.items():
                setattr(self.instance, k, v)
            bound = getattr(self.instance, bench.func.__name__)
            self.call = bound
            self.call_args = self.args
            inst = self.instance
            self.setup = _method_or_none(inst, "setup", "global_setup")
            self.cleanup = _method_or_none(inst, "teardown", "cleanup", "global_cleanup")
            self.it_setup = _method_or_none(inst, "iteration_setup")
            self.it_cleanup = _method_or_none(inst, "iteration_cleanup")
            self._hook_args = {}
        else:
            self.instance = None
            self.call = bench.func
            bound = _inspect().signature(bench.func).bind_partial(*self.args, **values) \
                if self.args or values else None
            self.call_args = tuple(bound.args) if bound else ()
            if bound and bound.kwargs:  # keyword-only parameters: fall back to a closure
                f, a, kw = bench.func, tuple(bound.args), dict(bound.kwargs)
                self.call = lambda: f(*a, **kw)
                self.call_args = ()
            self.setup = spec.get("setup") or hooks["global_setup"]
            self.cleanup = spec.get("teardown") or hooks["global_cleanup"]
            self.it_setup = spec.get("iteration_setup") or hooks["iteration_setup_hook"]
            self.it_cleanup = spec.get("iteration_cleanup") or hooks["iteration_cleanup_hook"]
            self._hook_args = values
        if bench.cls is not None:
            self.it_setup = self.it_setup or spec.get("iteration_setup")
            self.it_cleanup = self.it_cleanup or spec.get("iteration_cleanup")
        self.noop = _make_noop(len(self.call_args))
        self._loops = {}

    def hook(self, fn):
        if fn is None:
            return
        if self.instance is not None and isinstance(fn, types.MethodType):
            fn()
        else:
            _call_with(fn, self._hook_args)

    def _loop(self, kind, unroll):
        """A freshly compiled loop per case and kind (workload/overhead): sharing one code object
        would let CPython's specialising interpreter (3.11+) or PyPy's JIT tune the call site for one
        callee and then pay for the other."""
        key = (kind, unroll)
        if key not in self._loops:
            self._loops[key] = _make_loop(len(self.call_args), unroll, kind)
        return self._loops[key]

    def time_iterations(self, invocations, iterations, target, kind="workload", overhead=None,
                        cpu=None, overhead_cpu=None, overhead_first=False):
        """`iterations` timed iterations of `target`; with `overhead` (a list), each is followed by
        one iteration of the empty function (preceded, with `overhead_first`), appended there. The
        CPU time this thread got in each iteration is appended to `cpu` (and `overhead_cpu`)."""
        cpu = [] if cpu is None else cpu
        overhead_cpu = [] if overhead_cpu is None else overhead_cpu
        unroll = UNROLL if invocations % UNROLL == 0 else 1
        loop = self._loop(kind, unroll)
        empty = self._loop("overhead", unroll) if overhead is not None else None
        outer = invocations // unroll
        samples = []
        if _COUNT_MARKER is not None:  # count mode: the whole loop inside one call of the marker
            _COUNT_MARKER(self._iterate, (iterations, outer, loop, target, empty, samples, cpu,
                                          overhead, overhead_cpu, overhead_first))
        else:
            self._iterate(iterations, outer, loop, target, empty, samples, cpu, overhead,
                          overhead_cpu, overhead_first)
        return samples

    def _iterate(self, iterations, outer, loop, target, empty, samples, cpu, overhead,
                 overhead_cpu, overhead_first=False):
        repeat = itertools.repeat
        clock = time.perf_counter_ns
        cpu_clock = _thread_time_ns or _zero
        args = self.call_args
        for _ in range(iterations):
            if empty is not None and overhead_first:
                ns, cpu_ns = empty(repeat(None, outer), self.noop, clock, cpu_clock, *args)
                overhead.append(ns)
                overhead_cpu.append(cpu_ns)
            if self.it_setup is not None:
                self.hook(self.it_setup)
            ns, cpu_ns = loop(repeat(None, outer), target, clock, cpu_clock, *args)
            samples.append(ns)
            cpu.append(cpu_ns)
            if self.it_cleanup is not None:
                self.hook(self.it_cleanup)
            if empty is not None and not overhead_first:
                ns, cpu_ns = empty(repeat(None, outer), self.noop, clock, cpu_clock, *args)
                overhead.append(ns)
                overhead_cpu.append(cpu_ns)


class _CallCase(_Case):
    """A case around a callable another harness handed over (pytest-benchmark's `benchmark(fn, ...)`,
    pyperf's `bench_func`), timed by this worker's loop like any other; or, with `time_func`, a
    function that times itself (pyperf's `bench_time_func(name, f)`: f(loops, *args) -> seconds)."""

    def __init__(self, fn, args=(), kwargs=None, per_iteration=None, time_func=None,
                 empty_time_func=None):
        self.bench, self.instance, self.values, self._hook_args = None, None, {}, {}
        self.setup = self.cleanup = self.it_cleanup = None
        self.it_setup = None
        self.args = tuple(args)
        self.time_func, self.empty_time_func = time_func, empty_time_func
        noop = _make_noop_any()
        if per_iteration is not None:
            # pytest-benchmark's pedantic(setup=...): each iteration calls setup() for the
            # arguments of its one call; the empty call gets the same arguments the same way
            current = [(), {}]

            def prepare():
                current[0], current[1] = per_iteration()
            self.it_setup = prepare
            self.call = lambda: fn(*current[0], **current[1])
            self.noop = lambda: noop(*current[0], **current[1])
            self.call_args = ()
        elif kwargs:
            a, kw = self.args, dict(kwargs)
            self.call = lambda: fn(*a, **kw)
            self.noop = lambda: noop(*a, **kw)
            self.call_args = ()
        else:
            self.call, self.call_args = fn, self.args
            self.noop = _make_noop(len(self.args))
        if time_func is not None:
            self.call = lambda *a: time_func(1, *a)
            self.noop = _make_noop(len(self.args))
        self._loops = {}

    def time_iterations(self, invocations, iterations, target, kind="workload", overhead=None,
                        cpu=None, overhead_cpu=None, overhead_first=False):
        if self.time_func is None:
            if self.it_setup is not None and invocations != 1:
                raise ValueError("a benchmark whose setup runs before every call takes one call per "
                                 "iteration, not %d" % invocations)
            return _Case.time_iterations(self, invocations, iterations, target, kind, overhead,
                                         cpu, overhead_cpu, overhead_first)
        cpu = [] if cpu is None else cpu
        overhead_cpu = [] if overhead_cpu is None else overhead_cpu
        samples = []
        timed = self.empty_time_func if target is self.noop else self.time_func
        for _ in range(iterations):
            if overhead is not None and overhead_first:
                self._timed_by_itself(self.empty_time_func, invocations, overhead, overhead_cpu)
            self._timed_by_itself(timed, invocations, samples, cpu)
            if overhead is not None and not overhead_first:
                self._timed_by_itself(self.empty_time_func, invocations, overhead, overhead_cpu)
        return samples

    def _timed_by_itself(self, time_func, invocations, samples, cpu):
        """One iteration of a function that times itself: its own figure is the sample. The CPU
        time is this thread's over the whole call, scaled to the share of the call it timed (the
        function cannot say how much of its own interval it was preempted)."""
        if time_func is None:  # nothing to subtract: the function timed only its own work
            samples.append(0)
            cpu.append(0)
            return
        cpu_clock = _thread_time_ns or _zero
        c0, t0 = cpu_clock(), time.perf_counter_ns()
        seconds = time_func(invocations, *self.args)
        t1, c1 = time.perf_counter_ns(), cpu_clock()
        if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or seconds < 0:
            raise TypeError("the time function returned %r, not a number of seconds" % (seconds,))
        ns = int(round(seconds * 1e9))
        samples.append(ns)
        cpu.append(min(ns, int((c1 - c0) * ns / max(1, t1 - t0))))


def _make_noop_any():
    def _noop(*a, **kw):
        return None
    return _noop


def _axis_label(name):
    return name[len("\0args:"):] if name.startswith("\0args:") else name


def _method_or_none(inst, *names):
    for n in names:
        m = getattr(inst, n, None)
        if callable(m):
            return m
    for value in vars(type(inst)).values():
        spec = getattr(value, _ATTR, None) or {}
        key = {"setup": "global_setup", "teardown": "global_cleanup",
               "iteration_setup": "iteration_setup_hook",
               "iteration_cleanup": "iteration_cleanup_hook"}.get(names[0])
        if key and spec.get(key):
            return getattr(inst, value.__name__)
    return None


def _diagnose(case, invocations, iterations):
    """Allocation and GC counts, measured with instrumentation that the timed stages never have on."""
    result = {"alloc_bytes": None, "allocs": None, "gc": None, "notes": []}
    calls = invocations * iterations
    # GC collections per generation over the same loop the timed stages use.
    counts = [0, 0, 0]

    def on_gc(phase, info):
        if phase == "start":
            gen = info.get("generation", 0)
            if 0 <= gen < 3:
                counts[gen] += 1

    callbacks = getattr(gc, "callbacks", None)
    if callbacks is not None:
        callbacks.append(on_gc)
        try:
            case.time_iterations(invocations, iterations, case.call, "diagnose")
        finally:
            callbacks.remove(on_gc)
        result["gc"] = counts
    else:
        result["notes"].append("gc counts unavailable on %s" % platform.python_implementation())
    # Bytes: tracemalloc peak of memory newly allocated during one call, minus that of an empty call.
    try:
        import tracemalloc
    except ImportError:
        tracemalloc = None
    if getattr(case, "time_func", None) is not None:
        # a call of a function that times itself includes its own timing: not the benchmark's bytes
        result["notes"].append("allocation not measured: the benchmark times itself (pyperf)")
        return result
    if tracemalloc is None or platform.python_implementation() != "CPython":
        result["notes"].append("allocation tracking needs CPython's tracemalloc")
        return result
    samples = max(1, min(calls, 200))
    args = case.call_args

    def peak_of(fn):
        total = 0
        for _ in range(samples):
            if case.it_setup is not None:
                case.hook(case.it_setup)
            tracemalloc.clear_traces()
            if hasattr(tracemalloc, "reset_peak"):
                tracemalloc.reset_peak()
            start = tracemalloc.get_traced_memory()[0]
            _SINK[0] = fn(*args)
            _SINK[0] = None
            total += max(0, tracemalloc.get_traced_memory()[1] - start)
            if case.it_cleanup is not None:
                case.hook(case.it_cleanup)
        return total

    tracemalloc.start()
    try:
        empty = peak_of(case.noop)
        used = peak_of(case.call)
    finally:
        tracemalloc.stop()
    per_call = max(0.0, (used - empty) / samples)
    # Report totals over `calls` so the host's division gives bytes per operation.
    result["alloc_bytes"] = int(round(per_call * calls))
    result["notes"].append("allocated = tracemalloc peak of new memory during a call")
    return result


# ---------------------------------------------------------------------------------------------
# Protocol
# ---------------------------------------------------------------------------------------------

def _exc_message(exc):
    text = str(exc)
    return "%s: %s" % (type(exc).__name__, text) if text else type(exc).__name__


def _format_tb(exc):
    import traceback  # only when something failed
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def _user_frame(exc, default_file=""):
    """The innermost traceback frame outside this worker: where the user's code failed."""
    file, line = default_file, 0
    tb = exc.__traceback__
    while tb is not None:
        fname = tb.tb_frame.f_code.co_filename
        # this module's code names its source, also when it was loaded from compiled bytecode;
        # the compatibility modules beside it (perflab_pytest, perflab_pyperf) are the worker's too
        if os.path.dirname(fname) != _WORKER_DIR and not fname.startswith("<perflab-loop"):
            file, line = fname, tb.tb_lineno
        tb = tb.tb_next
    return file, line


_WORKER_DIR = os.path.dirname(_user_frame.__code__.co_filename)


def _zero():
    return 0


def _count_marker():
    """How each run's timed loop is called in count mode (environment PERFLAB_COUNT=1: the worker runs
    under valgrind's callgrind, which counts only inside a C function it sees by name and dumps each
    time it returns); None outside count mode, where the loop is called directly.

    `sys.call_tracing(fn, args)` is CPython's `_PyEval_CallTracing`: nothing else calls it, and it only
    saves and restores the tracing state around the call."""
    return sys.call_tracing if os.environ.get("PERFLAB_COUNT") == "1" else None


_COUNT_MARKER = _count_marker()


class _Sampler:
    """Profile mode (environment PERFLAB_PROFILE=<file>, `perflab run --profile`): a thread that
    samples the measuring thread's stack (sys._current_frames) about every millisecond while a
    `workload` run is on, and writes the stacks seen to <file> as JSON lines
    {"stack": [[function, file], ...] root first, "count": n} after each run. The switch interval is
    lowered meanwhile, so the sampler gets the GIL at that pace. Only the profile launch, never a
    timed one, has it on."""

    INTERVAL = 0.001

    def __init__(self, path):
        import threading
        self.path, self.counts, self._threading = path, {}, threading
        self._stop = None

    def start(self):
        self._stop = self._threading.Event()
        self._target = self._threading.get_ident()
        self._switch = sys.getswitchinterval()
        sys.setswitchinterval(self.INTERVAL / 2)
        self._thread = self._threading.Thread(target=self._sample, name="perflab-sampler", daemon=True)
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join()
        sys.setswitchinterval(self._switch)
        with open(self.path, "w", encoding="utf-8") as f:
            for stack, n in self.counts.items():
                f.write(json.dumps({"stack": [list(fr) for fr in stack], "count": n}) + "\n")

    def _sample(self):
        frames_of, target, counts, wait = sys._current_frames, self._target, self.counts, self._stop.wait
        while not wait(self.INTERVAL):
            frame = frames_of().get(target)
            stack = []
            while frame is not None:
                code = frame.f_code
                stack.append((getattr(code, "co_qualname", code.co_name), code.co_filename))
                frame = frame.f_back
            key = tuple(reversed(stack))
            counts[key] = counts.get(key, 0) + 1


_SAMPLER = _Sampler(os.environ["PERFLAB_PROFILE"]) if os.environ.get("PERFLAB_PROFILE") else None


def _thread_cpu_clock():
    """time.thread_time_ns (CLOCK_THREAD_CPUTIME_ID on Linux), or None where the platform lacks it."""
    fn = getattr(time, "thread_time_ns", None)
    try:
        fn and fn()
    except OSError:
        return None
    return fn


_thread_time_ns = _thread_cpu_clock()


def _clock_resolution_ns(name="perf_counter", clock=time.perf_counter_ns, tries=2000):
    declared = time.get_clock_info(name).resolution * 1e9
    best = None
    for _ in range(tries):
        a = clock()
        b = clock()
        while b == a:
            b = clock()
        if best is None or b - a < best:
            best = b - a
    return max(declared, float(best or 1))


class _Worker:
    def __init__(self, sock):
        self.sock = sock
        self.reader = sock.makefile("rb")
        self.benchmarks = {}
        self.case = None

    def send(self, msg):
        msg["v"] = PROTOCOL_VERSION
        self.sock.sendall((json.dumps(msg, separators=(",", ":")) + "\n").encode("utf-8"))

    def error(self, rid, kind, message, exc=None, **extra):
        err = {"kind": kind, "message": message}
        if exc is not None:
            err["traceback"] = _format_tb(exc)
            err["file"], err["line"] = _user_frame(exc)
        err.update(extra)
        self.send({"id": rid, "type": "error", "error": err})

    def hello(self):
        caps = ["with_overhead", "overhead_first", "load_only"]
        if getattr(gc, "callbacks", None) is not None:
            caps.append("gc")
        if platform.python_implementation() == "CPython":
            caps.append("alloc")
        self.send({
            "type": "hello", "token": os.environ.get("PERFLAB_TOKEN", ""), "language": "python",
            "runtime": {"name": platform.python_implementation(),
                        "version": platform.python_version(), "executable": sys.executable},
            "clock": {"resolution_ns": _clock_resolution_ns(), "source": "time.perf_counter_ns"},
            "cpu_clock": ({"source": "time.thread_time_ns", "scope": "thread",
                           "resolution_ns": _clock_resolution_ns("thread_time", _thread_time_ns, 20)}
                          if _thread_time_ns else None),
            "capabilities": caps, "unroll": UNROLL, "pid": os.getpid(),
        })

    def serve(self):
        self.hello()
        self.serve_requests()

    def serve_requests(self, until=()):
        """Answer requests until `bye` (returns ("bye", id)), the end of input (("eof", None)), or
        a request whose type is in `until`, which is returned unanswered ((type, id)): a
        pytest-benchmark test serves the timing requests of its case from inside `benchmark(...)`
        and hands its teardown back to the test."""
        for raw in self.reader:
            try:
                msg = json.loads(raw.decode("utf-8"))
                if not isinstance(msg, dict):
                    raise ValueError("not a JSON object")
            except ValueError as exc:
                self.error(None, "protocol", "malformed request: %s" % exc)
                continue
            rid = msg.get("id")
            if msg.get("v") != PROTOCOL_VERSION:
                self.error(rid, "version", "this worker speaks protocol v%d, got v%r"
                           % (PROTOCOL_VERSION, msg.get("v")))
                return ("version", rid)
            if msg.get("type") in until:
                return (msg.get("type"), rid)
            handler = getattr(self, "on_" + str(msg.get("type")), None)
            if handler is None:
                self.error(rid, "protocol", "unknown request type %r" % msg.get("type"))
                continue
            try:
                if handler(rid, msg) == "exit":
                    return ("bye", rid)
            except (KeyError, TypeError, ValueError) as exc:
                if isinstance(exc, _Missing):
                    self.error(rid, "protocol", str(exc))
                else:
                    raise
        return ("eof", None)

    def on_load(self, rid, msg):
        paths = _field(msg, "paths", list)
        root = msg.get("root") or ""
        benches, errors, tests = [], [], []
        for path in paths:
            path = os.path.abspath(path)
            if file_kind(path) == "pytest":
                tests.append(path)
                continue
            found, errs = _load_file(path, root)
            errors.extend(errs)
            for b in found:
                self.benchmarks[b.id] = b
                benches.append(b)
        if tests:
            # pytest collects the test files and then keeps its session open while this worker
            # serves the rest of the exchange, so fixtures are pytest's own (perflab_pytest)
            try:
                import perflab_pytest
            except ImportError as exc:
                for path in tests:
                    errors.append(_pytest_missing(path, exc))
            else:
                return perflab_pytest.serve_session(self, rid, msg, tests, benches, errors)
        self.send_loaded(rid, msg, benches, errors)

    def send_loaded(self, rid, msg, benches, errors):
        for b in benches:
            self.benchmarks[b.id] = b
        only = msg.get("only")
        if only is not None:  # a launch for one case: the others need no describing (load_only)
            benches = [b for b in benches if b.id == only]
        described = []
        for b in benches:
            try:
                described.append(b.describe())
            except Exception as exc:  # a parameter value whose str()/repr() raises
                # this benchmark fails alone (the host shows it as a failed case), the others run
                try:
                    why = _exc_message(exc)
                except Exception:
                    why = type(exc).__name__
                errors.append({"file": b.file, "line": b.line, "kind": "load",
                               "message": "%s: cannot describe its parameters (%s)" % (b.name, why),
                               "benchmark": {"id": b.id, "name": b.name, "group": b.group}})
        self.send({"id": rid, "type": "loaded", "benchmarks": described, "errors": errors})

    def on_setup(self, rid, msg):
        bid = _field(msg, "benchmark", str)
        bench = self.benchmarks.get(bid)
        if bench is None:
            return self.error(rid, "not_found", "no benchmark with id %r" % bid)
        if isinstance(bench, CompatBench):
            return self.setup_compat(rid, bench)
        indices = msg.get("params") or {}
        # params are addressed by display names; arguments axes by their label
        keyed = {}
        for name, _ in bench.axes:
            label = _axis_label(name)
            if label in indices:
                keyed[name] = indices[label]
            elif name in indices:
                keyed[name] = indices[name]
        try:
            case = _Case(bench, keyed)
        except KeyError as exc:
            return self.error(rid, "not_found", "%s: %s" % (bid, exc.args[0]))
        try:
            case.hook(case.setup)
        except BaseException as exc:
            if isinstance(exc, (SystemExit, KeyboardInterrupt)):
                raise
            return self.error(rid, "exception", "setup failed: " + _exc_message(exc), exc)
        self.case = case
        gc.collect()
        self.send({"id": rid, "type": "ready"})

    def setup_compat(self, rid, bench):
        if bench.run_case is not None:
            return bench.run_case(self, rid)
        try:
            case = bench.make_case()
        except BaseException as exc:
            if isinstance(exc, (SystemExit, KeyboardInterrupt)):
                raise
            file, line = _user_frame(exc)
            return self.error(rid, "exception", "setup failed: " + _exc_message(exc), exc,
                              **({} if line else {"file": bench.file, "line": bench.line}))
        self.case = case
        gc.collect()
        self.send({"id": rid, "type": "ready"})

    def on_run(self, rid, msg):
        if self.case is None:
            return self.error(rid, "state", "run before setup")
        stage = _field(msg, "stage", str)
        invocations = _field(msg, "invocations", int)
        iterations = _field(msg, "iterations", int)
        if invocations < 1 or iterations < 1:
            return self.error(rid, "protocol", "invocations and iterations must be >= 1")
        over = [] if msg.get("with_overhead") is True else None
        cpu, over_cpu = [], []
        if over is not None and stage != "workload":
            return self.error(rid, "protocol", "with_overhead is for the workload stage only")
        try:
            if stage == "diagnose":
                out = _diagnose(self.case, invocations, iterations)
                out.update(id=rid, type="diagnostics", invocations=invocations,
                           iterations=iterations, allocs=None, code_size=None)
                return self.send(out)
            if stage not in ("pilot", "warmup", "overhead", "workload"):
                return self.error(rid, "protocol", "unknown stage %r" % stage)
            if stage == "overhead":
                ns = self.case.time_iterations(invocations, iterations, self.case.noop, "overhead",
                                               cpu=cpu)
            elif stage == "workload" and _SAMPLER is not None:
                _SAMPLER.start()
                try:
                    ns = self.case.time_iterations(invocations, iterations, self.case.call, cpu=cpu)
                finally:
                    _SAMPLER.stop()
            else:
                ns = self.case.time_iterations(invocations, iterations, self.case.call,
                                               overhead=over, cpu=cpu, overhead_cpu=over_cpu,
                                               overhead_first=msg.get("overhead_first") is True)
        except BaseException as exc:
            if isinstance(exc, (SystemExit, KeyboardInterrupt)):
                raise
            return self.error(rid, "exception", _exc_message(exc), exc)
        reply = {"id": rid, "type": "samples", "stage": stage, "invocations": invocations, "ns": ns}
        if _thread_time_ns:
            reply["cpu_ns"] = cpu
        if over is not None:
            reply["overhead_ns"] = over
            if _thread_time_ns:
                reply["overhead_cpu_ns"] = over_cpu
        self.send(reply)

    def on_teardown(self, rid, msg):
        case, self.case = self.case, None
        if case is not None:
            try:
                case.hook(case.cleanup)
            except BaseException as exc:
                if isinstance(exc, (SystemExit, KeyboardInterrupt)):
                    raise
                return self.error(rid, "exception", "cleanup failed: " + _exc_message(exc), exc)
        self.send({"id": rid, "type": "done"})

    def on_bye(self, rid, msg):
        self.send({"id": rid, "type": "done"})
        return "exit"


def _pytest_missing(path, exc):
    """The load error of a pytest-benchmark file on an interpreter without pytest."""
    line = 0
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, text in enumerate(f, 1):
                if text.lstrip().startswith(("def test", "async def test")) and "benchmark" in text:
                    line = n
                    break
    except OSError:
        pass
    return file_failure(path, line, "pytest is not installed for %s (%s): this file's tests take "
                        "pytest-benchmark's `benchmark` fixture, which perflab provides, but their "
                        "collection and other fixtures are pytest's; install pytest in that "
                        "environment" % (sys.executable, _exc_message(exc)))


class _Missing(KeyError):
    def __str__(self):
        return self.args[0]


def _field(msg, name, kind):
    if name not in msg:
        raise _Missing("request %r lacks field %r" % (msg.get("type"), name))
    value = msg[name]
    if kind is int and isinstance(value, bool) or not isinstance(value, kind):
        raise _Missing("field %r of %r must be %s" % (name, msg.get("type"), kind.__name__))
    return value


def _main():
    address = os.environ.get("PERFLAB_CONNECT")
    if not address:
        sys.stderr.write("perflab worker: PERFLAB_CONNECT is not set; this program is started by "
                         "`perflab run`, not by hand\n")
        return 2
    host, _, port = address.rpartition(":")
    sock = socket.create_connection((host, int(port)))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        _Worker(sock).serve()
    finally:
        try:
            sock.close()
        except OSError:
            pass
    return 0
