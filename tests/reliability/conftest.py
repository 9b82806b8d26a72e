"""Devstack-like processes for the fault tests: a local HBase server, a Redis
with its append-only file, and Celery worker processes, each of this test's
own, so a test can kill -9 any of them and start it again (same port, same
data). The test process itself is the client: it calls the app's services,
publishing background work to that Redis like the web server does."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import happybase
import pytest
from pytest_django.fixtures import Settings

from devtools.localhbase_process import LocalHBaseProcess
from devtools.processes import CeleryWorkerProcess, RedisProcess
from storage.connection import connection, reset_pool, table_name
from storage.schema import create_tables, drop_tables
from twitbase.celery import app as celery_app
from twitbase.celery import use_broker

CHUNK = 10  # followers per fan-out task: a few hundred followers make many tasks


@dataclass
class FaultStack:
    tmp: Path
    hbase: LocalHBaseProcess
    redis: RedisProcess
    prefix: str
    workers: list[CeleryWorkerProcess] = field(default_factory=list)

    def env(self, **extra: str) -> dict[str, str]:
        return {
            "TWITBASE_HBASE_HOST": self.hbase.host,
            "TWITBASE_HBASE_PORT": str(self.hbase.port),
            "TWITBASE_TABLE_PREFIX": self.prefix,
            "TWITBASE_FANOUT_CHUNK": str(CHUNK),
            "CELERY_BROKER_URL": self.redis.url,
            **extra,
        }

    def worker(self, beat: bool = False, concurrency: int = 2, **extra: str) -> CeleryWorkerProcess:
        """A started worker; with ``beat``, it sweeps pending fan-outs every 2 s."""
        sweep = {"TWITBASE_SWEEP_AFTER_S": "3", "TWITBASE_SWEEP_EVERY_S": "2"} if beat else {}
        worker = CeleryWorkerProcess(
            self.env(**sweep, **extra),
            self.tmp / "logs" / "worker.log",
            concurrency=concurrency,
            name=f"rel{len(self.workers)}",
            beat=beat,
        ).start()
        self.workers.append(worker)
        return worker

    def queued(self) -> int:
        """Tasks waiting in the broker's default queue."""
        import redis

        return int(redis.Redis.from_url(self.redis.url).llen("celery"))

    def unacked(self) -> int:
        """Tasks a worker took and has not acknowledged (kombu's Redis transport)."""
        import redis

        return int(redis.Redis.from_url(self.redis.url).hlen("unacked"))

    def pending_fanouts(self) -> int:
        """Twits still carrying the pending-fan-out mark."""
        conn = happybase.Connection(self.hbase.host, self.hbase.port)
        try:
            return sum(1 for _ in conn.table(table_name("twits")).scan(columns=[b"t:fanout"]))
        finally:
            conn.close()

    def stream_rows(self) -> int:
        conn = happybase.Connection(self.hbase.host, self.hbase.port)
        try:
            return sum(
                1
                for _ in conn.table(table_name("streams")).scan(
                    filter="KeyOnlyFilter() AND FirstKeyOnlyFilter()", batch_size=1000
                )
            )
        finally:
            conn.close()


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
