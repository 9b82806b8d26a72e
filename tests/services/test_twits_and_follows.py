from __future__ import annotations

import multiprocessing
import time

import pytest

from feeds import services
from feeds.errors import Forbidden, InvalidInput, NotFound
from feeds.services import _clock
from feeds.services import follows as follows_service
from feeds.types import Twit, User
from storage import keys
from storage.connection import connection, reset_pool, table_name
from storage.ops import MarkedChange, apply_once, op_id


def texts(twits: tuple[Twit, ...]) -> list[str]:
    return [t.text for t in twits]


def test_post_shows_in_timeline_and_home_stream_newest_first(alice: User) -> None:
    first = services.post_twit("alice", "  first  ")
    second = services.post_twit("alice", "second")
    assert first.text == "first"
    assert texts(services.timeline("alice").items) == ["second", "first"]
    assert texts(services.home_stream("alice").items) == ["second", "first"]
    assert services.get_twit(second.id) == second
    assert services.get_user("alice").twits == 2


@pytest.mark.fresh_tables  # its clock stands at a time before the test's start
def test_twits_of_one_millisecond_list_newest_first(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two posts in one millisecond had their order from their random
    suffixes; here the clock stands still for all twenty (the process's
    whole clock, so no other source of the twit's time escapes it)."""
    standing = 1_790_000_000.0
    monkeypatch.setattr(time, "time", lambda: standing)
    monkeypatch.setattr(_clock, "now_millis", _clock.MonotonicMillis(lambda: standing))
    services.follow("bob", "alice")
    posted = [services.post_twit("alice", f"t{i}").text for i in range(20)]
    newest_first = posted[::-1]
    assert texts(services.timeline("alice", limit=50).items) == newest_first
    assert texts(services.home_stream("bob", limit=50).items) == newest_first


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "Write something"),
        ("   \n ", "Write something"),
        ("x" * 281, "at most 280"),
        ("bell\x07", "control characters"),
        ("nul\x00", "control characters"),
        (None, "Write something"),
    ],
)
def test_bad_twits_are_refused_with_a_reason(alice: User, text: str, reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason):
        services.post_twit("alice", text)
    assert services.timeline("alice").items == ()
    assert services.get_user("alice").twits == 0


def test_280_characters_and_newlines_are_fine(alice: User) -> None:
    assert len(services.post_twit("alice", "é" * 280).text) == 280
    assert services.post_twit("alice", "two\r\nlines").text == "two\nlines"


def test_only_the_author_may_delete(alice: User, bob: User) -> None:
    twit = services.post_twit("alice", "mine")
    with pytest.raises(Forbidden):
        services.delete_twit("bob", twit.id)
    services.delete_twit("alice", twit.id)
    with pytest.raises(NotFound):
        services.get_twit(twit.id)
    with pytest.raises(NotFound):
        services.delete_twit("alice", twit.id)
    assert services.get_user("alice").twits == 0


def test_unknown_or_malformed_twit_ids_are_not_found(alice: User) -> None:
    for tid in ("nothex", "00" * 28, ""):
        with pytest.raises(NotFound):
            services.get_twit(tid)


def test_follow_and_unfollow_are_idempotent_and_counted_once(alice: User, bob: User) -> None:
    assert services.follow("alice", "bob") is True
    assert services.follow("alice", "BOB") is False
    assert services.get_user("alice").following == 1
    assert services.get_user("bob").followers == 1
    assert [u.userid for u in services.followers("bob").items] == ["alice"]
    assert [u.userid for u in services.following("alice").items] == ["bob"]
    assert services.unfollow("alice", "bob") is True
    assert services.unfollow("alice", "bob") is False
    assert services.get_user("alice").following == 0
    assert services.get_user("bob").followers == 0
    assert services.followers("bob").items == ()


def test_an_unfollow_between_a_follows_claim_and_its_count_leaves_counts_exact(
    alice: User, bob: User
) -> None:
    # A follow stopped right after claiming its edge (it has not counted yet)...
    with connection() as conn:
        op, _, created = follows_service._claim_edge(conn, keys.follows_key("alice", "bob"))
    assert created
    # ...an unfollow lands, and only then does the follow's count go in.
    assert services.unfollow("alice", "bob") is True
    counted = op_id(b"follow", op)
    with connection() as conn:
        users = table_name("users")
        apply_once(conn, users, keys.user_key("alice"), b"c:following", 1, counted)
        apply_once(conn, users, keys.user_key("bob"), b"c:followers", 1, counted)
    assert services.get_user("alice").following == 0
    assert services.get_user("bob").followers == 0
    assert services.followers("bob").items == ()


def test_a_deleted_twit_with_late_fan_out_bookkeeping_is_not_listed(alice: User) -> None:
    kept = services.post_twit("alice", "kept")
    gone = services.post_twit("alice", "gone")
    services.delete_twit("alice", gone.id)
    time.sleep(0.01)  # past the delete marker's millisecond
    # A fan-out chunk that read the row before the delete records its progress after it.
    with connection() as conn:
        conn.table(table_name("twits")).put(keys.twit_key_from_id(gone.id), {b"t:chunks": b"1"})
    assert [t.id for t in services.timeline("alice").items] == [kept.id]


def test_following_yourself_or_nobody_is_an_error(alice: User) -> None:
    with pytest.raises(InvalidInput, match="yourself"):
        services.follow("alice", "ALICE")
    with pytest.raises(NotFound):
        services.follow("alice", "nobody")
    with pytest.raises(InvalidInput):
        services.follow("alice", "not a userid")


def test_a_retried_count_is_not_counted_twice(alice: User) -> None:
    op = b"retried-op-id-16"
    with connection() as conn:
        for _ in range(3):
            apply_once(conn, table_name("users"), keys.user_key("alice"), b"c:twits", 1, op)
    assert services.get_user("alice").twits == 1


def test_followee_twits_appear_in_the_stream_after_follow(alice: User, bob: User) -> None:
    services.post_twit("bob", "before the follow")
    services.follow("alice", "bob")
    services.post_twit("bob", "after the follow")
    services.post_twit("alice", "my own")
    assert texts(services.home_stream("alice").items) == [
        "my own",
        "after the follow",
        "before the follow",
    ]
    assert texts(services.home_stream("bob").items) == ["after the follow", "before the follow"]


def test_unfollow_removes_followee_twits_from_stream(alice: User, bob: User) -> None:
    services.follow("alice", "bob")
    services.post_twit("bob", "bob's")
    services.post_twit("alice", "alice's")
    services.unfollow("alice", "bob")
    assert texts(services.home_stream("alice").items) == ["alice's"]


def test_refollow_right_after_unfollow_brings_the_twits_back(alice: User, bob: User) -> None:
    services.post_twit("bob", "hello")
    for _ in range(5):
        services.follow("alice", "bob")
        services.unfollow("alice", "bob")
        services.follow("alice", "bob")
        assert texts(services.home_stream("alice").items) == ["hello"]
        assert services.get_user("bob").followers == 1
        services.unfollow("alice", "bob")
        assert services.home_stream("alice").items == ()


def test_deleted_twit_disappears_from_every_stream(alice: User, bob: User, charlie: User) -> None:
    services.follow("bob", "alice")
    services.follow("charlie", "alice")
    twit = services.post_twit("alice", "oops")
    readers = ("alice", "bob", "charlie")
    assert all(texts(services.home_stream(u).items) == ["oops"] for u in readers)
    services.delete_twit("alice", twit.id)
    assert all(services.home_stream(u).items == () for u in readers)


def test_paging_stays_exact_while_new_twits_arrive(alice: User) -> None:
    for i in range(7):
        services.post_twit("alice", f"old {i}")
    first = services.timeline("alice", limit=3)
    assert texts(first.items) == ["old 6", "old 5", "old 4"]
    time.sleep(0.002)
    services.post_twit("alice", "new arrival")
    second = services.timeline("alice", first.next_cursor, limit=3)
    third = services.timeline("alice", second.next_cursor, limit=3)
    assert texts(second.items) == ["old 3", "old 2", "old 1"]
    assert texts(third.items) == ["old 0"]
    assert third.next_cursor is None


def test_a_bad_cursor_or_limit_is_invalid_input(alice: User, bob: User) -> None:
    services.post_twit("alice", "a")
    services.post_twit("alice", "b")
    alices = services.timeline("alice", limit=1).next_cursor
    with pytest.raises(InvalidInput) as err:
        services.timeline("bob", alices)
    assert err.value.field == "cursor"
    for limit in (0, 101):
        with pytest.raises(InvalidInput) as err:
            services.timeline("alice", limit=limit)
        assert err.value.field == "limit"


class _HBaseGone(ConnectionError):
    pass


def _post_that_dies_before_counting(monkeypatch: pytest.MonkeyPatch, text: str) -> Twit:
    """Post, with HBase gone right after the twit row is stored: the request
    fails, the twit is stored, uncounted. Returns the stored twit."""

    def gone(*args: object, **kwargs: object) -> bool:
        raise _HBaseGone("HBase went away")

    with monkeypatch.context() as m:
        # The post's count of itself is its first count (storage.ops.MarkedChange).
        m.setattr(MarkedChange, "count", gone)
        with pytest.raises(services.StorageUnavailable):  # what the request sees
            services.post_twit("alice", text)
    (stored,) = services.timeline("alice").items
    return stored


def test_a_post_that_died_before_counting_is_counted_by_its_fan_out(
    alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    from worker import tasks

    stored = _post_that_dies_before_counting(monkeypatch, "stored, never counted")
    assert services.get_user("alice").twits == 0
    tasks.fan_out_twit(stored.id)  # the sweep queues it: the lease is still there
    tasks.fan_out_twit(stored.id)  # and a retry counts nothing twice
    assert services.get_user("alice").twits == 1


def test_deleting_a_twit_whose_post_died_before_counting_leaves_the_count_at_zero(
    alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = _post_that_dies_before_counting(monkeypatch, "stored, never counted")
    services.delete_twit("alice", stored.id)
    assert services.get_user("alice").twits == 0
    assert services.timeline("alice").items == ()


def _home_ids_in_child(reader: str) -> list[str]:
    reset_pool()  # a forked child must not share its parent's sockets
    return [t.id for t in services.home_stream(reader).items]


def test_a_home_page_is_whole_with_its_lookups_in_one_round_trip(
    alice: User, bob: User, charlie: User
) -> None:
    """The page's four lookups, pipelined as one call: counts, the reader's
    flags and suspended authors all come out of it."""
    services.follow("bob", "alice")
    services.follow("bob", "charlie")
    liked = services.post_twit("alice", "liked and replied to")
    hidden = services.post_twit("charlie", "by a suspended author")
    services.post_twit("charlie", "a reply", reply_to=liked.id)
    reposted = services.post_twit("alice", "reposted")
    services.like("bob", liked.id)
    services.repost("bob", reposted.id)
    services.set_disabled("charlie", True)
    page = services.home_stream("bob").items
    assert hidden.id not in [t.id for t in page]
    assert [(t.text, t.replies, t.likes, t.liked, t.reposts, t.reposted) for t in page] == [
        ("reposted", 0, 0, False, 1, True),
        ("liked and replied to", 1, 1, True, 0, False),
    ]


def test_a_forked_process_reads_a_home_stream_after_its_parent_did(alice: User, bob: User) -> None:
    """A child forked after its parent read a page, as Celery's and the
    tests' workers are, reads one of its own on connections of its own."""
    services.follow("bob", "alice")
    liked = services.post_twit("alice", "read in two processes")
    services.like("bob", liked.id)
    (parent,) = services.home_stream("bob").items
    assert (parent.id, parent.likes, parent.liked) == (liked.id, 1, True)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        ids = pool.apply_async(_home_ids_in_child, ("bob",)).get(timeout=30)
    assert ids == [liked.id]
