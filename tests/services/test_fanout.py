"""Fan-out as a service (run in the caller): idempotence, bounded streams,
large accounts and paging across the merge."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from celery.exceptions import Retry
from pytest_django.fixtures import Settings

from feeds import services
from feeds.services import fanout
from feeds.types import User
from storage import keys
from storage.connection import connection, table_name
from tests.conftest import ServerAddr
from tests.services.test_model import all_pages


def streams_snapshot() -> dict[bytes, dict[bytes, tuple[bytes, int]]]:
    """Every cell of the streams table, with its timestamp."""
    with connection() as conn:
        return dict(conn.table(table_name("streams")).scan(include_timestamp=True))


@pytest.fixture
def fans(alice: User, settings: Settings) -> Iterator[list[str]]:
    settings.TWITBASE_FANOUT_CHUNK = 2
    names = [f"fan{i}" for i in range(5)]
    for name in names:
        services.register(name, name, f"{name}@example.com", "password-123")
        services.follow(name, "alice")
    yield names


def test_running_a_fan_out_twice_leaves_the_same_rows(fans: list[str]) -> None:
    twit = services.post_twit("alice", "once")
    before = streams_snapshot()
    assert len([k for k in before if keys.twit_key_from_stream_key(k).hex() == twit.id]) == 6
    fanout.fan_out_twit(twit.id)
    assert streams_snapshot() == before


def test_a_fan_out_retried_after_a_crash_half_way_leaves_the_same_rows(
    fans: list[str], monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    clean = services.post_twit("alice", "clean run")
    expected = {k.replace(bytes.fromhex(clean.id)[16:], b"") for k in streams_snapshot()}
    assert expected  # sanity: rows were written
    real = fanout._write_stream_rows
    calls = {"n": 0}

    def crash_on_second_chunk(*args: object, **kwargs: object) -> int:
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("worker died")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(fanout, "_write_stream_rows", crash_on_second_chunk)
    # Eagerly, Celery's autoretry surfaces as Retry instead of retrying later.
    with pytest.raises((RuntimeError, Retry)):
        services.post_twit("alice", "crashed run")
    monkeypatch.setattr(fanout, "_write_stream_rows", real)
    crashed = services.timeline("alice").items[0]
    assert crashed.text == "crashed run"
    assert not all(crashed.id in {t.id for t in services.home_stream(f).items} for f in fans)
    fanout.fan_out_twit(crashed.id)  # the retry
    for reader in ["alice", *fans]:
        ids = [t.id for t in services.home_stream(reader).items]
        assert ids == [crashed.id, clean.id]


def test_streams_keep_only_the_newest_rows(alice: User, bob: User, settings: Settings) -> None:
    settings.TWITBASE_STREAM_MAX = 5
    settings.TWITBASE_POSTS_PER_MINUTE = 100
    for i in range(12):
        services.post_twit("bob", f"bob {i}")
    services.follow("alice", "bob")  # backfill brings 12, then trims to 5
    assert [t.text for t in services.home_stream("alice").items] == [
        f"bob {i}" for i in range(11, 6, -1)
    ]
    assert fanout.trim_stream("alice") == 0  # trimming again changes nothing


@pytest.fixture
def celebrity(alice: User, bob: User, charlie: User, settings: Settings) -> Iterator[None]:
    """alice has 2 followers, above a threshold of 1; bob follows alice and charlie."""
    settings.TWITBASE_CELEBRITY_THRESHOLD = 1
    settings.TWITBASE_POSTS_PER_MINUTE = 100
    services.register("dave", "Dave", "dave@example.com", "password-123")
    services.follow("bob", "alice")
    services.follow("dave", "alice")
    services.follow("bob", "charlie")
    yield


def test_a_large_account_is_not_fanned_out_but_is_read(
    celebrity: None, twitbase: ServerAddr
) -> None:
    twit = services.post_twit("alice", "too many followers to fan out")
    with connection() as conn:
        stored = conn.table(table_name("streams")).row(
            keys.stream_key("bob", bytes.fromhex(twit.id))
        )
    assert stored == {}, "no stream row for a celebrity's follower"
    assert [t.id for t in services.home_stream("bob").items] == [twit.id]
    assert [t.id for t in services.home_stream("alice").items] == [twit.id]
    services.unfollow("bob", "alice")
    assert services.home_stream("bob").items == ()


def test_paging_stays_exact_across_the_merge(celebrity: None, twitbase: ServerAddr) -> None:
    posted = []
    for i in range(9):
        author = "alice" if i % 3 else "charlie"
        posted.append(services.post_twit(author, f"{author} {i}").id)
        if i == 4:
            fanout.trim_stream("bob")
    newest_first = list(reversed(posted))
    paged = [t.id for t in all_pages(lambda c: services.home_stream("bob", c, limit=2))]
    assert paged == newest_first
    # New twits arriving while paging do not shift later pages.
    first = services.home_stream("bob", limit=4)
    services.post_twit("alice", "late arrival")
    rest = all_pages(lambda c: services.home_stream("bob", c, limit=4) if c else first)
    assert [t.id for t in rest] == newest_first
