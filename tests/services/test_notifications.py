"""Notifications: mentions, replies, grouped likes, reposts and follows, newest
first and cursor-paged; the unread count; cascades of deletes and unlikes;
retries that write the same rows. Each test runs on both servers."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from feeds import services
from feeds.jobs import FanOutChunk
from feeds.services import fanout, notify, reactions, twits
from feeds.types import Notification, User, UserRef
from storage import keys, rows
from storage.connection import connection, table_name
from tests.helpers import PASSWORD, register
from tests.services.test_model import all_pages

Act = Callable[[str, str], object]


def _all(userid: str) -> list[Notification]:
    return all_pages(lambda c: services.notifications(userid, c, limit=2))


def _kinds(userid: str) -> list[tuple[str, tuple[str, ...], int]]:
    return [(n.type, tuple(a.userid for a in n.actors), n.count) for n in _all(userid)]


def _raw_rows(userid: str) -> int:
    with connection() as conn:
        table = conn.table(table_name("notifications"))
        return sum(1 for _ in table.scan(row_prefix=keys.user_hash(userid)))


def test_mention_reply_and_follow_arrive_newest_first(
    alice: User, bob: User, charlie: User
) -> None:
    twit = services.post_twit("alice", "a twit")
    reply = services.post_twit("bob", "hello @alice and @charlie and @nobody", reply_to=twit.id)
    services.follow("charlie", "alice")
    got = _all("alice")
    # The reply also mentions alice: she is told once, as a reply.
    assert [(n.type, n.actors[0].userid) for n in got] == [("follow", "charlie"), ("reply", "bob")]
    assert got[1].twit_id == reply.id and got[1].text.startswith("hello @alice")
    assert got[0].twit_id is None
    assert [(n.type, n.twit_id) for n in _all("charlie")] == [("mention", reply.id)]
    assert services.unread_count("alice") == 2
    assert services.unread_count("charlie") == 1


def test_nobody_is_notified_of_their_own_doing(alice: User, bob: User) -> None:
    twit = services.post_twit("alice", "I am @alice")
    services.post_twit("alice", "talking to myself", reply_to=twit.id)
    services.like("alice", twit.id)
    assert _all("alice") == []
    assert services.unread_count("alice") == 0


def test_likes_group_into_one_row_that_moves_to_the_top(
    alice: User, bob: User, charlie: User
) -> None:
    services.register("dana", "Dana D", "dana@example.com", PASSWORD)
    register("erin")
    twit = services.post_twit("alice", "like me")
    services.like("bob", twit.id)
    services.follow("charlie", "alice")
    services.like("dana", twit.id)
    services.like("erin", twit.id)
    services.like("charlie", twit.id)
    got = _all("alice")
    assert [n.type for n in got] == ["like", "follow"]
    group = got[0]
    # The latest three likers, newest first, and how many in all.
    assert [a.userid for a in group.actors] == ["charlie", "erin", "dana"]
    assert group.actors[2].name == "Dana D"
    assert group.count == 4
    assert group.twit_id == twit.id and group.text == "like me"
    assert _raw_rows("alice") == 2  # the group is one row
    assert services.unread_count("alice") == 5


@pytest.mark.parametrize(
    ("react", "undo", "kind"),
    [
        (services.like, services.unlike, "like"),
        (services.repost, services.unrepost, "repost"),
    ],
)
def test_a_take_back_lowers_the_group_and_the_last_one_removes_it(
    alice: User, bob: User, charlie: User, react: Act, undo: Act, kind: str
) -> None:
    register("dana")
    register("erin")
    twit = services.post_twit("alice", "like me")
    for who in ("bob", "charlie", "dana", "erin"):
        react(who, twit.id)
    react("erin", twit.id)  # a retry: counted once
    undo("erin", twit.id)
    undo("dana", twit.id)
    undo("charlie", twit.id)
    # bob was beyond the remembered three: found again from the kind's own rows.
    assert _kinds("alice") == [(kind, ("bob",), 1)]
    undo("bob", twit.id)
    assert _all("alice") == []
    assert _raw_rows("alice") == 0
    react("charlie", twit.id)
    assert _kinds("alice") == [(kind, ("charlie",), 1)]


def test_opening_clears_the_unread_count(alice: User, bob: User) -> None:
    twit = services.post_twit("alice", "hi")
    services.like("bob", twit.id)
    services.follow("bob", "alice")
    assert services.unread_count("alice") == 2
    services.mark_read("alice")
    assert services.unread_count("alice") == 0
    services.mark_read("alice")  # again: still 0
    services.post_twit("bob", "@alice look")
    assert services.unread_count("alice") == 1
    assert len(_all("alice")) == 3  # reading is not deleting


def test_deleting_a_twit_removes_what_it_caused(alice: User, bob: User, charlie: User) -> None:
    twit = services.post_twit("alice", "parent")
    reply = services.post_twit("bob", "@charlie see this", reply_to=twit.id)
    services.like("charlie", reply.id)
    services.like("alice", reply.id)
    services.repost("alice", reply.id)
    assert [n.type for n in _all("bob")] == ["repost", "like"]
    services.delete_twit("bob", reply.id)
    assert _all("alice") == []
    assert _all("charlie") == []
    assert _all("bob") == []
    with connection() as conn:
        assert list(conn.table(table_name("notifyGroups")).scan()) == []
    # A retried delete is refused (the twit is gone) and changes nothing.
    services.delete_twit("alice", twit.id)
    assert _raw_rows("alice") == 0


def test_an_unfollow_leaves_the_follow_notification(alice: User, bob: User) -> None:
    services.follow("bob", "alice")
    services.unfollow("bob", "alice")
    assert _kinds("alice") == [("follow", ("bob",), 1)]


def test_replayed_jobs_and_changes_write_the_same_rows(alice: User, bob: User) -> None:
    twit = services.post_twit("bob", "@alice hello")
    key = keys.twit_key_from_id(twit.id)
    # The fan-out's first chunk (where mentions are written) run again, and
    # the notification written again directly: the same row, counted once.
    fanout.start_chunk(FanOutChunk(twit.id))
    with connection() as conn:
        stored = rows.decode_twit(conn.table(table_name("twits")).row(key))
        assert stored is not None
        notify.notify_twit(conn, key, stored)
    assert _kinds("alice") == [("mention", ("bob",), 1)]
    assert services.unread_count("alice") == 1
    # A like's count finished twice (a retry before the counted mark).
    mine = services.post_twit("alice", "mine")
    services.like("bob", mine.id)
    mkey = keys.twit_key_from_id(mine.id)
    with connection() as conn:
        cell = conn.table(table_name("likers")).row(keys.liker_key(mkey, "bob"))[rows.LIKE_STATE]
        on, gen, ms, _ = rows.decode_like_state(cell)
        pending = rows.encode_like_state(on, gen, ms, False)
        reactions._finish(conn, reactions.LIKE, mkey, "bob", pending)
        reactions._finish(conn, reactions.LIKE, mkey, "bob", pending)
    assert _kinds("alice") == [("like", ("bob",), 1), ("mention", ("bob",), 1)]
    assert services.unread_count("alice") == 2
    # A retried follow (the same edge) notifies once, and so does its
    # notification written again (a crash before the edge's counted mark).
    services.follow("bob", "alice")
    services.follow("bob", "alice")
    with connection() as conn:
        edge = keys.follows_key("bob", "alice")
        _op, generation = conn.table(table_name("follows")).row(
            edge, columns=[rows.EDGE_OP], include_timestamp=True
        )[rows.EDGE_OP]
        notify.notify_follow(conn, UserRef("bob", "Bob"), "alice", generation)
    assert [n.type for n in _all("alice")].count("follow") == 1
    assert services.unread_count("alice") == 3


def test_a_mention_after_its_twit_was_deleted_stays_deleted(alice: User, bob: User) -> None:
    twit = services.post_twit("bob", "@alice soon gone")
    key = keys.twit_key_from_id(twit.id)
    with connection() as conn:
        stored = rows.decode_twit(conn.table(table_name("twits")).row(key))
    services.delete_twit("bob", twit.id)
    assert stored is not None
    # A fan-out chunk that read the twit before the delete writes late: the
    # row is written at the twit's time, under the delete's marker.
    with connection() as conn:
        notify.notify_twit(conn, key, stored)
    assert _all("alice") == []


def test_bad_cursor_is_refused(alice: User) -> None:
    import pytest

    from feeds.errors import InvalidInput

    with pytest.raises(InvalidInput):
        services.notifications("alice", "not-a-cursor")


def test_deleting_an_edited_twit_removes_the_mentions_it_was_posted_with(
    alice: User, bob: User
) -> None:
    """A mention is notified as the twit was posted (an edit notifies
    nobody), so its delete takes back those, whatever the text is now."""
    twit = services.post_twit("bob", "@alice hello")
    assert _kinds("alice") == [("mention", ("bob",), 1)]
    twits.edit_twit("bob", twit.id, "hello all")
    services.delete_twit("bob", twit.id)
    assert _all("alice") == []
    assert _raw_rows("alice") == 0
