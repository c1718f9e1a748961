# Sourced by test.sh: make sure a local PostgreSQL server runs and export PERFLAB_TEST_PG_URL for the
# store tests (a role and a database of their own). Installs the server from Debian if it is missing.
if [ -z "${PERFLAB_TEST_PG_URL:-}" ]; then
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    echo "== installing PostgreSQL (Debian) for the history-store tests"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null) \
      || echo "could not install PostgreSQL; the PostgreSQL store tests will fail" >&2
  fi
  if command -v pg_lsclusters >/dev/null 2>&1; then
    ver=$(pg_lsclusters -h | awk 'NR==1{print $1}')
    cluster=$(pg_lsclusters -h | awk 'NR==1{print $2}')
    if [ -n "$ver" ]; then
      pg_ctlcluster "$ver" "$cluster" start >/dev/null 2>&1 || true
      for _ in $(seq 1 20); do pg_isready -q && break; sleep 0.5; done
      su postgres -c "psql -qtAc \"SELECT 1 FROM pg_roles WHERE rolname='perflab'\"" | grep -q 1 \
        || su postgres -c "psql -qc \"CREATE ROLE perflab LOGIN PASSWORD 'perflab' CREATEDB\""
      su postgres -c "psql -qtAc \"SELECT 1 FROM pg_database WHERE datname='perflab_test'\"" | grep -q 1 \
        || su postgres -c "psql -qc \"CREATE DATABASE perflab_test OWNER perflab\""
      export PERFLAB_TEST_PG_URL="postgresql://perflab:perflab@127.0.0.1:5432/perflab_test"
    fi
  fi
fi
