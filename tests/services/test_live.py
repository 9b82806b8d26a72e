"""Live updates: how many twits arrived in a reader's stream above the newest
one their page shows, counted by a bounded scan from the top of the stream
(and of each followed large account's twits), capped. Both servers."""

from __future__ import annotations

import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.errors import InvalidInput
from feeds.services import streams
from feeds.types import User


def test_counts_twits_above_the_newest_shown_and_not_the_readers_own(
    alice: User, bob: User, charlie: User
) -> None:
    services.follow("alice", "bob")
    services.follow("alice", "charlie")
    shown = services.post_twit("bob", "on the page already")
    assert services.home_stream("alice").items[0].id == shown.id
    assert services.new_in_stream("alice", shown.id) == services.NewTwits(0, False)
    services.post_twit("charlie", "new one")
    services.post_twit("alice", "my own: the page shows it after posting anyway")
    services.post_twit("bob", "another new one")
    assert services.new_in_stream("alice", shown.id) == services.NewTwits(2, False)
    # Unfollowing takes charlie's twits out of the stream, and out of the count.
    services.unfollow("alice", "charlie")
    services.post_twit("charlie", "not for alice")
    assert services.new_in_stream("alice", shown.id).count == 1
    newest = services.home_stream("alice").items[0]
    assert services.new_in_stream("alice", newest.id) == services.NewTwits(0, False)


def test_an_empty_page_counts_from_the_top_and_the_count_is_capped(
    alice: User, bob: User, settings: Settings
) -> None:
    settings.TWITBASE_POSTS_PER_MINUTE = 100
    services.follow("alice", "bob")
    assert services.new_in_stream("alice", None) == services.NewTwits(0, False)
    for i in range(services.NEW_CAP):
        services.post_twit("bob", f"twit {i}")
    assert services.new_in_stream("alice", "") == services.NewTwits(services.NEW_CAP, False)
    services.post_twit("bob", "one more than the cap")
    assert services.new_in_stream("alice", None) == services.NewTwits(services.NEW_CAP, True)


def test_a_bad_since_is_refused_naming_it(alice: User) -> None:
    for bad in ("nope", "0" * 55, "G" * 56, "x" * 10_000):
        with pytest.raises(InvalidInput) as refused:
            services.new_in_stream("alice", bad)
        assert refused.value.field == "since"
        assert "x" * 100 not in str(refused.value)  # the input is not echoed back


def test_a_deleted_newest_twit_still_bounds_the_count(alice: User, bob: User) -> None:
    services.follow("alice", "bob")
    shown = services.post_twit("bob", "soon deleted")
    services.post_twit("bob", "newer")
    services.delete_twit("bob", shown.id)
    assert services.new_in_stream("alice", shown.id) == services.NewTwits(1, False)


def test_a_followed_large_accounts_new_twits_are_counted(
    alice: User, bob: User, charlie: User, settings: Settings
) -> None:
    settings.TWITBASE_CELEBRITY_THRESHOLD = 1
    settings.TWITBASE_CELEBRITY_CACHE_S = 0  # listed and merged at once
    streams.CELEBRITIES.clear()
    services.follow("bob", "alice")
    services.follow("charlie", "alice")
    shown = services.post_twit("alice", "lists alice as a large account")
    services.post_twit("alice", "not fanned out: merged at read time")
    services.post_twit("alice", "neither is this one")
    assert [t.text for t in services.home_stream("bob").items][:1] == ["neither is this one"]
    assert services.new_in_stream("bob", shown.id) == services.NewTwits(2, False)
    newest = services.home_stream("bob").items[0]
    assert services.new_in_stream("bob", newest.id) == services.NewTwits(0, False)


def test_a_repost_on_top_of_the_page_is_not_new_and_the_readers_own_reposts_are_not_counted(
    alice: User, bob: User, charlie: User
) -> None:
    services.follow("alice", "charlie")
    shown = services.post_twit("bob", "charlie will repost this")
    services.repost("charlie", shown.id)
    top = services.home_stream("alice").items[0]
    assert (top.id, top.reposted_by) == (shown.id, "charlie")
    assert services.new_in_stream("alice", top.id) == services.NewTwits(0, False)
    services.repost("alice", services.post_twit("bob", "alice reposts this").id)
    assert services.new_in_stream("alice", top.id).count == 0
    services.repost("charlie", services.post_twit("bob", "and charlie this").id)
    assert services.new_in_stream("alice", top.id).count == 1
