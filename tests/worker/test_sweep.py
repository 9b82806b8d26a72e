"""The sweep under a backlog, and after a storage outage, with real workers.

Issue 9, finding 3: with the worker stopped, every sweep queued every pending
fan-out again, and when the worker came back each copy was run in full.
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from pytest_django.fixtures import Settings

from devtools.localhbase_process import LocalHBaseProcess
from devtools.processes import CeleryWorkerProcess, RedisProcess, free_port
from feeds import services
from feeds.services import bulk, metrics
from feeds.services.twits import FANOUT
from storage import keys
from storage.connection import connection, reset_pool, table_name
from tests.helpers import ServerAddr
from tests.worker.helpers import (
    eventually,
    lease_expired,
    redis_broker_flush,
    sweep_once_expired,
    worker_stack,
)
from worker.tasks import sweep_pending_fanouts

FOLLOWERS = 3000
TWITS = 5
SWEEPS = 4
LEASE_S = 1  # TWITBASE_SWEEP_AFTER_S here: a lease (a sweep's patience) of one second
# The kill -9 test's star: 90 chunks of 100 (under the large-account
# threshold), so the kill lands mid-way; with 3,000, the fan-out sometimes
# finished between two polls and the test skipped.
KILLED_FOLLOWERS = 9_000


@pytest.fixture
def backlog_stack(
    server: ServerAddr, redis_broker: RedisProcess, settings: Settings, tmp_path: Path
) -> Iterator[CeleryWorkerProcess]:
    """Fan-out in chunks of 500, and sweeps after a second."""
    with worker_stack(
        server,
        redis_broker,
        settings,
        tmp_path,
        chunk=500,
        TWITBASE_SWEEP_AFTER_S=str(LEASE_S),
    ) as worker:
        yield worker


def _marked(twit_ids: list[str]) -> int:
    with connection() as conn:
        rows = conn.table(table_name("twits")).rows(
            [keys.twit_key_from_id(t) for t in twit_ids], columns=[FANOUT]
        )
    return sum(1 for _, row in rows if FANOUT in row)


def _settled(timeout: float = 240.0) -> int:
    """Stream rows written so far, once the queue is empty and the count has
    not moved for two seconds (copies of a fan-out may run after the first)."""
    deadline = time.monotonic() + timeout
    last, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        rows = metrics.fanout_stats().stream_rows
        if rows != last or metrics.queue_depth() != 0:
            last, since = rows, time.monotonic()
        elif time.monotonic() - since > 2.0:
            return rows
        time.sleep(0.2)
    raise AssertionError(f"stream rows still moving after {timeout}s")


def test_sweeps_during_a_backlog_do_not_multiply_the_fan_out(
    backlog_stack: CeleryWorkerProcess,
) -> None:
    fans = bulk.add_star("star", FOLLOWERS)
    backlog_stack.stop()
    twits = [services.post_twit("star", f"backlog {i}").id for i in range(TWITS)]
    for _ in range(SWEEPS):
        time.sleep(LEASE_S * 1.3)
        call_command("sweepfanout", stdout=io.StringIO())
    before = metrics.fanout_stats().stream_rows
    backlog_stack.start()
    eventually(lambda: _marked(twits) == 0, timeout=240, what="every fan-out finished")
    written = _settled() - before
    needed = TWITS * (FOLLOWERS + 1)  # each follower's row, and the author's own
    tasks = backlog_stack.log.read_text().count("worker.tasks.fan_out_twit[") // 2
    print(
        f"\nstream rows written {written:,} for {needed:,} needed "
        f"({written / needed:.2f}x); fan_out_twit tasks run: {tasks}"
    )
    assert written <= 1.1 * needed, f"{written:,} rows written for {needed:,} needed"
    # And every stream is exact: each follower and the author hold the five twits.
    want = {bytes.fromhex(t) for t in twits}
    got: dict[bytes, set[bytes]] = {}
    with connection() as conn:
        for row, _ in conn.table(table_name("streams")).scan(
            filter="KeyOnlyFilter() AND FirstKeyOnlyFilter()", batch_size=5000
        ):
            got.setdefault(row[: keys.MD5_LEN], set()).add(keys.twit_key_from_stream_key(row))
    assert got == {keys.user_hash(u): want for u in ["star", *fans]}


def test_the_beat_sweep_retries_after_a_storage_outage(
    redis_broker: RedisProcess, settings: Settings, tmp_path: Path
) -> None:
    """HBase is down when the sweep runs: the task retries with backoff, and
    once HBase is back the lost fan-out is queued and done."""
    hbase = LocalHBaseProcess(tmp_path / "hbase", port=free_port()).start()
    addr = ServerAddr("local", hbase.host, hbase.port)
    try:
        with worker_stack(
            addr, redis_broker, settings, tmp_path, TWITBASE_SWEEP_AFTER_S=str(LEASE_S)
        ) as worker:
            try:
                worker.stop()
                services.register("alice", "Alice", "alice@example.com", "password-123")
                services.register("bob", "Bob", "bob@example.com", "password-123")
                services.follow("bob", "alice")
                twit = services.post_twit("alice", "posted, then its task was lost")
                redis_broker_flush(redis_broker)  # the queued fan-out is gone
                eventually(lambda: lease_expired(twit.id, LEASE_S), what="the lease expired")
                hbase.stop()
                worker.start()
                sweep_pending_fanouts.apply_async()
                eventually(
                    lambda: "Retry in" in worker.log.read_text(),
                    what="the sweep failing and retrying",
                )
                hbase.start()  # on the same port, with the same data
                reset_pool()
                eventually(
                    lambda: twit.id in {t.id for t in services.home_stream("bob").items},
                    timeout=60,
                    what="the fan-out queued by the retried sweep",
                )
            finally:
                if hbase.proc is not None and hbase.proc.poll() is not None:
                    hbase.start()  # so the stack can drop its tables
                    reset_pool()
    finally:
        hbase.stop()


@pytest.fixture
def small_chunks_stack(
    server: ServerAddr, redis_broker: RedisProcess, settings: Settings, tmp_path: Path
) -> Iterator[CeleryWorkerProcess]:
    """Chunks of 100 followers, so that a fan-out is many tasks long."""
    with worker_stack(
        server, redis_broker, settings, tmp_path, chunk=100, TWITBASE_SWEEP_AFTER_S=str(LEASE_S)
    ) as worker:
        yield worker


def test_a_fan_out_cut_by_kill_9_resumes_where_it_stopped(
    small_chunks_stack: CeleryWorkerProcess,
) -> None:
    worker = small_chunks_stack
    fans = bulk.add_star("star", KILLED_FOLLOWERS)
    twit = services.post_twit("star", "cut short").id
    # A third of the way: a sweep that starts over would redo 3,000 rows.
    eventually(
        lambda: metrics.fanout_stats().stream_rows > KILLED_FOLLOWERS // 3,
        what="the fan-out under way",
        every=0.01,
    )
    worker.kill()
    cut_at = metrics.fanout_stats().stream_rows
    if _marked([twit]) == 0:
        pytest.skip("the fan-out finished before the kill")
    assert sweep_once_expired(LEASE_S) == [twit]
    worker.start()
    eventually(lambda: _marked([twit]) == 0, timeout=120, what="the fan-out finished")
    written = _settled()
    needed = KILLED_FOLLOWERS + 1
    # Chunks that were writing when the worker died (two processes, 100
    # followers each) may be written twice; nothing else is.
    print(f"\nkilled after {cut_at:,} rows; {written:,} written for {needed:,} needed")
    assert written <= needed + 2 * 100, f"{written:,} rows written for {needed:,} needed"
    with connection() as conn:
        streams = conn.table(table_name("streams"))
        found = {
            row[: keys.MD5_LEN]
            for row, _ in streams.scan(
                filter="KeyOnlyFilter() AND FirstKeyOnlyFilter()", batch_size=5000
            )
            if keys.twit_key_from_stream_key(row).hex() == twit
        }
    assert found == {keys.user_hash(u) for u in ["star", *fans]}
