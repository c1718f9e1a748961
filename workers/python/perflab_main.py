"""Entry point the host runs inside the Python under test. It sits beside perflab.py, so this directory
is sys.path[0] and a benchmark file's `import perflab` gets the worker's authoring API."""
import sys

import perflab

if __name__ == "__main__":
    sys.exit(perflab._main())
