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
    """Import one benchmark file as a module named after it; returns (benchmarks, error-dict|None)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(1, directory)
    modname = stem if stem not in sys.modules else "%s_%d" % (stem, len(sys.modules))
    try:
        spec = importlib.util.spec_from_file_location(modname, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[modname] = module
        spec.loader.exec_module(module)
        return _discover_module(module, path)
    except SyntaxError as exc:
        sys.modules.pop(modname, None)
        return [], [{"file": exc.filename or path, "line": exc.lineno or 0, "kind": "load",
                     "message": "%s: %s" % (type(exc).__name__, exc.msg)}]
    except BaseException as exc:  # an import-time failure fails this file only
        sys.modules.pop(modname, None)
        file, line = _user_frame(exc, path)
        return [], [{"file": file, "line": line, "kind": "load",
                     "message": _exc_message(exc), "traceback": _format_tb(exc)}]


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
                        cpu=None, overhead_cpu=None):
        """`iterations` timed iterations of `target`; with `overhead` (a list), each is followed by
        one iteration of the empty function, appended there. The CPU time this thread got in each
        iteration is appended to `cpu` (and `overhead_cpu`)."""
        cpu = [] if cpu is None else cpu
        overhead_cpu = [] if overhead_cpu is None else overhead_cpu
        unroll = UNROLL if invocations % UNROLL == 0 else 1
        loop = self._loop(kind, unroll)
        empty = self._loop("overhead", unroll) if overhead is not None else None
        outer = invocations // unroll
        samples = []
        if _COUNT_MARKER is not None:  # count mode: the whole loop inside one call of the marker
            _COUNT_MARKER(self._iterate, (iterations, outer, loop, target, empty, samples, cpu,
                                          overhead, overhead_cpu))
        else:
            self._iterate(iterations, outer, loop, target, empty, samples, cpu, overhead,
                          overhead_cpu)
        return samples

    def _iterate(self, iterations, outer, loop, target, empty, samples, cpu, overhead,
                 overhead_cpu):
        repeat = itertools.repeat
        clock = time.perf_counter_ns
        cpu_clock = _thread_time_ns or _zero
        args = self.call_args
        for _ in range(iterations):
            if self.it_setup is not None:
                self.hook(self.it_setup)
            ns, cpu_ns = loop(repeat(None, outer), target, clock, cpu_clock, *args)
            samples.append(ns)
            cpu.append(cpu_ns)
            if self.it_cleanup is not None:
                self.hook(self.it_cleanup)
            if empty is not None:
                ns, cpu_ns = empty(repeat(None, outer), self.noop, clock, cpu_clock, *args)
                overhead.append(ns)
                overhead_cpu.append(cpu_ns)


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
        # this module's code names its source, also when it was loaded from compiled bytecode
        if fname != _user_frame.__code__.co_filename and not fname.startswith("<perflab-loop"):
            file, line = fname, tb.tb_lineno
        tb = tb.tb_next
    return file, line


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
        caps = ["with_overhead", "load_only"]
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
                return
            handler = getattr(self, "on_" + str(msg.get("type")), None)
            if handler is None:
                self.error(rid, "protocol", "unknown request type %r" % msg.get("type"))
                continue
            try:
                if handler(rid, msg) == "exit":
                    return
            except (KeyError, TypeError, ValueError) as exc:
                if isinstance(exc, _Missing):
                    self.error(rid, "protocol", str(exc))
                else:
                    raise

    def on_load(self, rid, msg):
        paths = _field(msg, "paths", list)
        root = msg.get("root") or ""
        benches, errors = [], []
        for path in paths:
            found, errs = _load_file(os.path.abspath(path), root)
            errors.extend(errs)
            for b in found:
                self.benchmarks[b.id] = b
                benches.append(b)
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
            else:
                ns = self.case.time_iterations(invocations, iterations, self.case.call,
                                               overhead=over, cpu=cpu, overhead_cpu=over_cpu)
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
