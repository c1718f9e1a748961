"""Entry point the host runs inside the Python under test. It sits beside perflab.py, so this directory
is sys.path[0] and a benchmark file's `import perflab` gets the worker's authoring API."""
import atexit
import os
import sys

import perflab

if __name__ == "__main__":
    code = perflab._main()
    # The benchmark's cleanup ran at teardown. Leave without the interpreter's shutdown (collecting
    # every object, tearing down modules): launches end by the dozen and that shutdown was most of a
    # worker's exit. atexit handlers still run, and output is flushed.
    getattr(atexit, "_run_exitfuncs", lambda: None)()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)
