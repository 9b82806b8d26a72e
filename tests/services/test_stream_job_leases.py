"""A repost's or a removal's fan-out runs under a lease, as a twit's does: its
entry in the pending index holds the job, the lease and the chunks done;
the sweep takes over an expired lease and the copy in flight stops; the
last chunk drops the entry. (Killed workers: tests/worker/test_stream_job_sweep.py.)"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from pytest_django.fixtures import Settings

from feeds import jobs, services
from feeds.services import fanout, pending
from feeds.types import User
from storage import keys
from storage.connection import connection, table_name
from tests.services.test_fanout import _run, jobs_held


@pytest.fixture
def fans(alice: User, bob: User, settings: Settings) -> Iterator[list[str]]:
    """alice has five followers, three chunks of two; bob has none."""
    settings.TWITBASE_FANOUT_CHUNK = 2
    settings.TWITBASE_POSTS_PER_MINUTE = 100
    names = [f"fan{i}" for i in range(5)]
    for name in names:
        services.register(name, name, f"{name}@example.com", "password-123")
        services.follow(name, "alice")
    yield names


def _job_entries() -> list[bytes]:
    with connection() as conn:
        return pending.entries(conn)[1]


def _has_repost(reader: str, twit_id: str) -> bool:
    return any(
        t.id == twit_id and t.reposted_by == "alice"
        for t in services.home_stream(reader, limit=100).items
    )


def _stream_rows(reader: str) -> list[bytes]:
    with connection() as conn:
        table = conn.table(table_name("streams"))
        return [key for key, _ in table.scan(row_prefix=keys.user_hash(reader))]


def test_a_finished_repost_and_removal_leave_no_entry(fans: list[str]) -> None:
    twit = services.post_twit("bob", "worth sharing")
    services.repost("alice", twit.id)
    assert all(_has_repost(f, twit.id) for f in [*fans, "alice"])
    assert _job_entries() == []
    services.delete_twit("bob", twit.id)
    assert _job_entries() == []
    assert all(not _has_repost(f, twit.id) for f in [*fans, "alice"])


def test_a_taken_over_lease_stops_the_copy_in_flight_and_the_sweep_resumes(
    fans: list[str],
) -> None:
    twit = services.post_twit("bob", "worth sharing")
    with jobs_held() as held:
        services.repost("alice", twit.id)
        [first] = held
        assert isinstance(first, jobs.RepostToStreams) and first.lease
        assert len(_job_entries()) == 1, "the entry is written before the job is queued"
        _run([held.pop(0)])  # the first chunk: alice and fan0, fan1; queues two
        later = list(held)
        held.clear()
        assert [j.chunk for j in later if isinstance(j, jobs.RepostToStreams)] == [1, 2]
        assert fanout.sweep_pending(older_than_s=0) == [twit.id]
        [again] = held
        assert isinstance(again, jobs.RepostToStreams)
        assert again.chunk == 0 and again.lease not in ("", first.lease)
        # The chunks queued under the old lease stop without writing or queuing.
        _run(later)
        assert held == [again]
        assert sum(_has_repost(f, twit.id) for f in fans) == 2
        # The copy under the new lease runs only what is not on record.
        ran = _run(held)
    assert [j.chunk for j in ran if isinstance(j, jobs.RepostToStreams)] == [0, 1, 2]
    assert all(_has_repost(f, twit.id) for f in [*fans, "alice"])
    assert _job_entries() == []


def test_a_repost_undone_before_its_fan_out_runs_writes_nothing_and_ends(
    fans: list[str],
) -> None:
    twit = services.post_twit("bob", "worth sharing")
    with jobs_held() as held:
        services.repost("alice", twit.id)
        services.unrepost("alice", twit.id)
        _run(held)
    assert all(_stream_rows(f) == [] for f in [*fans, "alice"])
    assert _job_entries() == []


def test_a_job_queued_before_leases_runs_untracked_each_chunk_once(fans: list[str]) -> None:
    twit = services.post_twit("bob", "worth sharing")
    with jobs_held() as held:
        services.repost("alice", twit.id)
        [first] = held
        held.clear()
        assert isinstance(first, jobs.RepostToStreams)
        with connection() as conn:
            pending.drop_job(conn, pending.job_key(first))
        held.append(dataclasses.replace(first, lease=""))  # as an old message
        ran = _run(held)
    assert [j.chunk for j in ran if isinstance(j, jobs.RepostToStreams)] == [0, 1, 2]
    assert all(_has_repost(f, twit.id) for f in [*fans, "alice"])
    assert _job_entries() == []
