"""Reposts: a repost reaches the reposter's followers' streams ("reposted
by"), leaves them when undone or when the twit is deleted, shows a twit once
a page however it arrived, counts exactly under concurrent processes, and
the reader's liked/reposted flags. Each test runs on both servers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.errors import Forbidden, NotFound
from feeds.types import Twit, User
from storage import keys
from storage.connection import connection, table_name
from tests.helpers import ServerAddr, register
from tests.services.test_concurrency import OPS, USERS, hammer
from tests.services.test_model import all_pages


def _stream(reader: str, limit: int = 20) -> list[Twit]:
    return list(services.home_stream(reader, limit=limit).items)


def test_a_repost_reaches_the_reposters_followers_as_reposted_by(
    alice: User, bob: User, charlie: User
) -> None:
    """charlie follows bob, not alice: bob's repost of alice's twit brings it."""
    services.follow("charlie", "bob")
    twit = services.post_twit("alice", "worth sharing")
    older = services.post_twit("bob", "bob's own, before the repost")
    assert [t.id for t in _stream("charlie")] == [older.id]
    got = services.repost("bob", twit.id)
    assert (got.reposts, got.reposted) == (1, True)
    stream = _stream("charlie")
    # At the repost's time: newer than bob's twit, though alice wrote it first.
    assert [(t.id, t.reposted_by) for t in stream] == [(twit.id, "bob"), (older.id, None)]
    assert stream[0].reposted_by_name == bob.name
    assert stream[0].userid == "alice" and stream[0].reposts == 1
    # The reposter's own stream shows it too; the author's is unchanged.
    assert _stream("bob")[0].reposted_by == "bob"
    assert [t.reposted_by for t in _stream("alice")] == [None]


def test_repost_is_idempotent_and_counted_once(alice: User, bob: User, charlie: User) -> None:
    services.follow("charlie", "bob")
    twit = services.post_twit("alice", "repost me")
    assert services.repost("bob", twit.id).reposts == 1
    assert services.repost("bob", twit.id).reposts == 1  # again: a no-op
    assert [t.id for t in _stream("charlie")] == [twit.id]  # one row, not two
    services.repost("charlie", twit.id)
    assert services.get_twit(twit.id).reposts == 2
    assert sorted(services.reposters(twit.id)) == ["bob", "charlie"]
    assert services.unrepost("bob", twit.id).reposts == 1
    assert services.unrepost("bob", twit.id).reposts == 1  # again: no lower
    assert services.reposters(twit.id) == ["charlie"]


def test_reposting_your_own_twit_is_refused_and_undoing_it_is_a_no_op(alice: User) -> None:
    twit = services.post_twit("alice", "mine")
    with pytest.raises(Forbidden, match="your own"):
        services.repost("alice", twit.id)
    assert services.unrepost("alice", twit.id).reposts == 0
    assert services.get_twit(twit.id).reposts == 0
    with pytest.raises(NotFound):
        services.repost("alice", "00" * keys.TWIT_KEY_LEN)


def test_unrepost_removes_it_from_the_followers_streams(
    alice: User, bob: User, charlie: User
) -> None:
    services.follow("charlie", "bob")
    twit = services.post_twit("alice", "here and gone")
    services.repost("bob", twit.id)
    services.unrepost("bob", twit.id)
    assert _stream("charlie") == []
    assert _stream("bob") == []
    # Reposted again: back, at the new repost's time.
    services.repost("bob", twit.id)
    assert [(t.id, t.reposted_by) for t in _stream("charlie")] == [(twit.id, "bob")]


def test_deleting_the_twit_removes_its_reposts(alice: User, bob: User, charlie: User) -> None:
    services.follow("charlie", "bob")
    keep = services.post_twit("alice", "keep")
    gone = services.post_twit("alice", "gone")
    services.repost("bob", keep.id)
    services.repost("bob", gone.id)
    services.delete_twit("alice", gone.id)
    assert [t.id for t in _stream("charlie")] == [keep.id]
    assert services.reposters(gone.id) == []
    with connection() as conn:
        left = list(conn.table(table_name("reposts")).scan(row_prefix=keys.user_hash("bob")))
    assert [keys.twit_key_from_repost_key(k) for k, _ in left] == [bytes.fromhex(keep.id)]


def test_a_twit_shows_once_a_page_when_reposted_twice_and_followed(
    alice: User, bob: User, charlie: User
) -> None:
    """dave follows alice, bob and charlie; bob and charlie both repost alice's twit."""
    register("dave")
    for followed in ("alice", "bob", "charlie"):
        services.follow("dave", followed)
    twit = services.post_twit("alice", "everyone shares this")
    services.repost("bob", twit.id)
    services.repost("charlie", twit.id)
    stream = _stream("dave")
    assert [t.id for t in stream] == [twit.id]
    # The newest appearance: charlie's repost.
    assert stream[0].reposted_by == "charlie" and stream[0].reposts == 2


def test_unfollowing_the_reposter_removes_their_reposts(
    alice: User, bob: User, charlie: User
) -> None:
    services.follow("charlie", "bob")
    twit = services.post_twit("alice", "via bob")
    services.repost("bob", twit.id)
    services.unfollow("charlie", "bob")
    assert _stream("charlie") == []


def test_liked_and_reposted_flags_in_one_read_per_page(
    alice: User, bob: User, charlie: User
) -> None:
    services.follow("bob", "alice")
    posted = [services.post_twit("alice", f"twit {i}") for i in range(3)]
    services.like("bob", posted[0].id)
    services.repost("bob", posted[1].id)
    flags = {t.id: (t.liked, t.reposted) for t in _stream("bob")}
    assert flags == {
        posted[0].id: (True, False),
        posted[1].id: (False, True),
        posted[2].id: (False, False),
    }
    timeline = services.timeline("alice", reader="bob").items
    assert {t.id: (t.liked, t.reposted) for t in timeline} == flags
    assert all((t.liked, t.reposted) == (None, None) for t in services.timeline("alice").items)
    assert services.reposted("bob", [t.id for t in posted]) == {posted[1].id}


@pytest.fixture
def large_reposter(alice: User, bob: User, charlie: User, settings: Settings) -> Iterator[None]:
    """bob has 2 followers, above a threshold of 1: his reposts are merged at read time."""
    settings.TWITBASE_CELEBRITY_THRESHOLD = 1
    settings.TWITBASE_CELEBRITY_CACHE_S = 0
    settings.TWITBASE_POSTS_PER_MINUTE = 100
    register("dave")
    services.follow("charlie", "bob")
    services.follow("dave", "bob")
    services.post_twit("bob", "bob is listed as a large account now")
    yield


def test_a_large_accounts_repost_is_merged_at_read_time(
    large_reposter: None, twitbase: ServerAddr
) -> None:
    twit = services.post_twit("alice", "shared by a large account")
    services.repost("bob", twit.id)
    with connection() as conn:
        rows_in_stream = list(
            conn.table(table_name("streams")).scan(row_prefix=keys.user_hash("charlie"))
        )
    assert rows_in_stream == [], "not fanned out"
    stream = _stream("charlie")
    assert (stream[0].id, stream[0].reposted_by) == (twit.id, "bob")
    # Paged one by one across the merge: each item once, none skipped.
    paged = all_pages(lambda c: services.home_stream("charlie", c, limit=1))
    assert [t.id for t in paged] == [t.id for t in stream]
    services.unrepost("bob", twit.id)
    assert twit.id not in [t.id for t in _stream("charlie")]


def test_repost_count_is_exact_under_concurrent_processes(
    twitbase: ServerAddr, alice: User
) -> None:
    """8 processes repost and un-repost one twit as 4 users at once (two per
    user, so the same pair races); then the count equals the reposters, and
    each user's stream holds the twit as their repost exactly when they do."""
    for userid in USERS:
        register(userid)
    twit = services.post_twit("alice", "hammered")
    hammer(twitbase, OPS["reposts"][twitbase.kind], "--reposts", twit.id)
    reposters = services.reposters(twit.id)
    assert services.get_twit(twit.id).reposts == len(reposters)
    shown = {u for u in USERS if any(t.reposted_by == u for t in _stream(u))}
    assert shown == set(reposters)


def test_following_a_reposter_later_brings_their_reposts(
    alice: User, bob: User, charlie: User
) -> None:
    twit = services.post_twit("alice", "reposted before charlie came")
    services.repost("bob", twit.id)
    services.follow("charlie", "bob")
    assert [(t.id, t.reposted_by) for t in _stream("charlie")] == [(twit.id, "bob")]
    services.unfollow("charlie", "bob")
    assert _stream("charlie") == []
    services.follow("charlie", "bob")  # again: the rows come back
    assert [(t.id, t.reposted_by) for t in _stream("charlie")] == [(twit.id, "bob")]


def test_reposts_notify_the_author_grouped_and_an_unrepost_takes_its_part_back(
    alice: User, bob: User, charlie: User
) -> None:
    mine = services.post_twit("alice", "worth passing on")
    services.repost("bob", mine.id)
    services.repost("charlie", mine.id)
    services.repost("charlie", mine.id)  # a second repost is a no-op, notified once
    (group,) = [n for n in services.notifications("alice").items if n.type == "repost"]
    assert (group.twit_id, group.count) == (mine.id, 2)
    assert [a.userid for a in group.actors] == ["charlie", "bob"]
    assert services.unread_count("alice") == 2
    services.unrepost("charlie", mine.id)
    (group,) = [n for n in services.notifications("alice").items if n.type == "repost"]
    assert (group.count, [a.userid for a in group.actors]) == (1, ["bob"])
    services.unrepost("bob", mine.id)
    assert [n for n in services.notifications("alice").items if n.type == "repost"] == []
