"""Lists of accounts (feeds/services/lists.py): a user's lists, their
members, exactly counted under racing processes, and each list's timeline,
merged at read time from its members' twits."""

from __future__ import annotations

import random

import pytest

from feeds import services
from feeds.errors import Forbidden, InvalidInput, NotFound
from feeds.services import blocking, lists
from feeds.types import User
from storage.connection import connection, table_name
from tests.helpers import PASSWORD, ServerAddr, register
from tests.services.test_concurrency import OPS, USERS, hammer
from tests.services.test_model import all_pages


def test_lists_are_made_listed_newest_first_and_refuse_bad_names(alice: User) -> None:
    first = lists.create_list("alice", "  Friends ", "people I know")
    second = lists.create_list("alice", "Tea", None)
    assert (first.name, first.description, first.members) == ("Friends", "people I know", 0)
    mine = all_pages(lambda c: lists.lists_of("alice", c, limit=1))
    assert [x.id for x in mine] == [second.id, first.id]
    assert lists.get_list(first.id).name == "Friends"
    for name, field in (("", "name"), ("x" * 51, "name"), (3, "name")):
        with pytest.raises(InvalidInput) as caught:
            lists.create_list("alice", name)
        assert caught.value.field == field
    with pytest.raises(InvalidInput) as caught:
        lists.create_list("alice", "ok", "d" * 161)
    assert caught.value.field == "description"
    assert len(all_pages(lambda c: lists.lists_of("alice", c))) == 2
    for bad in ("nope", "ab" * 28, "zz" * 28):
        with pytest.raises(NotFound):
            lists.get_list(bad)


def test_members_are_added_once_removed_and_counted(alice: User, bob: User, charlie: User) -> None:
    made = lists.create_list("alice", "Mine")
    assert lists.add_member("alice", made.id, "bob") is True
    assert lists.add_member("alice", made.id, "bob") is False  # again: nothing changes
    assert lists.add_member("alice", made.id, "Charlie") is True
    assert lists.get_list(made.id).members == 2
    listed = all_pages(lambda c: lists.members(made.id, c, limit=1))
    assert sorted(m.userid for m in listed) == ["bob", "charlie"]
    assert lists.remove_member("alice", made.id, "bob") is True
    assert lists.remove_member("alice", made.id, "bob") is False
    assert lists.get_list(made.id).members == 1
    with pytest.raises(NotFound):
        lists.add_member("bob", made.id, "charlie")  # not bob's list
    with pytest.raises(NotFound):
        lists.add_member("alice", made.id, "nobody")
    assert [(x.id, on) for x, on in lists.listed_in("alice", "charlie")] == [(made.id, True)]


def test_a_full_list_refuses_another_member(
    alice: User, bob: User, charlie: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lists, "MEMBERS_MAX", 1)
    made = lists.create_list("alice", "Tiny")
    lists.add_member("alice", made.id, "bob")
    with pytest.raises(InvalidInput, match="at most 1 members"):
        lists.add_member("alice", made.id, "charlie")
    assert [m.userid for m in lists.members(made.id).items] == ["bob"]
    assert lists.get_list(made.id).members == 1


def test_timeline_merges_members_twits_newest_first_and_pages_exactly(
    alice: User, bob: User, charlie: User
) -> None:
    made = lists.create_list("alice", "Both")
    lists.add_member("alice", made.id, "bob")
    lists.add_member("alice", made.id, "charlie")
    posted = []
    rng = random.Random(4)
    for i in range(23):
        posted.append(services.post_twit(rng.choice(["bob", "charlie", "alice"]), f"t{i}"))
    wanted = [t.id for t in reversed(posted) if t.userid != "alice"]
    for limit in (1, 2, 5, 20):
        got = all_pages(lambda c, n=limit: lists.list_timeline(made.id, c, limit=n))
        assert [t.id for t in got] == wanted, limit
    services.delete_twit("bob", next(t.id for t in posted if t.userid == "bob"))
    assert len(all_pages(lambda c: lists.list_timeline(made.id, c))) == len(wanted) - 1
    with pytest.raises(InvalidInput):
        lists.list_timeline(made.id, "not-a-cursor")


def test_blocked_and_suspended_members_twits_are_hidden(
    alice: User, bob: User, charlie: User
) -> None:
    made = lists.create_list("alice", "Both")
    lists.add_member("alice", made.id, "bob")
    lists.add_member("alice", made.id, "charlie")
    services.post_twit("bob", "by bob")
    services.post_twit("charlie", "by charlie")
    register("dave")
    blocking.block("dave", "bob")
    assert [t.text for t in lists.list_timeline(made.id, reader="dave").items] == ["by charlie"]
    services.set_disabled("charlie", True)
    assert [t.text for t in lists.list_timeline(made.id, reader="alice").items] == ["by bob"]
    blocking.block("alice", "dave")
    with pytest.raises(Forbidden):
        lists.list_timeline(made.id, reader="dave")
    with pytest.raises(Forbidden):
        lists.add_member("alice", made.id, "dave")


def test_a_deleted_account_takes_its_lists_and_leaves_others(
    alice: User, bob: User, charlie: User
) -> None:
    bobs = lists.create_list("bob", "Bob's")
    lists.add_member("bob", bobs.id, "charlie")
    alices = lists.create_list("alice", "Alice's")
    lists.add_member("alice", alices.id, "bob")
    lists.add_member("alice", alices.id, "charlie")
    services.delete_account("bob", PASSWORD)
    with pytest.raises(NotFound):
        lists.get_list(bobs.id)
    assert [m.userid for m in lists.members(alices.id).items] == ["charlie"]
    assert lists.get_list(alices.id).members == 1
    with connection() as conn:
        left = list(conn.table(table_name("listMembers")).scan())
    assert len(left) == 1
    lists.delete_list("alice", alices.id)
    with connection() as conn:
        assert list(conn.table(table_name("listMembers")).scan()) == []
        assert list(conn.table(table_name("userLists")).scan()) == []


def test_member_count_is_exact_under_concurrent_processes(twitbase: ServerAddr) -> None:
    """8 processes add and remove 4 users on one list at once (two per
    user, so the same membership races); then the count equals the rows."""
    register("owner")
    for userid in USERS:
        register(userid)
    made = lists.create_list("owner", "Raced")
    hammer(twitbase, OPS["likes"][twitbase.kind], "--lists", "owner", made.id)
    members = all_pages(lambda c: lists.members(made.id, c))
    assert lists.get_list(made.id).members == len(members)
    assert {m.userid for m in members} <= set(USERS)
