"""A twit pinned on top of its author's profile (services/pins.py)."""

from __future__ import annotations

import pytest

from feeds import services
from feeds.errors import Forbidden, NotFound
from feeds.services import blocking, pins
from feeds.types import User


def test_pin_replace_unpin_and_a_deleted_pin_shows_nothing(alice: User, bob: User) -> None:
    first = services.post_twit("alice", "pin me")
    second = services.post_twit("alice", "no, me")
    pins.pin("alice", first.id)
    assert services.get_user("alice").pinned == first.id
    shown = pins.pinned_twit(services.get_user("alice"), "bob")
    assert shown is not None and (shown.text, shown.liked) == ("pin me", False)
    pins.pin("alice", second.id)
    assert services.get_user("alice").pinned == second.id
    services.delete_twit("alice", second.id)
    assert pins.pinned_twit(services.get_user("alice"), None) is None
    pins.unpin("alice")
    assert services.get_user("alice").pinned == ""


def test_only_ones_own_twit_can_be_pinned(alice: User, bob: User) -> None:
    theirs = services.post_twit("bob", "bob's")
    with pytest.raises(Forbidden, match="only your own"):
        pins.pin("alice", theirs.id)
    with pytest.raises(NotFound):
        pins.pin("alice", "0" * 56)
    assert services.get_user("alice").pinned == ""


def test_a_blocked_reader_does_not_get_the_pinned_twit(alice: User, bob: User) -> None:
    twit = services.post_twit("alice", "pinned")
    pins.pin("alice", twit.id)
    blocking.block("alice", "bob")
    assert pins.pinned_twit(services.get_user("alice"), "bob") is None
