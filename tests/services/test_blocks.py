"""Block and mute (services/blocking.py, services/blocks.py): what each
hides, from whom, and that a follow or a like racing a block does not
outlive it. Each test runs on both servers."""

from __future__ import annotations

from typing import Any

import pytest

from feeds import services
from feeds.errors import Forbidden, InvalidInput, NotFound
from feeds.services import blocking, blocks, follows, reactions
from feeds.types import User
from storage import keys
from storage.connection import connection, table_name
from tests.helpers import PASSWORD


def home(userid: str) -> list[tuple[str, str | None]]:
    """(text, reposted_by) of each twit in the home stream, newest first."""
    return [(t.text, t.reposted_by) for t in services.home_stream(userid, limit=100).items]


def kinds(userid: str) -> list[tuple[str, tuple[str, ...], int]]:
    return [
        (n.type, tuple(a.userid for a in n.actors), n.count)
        for n in services.notifications(userid, limit=100).items
    ]


def test_a_block_ends_the_follows_both_ways_and_each_leaves_the_others_stream(
    alice: User, bob: User
) -> None:
    services.follow("alice", "bob")
    services.follow("bob", "alice")
    services.post_twit("alice", "from alice")
    services.post_twit("bob", "from bob")
    assert ("from bob", None) in home("alice")
    assert blocking.block("alice", "bob") is True
    assert blocking.block("alice", "bob") is False  # again: nothing new
    assert not services.is_following("alice", "bob")
    assert not services.is_following("bob", "alice")
    assert home("alice") == [("from alice", None)]
    assert home("bob") == [("from bob", None)]
    assert services.get_user("alice").followers == 0
    assert services.get_user("bob").following == 0
    assert [u.userid for u in blocks.blocked("alice").items] == ["bob"]
    assert blocks.stance("alice", "bob") == blocks.Stance(True, False, False)
    assert blocks.stance("bob", "alice") == blocks.Stance(False, True, False)


def test_neither_can_follow_the_other_until_unblocked(alice: User, bob: User) -> None:
    blocking.block("alice", "bob")
    with pytest.raises(Forbidden, match="@alice has blocked you"):
        services.follow("bob", "alice")
    with pytest.raises(Forbidden, match="You have blocked @bob"):
        services.follow("alice", "bob")
    assert blocking.unblock("alice", "bob") is True
    assert blocking.unblock("alice", "bob") is False
    assert services.follow("bob", "alice") is True
    assert blocks.blocked("alice").items == ()


def test_the_blocked_cannot_see_the_blockers_profile_twits_or_thread(
    alice: User, bob: User, charlie: User
) -> None:
    twit = services.post_twit("alice", "mine")
    services.post_twit("bob", "a reply", reply_to=twit.id)
    blocking.block("alice", "bob")
    for look in (
        lambda: blocks.visible_user("alice", "bob"),
        lambda: services.timeline("alice", reader="bob"),
        lambda: services.user_likes("alice", reader="bob"),
        lambda: services.replies(twit.id, reader="bob"),
        lambda: services.thread(twit, reader="bob"),
    ):
        with pytest.raises(Forbidden, match="@alice has blocked you"):
            look()
    # Others, and nobody signed in, see it all; the blocker sees the
    # blocked's profile but not their reply among the replies.
    assert [t.text for t in services.timeline("alice", reader="charlie").items] == ["mine"]
    assert [t.text for t in services.replies(twit.id, reader=None).items] == ["a reply"]
    assert blocks.visible_user("bob", "alice").userid == "bob"
    assert services.replies(twit.id, reader="alice").items == ()


def test_the_blocked_cannot_reply_like_or_repost_and_its_reactions_are_taken_back(
    alice: User, bob: User
) -> None:
    twit = services.post_twit("alice", "like me")
    services.like("bob", twit.id)
    services.repost("bob", twit.id)
    assert {n[0] for n in kinds("alice")} == {"like", "repost"}
    blocking.block("alice", "bob")
    assert services.get_twit(twit.id).likes == 0
    assert services.get_twit(twit.id).reposts == 0
    assert kinds("alice") == []
    for act in (services.like, services.repost):
        with pytest.raises(Forbidden, match="@alice has blocked you"):
            act("bob", twit.id)
    with pytest.raises(Forbidden, match="reply to them"):
        services.post_twit("bob", "let me in", reply_to=twit.id)
    # The blocker is refused too, with its own words.
    theirs = services.post_twit("bob", "by bob")
    with pytest.raises(Forbidden, match="You have blocked @bob"):
        services.like("alice", theirs.id)


def test_mentions_from_the_blocked_notify_nobody_and_old_ones_are_hidden(
    alice: User, bob: User
) -> None:
    services.post_twit("bob", "hello @alice")
    assert [n[0] for n in kinds("alice")] == ["mention"]
    blocking.block("alice", "bob")
    assert kinds("alice") == []  # hidden at read time
    services.post_twit("bob", "again @alice")
    with connection() as conn:
        written = list(
            conn.table(table_name("notifications")).scan(row_prefix=keys.user_hash("alice"))
        )
    assert len(written) == 1, "the new mention was written, not only hidden"
    blocking.unblock("alice", "bob")
    assert [n[0] for n in kinds("alice")] == ["mention"]  # the old one shows again


def test_a_third_partys_repost_of_the_blocker_is_hidden_from_the_blocked(
    alice: User, bob: User, charlie: User
) -> None:
    services.follow("bob", "charlie")
    twit = services.post_twit("alice", "reposted by charlie")
    services.repost("charlie", twit.id)
    assert ("reposted by charlie", "charlie") in home("bob")
    blocking.block("alice", "bob")
    assert home("bob") == []
    assert [t.text for t in services.tag_twits("nosuchtag").items] == []


def test_a_mute_hides_twits_reposts_and_notifications_but_not_the_profile(
    alice: User, bob: User, charlie: User
) -> None:
    services.follow("alice", "bob")
    services.follow("alice", "charlie")
    services.post_twit("bob", "bob talks to @alice")
    liked = services.post_twit("alice", "alice's")
    services.like("bob", liked.id)
    services.like("charlie", liked.id)
    other = services.post_twit("charlie", "charlie's")
    services.repost("bob", other.id)
    assert blocking.mute("alice", "bob") is True
    assert blocking.mute("alice", "bob") is False
    assert all("bob" not in (t, r) for t, r in home("alice"))
    assert ("charlie's", None) in home("alice")
    assert ("bob talks to @alice", None) not in home("alice")
    assert kinds("alice") == [("like", ("charlie",), 1)]
    # Bob is not told: he still follows nothing different, sees alice's
    # profile, and his like still counts.
    assert services.get_twit(liked.id).likes == 2
    assert services.is_following("alice", "bob")
    assert [t.text for t in services.timeline("bob", reader="alice").items] == [
        "bob talks to @alice"
    ]
    assert [u.userid for u in blocks.muted("alice").items] == ["bob"]
    assert blocking.unmute("alice", "bob") is True
    assert ("bob talks to @alice", None) in home("alice")


def test_a_muted_word_or_hashtag_leaves_the_home_stream_and_notifications(
    alice: User, bob: User
) -> None:
    services.follow("alice", "bob")
    for text in ("I like Tea", "a #tea party", "teapot", "@alice the football score"):
        services.post_twit("bob", text)
    assert blocking.mute_word("alice", "  tea ") == "tea"
    assert [t for t, _ in home("alice")] == ["@alice the football score", "teapot"]
    blocking.unmute_word("alice", "TEA")
    blocking.mute_word("alice", "#Tea")
    assert [t for t, _ in home("alice")] == ["@alice the football score", "teapot", "I like Tea"]
    blocking.mute_word("alice", "football score")
    assert kinds("alice") == []
    assert blocks.muted_words("alice") == ["#Tea", "football score"]
    # Only the reader's home and notifications: bob's page shows them all.
    assert len(services.timeline("bob", reader="alice").items) == 4


@pytest.mark.parametrize("word", ["", "   ", "#", "x" * 51, "bad\x00word", 7])
def test_a_word_that_cannot_be_muted_says_why(alice: User, word: Any) -> None:
    with pytest.raises(InvalidInput) as caught:
        blocking.mute_word("alice", word)
    assert caught.value.field == "word"
    assert blocks.muted_words("alice") == []


def test_one_cannot_block_or_mute_oneself_or_nobody(alice: User) -> None:
    for act in (blocking.block, blocking.mute):
        with pytest.raises(InvalidInput, match="yourself"):
            act("alice", "ALICE")
        with pytest.raises(NotFound):
            act("alice", "nosuchuser")


def test_a_follow_that_races_a_block_is_undone(alice: User, bob: User, monkeypatch: Any) -> None:
    """The worst interleaving: the follow checked for blocks (none), then the
    whole block ran (it found no edge to end), then the follow made its
    edge. Its check after the write finds the block and ends the edge."""
    claim = follows._claim_edge

    def block_meanwhile(conn: Any, edge: bytes) -> Any:
        blocking.block("alice", "bob")
        return claim(conn, edge)

    monkeypatch.setattr(follows, "_claim_edge", block_meanwhile)
    with pytest.raises(Forbidden, match="@alice has blocked you"):
        services.follow("bob", "alice")
    monkeypatch.undo()
    assert not services.is_following("bob", "alice")
    assert services.get_user("alice").followers == 0
    assert services.get_user("bob").following == 0


def test_a_like_that_races_a_block_is_taken_back(alice: User, bob: User, monkeypatch: Any) -> None:
    twit = services.post_twit("alice", "racing")
    move = reactions._move

    def block_first(conn: Any, kind: Any, key: bytes, user: str, name: str, on: bool) -> None:
        if on:
            blocking.block("alice", "bob")
        move(conn, kind, key, user, name, on)

    monkeypatch.setattr(reactions, "_move", block_first)
    with pytest.raises(Forbidden):
        services.like("bob", twit.id)
    monkeypatch.undo()
    assert services.get_twit(twit.id).likes == 0
    assert services.liked("bob", [twit.id]) == set()
    assert kinds("alice") == []


def test_deleting_an_account_takes_its_blocks_and_mutes_both_ways(
    alice: User, bob: User, charlie: User
) -> None:
    blocking.block("alice", "bob")
    blocking.block("bob", "charlie")
    blocking.mute("bob", "alice")
    blocking.mute_word("bob", "tea")
    services.delete_account("bob", PASSWORD)
    with connection() as conn:
        for table in ("blocks", "blockedBy", "mutes", "mutedWords"):
            assert list(conn.table(table_name(table)).scan()) == [], table


def test_a_reader_who_never_blocked_muted_or_was_blocked_costs_no_lookup(
    alice: User, bob: User, charlie: User, monkeypatch: Any
) -> None:
    services.follow("alice", "bob")
    services.post_twit("bob", "hello @alice")
    asked: list[str] = []
    real = blocks.ask_shield  # what blocks.shield and a page's pipelined lookups ask

    def counted(conn: Any, pipe: Any, reader: str, *args: Any, **kwargs: Any) -> Any:
        asked.append(reader)
        return real(conn, pipe, reader, *args, **kwargs)

    monkeypatch.setattr(blocks, "ask_shield", counted)
    assert home("alice") and kinds("alice")
    assert asked == [], "a page looked up blocks for a reader who has none"
    blocking.mute_word("alice", "tea")
    blocking.block("bob", "charlie")
    assert [services.get_user(u).shields for u in ("alice", "bob", "charlie")] == ["w", "b", "b"]
    home("alice")
    kinds("alice")
    assert asked == ["alice", "alice"]
