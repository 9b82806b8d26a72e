"""Helpers of the worker tests; their fixtures are in conftest.py."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pytest_django.fixtures import Settings

from devtools.processes import CeleryWorkerProcess, RedisProcess
from feeds.services import fanout, pending
from storage import keys
from storage.connection import connection, reset_pool
from storage.schema import create_tables, drop_tables
from tests.helpers import ServerAddr
from tests.tablepool import pool_for
from tests.waiting import eventually
from twitbase.celery import app as celery_app
from twitbase.celery import use_broker

CHUNK = 3  # followers per fan-out task in these tests, so chunking shows


@contextmanager
def worker_stack(
    server: ServerAddr,
    redis_broker: RedisProcess,
    settings: Settings,
    tmp_path: Path,
    chunk: int = CHUNK,
    beat: bool = False,
    worker_env: dict[str, str] | None = None,
    **more: str,
) -> Iterator[CeleryWorkerProcess]:
    """Fresh tables on ``server``, this process publishing to the test Redis,
    and a worker process (prefork, 2 children; with Celery beat if ``beat``)
    consuming from it. ``more`` are further settings (integers), given to
    this process and the worker alike; ``worker_env``, environment variables
    for the worker alone."""
    # Real HBase is slow at DDL: its tables come made ahead (tests/tablepool.py).
    pool = pool_for(server.host, server.port, "tw") if server.kind == "hbase" else None
    prefix = pool.take() if pool else "tw" + uuid.uuid4().hex[:10]
    since_ns = time.time_ns()
    settings.TWITBASE_HBASE_HOST = server.host
    settings.TWITBASE_HBASE_PORT = server.port
    settings.TWITBASE_HBASE_THRIFT2_PORT = server.thrift2_port
    settings.TWITBASE_TABLE_PREFIX = prefix
    settings.TWITBASE_FANOUT_CHUNK = chunk
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.CELERY_BROKER_URL = redis_broker.url
    for name, value in more.items():
        setattr(settings, name, int(value))
    reset_pool()
    if pool is None:
        with connection() as conn:
            create_tables(conn)
    redis_broker_flush(redis_broker)
    celery_app.conf.task_always_eager = False
    use_broker(redis_broker.url)
    env = {
        "TWITBASE_HBASE_HOST": server.host,
        "TWITBASE_HBASE_PORT": str(server.port),
        "TWITBASE_HBASE_THRIFT2_PORT": str(server.thrift2_port),
        "TWITBASE_TABLE_PREFIX": prefix,
        "TWITBASE_FANOUT_CHUNK": str(chunk),
        "CELERY_BROKER_URL": redis_broker.url,
        **more,
        **(worker_env or {}),
    }
    worker = CeleryWorkerProcess(env, tmp_path / "worker.log", concurrency=2, beat=beat).start()
    try:
        yield worker
    finally:
        worker.stop()
        if pool is not None:
            pool.give_back(prefix, since_ns)
        else:
            with connection() as conn:
                drop_tables(conn)
        reset_pool()


def redis_broker_flush(redis_broker: RedisProcess) -> None:
    import redis

    redis.Redis.from_url(redis_broker.url).flushdb()


def broker_idle(redis_broker: RedisProcess) -> bool:
    """No task queued, and none delivered but not yet acknowledged (kombu
    keeps those in the ``unacked`` hash until the worker acks them)."""
    import redis

    r = redis.Redis.from_url(redis_broker.url)
    return int(r.llen("celery")) == 0 and int(r.hlen("unacked")) == 0


def sweep_once_expired(older_than_s: float, timeout: float = 30.0) -> list[str]:
    """Sweep until some lease has expired, and return what that sweep queued:
    the wait is the lease's own expiry, however long a loaded machine makes
    it, not a guessed time. A sweep before then queues nothing and changes
    nothing."""
    swept: list[str] = []

    def queued_some() -> bool:
        swept[:] = fanout.sweep_pending(older_than_s)
        return bool(swept)

    eventually(queued_some, timeout=timeout, what="a lease expired and swept")
    return swept


def lease_expired(twit_id: str, after_s: float) -> bool:
    """Whether the lease on the twit's fan-out is open and has expired, as a
    sweep given ``after_s`` would judge it now."""
    with connection() as conn:
        raw = pending.read_mark(conn, keys.twit_key_from_id(twit_id))
    return pending.is_open(raw) and pending.decode(raw or b"").expired(after_s, pending.now_ms())
