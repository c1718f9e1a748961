# Sourced by run.sh and test.sh: make .venv with the host package (and test extras if asked).
# Needs Python >= 3.10 as python3 (or set PERFLAB_PYTHON).
py="${PERFLAB_PYTHON:-python3}"
if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  echo "perflab needs Python >= 3.10 for its host; set PERFLAB_PYTHON=/path/to/python3.x" >&2
  exit 2
fi
stamp=".venv/.perflab-installed${1:+-$1}"
if [ ! -x .venv/bin/python ]; then
  "$py" -m venv .venv
fi
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  .venv/bin/python -m pip install -q -e ".${1:+[$1]}"
  touch "$stamp"
fi
# Bytecode for the host package, as a regular (non-editable) install compiles it: with
# PYTHONDONTWRITEBYTECODE set (as on this project's VMs) every perflab command otherwise compiled its
# modules afresh, 70-100 ms of a command's start. compileall rewrites only what is stale.
.venv/bin/python -m compileall -q src/perflab >/dev/null || true  # an optimisation, never a failure
