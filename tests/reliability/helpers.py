"""Helpers of the reliability tests; their fixtures are in conftest.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import happybase

from devtools.localhbase_process import LocalHBaseProcess
from devtools.processes import CeleryWorkerProcess, RedisProcess
from storage.connection import table_name

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
