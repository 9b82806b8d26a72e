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

from storage import keys
from storage.connection import connection, table_name
from storage.ops import decode_count

TOTALS = keys.METRICS_TOTALS
LAG_PREFIX = keys.METRICS_LAG
WORKER_PREFIX = keys.METRICS_WORKER


def record_rows(conn: happybase.Connection, rows: int) -> None:
    conn.table(table_name("metrics")).counter_inc(TOTALS, b"m:stream_rows", rows)


def record_fanout_done(conn: happybase.Connection, lag_ms: int) -> None:
    t = conn.table(table_name("metrics"))
    t.counter_inc(TOTALS, b"m:fanouts")
    # Newest first, so the console reads the latest lags with one short scan.
    row = keys.metrics_lag_key(int(time.time() * 1000), keys.new_suffix())
    t.put(row, {b"m:lag_ms": str(lag_ms).encode()})


def record_failure(task: str, error: str) -> None:
    with connection() as conn:
        t = conn.table(table_name("metrics"))
        t.counter_inc(TOTALS, b"m:failures")
        t.put(TOTALS, {b"m:last_failure": f"{task}: {error}"[:500].encode()})


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
        t.put(keys.metrics_worker_key(name), {b"m:seen": str(int(time.time() * 1000)).encode()})
        t.counter_inc(keys.metrics_worker_key(name), b"m:tasks", int(tasks))


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
        totals = t.row(TOTALS)
        lags = sorted(
            int(d[b"m:lag_ms"])
            for _, d in t.scan(
                row_start=LAG_PREFIX, row_stop=keys.prefix_stop(LAG_PREFIX), limit=recent
            )
        )
        workers = tuple(
            (
                row[len(WORKER_PREFIX) :].decode(),
                int(d.get(b"m:seen", b"0")),
                decode_count(d.get(b"m:tasks")),
            )
            for row, d in t.scan(row_start=WORKER_PREFIX, row_stop=keys.prefix_stop(WORKER_PREFIX))
        )
    return FanoutStats(
        fanouts=decode_count(totals.get(b"m:fanouts")),
        stream_rows=decode_count(totals.get(b"m:stream_rows")),
        failures=decode_count(totals.get(b"m:failures")),
        last_failure=totals.get(b"m:last_failure", b"").decode(),
        lag_p50_ms=statistics.median(lags) if lags else None,
        lag_p99_ms=lags[min(len(lags) - 1, int(0.99 * len(lags)))] if lags else None,
        recent=len(lags),
        queue_depth=queue_depth(),
        workers=workers,
    )
