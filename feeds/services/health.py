"""The service layer: the only code that touches storage or queues work."""

from __future__ import annotations

from dataclasses import dataclass

from storage.connection import connection


@dataclass(frozen=True)
class Part:
    """One thing the app needs, and whether it answered."""

    ok: bool
    detail: str


@dataclass(frozen=True)
class Health:
    storage: Part
    tables: int
    broker: Part

    @property
    def ok(self) -> bool:
        return self.storage.ok and self.broker.ok

    @property
    def down(self) -> list[str]:
        """The parts that did not answer, by name: "storage", "broker"."""
        return [
            name
            for name, part in (("storage", self.storage), ("broker", self.broker))
            if not part.ok
        ]


def _storage() -> tuple[Part, int]:
    try:
        with connection() as conn:
            tables = conn.tables()
    except Exception as exc:  # any failure to reach HBase is "unhealthy"
        return Part(False, f"{type(exc).__name__}: {exc}"), 0
    return Part(True, "ok"), len(tables)


def _broker() -> Part:
    from twitbase.celery import app

    if app.conf.task_always_eager:
        return Part(True, "not used: tasks run in the caller")
    try:
        with app.connection_for_write() as conn:
            # One attempt, bounded by the broker timeouts in settings: a
            # health check must answer quickly, most of all when Redis is down.
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=2)
    except Exception as exc:
        return Part(False, f"{type(exc).__name__}: {exc}")
    return Part(True, "ok")


def health() -> Health:
    """Whether HBase's Thrift server and the Celery broker answer. Posting
    works without the broker (the sweep catches up), but the operator should
    know it is down."""
    storage, tables = _storage()
    return Health(storage=storage, tables=tables, broker=_broker())
