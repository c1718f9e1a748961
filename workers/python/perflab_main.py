"""Entry point the host runs inside the Python under test. It sits beside perflab.py, so this directory
is sys.path[0] and a benchmark file's `import perflab` gets the worker's authoring API."""
import atexit
import os
import sys

# The host may have compiled perflab.py for this interpreter (see perflab's Python toolchain): imported
# from there, a worker starts without compiling it, a quarter of its start. Benchmark files then see
# the path they would have had.
_compiled = os.environ.pop("PERFLAB_WORKER_BYTECODE", "")
if _compiled:
    sys.path.insert(0, _compiled)
try:
    import perflab
except ImportError:  # bytecode this interpreter cannot read: the source beside this file
    if not _compiled:
        raise
    sys.path.remove(_compiled)
    _compiled = ""
    sys.modules.pop("perflab", None)
    import perflab
if _compiled:
    sys.path.remove(_compiled)

if __name__ == "__main__":
    code = perflab._main()
    # The benchmark's cleanup ran at teardown. Leave without the interpreter's shutdown (collecting
    # every object, tearing down modules): launches end by the dozen and that shutdown was most of a
    # worker's exit. atexit handlers still run, and output is flushed.
    getattr(atexit, "_run_exitfuncs", lambda: None)()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)
