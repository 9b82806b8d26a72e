"""Likes: idempotent like/unlike, an exact count under concurrent processes,
a user's likes newest first, "did I like it" in one multi-get, and a twit's
delete taking its likes with it. Each test runs on both servers."""

from __future__ import annotations

from feeds import services
from feeds.types import User
from tests.helpers import ServerAddr, register
from tests.services.test_concurrency import OPS, USERS, hammer
from tests.services.test_model import all_pages


def test_like_is_idempotent_and_counted_once(alice: User, bob: User, charlie: User) -> None:
    twit = services.post_twit("alice", "like me")
    assert services.like("bob", twit.id).likes == 1
    assert services.like("bob", twit.id).likes == 1  # again: still one
    services.like("charlie", twit.id)
    assert services.get_twit(twit.id).likes == 2
    assert sorted(services.likers(twit.id)) == ["bob", "charlie"]
    assert services.unlike("bob", twit.id).likes == 1
    assert services.unlike("bob", twit.id).likes == 1  # again: no lower
    assert services.likers(twit.id) == ["charlie"]
    assert services.like("bob", twit.id).likes == 2


def test_users_likes_newest_first_paged_and_liked_flags(alice: User, bob: User) -> None:
    posted = [services.post_twit("alice", f"twit {i}") for i in range(5)]
    for t in posted:
        services.like("bob", t.id)
    listed = all_pages(lambda c: services.user_likes("bob", c, limit=2))
    assert [t.id for t in listed] == [t.id for t in reversed(posted)]
    services.unlike("bob", posted[1].id)
    assert services.liked("bob", [t.id for t in posted]) == {
        t.id for i, t in enumerate(posted) if i != 1
    }
    flags = services.hydrate(tuple(posted), "bob")
    assert [t.liked for t in flags] == [True, False, True, True, True]
    assert all(t.liked is None for t in services.hydrate(tuple(posted), None))


def test_deleting_a_twit_removes_its_likes(alice: User, bob: User) -> None:
    keep = services.post_twit("alice", "keep")
    gone = services.post_twit("alice", "gone")
    services.like("bob", keep.id)
    services.like("bob", gone.id)
    services.delete_twit("alice", gone.id)
    assert [t.id for t in all_pages(lambda c: services.user_likes("bob", c))] == [keep.id]
    assert services.likers(gone.id) == []


def test_count_is_exact_under_concurrent_processes(
    twitbase: ServerAddr, alice: User, bob: User
) -> None:
    """8 processes like and unlike one twit as 4 users at once (two per user,
    so the same pair races); then the count equals the likers rows."""
    for userid in USERS:
        register(userid)
    twit = services.post_twit("alice", "hammered")
    hammer(twitbase, OPS["likes"][twitbase.kind], "--likes", twit.id)
    likers = services.likers(twit.id)
    assert services.get_twit(twit.id).likes == len(likers)
    mine = {u: [t.id for t in all_pages(lambda c, u=u: services.user_likes(u, c))] for u in USERS}
    assert sorted(u for u, ids in mine.items() if ids == [twit.id]) == sorted(likers)
