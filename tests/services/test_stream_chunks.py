"""Reposts and removals fan out as twits do: in chunks of
TWITBASE_FANOUT_CHUNK followers planned by the first chunk (fanplan), the
streams due trimmed after an add, and a chunk that dies run again by its
retry without the rest done twice."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytest_django.fixtures import Settings

from feeds import jobs, services
from feeds.services import fanout
from feeds.types import User
from storage import keys
from storage.connection import connection, table_name
from tests.services.test_fanout import jobs_held
from worker import jobs as registry

FANS = [f"fan{i}" for i in range(5)]


@pytest.fixture
def fans(alice: User, bob: User, settings: Settings) -> Iterator[list[str]]:
    """alice has five followers, three chunks of two; bob has none."""
    settings.TWITBASE_FANOUT_CHUNK = 2
    settings.TWITBASE_POSTS_PER_MINUTE = 100
    for name in FANS:
        services.register(name, name, f"{name}@example.com", "password-123")
        services.follow(name, "alice")
    yield FANS


@pytest.fixture
def chunks(monkeypatch: pytest.MonkeyPatch) -> list[jobs.Job]:
    """Every chunk of a repost or removal begun, in order."""
    begun: list[jobs.Job] = []
    real = fanout.start_stream_chunk

    def recording(job: fanout.StreamJob) -> fanout.StreamStep:
        begun.append(job)
        return real(job)

    monkeypatch.setattr(fanout, "start_stream_chunk", recording)
    return begun


def _stream_rows(reader: str) -> list[bytes]:
    with connection() as conn:
        table = conn.table(table_name("streams"))
        return [key for key, _ in table.scan(row_prefix=keys.user_hash(reader))]


def _shown(reader: str) -> list[tuple[str, str | None]]:
    return [(t.id, t.reposted_by) for t in services.home_stream(reader).items]


def test_a_repost_reaches_every_follower_in_chunks_and_trims_their_streams(
    fans: list[str], chunks: list[jobs.Job], settings: Settings
) -> None:
    older = services.post_twit("alice", "alice's own, before the repost")
    twit = services.post_twit("bob", "worth sharing")
    assert all(len(_stream_rows(f)) == 1 for f in fans)
    # A limit of one row: every stream the repost reaches is due for a trim.
    settings.TWITBASE_STREAM_MAX = 1
    services.repost("alice", twit.id)
    assert [(type(j).__name__, getattr(j, "chunk", None)) for j in chunks] == [
        ("RepostToStreams", 0),
        ("RepostToStreams", 1),
        ("RepostToStreams", 2),
    ]
    assert all(isinstance(j, jobs.RepostToStreams) and j.readers for j in chunks[1:])
    for fan in fans:
        assert _shown(fan) == [(twit.id, "alice")], fan
        assert len(_stream_rows(fan)) == 1, "trimmed to the limit"
    # The reposter's own stream too: the repost on top, trimmed as well.
    assert _shown("alice") == [(twit.id, "alice")]
    assert older.id not in [t.id for t in services.home_stream("alice").items]


def test_an_unrepost_removes_the_repost_from_every_follower_in_chunks(
    fans: list[str], chunks: list[jobs.Job]
) -> None:
    twit = services.post_twit("bob", "worth sharing")
    services.repost("alice", twit.id)
    assert all(_shown(f) == [(twit.id, "alice")] for f in fans)
    chunks.clear()
    services.unrepost("alice", twit.id)
    assert [type(j).__name__ for j in chunks] == ["RemoveRepostFromStreams"] * 3
    assert all(_stream_rows(f) == [] for f in [*fans, "alice"])


def test_a_twit_deleted_leaves_every_stream_in_chunks(
    fans: list[str], chunks: list[jobs.Job]
) -> None:
    twit = services.post_twit("alice", "soon gone")
    assert all(_shown(f) == [(twit.id, None)] for f in fans)
    services.delete_twit("alice", twit.id)
    removals = [j for j in chunks if isinstance(j, jobs.RemoveTwitFromStreams)]
    assert [j.chunk for j in removals] == [0, 1, 2]
    assert all(_stream_rows(f) == [] for f in [*fans, "alice"])


def test_a_removal_whose_chunk_dies_is_finished_by_its_retry(
    fans: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker's way: each chunk a task of its own, queued before the
    chunk that planned it writes; the one that dies is delivered again."""
    twit = services.post_twit("bob", "worth sharing")
    services.repost("alice", twit.id)
    real = fanout.write_stream_chunk
    died: list[fanout.StreamStep] = []

    def dies_once_on_a_later_chunk(step: fanout.StreamStep) -> int:
        if not died and step.readers and keys.user_hash("alice") not in step.readers:
            died.append(step)
            raise RuntimeError("worker died")
        return real(step)

    monkeypatch.setattr(fanout, "write_stream_chunk", dies_once_on_a_later_chunk)
    with jobs_held() as held:
        services.unrepost("alice", twit.id)
        ran = []
        while held:
            job = held.pop(0)
            try:
                registry.task_for(job).run(**jobs.kwargs(job))
            except RuntimeError:
                left = [f for f in fans if _stream_rows(f)]
                assert 0 < len(left) < len(fans), "the chunk that died left its rows"
                held.append(job)  # redelivered (acks_late), or retried
            ran.append(job)
    assert died, "a chunk died"
    assert [type(j).__name__ for j in ran] == ["RemoveRepostFromStreams"] * 4
    assert all(_stream_rows(f) == [] for f in [*fans, "alice"])
