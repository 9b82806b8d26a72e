"""The service layer: the only code that touches storage or queues work."""

from __future__ import annotations

from dataclasses import dataclass

from storage.connection import connection


@dataclass(frozen=True)
class Health:
    hbase_ok: bool
    tables: int
    detail: str


def health() -> Health:
    """Whether the HBase Thrift server answers, and how many tables it has."""
    try:
        with connection() as conn:
            tables = conn.tables()
    except Exception as exc:  # any failure to reach HBase is "unhealthy"
        return Health(hbase_ok=False, tables=0, detail=f"{type(exc).__name__}: {exc}")
    return Health(hbase_ok=True, tables=len(tables), detail="ok")
