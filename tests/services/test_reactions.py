"""Likes and reposts are one state machine (services/reactions.py): the same
rules hold for both, and a reaction that races its twit's delete leaves
nothing behind, whichever step it is at when the delete comes. Each test
runs on both servers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from feeds import services
from feeds.errors import NotFound
from feeds.services import reactions, twitdeletion, twits
from feeds.types import Twit, User
from storage import keys
from storage.connection import connection, table_name

KINDS = [reactions.LIKE, reactions.REPOST]


def leftovers(twit_id: str) -> dict[str, list[bytes]]:
    """Every row, in every table a reaction or a twit writes, that still
    refers to the twit: what a delete must leave empty."""
    key = keys.twit_key_from_id(twit_id)
    found: dict[str, list[bytes]] = {}
    with connection() as conn:
        row = conn.table(table_name("twits")).row(key)
        if row:
            found["twits"] = sorted(row)
        for name in ("likers", "reposters"):
            found[name] = [k for k, _ in conn.table(table_name(name)).scan(row_prefix=key)]
        for name in ("likes", "reposts", "streams", "notifications", "notifyGroups"):
            found[name] = [k for k, _ in conn.table(table_name(name)).scan() if key in k]
    return {t: rows for t, rows in found.items() if rows}


def _react(kind: reactions.Reaction, user: str, twit: Twit) -> None:
    reactions.react(kind, user, twit.id, True)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name.decode())
def test_a_reaction_that_lands_after_the_delete_takes_itself_away(
    alice: User, bob: User, charlie: User, kind: reactions.Reaction, monkeypatch: Any
) -> None:
    """The worst interleaving: the reaction found the twit (public_twit), then
    the whole delete ran, then the reaction wrote its state, its own row, its
    stream rows, its notification and its count (into a row the delete had
    taken). It finds the twit gone afterwards and takes all of it away."""
    services.follow("charlie", "bob")
    twit = services.post_twit("alice", "delete me while bob reacts")
    found = twits.public_twit

    def found_then_deleted(twit_id: str) -> Twit:
        got = found(twit_id)
        twitdeletion.delete_twit("alice", twit_id)
        return got

    monkeypatch.setattr(twits, "public_twit", found_then_deleted)
    with pytest.raises(NotFound):  # what bob is told: the twit is gone
        _react(kind, "bob", twit)
    assert leftovers(twit.id) == {}
    with pytest.raises(NotFound):
        services.get_twit(twit.id)
    assert services.home_stream("charlie").items == ()
    assert services.notifications("alice").items == ()


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name.decode())
def test_a_delete_takes_every_finished_reaction_with_it(
    alice: User, bob: User, charlie: User, kind: reactions.Reaction
) -> None:
    services.follow("charlie", "bob")
    twit = services.post_twit("alice", "react, then I go")
    _react(kind, "bob", twit)
    _react(kind, "charlie", twit)
    assert services.notifications("alice").items[0].count == 2
    services.delete_twit("alice", twit.id)
    assert leftovers(twit.id) == {}
    assert services.home_stream("charlie").items == ()


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name.decode())
def test_a_delete_begun_refuses_new_reactions_and_hides_the_twit(
    alice: User, bob: User, kind: reactions.Reaction
) -> None:
    twit = services.post_twit("alice", "going")
    with connection() as conn:
        twits.mark_deleting(conn, keys.twit_key_from_id(twit.id))
    with pytest.raises(NotFound):
        _react(kind, "bob", twit)
    with pytest.raises(NotFound):
        services.get_twit(twit.id)
    # The delete retried (say, after a crash just after its mark) finishes.
    services.delete_twit("alice", twit.id)
    assert leftovers(twit.id) == {}


@pytest.mark.parametrize(
    ("react", "undo", "count"),
    [
        (services.like, services.unlike, lambda t: t.likes),
        (services.repost, services.unrepost, lambda t: t.reposts),
    ],
)
def test_both_kinds_count_once_and_take_back_once(
    alice: User,
    bob: User,
    charlie: User,
    react: Callable[[str, str], Twit],
    undo: Callable[[str, str], Twit],
    count: Callable[[Twit], int],
) -> None:
    twit = services.post_twit("alice", "count me")
    assert count(react("bob", twit.id)) == 1
    assert count(react("bob", twit.id)) == 1
    assert count(react("charlie", twit.id)) == 2
    assert count(undo("bob", twit.id)) == 1
    assert count(undo("bob", twit.id)) == 1
    assert count(services.get_twit(twit.id)) == 1
