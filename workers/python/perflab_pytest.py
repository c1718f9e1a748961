"""pytest-benchmark's `benchmark` fixture, for test files run unchanged by perflab's Python worker.

pytest itself collects the test files and resolves every other fixture (conftest.py, tmp_path,
parametrize, fixture params); this module is a pytest plugin that provides `benchmark` in place of
pytest-benchmark's (which need not be installed, and is switched off when it is). The test, when
perflab sets up its case, calls `benchmark(fn, *args, **kwargs)` or `benchmark.pedantic(...)`: instead
of timing, the fixture hands `fn` to perflab's timed loop and serves the host's timing requests from
inside that call, then returns fn's result to the test, which goes on (asserts, fixture teardown) as
under pytest-benchmark. perflab decides rounds, iterations and warm-up, so pedantic's
rounds/iterations/warmup_rounds are accepted and not used.

One pytest session per worker process: `serve_session` runs pytest.main, and the plugin's
`pytest_runtestloop` answers the host's `load` with the collected benchmark tests and then serves the
rest of the exchange until `bye`, so session fixtures live as long as the process.
"""
import gc
import io
import os
import re
import sys

import pytest

import perflab

# pytest-benchmark's command-line options, so an `addopts = --benchmark-...` in the project's pytest
# configuration still parses with pytest-benchmark switched off; perflab ignores them.
_FLAGS = ("--benchmark-skip", "--benchmark-disable", "--benchmark-enable", "--benchmark-only",
          "--benchmark-disable-gc", "--benchmark-autosave", "--benchmark-save-data",
          "--benchmark-verbose", "--benchmark-quiet", "--benchmark-cprofile-dump")
_VALUED = ("--benchmark-min-time", "--benchmark-max-time", "--benchmark-min-rounds",
           "--benchmark-timer", "--benchmark-calibration-precision", "--benchmark-warmup",
           "--benchmark-warmup-iterations", "--benchmark-save", "--benchmark-json",
           "--benchmark-compare", "--benchmark-compare-fail", "--benchmark-cprofile",
           "--benchmark-storage", "--benchmark-netrc", "--benchmark-sort", "--benchmark-group-by",
           "--benchmark-columns", "--benchmark-name", "--benchmark-histogram",
           "--benchmark-cprofile-loops", "--benchmark-cprofile-top", "--benchmark-time-unit")
_OPTIONAL = {"--benchmark-warmup", "--benchmark-compare", "--benchmark-histogram",
             "--benchmark-cprofile-dump", "--benchmark-autosave"}

# a test calling pedantic(..., setup=...) needs one call per iteration; read off its source at load,
# before it runs (a false positive only costs a short benchmark its batching)
_PEDANTIC_SETUP = re.compile(r"\.pedantic\s*\((?s:.)*?\bsetup\s*=")


def serve_session(worker, rid, msg, tests, benches, errors):
    """Collect `tests` with pytest and serve the exchange from inside its session. Returns "exit"
    when the host said bye (or left), None when pytest stopped before collecting (the load was then
    answered with every test file failing alone)."""
    plugin = _Plugin(worker, rid, msg, benches, errors, tests)
    args = [*tests, "-p", "no:cacheprovider", "-p", "no:benchmark", "-p", "no:codspeed",
            "--continue-on-collection-errors", "-q"]
    output = io.StringIO()  # pytest's own report is not the benchmark printing
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = output
    try:
        code = pytest.main(args, plugins=[plugin])
    except BaseException as exc:  # pytest itself failed: every test file fails alone with why
        if isinstance(exc, (KeyboardInterrupt, SystemExit)) and plugin.answered:
            raise
        code = perflab._exc_message(exc)
    finally:
        sys.stdout, sys.stderr = saved
    if not plugin.answered:
        why = _pytest_stopped(output.getvalue(), code)
        for path in tests:
            file, line = why[1] or (path, 0)
            errors.append(perflab.file_failure(path, 0, "pytest stopped before collecting this file "
                                               "(%s%s)" % (why[0], ", at %s:%s" % (file, line)
                                                           if why[1] else "")))
        worker.send_loaded(rid, msg, benches, errors)
        return None
    if plugin.bye is not None:
        worker.send({"id": plugin.bye, "type": "done"})
    return "exit"


def _pytest_stopped(text, code):
    """What pytest said when it stopped before collecting (a conftest.py that does not import, an
    unknown option): its last error line, and the last file:line it names."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    errs = [l[1:].strip() for l in lines if l.startswith("E ")]
    msg = errs[-1] if errs else (lines[-1] if lines else "exit code %s" % (code,))
    where = re.findall(r"([^\s'\"]+\.py):(\d+)", text)
    return msg, (where[-1] if where else None)


class _BenchmarkHooks:
    """pytest-benchmark's hook specifications, so a conftest.py that implements them (to group or
    label its report) still loads with pytest-benchmark switched off; perflab does not call them."""

    @pytest.hookspec(firstresult=True)
    def pytest_benchmark_scale_unit(config, unit, benchmarks, best, worst, sort):
        pass

    def pytest_benchmark_generate_machine_info(config):
        pass

    def pytest_benchmark_update_machine_info(config, machine_info):
        pass

    def pytest_benchmark_generate_commit_info(config):
        pass

    def pytest_benchmark_update_commit_info(config, commit_info):
        pass

    @pytest.hookspec(firstresult=True)
    def pytest_benchmark_group_stats(config, benchmarks, group_by):
        pass

    def pytest_benchmark_generate_json(config, benchmarks, include_data, machine_info, commit_info):
        pass

    def pytest_benchmark_update_json(config, benchmarks, output_json):
        pass

    def pytest_benchmark_compare_machine_info(config, benchmarksession, machine_info,
                                              compared_benchmark):
        pass


class _Plugin:
    def __init__(self, worker, rid, msg, benches, errors, tests):
        self.worker, self.rid, self.msg = worker, rid, msg
        self.benches, self.errors, self.tests = benches, errors, tests
        self.answered = False
        self.bye = None
        self.current = None  # the case being run: {"rid", "served", "end", "failure"}
        self.collect_errors = []

    # -- configuration -----------------------------------------------------------------------------

    def pytest_addhooks(self, pluginmanager):
        if not pluginmanager.has_plugin("benchmark"):  # pytest-benchmark's own specs, when loaded
            pluginmanager.add_hookspecs(_BenchmarkHooks)

    def pytest_addoption(self, parser):
        group = parser.getgroup("benchmark", "pytest-benchmark's options (accepted and ignored: "
                                "perflab measures)")
        for flag in _FLAGS:
            group.addoption(flag, action="store_true", default=False)
        for opt in _VALUED:
            if opt in _OPTIONAL:
                group.addoption(opt, nargs="?", default=None, const="")
            else:
                group.addoption(opt, action="store", default=None)

    def pytest_configure(self, config):
        config.addinivalue_line("markers", "benchmark(group=None, ...): pytest-benchmark's options; "
                                "perflab uses the group")

    # -- collection ----------------------------------------------------------------------------------

    @pytest.hookimpl(hookwrapper=True)
    def pytest_collection(self, session):
        with perflab.import_deadline("", "a test file (or what it imports)"):
            yield

    def pytest_collectreport(self, report):
        if report.failed:
            self.collect_errors.append(report)

    def pytest_collection_modifyitems(self, session, config, items):
        items[:] = [i for i in items if "benchmark" in getattr(i, "fixturenames", ())]

    # -- the exchange ------------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        errors = list(self.errors)
        for report in self.collect_errors:
            errors.append(self._collect_failure(session, report))
        benches = list(self.benches)
        for item in session.items:
            benches.append(self._describe(item))
        self.answered = True
        self.worker.send_loaded(self.rid, self.msg, benches, errors)
        how, rid = self.worker.serve_requests(until=("bye",))
        if how == "bye":
            self.bye = rid
        return True

    def _collect_failure(self, session, report):
        path = report.nodeid.split("::")[0]
        path = os.path.abspath(os.path.join(str(session.config.rootdir), path)) if path else ""
        if path not in self.tests:
            path = next((t for t in self.tests if t.endswith(os.sep + os.path.basename(path))),
                        path or (self.tests[0] if self.tests else ""))
        text = str(report.longrepr)
        errs = [l[1:].strip() for l in text.splitlines() if l.startswith("E ")]
        message = errs[-1] if errs else (text.strip().splitlines() or ["collection failed"])[-1]
        line = 0
        for file, n in re.findall(r"([^\s'\"]+\.py):(\d+)", text):
            if os.path.basename(file) == os.path.basename(path):
                line = int(n)
        if not line:
            line = _syntax_error_line(path)
        return perflab.file_failure(path, line, message, text)

    def _describe(self, item):
        marker = item.get_closest_marker("benchmark")
        group = (marker.kwargs.get("group") if marker is not None else None)
        cls = getattr(item, "cls", None)
        module = os.path.splitext(os.path.basename(str(item.fspath)))[0]
        group = str(group) if group else (cls.__name__ if cls is not None else module)
        params = []
        callspec = getattr(item, "callspec", None)
        if callspec is not None:
            ids = callspec.id.split("-")
            named = list(callspec.params.items())
            for i, (name, value) in enumerate(named):
                if isinstance(value, (int, float, str, bool, type(None))):
                    shown = str(value)
                else:
                    shown = ids[i] if len(ids) == len(named) else callspec.id
                params.append((name, shown))
        try:
            import inspect
            iteration_setup = bool(_PEDANTIC_SETUP.search(inspect.getsource(item.obj)))
        except (OSError, TypeError):
            iteration_setup = False
        location = item.location
        return perflab.CompatBench(
            item.nodeid, getattr(item, "originalname", None) or item.name, group,
            str(item.fspath), (location[1] or 0) + 1,
            run_case=lambda worker, rid: self.run_case(item, worker, rid),
            params=params, iteration_setup=iteration_setup,
            description=(perflab._first_doc_line(getattr(item, "obj", None), None)))

    def run_case(self, item, worker, rid):
        """Run the test: its `benchmark(...)` call answers `setup` with ready and serves the case."""
        self.current = {"rid": rid, "served": False, "end": None, "failure": None}
        try:
            item.ihook.pytest_runtest_protocol(item=item, nextitem=None)
        finally:
            current, self.current = self.current, None
        if not current["served"]:
            what, file, line = current["failure"] or (
                "the test returned without calling benchmark(...)", str(item.fspath),
                item.location[1] + 1)
            worker.error(rid, "exception", what, file=file, line=line)
            return None
        how, end = current["end"]
        if how == "teardown":
            failure = current["failure"]
            if failure is not None:  # measured; the test failed afterwards (an assert on the result)
                return worker.error(end, "exception", "the test failed after its benchmark: "
                                    + failure[0], file=failure[1], line=failure[2])
            return worker.send({"id": end, "type": "done"})
        if how == "bye":
            self.bye = end
        return "exit"

    def pytest_runtest_logreport(self, report):
        current = self.current
        if current is None or current["failure"] is not None or report.passed:
            return
        if report.skipped:
            longrepr = report.longrepr
            reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
            current["failure"] = ("skipped by pytest: %s" % reason,) + _location(report)
            return
        crash = getattr(report.longrepr, "reprcrash", None)
        if crash is not None:
            current["failure"] = ((crash.message.splitlines()[0] if crash.message else "failed",)
                                  + _user_location(report.longrepr, crash))
        else:
            text = str(report.longrepr).strip().splitlines()
            current["failure"] = ((text or ["%s failed" % report.when])[-1],) + _location(report)

    # -- the fixture -------------------------------------------------------------------------------

    @pytest.fixture
    def benchmark(self, request):
        return BenchmarkFixture(self, request.node)


def _user_location(longrepr, crash):
    """The innermost traceback entry outside perflab's worker: the user's line (the crash itself
    when it is there; the test's call of an unsupported fixture API when it is in the worker)."""
    worker_dir = os.path.dirname(os.path.abspath(__file__))
    place = (str(crash.path), crash.lineno)
    entries = getattr(getattr(longrepr, "reprtraceback", None), "reprentries", None) or []
    if os.path.dirname(os.path.abspath(place[0])) != worker_dir:
        return place
    for entry in entries:
        loc = getattr(entry, "reprfileloc", None)
        if loc is not None and os.path.dirname(os.path.abspath(str(loc.path))) != worker_dir:
            place = (str(loc.path), loc.lineno)
    return place


def _location(report):
    path, line, _ = report.location
    return path, (line or 0) + 1


def _syntax_error_line(path):
    try:
        with open(path, "rb") as f:
            compile(f.read(), path, "exec")
    except SyntaxError as exc:
        return exc.lineno or 0
    except (OSError, ValueError):
        pass
    return 0


class BenchmarkFixture:
    """pytest-benchmark's fixture object: `benchmark(fn, *args, **kwargs)`, `benchmark.pedantic(...)`,
    `extra_info`, `name`, `fullname`, `group`, `param`, `params`."""

    def __init__(self, plugin, node):
        self._plugin = plugin
        marker = node.get_closest_marker("benchmark")
        callspec = getattr(node, "callspec", None)
        self.name = node.name
        self.fullname = node.nodeid
        self.group = marker.kwargs.get("group") if marker is not None else None
        self.param = callspec.id if callspec is not None else None
        self.params = dict(callspec.params) if callspec is not None else None
        self.extra_info = {}
        self.options = dict(marker.kwargs) if marker is not None else {}
        self.disabled = False
        self.enabled = True
        self.has_error = False
        self.stats = None

    def __call__(self, function_to_benchmark, *args, **kwargs):
        return self._hand_over(function_to_benchmark, args, kwargs, None)

    def pedantic(self, target, args=(), kwargs=None, setup=None, rounds=1, warmup_rounds=0,
                 iterations=1):
        """As pytest-benchmark checks them; rounds, iterations and warmup_rounds are perflab's to
        decide and are not used."""
        kwargs = {} if kwargs is None else kwargs
        if not isinstance(iterations, int) or iterations < 1:
            raise ValueError("Must have positive int for `iterations`.")
        if not isinstance(rounds, int) or rounds < 1:
            raise ValueError("Must have positive int for `rounds`.")
        if not isinstance(warmup_rounds, int) or warmup_rounds < 0:
            raise ValueError("Must have positive int for `warmup_rounds`.")
        if iterations > 1 and setup:
            raise ValueError("Can't use more than 1 `iterations` with a `setup` function.")
        return self._hand_over(target, args, kwargs, setup)

    def weave(self, target, **kwargs):
        raise NotImplementedError("benchmark.weave (pytest-benchmark's aspect patching) is not "
                                  "supported by perflab: call benchmark(fn) on the function instead")

    patch = weave

    def _hand_over(self, fn, args, kwargs, setup):
        current = self._plugin.current
        if current is None:
            raise RuntimeError("perflab: the benchmark fixture was called outside a perflab case")
        if current["served"]:
            raise RuntimeError("Fixture can only be used once. Previously it was used in benchmark "
                               "mode.")  # pytest-benchmark's FixtureAlreadyUsed
        has_args = bool(args or kwargs)

        def arguments():
            made = setup()
            if made:
                if has_args:
                    raise TypeError("Can't use `args` or `kwargs` if `setup` returns the arguments.")
                return made
            return args, kwargs
        worker = self._plugin.worker
        worker.case = perflab._CallCase(fn, args, kwargs,
                                        per_iteration=arguments if setup is not None else None)
        current["served"] = True
        gc.collect()
        worker.send({"id": current["rid"], "type": "ready"})
        current["end"] = worker.serve_requests(until=("teardown", "bye"))
        worker.case = None
        if current["end"][0] != "teardown":
            pytest.exit("perflab: the host left", returncode=0)
        # the test goes on with the function's result, as pytest-benchmark returns it
        if setup is not None:
            a, kw = arguments()
            return fn(*a, **kw)
        return fn(*args, **kwargs)
