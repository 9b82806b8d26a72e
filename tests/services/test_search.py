"""User search on both servers: by userid prefix or display-name prefix,
case-insensitive, kept in step with sign-ups and renames, suspended users
hidden, paged by cursor, bad queries refused naming ``q``."""

from __future__ import annotations

import pytest

from feeds import services
from feeds.errors import InvalidInput
from feeds.services import userindex
from feeds.types import User
from storage.connection import connection
from tests.helpers import ServerAddr
from tests.services.test_model import all_pages


def _found(q: str) -> list[str]:
    return [u.userid for u in all_pages(lambda c: services.search_users(q, c, limit=2))]


def _sign_up(userid: str, name: str) -> User:
    return services.register(userid, name, f"{userid}@example.com", "password-123")


def test_finds_users_by_userid_prefix_and_name_prefix(tables: ServerAddr) -> None:
    _sign_up("alice", "Alice Liddell")
    _sign_up("Alfred", "Batman's Butler")
    _sign_up("bob", "Albert Bob")
    _sign_up("carol", "Carol")
    # By userid (alice, Alfred) and by name (bob is "Albert Bob"); case does not matter.
    assert sorted(_found("al")) == ["Alfred", "alice", "bob"]
    assert sorted(_found("AL")) == ["Alfred", "alice", "bob"]
    assert _found("@alf") == ["Alfred"]
    assert _found("batman") == ["Alfred"]
    assert _found("albert b") == ["bob"]
    assert _found("zed") == []


def test_a_user_matched_by_userid_and_name_is_listed_once(tables: ServerAddr) -> None:
    _sign_up("alice", "Alice")
    assert _found("ali") == ["alice"]
    assert [u.name for u in services.search_users("alice").items] == ["Alice"]


def test_names_are_normalised(tables: ServerAddr) -> None:
    _sign_up("strasse", "Große   Straße")
    _sign_up("zoe", "Zoë")
    assert _found("grosse stra") == ["strasse"]
    assert _found("ZOË") == ["zoe"]


def test_a_rename_moves_the_user_in_the_index(tables: ServerAddr) -> None:
    _sign_up("dave", "Dave Old")
    services.update_profile("dave", name="Newton Dave")
    assert _found("dave old") == []
    assert _found("newton") == ["dave"]
    assert _found("dav") == ["dave"]


def test_a_stale_index_row_shows_nobody(tables: ServerAddr) -> None:
    """A rename whose index update died: the old name finds no one."""
    _sign_up("erin", "Erin")
    with connection() as conn:
        userindex.rename(conn, "erin", "Erin", "Ghost Name")
    assert _found("ghost") == []
    with connection() as conn:
        userindex.forget_user(conn, "erin", "Erin", "erin@example.com")
    assert _found("erin") == []


def test_suspended_users_are_hidden(tables: ServerAddr) -> None:
    _sign_up("mallory", "Mallory")
    services.set_disabled("mallory")
    assert _found("mal") == []
    services.set_disabled("mallory", False)
    assert _found("mal") == ["mallory"]


def test_results_page_by_cursor_without_repeats(tables: ServerAddr) -> None:
    for i in range(7):
        _sign_up(f"user{i}", f"User {i}")
    assert sorted(_found("user")) == [f"user{i}" for i in range(7)]
    first = services.search_users("user", limit=3)
    assert len(first.items) == 3 and first.next_cursor is not None


@pytest.mark.parametrize("bad", ["", "   ", "@", "x" * 51, "a\x00b"])
def test_a_bad_query_is_refused_naming_q(bad: str, alice: User) -> None:
    with pytest.raises(InvalidInput) as caught:
        services.search_users(bad)
    assert caught.value.field == "q"
