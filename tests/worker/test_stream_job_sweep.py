"""A repost's fan-out cut by kill -9 is finished by the sweep, as a twit's is.

The harness is test_sweep.py's kill test: real Redis, a real Celery worker
(two prefork children) fanning out in chunks of 100, a lease of one second.
The worker is killed with the repost's chunks under way, and the broker loses
the chunks still queued: only the job's entry in the pending index, its lease
and its recorded progress can bring the rest of the fan-out back. Without
them (reposts before leases) thousands of followers never get the repost.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_django.fixtures import Settings

from devtools.processes import CeleryWorkerProcess, RedisProcess
from feeds import services
from feeds.services import bulk, pending, reactions
from storage import keys
from storage.connection import connection, table_name
from tests.helpers import ServerAddr
from tests.waiting import eventually
from tests.worker.helpers import redis_broker_flush, sweep_once_expired, worker_stack

LEASE_S = 1  # TWITBASE_SWEEP_AFTER_S: a lease of one second
FOLLOWERS = 9_000  # 90 chunks of 100, under the large-account threshold
CHUNK = 100


@pytest.fixture
def small_chunks_stack(
    server: ServerAddr, redis_broker: RedisProcess, settings: Settings, tmp_path: Path
) -> Iterator[CeleryWorkerProcess]:
    """Chunks of 100 followers; a task held by a dead worker comes back only
    after an hour, so nothing but the sweep can finish a cut fan-out."""
    with worker_stack(
        server,
        redis_broker,
        settings,
        tmp_path,
        chunk=CHUNK,
        TWITBASE_SWEEP_AFTER_S=str(LEASE_S),
        TWITBASE_TASK_VISIBILITY_S="3600",
    ) as worker:
        yield worker


def _chunks_done(worker: CeleryWorkerProcess) -> int:
    return sum(
        1
        for line in worker.log.read_text().splitlines()
        if "worker.tasks.repost_to_streams[" in line and " succeeded in " in line
    )


def _job_entries() -> list[bytes]:
    with connection() as conn:
        return pending.entries(conn)[1]


def _nothing_pending() -> bool:
    """No fan-out of a twit, nor of a repost or removal, is unfinished."""
    with connection() as conn:
        return pending.entries(conn) == ([], [])


def _streams_with(tail: bytes) -> set[bytes]:
    """The md5s of the readers whose stream holds the row ``md5 + tail``."""
    with connection() as conn:
        return {
            row[: keys.MD5_LEN]
            for row, _ in conn.table(table_name("streams")).scan(
                filter="KeyOnlyFilter() AND FirstKeyOnlyFilter()", batch_size=5000
            )
            if row[keys.MD5_LEN :] == tail
        }


def test_a_repost_fan_out_cut_by_kill_9_is_finished_by_the_sweep(
    small_chunks_stack: CeleryWorkerProcess, redis_broker: RedisProcess
) -> None:
    worker = small_chunks_stack
    services.register("alice", "Alice", "alice@example.com", "password-123")
    fans = bulk.add_star("star", FOLLOWERS)
    twit = services.post_twit("alice", "worth passing on")
    eventually(lambda: _nothing_pending() and _chunks_done(worker) == 0, what="a quiet start")
    services.repost("star", twit.id)
    key = keys.twit_key_from_id(twit.id)
    with connection() as conn:
        on, ms, _ = reactions.current(conn, reactions.REPOST, key, "star")
    assert on
    tail = keys.repost_stream_key_tail(ms, "star", key)
    eventually(lambda: _chunks_done(worker) >= 20, what="the fan-out under way", every=0.01)
    worker.kill()
    # And the chunks queued or held by the dead worker are gone with the
    # broker's data (a Redis restarted empty; held ones would otherwise wait
    # out the visibility timeout): only what HBase holds can finish the job.
    redis_broker_flush(redis_broker)
    cut_at = _chunks_done(worker)
    everyone = {keys.user_hash(u) for u in ["star", *fans]}
    left = len(everyone - _streams_with(tail))
    if not left:
        pytest.skip("the repost's fan-out finished before the kill")
    swept = sweep_once_expired(LEASE_S)
    worker.start()
    print(f"\nkilled after {cut_at} chunks; {left} streams to go")
    eventually(
        lambda: _streams_with(tail) == everyone,
        timeout=90,
        what="the repost in every follower's stream",
        every=1.0,
    )
    assert swept == [twit.id], "the sweep queued the cut fan-out again"
    eventually(lambda: not _job_entries(), timeout=30, what="the job's entry gone")
