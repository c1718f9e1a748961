"""History in PostgreSQL (psycopg 3), for a team's shared history."""
from __future__ import annotations

import re

from .base import Store, StoreError


def _redact(url: str) -> str:
    return re.sub(r"//([^:/@]+):[^@]*@", r"//\1:***@", url)


class PostgresStore(Store):
    placeholder = "%s"
    serial_pk = "BIGSERIAL PRIMARY KEY"

    def __init__(self, url: str):
        self.dsn = url
        self.url = _redact(url)
        super().__init__()

    def _connect(self):
        try:
            import psycopg
        except ImportError:
            raise StoreError("PostgreSQL history needs psycopg: pip install 'psycopg[binary]'") from None
        return psycopg.connect(self.dsn, connect_timeout=5)

    def _lock_for_schema(self, cur) -> None:
        # a transaction-scoped advisory lock (released at commit/rollback): one process at a time
        # checks and creates the schema; the number is perflab's own, any fixed one would do
        cur.execute("SELECT pg_advisory_xact_lock(7061017)")

    def _translate(self, exc: Exception) -> StoreError | None:
        try:
            import psycopg
        except ImportError:
            return None
        if not isinstance(exc, psycopg.Error):
            return None
        text = " ".join(str(exc).split())
        if "password authentication failed" in text or "authentication" in text:
            return StoreError(f"{self.url}: PostgreSQL refused the credentials; check user and "
                              "password in --store")
        if isinstance(exc, psycopg.OperationalError):
            return StoreError(f"{self.url}: cannot reach PostgreSQL ({text[:200]}); "
                              "check host, port and that the server runs")
        if "read-only" in text or "permission denied" in text:
            return StoreError(f"{self.url}: PostgreSQL does not let this user write ({text[:200]})")
        return StoreError(f"{self.url}: {text[:300]}")
