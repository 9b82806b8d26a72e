"""The list of large accounts each process keeps for a TTL: a reader holding
a list from before an author was listed misses none of that author's twits,
and a reader whose list has them sees each twit once."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.services import fanout, streams
from feeds.types import User
from storage import keys
from storage.connection import connection, table_name


def _stream_ids(reader: str) -> list[str]:
    return [t.id for t in services.home_stream(reader).items]


def _has_stream_row(reader: str, twit_id: str) -> bool:
    with connection() as conn:
        row = conn.table(table_name("streams")).row(keys.stream_key(reader, bytes.fromhex(twit_id)))
    return bool(row)


class _HeldClock:
    """The two clocks the test's windows are read from, held still until
    moved: the list's TTL (streams.CELEBRITIES, time.monotonic) and the
    fan-out's grace after listing (fanout.still_fanned_out, time.time). On
    real clocks the test's steps had to fit in the windows, and on a loaded
    machine (two test runs at once) two of them took longer than one."""

    def __init__(self) -> None:
        self.wall = time.time()
        self.mono = time.monotonic()

    def advance(self, seconds: float) -> None:
        self.wall += seconds
        self.mono += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> _HeldClock:
    held = _HeldClock()
    monkeypatch.setattr(streams, "time", SimpleNamespace(monotonic=lambda: held.mono))
    monkeypatch.setattr(fanout, "time", SimpleNamespace(time=lambda: held.wall))
    return held


def test_a_newly_listed_large_account_is_missed_by_no_stale_list(
    alice: User, bob: User, charlie: User, settings: Settings, clock: _HeldClock
) -> None:
    settings.TWITBASE_CELEBRITY_THRESHOLD = 1
    settings.TWITBASE_CELEBRITY_CACHE_S = 1
    settings.TWITBASE_POSTS_PER_MINUTE = 100
    streams.CELEBRITIES.clear()
    services.follow("bob", "alice")
    services.follow("charlie", "alice")  # alice now has 2 followers, above 1
    assert _stream_ids("bob") == []  # this process now holds a list without alice

    first = services.post_twit("alice", "first twit as a large account")  # lists alice
    with connection() as conn:
        assert streams.CELEBRITIES.get(conn) == (), "the list is stale on purpose"
        assert conn.table(table_name("celebrities")).row(keys.user_key("alice"))
    # Within the TTL: the stale list does not merge alice, her stream row serves.
    assert _has_stream_row("bob", first.id)
    assert _stream_ids("bob") == [first.id]

    clock.advance(1.1)  # the list is read again: alice's twit is found both ways
    with connection() as conn:
        assert streams.CELEBRITIES.get(conn) == ("alice",)
    assert _stream_ids("bob") == [first.id]

    second = services.post_twit("alice", "still within twice the TTL")  # at 1.1 s of 2
    assert _has_stream_row("bob", second.id)
    assert _stream_ids("bob") == [second.id, first.id]

    clock.advance(1.0)  # 2.1 s after the listing: every list has alice now
    third = services.post_twit("alice", "no longer fanned out")
    assert not _has_stream_row("bob", third.id)
    assert _stream_ids("bob") == [third.id, second.id, first.id]
    assert _stream_ids("charlie") == [third.id, second.id, first.id]
