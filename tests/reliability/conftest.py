"""Devstack-like processes for the fault tests: a local HBase server, a Redis
with its append-only file, and Celery worker processes, each of this test's
own, so a test can kill -9 any of them and start it again (same port, same
data). The test process itself is the client: it calls the app's services,
publishing background work to that Redis like the web server does."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_django.fixtures import Settings

from devtools.localhbase_process import LocalHBaseProcess
from devtools.processes import RedisProcess
from storage.connection import connection, reset_pool
from storage.schema import create_tables, drop_tables
from tests.reliability.helpers import CHUNK, FaultStack
from twitbase.celery import app as celery_app
from twitbase.celery import use_broker


@pytest.fixture
def faultstack(tmp_path: Path, settings: Settings) -> Iterator[FaultStack]:
    hbase = LocalHBaseProcess(tmp_path / "hbase", log_path=tmp_path / "logs" / "localhbase.log")
    redis = RedisProcess(tmp_path / "redis")
    stack = FaultStack(tmp_path, hbase.start(), redis.start(), "rel" + uuid.uuid4().hex[:8])
    settings.TWITBASE_HBASE_HOST = hbase.host
    settings.TWITBASE_HBASE_PORT = hbase.port
    settings.TWITBASE_TABLE_PREFIX = stack.prefix
    settings.TWITBASE_FANOUT_CHUNK = CHUNK
    settings.TWITBASE_POSTS_PER_MINUTE = 100_000
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.CELERY_BROKER_URL = redis.url
    reset_pool()
    with connection() as conn:
        create_tables(conn)
    eager = celery_app.conf.task_always_eager
    broker = celery_app.conf.broker_url
    celery_app.conf.task_always_eager = False
    use_broker(redis.url)
    try:
        yield stack
    finally:
        for worker in stack.workers:
            worker.stop()
        celery_app.conf.task_always_eager = eager
        use_broker(broker)
        if hbase.running():
            reset_pool()
            with connection() as conn:
                drop_tables(conn)
        reset_pool()
        redis.stop()
        hbase.stop()
