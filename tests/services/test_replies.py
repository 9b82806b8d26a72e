"""Replies and threads: listed under the parent oldest first, counted exactly,
and readable after their parent is deleted. Each test runs on both servers."""

from __future__ import annotations

import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.errors import InvalidInput, NotFound
from feeds.services import twits as twits_service
from feeds.types import Twit, User
from storage import keys
from storage.connection import connection, table_name
from tests.services.test_model import all_pages


def texts(found: tuple[Twit, ...] | list[Twit]) -> list[str]:
    return [t.text for t in found]


def all_replies(twit_id: str, limit: int = 2) -> list[Twit]:
    return all_pages(lambda c: services.replies(twit_id, c, limit=limit))


def entries_under(parent_id: str) -> list[bytes]:
    """The raw replies-table rows under a twit's key."""
    with connection() as conn:
        table = conn.table(table_name("replies"))
        return [k for k, _ in table.scan(row_prefix=keys.twit_key_from_id(parent_id))]


def test_replies_are_listed_oldest_first_with_paging_and_counted(
    alice: User, bob: User, charlie: User
) -> None:
    parent = services.post_twit("alice", "what shall we build?")
    posted = [
        services.post_twit(who, f"reply {i}", reply_to=parent.id)
        for i, who in enumerate(["bob", "charlie", "bob", "alice", "charlie"])
    ]
    assert posted[0].reply_to == parent.id and posted[0].reply_userid == "alice"
    listed = all_replies(parent.id, limit=2)
    assert [t.id for t in listed] == [t.id for t in posted]
    assert all(t.reply_to == parent.id and t.reply_userid == "alice" for t in listed)
    assert services.get_twit(parent.id).replies == 5
    # A reply is a twit too: in its author's timeline and count.
    assert texts(services.timeline("bob").items) == ["reply 2", "reply 0"]
    assert services.get_user("bob").twits == 2


def test_a_reply_reaches_followers_streams_saying_whom_it_answers(
    alice: User, bob: User, charlie: User
) -> None:
    services.follow("charlie", "bob")
    parent = services.post_twit("alice", "hello")
    reply = services.post_twit("bob", "hi alice", reply_to=parent.id)
    streamed = services.home_stream("charlie").items
    assert [t.id for t in streamed] == [reply.id]
    assert streamed[0].reply_to == parent.id and streamed[0].reply_userid == "alice"
    # Counts come with stream items too, read fresh from the twits rows.
    services.post_twit("alice", "a reply to bob", reply_to=reply.id)
    assert services.home_stream("charlie").items[0].replies == 1


@pytest.mark.parametrize("target", ["missing", "deleted", "malformed"])
def test_a_reply_to_no_twit_is_refused_and_stores_nothing(
    alice: User, bob: User, target: str
) -> None:
    gone = services.post_twit("alice", "soon gone")
    services.delete_twit("alice", gone.id)
    reply_to = {"missing": "00" * keys.TWIT_KEY_LEN, "deleted": gone.id, "malformed": "x"}[target]
    with pytest.raises(InvalidInput) as caught:
        services.post_twit("bob", "into the void", reply_to=reply_to)
    assert caught.value.field == "reply_to"
    assert services.timeline("bob").items == ()
    assert services.get_user("bob").twits == 0


def test_deleting_a_reply_takes_it_out_of_its_parent_once(alice: User, bob: User) -> None:
    parent = services.post_twit("alice", "parent")
    keep = services.post_twit("bob", "keep", reply_to=parent.id)
    gone = services.post_twit("bob", "gone", reply_to=parent.id)
    # A delete that died after lowering the count, before the reply row went:
    # the user retries, and the count must not go down twice.
    with connection() as conn:
        twits_service._leave_parent(
            conn, keys.twit_key_from_id(gone.id), keys.twit_key_from_id(parent.id)
        )
    assert services.get_twit(parent.id).replies == 1
    services.delete_twit("bob", gone.id)
    assert services.get_twit(parent.id).replies == 1
    assert [t.id for t in all_replies(parent.id)] == [keep.id]


def test_a_reply_whose_post_died_before_counting_is_not_uncounted(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    parent = services.post_twit("alice", "parent")

    def die(*args: object, **kwargs: object) -> None:
        raise ConnectionError("HBase went away")

    with monkeypatch.context() as patched:
        patched.setattr(twits_service, "count_reply_once", die)
        with pytest.raises(services.StorageUnavailable):
            services.post_twit("bob", "half posted", reply_to=parent.id)
    (half,) = all_replies(parent.id)
    assert services.get_twit(parent.id).replies == 0
    services.delete_twit("bob", half.id)
    assert services.get_twit(parent.id).replies == 0
    assert all_replies(parent.id) == []


def test_deleting_a_twit_leaves_its_replies_readable(alice: User, bob: User, charlie: User) -> None:
    parent = services.post_twit("alice", "parent")
    reply = services.post_twit("bob", "reply", reply_to=parent.id)
    deeper = services.post_twit("charlie", "deeper", reply_to=reply.id)
    services.delete_twit("alice", parent.id)
    assert services.get_twit(reply.id).text == "reply"
    # None: "this twit was deleted", and the chain cannot go above it.
    assert services.ancestors(services.get_twit(reply.id)) == (None,)
    assert services.ancestors(services.get_twit(deeper.id)) == (None, services.get_twit(reply.id))
    with pytest.raises(NotFound):
        services.replies(parent.id)
    assert entries_under(parent.id) == []
    assert [t.id for t in all_replies(reply.id)] == [deeper.id]


def test_the_chain_of_ancestors_is_bounded(alice: User, bob: User) -> None:
    chain = [services.post_twit("alice", "root")]
    for i in range(services.THREAD_DEPTH + 2):
        chain.append(
            services.post_twit("bob" if i % 2 else "alice", f"r{i}", reply_to=chain[-1].id)
        )
    shown = services.ancestors(chain[-1])
    assert len(shown) == services.THREAD_DEPTH
    assert [t.id for t in shown if t] == [t.id for t in chain[-1 - services.THREAD_DEPTH : -1]]
    # Where to read on: the oldest shown still replies to something.
    assert shown[0] is not None and shown[0].reply_to == chain[1].id
    assert services.ancestors(chain[0]) == ()


def test_a_cursor_from_another_twits_replies_is_refused(alice: User, bob: User) -> None:
    one = services.post_twit("alice", "one")
    other = services.post_twit("alice", "other")
    for i in range(3):
        services.post_twit("bob", f"to one {i}", reply_to=one.id)
    cursor = services.replies(one.id, limit=1).next_cursor
    assert cursor is not None
    with pytest.raises(InvalidInput) as caught:
        services.replies(other.id, cursor)
    assert caught.value.field == "cursor"


def test_a_suspended_authors_replies_and_ancestors_are_hidden_while_suspended(
    alice: User, bob: User, charlie: User
) -> None:
    root = services.post_twit("alice", "root")
    by_bob = services.post_twit("bob", "bob's", reply_to=root.id)
    by_charlie = services.post_twit("charlie", "charlie's", reply_to=by_bob.id)
    services.post_twit("charlie", "charlie's too", reply_to=root.id)
    services.set_disabled("bob", True)
    assert texts(services.replies(root.id).items) == ["charlie's too"]
    with pytest.raises(InvalidInput, match="suspended") as caught:
        services.post_twit("alice", "to bob", reply_to=by_bob.id)
    assert caught.value.field == "reply_to"
    assert [t.id for t in services.thread(by_charlie).chain if t] == [root.id]
    services.set_disabled("bob", False)
    assert texts(services.replies(root.id).items) == ["bob's", "charlie's too"]
    assert [t.id for t in services.thread(by_charlie).chain if t] == [root.id, by_bob.id]


def test_a_retried_delete_lowers_the_count_once_even_after_many_other_replies(
    alice: User, bob: User, settings: Settings
) -> None:
    settings.TWITBASE_POSTS_PER_MINUTE = 1000
    parent = services.post_twit("alice", "busy thread")
    gone = services.post_twit("bob", "gone", reply_to=parent.id)
    with connection() as conn:
        # The delete died after lowering the count, before the reply's rows went.
        twits_service._leave_parent(
            conn, keys.twit_key_from_id(gone.id), keys.twit_key_from_id(parent.id)
        )
    # More count operations than apply_once remembers (storage.ops.WINDOW).
    for i in range(70):
        services.post_twit("alice", f"filler {i}", reply_to=parent.id)
    services.delete_twit("bob", gone.id)
    assert services.get_twit(parent.id).replies == 70
    assert len(all_replies(parent.id, limit=100)) == 70
