"""Bookmarks: the reaction primitive's private kind (reactions.BOOKMARK),
without a count or a notification, listed only to their user."""

from __future__ import annotations

from feeds import services
from feeds.services import reactions, twitlists
from feeds.types import User
from storage import keys
from storage.connection import connection, table_name
from tests.helpers import PASSWORD
from tests.services.test_model import all_pages


def listed(userid: str) -> list[str]:
    return [t.text for t in all_pages(lambda c: twitlists.user_bookmarks(userid, c, limit=2))]


def test_bookmarks_are_listed_newest_first_and_tell_nobody(alice: User, bob: User) -> None:
    first = services.post_twit("alice", "first")
    second = services.post_twit("alice", "second")
    own = services.post_twit("bob", "bob's own")
    for twit in (first, second, own, first):  # again: nothing changes
        reactions.bookmark("bob", twit.id)
    assert listed("bob") == ["bob's own", "second", "first"]
    assert reactions.reacted(reactions.BOOKMARK, "bob", [first.id, own.id]) == {
        first.id,
        own.id,
    }
    assert services.notifications("alice").items == ()
    assert (services.get_twit(first.id).likes, services.get_twit(first.id).reposts) == (0, 0)
    reactions.unbookmark("bob", second.id)
    reactions.unbookmark("bob", second.id)
    assert listed("bob") == ["bob's own", "first"]
    assert listed("alice") == []


def test_a_deleted_twit_leaves_the_bookmarks_and_so_does_a_deleted_account(
    alice: User, bob: User
) -> None:
    twit = services.post_twit("alice", "soon gone")
    kept = services.post_twit("alice", "kept")
    reactions.bookmark("bob", twit.id)
    reactions.bookmark("bob", kept.id)
    services.delete_twit("alice", twit.id)
    assert listed("bob") == ["kept"]
    with connection() as conn:
        pairs = list(
            conn.table(table_name("bookmarkers")).scan(row_prefix=keys.twit_key_from_id(twit.id))
        )
    assert pairs == []
    services.delete_account("bob", PASSWORD)
    with connection() as conn:
        for table in ("bookmarkers", "bookmarks"):
            assert list(conn.table(table_name(table)).scan()) == [], table
