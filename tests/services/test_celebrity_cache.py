"""The list of large accounts each process keeps for a TTL: a reader holding
a list from before an author was listed misses none of that author's twits,
and a reader whose list has them sees each twit once."""

from __future__ import annotations

import time

from pytest_django.fixtures import Settings

from feeds import services
from feeds.services import streams
from feeds.types import User
from storage import keys
from storage.connection import connection, table_name


def _stream_ids(reader: str) -> list[str]:
    return [t.id for t in services.home_stream(reader).items]


def _has_stream_row(reader: str, twit_id: str) -> bool:
    with connection() as conn:
        row = conn.table(table_name("streams")).row(keys.stream_key(reader, bytes.fromhex(twit_id)))
    return bool(row)


def test_a_newly_listed_large_account_is_missed_by_no_stale_list(
    alice: User, bob: User, charlie: User, settings: Settings
) -> None:
    settings.TWITBASE_CELEBRITY_THRESHOLD = 1
    settings.TWITBASE_CELEBRITY_CACHE_S = 1
    settings.TWITBASE_POSTS_PER_MINUTE = 100
    streams.CELEBRITIES.clear()
    services.follow("bob", "alice")
    services.follow("charlie", "alice")  # alice now has 2 followers, above 1
    assert _stream_ids("bob") == []  # this process now holds a list without alice

    first = services.post_twit("alice", "first twit as a large account")  # lists alice
    listed = time.monotonic()
    with connection() as conn:
        assert streams.CELEBRITIES.get(conn) == (), "the list is stale on purpose"
        assert conn.table(table_name("celebrities")).row(keys.user_key("alice"))
    # Within the TTL: the stale list does not merge alice, her stream row serves.
    assert _has_stream_row("bob", first.id)
    assert _stream_ids("bob") == [first.id]

    time.sleep(1.1)  # the list is read again: alice's twit is found both ways
    with connection() as conn:
        assert streams.CELEBRITIES.get(conn) == ("alice",)
    assert _stream_ids("bob") == [first.id]

    second = services.post_twit("alice", "still within twice the TTL")
    assert time.monotonic() - listed < 2
    assert _has_stream_row("bob", second.id)
    assert _stream_ids("bob") == [second.id, first.id]

    time.sleep(max(0.0, 2.1 - (time.monotonic() - listed)))  # every list has alice now
    third = services.post_twit("alice", "no longer fanned out")
    assert not _has_stream_row("bob", third.id)
    assert _stream_ids("bob") == [third.id, second.id, first.id]
    assert _stream_ids("charlie") == [third.id, second.id, first.id]
