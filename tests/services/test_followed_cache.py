"""Which large accounts a reader follows, kept by each process under the
reader's FOLLOWING_CHANGED counter (streams.FollowedCache): asked once for
each value of it, asked again after every follow and unfollow however long
the cache keeps answers, and never kept for a profile read without it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.services import follows, streams
from feeds.types import User
from storage import keys, rows
from storage.connection import connection, table_name


@pytest.fixture
def asked(
    alice: User, bob: User, charlie: User, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[str]]:
    """alice listed as a large account; answers kept longer than the test,
    so only the counter renews them. Yields the readers asked about, in
    turn. Listed now, her twits are still fanned out too (the grace after
    listing): a page merges them all the same, each twit shown once, so an
    answer kept past an unfollow would bring them back."""
    settings.TWITBASE_CELEBRITY_CACHE_S = 600
    settings.TWITBASE_POSTS_PER_MINUTE = 100
    with connection() as conn:
        conn.table(table_name("celebrities")).put(
            keys.user_key("alice"), rows.encode_celebrity("alice")
        )
    streams.CELEBRITIES.clear()
    calls: list[str] = []
    real = streams._followed_of

    def counted(conn: object, userid: str, listed: tuple[str, ...]) -> tuple[str, ...]:
        calls.append(userid)
        return real(conn, userid, listed)  # type: ignore[arg-type]

    monkeypatch.setattr(streams, "_followed_of", counted)
    yield calls


def _home(userid: str) -> list[str]:
    """The home page's twits, the profile read afresh as a request reads it."""
    return [t.text for t in services.home_stream(services.get_user(userid)).items]


def test_a_reader_is_asked_about_once_per_change_of_whom_they_follow(
    asked: list[str], twitbase: object
) -> None:
    services.post_twit("alice", "merged at read time")
    assert _home("bob") == []  # bob has never followed anyone: asked every time
    assert _home("bob") == []
    assert asked == ["bob", "bob"]

    services.follow("bob", "alice")
    assert _home("bob") == ["merged at read time"]
    assert _home("bob") == ["merged at read time"]
    assert asked == ["bob"] * 3, "the second page asked again"

    services.unfollow("bob", "alice")
    assert _home("bob") == [], "an answer from before the unfollow was kept"
    services.follow("bob", "charlie")
    services.post_twit("charlie", "fanned out")
    assert _home("bob") == ["fanned out"]
    services.follow("bob", "alice")
    assert _home("bob") == ["fanned out", "merged at read time"]
    assert asked == ["bob"] * 6


def test_a_profile_read_without_the_counter_is_asked_about_every_time(
    asked: list[str], twitbase: object
) -> None:
    services.follow("bob", "alice")
    services.post_twit("alice", "merged at read time")
    whole = services.get_user("bob")
    assert whole.following_changed > 0
    partial = User(whole.userid, whole.name, whole.email, whole.created)
    assert partial.following_changed == 0
    for _ in range(2):
        assert [t.text for t in services.home_stream(partial).items] == ["merged at read time"]
    assert asked == ["bob", "bob"]


def test_follow_and_unfollow_raise_the_counter_after_the_edge_changed(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch, twitbase: object
) -> None:
    """Raised before the change, an answer asked between the raise and the
    change would be kept under the new value, and stay wrong."""
    seen: list[tuple[int, bool]] = []
    real = follows._following_changed

    def raised(conn: object, userid: str) -> None:
        real(conn, userid)  # type: ignore[arg-type]
        seen.append(
            (services.get_user(userid).following_changed, services.is_following(userid, "alice"))
        )

    monkeypatch.setattr(follows, "_following_changed", raised)
    services.follow("bob", "alice")
    services.unfollow("bob", "alice")
    assert seen == [(1, True), (2, False)]


def test_the_oldest_answers_go_first_once_the_cache_is_full(
    monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    settings.TWITBASE_CELEBRITY_CACHE_S = 600
    monkeypatch.setattr(streams.FollowedCache, "MAX", 2)
    monkeypatch.setattr(streams, "_followed_of", lambda conn, userid, listed: (userid,))
    cache = streams.FollowedCache()
    created = datetime(2026, 11, 26, tzinfo=UTC)
    for userid in ("ann", "bea", "cyd", "bea"):
        user = User(userid, userid, f"{userid}@example.com", created, following_changed=1)
        assert cache.get(None, user, ("alice",)) == (userid,)  # type: ignore[arg-type]
    assert [key[1] for key in cache._kept._answers] == ["bea", "cyd"]
