"""Fan-out metrics, kept in HBase so every worker adds to the same figures and
the admin console can read them: lag per fan-out, rows written, failures,
worker heartbeats. Queue depth is read from the broker when asked.
"""

from __future__ import annotations

import os
import socket
import statistics
import time
from dataclasses import dataclass

import happybase
from django.conf import settings

from storage import keys, ops, rows
from storage.connection import connection, table_name

TOTALS = keys.METRICS_TOTALS
LAG_PREFIX = keys.METRICS_LAG
WORKER_PREFIX = keys.METRICS_WORKER


def record_rows(out: happybase.Connection | ops.Pipeline, written: int) -> None:
    """Count stream rows written: on a connection, or in a pipeline of calls
    (a fan-out chunk's bookkeeping, sent together)."""
    with ops.pipelined(out) as pipe:
        pipe.counter_inc(table_name("metrics"), TOTALS, rows.STREAM_ROWS, written)


def record_fanout_done(out: happybase.Connection | ops.Pipeline, lag_ms: int) -> None:
    with ops.pipelined(out) as pipe:
        pipe.counter_inc(table_name("metrics"), TOTALS, rows.FANOUTS)
        # Newest first, so the console reads the latest lags with one short scan.
        row = keys.metrics_lag_key(int(time.time() * 1000), keys.new_suffix())
        pipe.put(table_name("metrics"), row, rows.encode_lag(lag_ms))


def save_table_figures(cells: dict[bytes, bytes]) -> None:
    """Put ``cells`` in the one row of table figures (services/tablestats.py), in one put."""
    with connection() as conn:
        conn.table(table_name("metrics")).put(keys.METRICS_TABLES, cells)


def table_figures(columns: list[bytes] | None = None) -> dict[bytes, bytes]:
    """The row of table figures, or ``columns`` of it (one get)."""
    with connection() as conn:
        found: dict[bytes, bytes] = conn.table(table_name("metrics")).row(
            keys.METRICS_TABLES, columns=columns
        )
    return found


def record_failure(task: str, error: str) -> None:
    with connection() as conn:
        t = conn.table(table_name("metrics"))
        t.counter_inc(TOTALS, rows.FAILURES)
        t.put(TOTALS, rows.encode_failure(f"{task}: {error}"))


HEARTBEAT_EVERY_S = 5.0
_unreported = {"tasks": 0, "last": 0.0}


def heartbeat() -> None:
    """A worker process says it is alive (after every task; written at most
    every HEARTBEAT_EVERY_S, so small tasks do not pay two writes each)."""
    _unreported["tasks"] += 1
    now = time.monotonic()
    if now - _unreported["last"] < HEARTBEAT_EVERY_S:
        return
    tasks, _unreported["tasks"], _unreported["last"] = _unreported["tasks"], 0, now
    name = f"{socket.gethostname()}:{os.getpid()}"
    with connection() as conn:
        t = conn.table(table_name("metrics"))
        t.put(keys.metrics_worker_key(name), rows.encode_seen(int(time.time() * 1000)))
        t.counter_inc(keys.metrics_worker_key(name), rows.TASKS, int(tasks))


def queue_depth() -> int | None:
    """Messages waiting in the default Celery queue; None if the broker is not Redis
    or does not answer."""
    url = settings.CELERY_BROKER_URL
    if not url.startswith("redis://"):
        return None
    import redis

    try:
        return int(redis.Redis.from_url(url, socket_timeout=1).llen("celery"))
    except redis.RedisError:
        return None


@dataclass(frozen=True)
class FanoutStats:
    fanouts: int
    stream_rows: int
    failures: int
    last_failure: str
    lag_p50_ms: float | None
    lag_p99_ms: float | None
    recent: int
    queue_depth: int | None
    workers: tuple[tuple[str, int, int], ...]  # (name, last seen ms, tasks)


def fanout_stats(recent: int = 200) -> FanoutStats:
    with connection() as conn:
        t = conn.table(table_name("metrics"))
        totals = rows.decode_totals(t.row(TOTALS))
        lags = sorted(rows.decode_lag(d) for _, d in t.scan(row_prefix=LAG_PREFIX, limit=recent))
        workers = tuple(
            (row[len(WORKER_PREFIX) :].decode(), *rows.decode_worker(d))
            for row, d in t.scan(row_prefix=WORKER_PREFIX)
        )
    return FanoutStats(
        fanouts=totals.fanouts,
        stream_rows=totals.stream_rows,
        failures=totals.failures,
        last_failure=totals.last_failure,
        lag_p50_ms=statistics.median(lags) if lags else None,
        lag_p99_ms=lags[min(len(lags) - 1, int(0.99 * len(lags)))] if lags else None,
        recent=len(lags),
        queue_depth=queue_depth(),
        workers=workers,
    )
