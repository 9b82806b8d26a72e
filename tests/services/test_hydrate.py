"""Every list of twits goes through one hydrate step (services/hydration.py):
the same twit shows the same counts and the same reader's flags wherever it
is listed, and a suspended author's twits are absent from every list. Each
test runs on both servers."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.errors import NotFound, Suspended
from feeds.services import blocking
from feeds.types import Page, Twit, User
from storage import keys
from storage.connection import connection, reset_pool, table_name
from tests.helpers import register, socket_turns
from tests.services.test_model import all_pages

# What hydrating fills in: the counts and the reader's flags.
Shown = tuple[str, int, int, int, bool | None, bool | None]


def shown(t: Twit) -> Shown:
    return (t.id, t.replies, t.likes, t.reposts, t.liked, t.reposted)


@dataclass(frozen=True)
class Scene:
    twit: Twit  # alice's, #tea: liked by bob and charlie, reposted by bob, replied to
    reply: Twit  # charlie's, #tea too: liked by bob


@pytest.fixture
def scene(alice: User, bob: User, charlie: User) -> Scene:
    services.follow("bob", "alice")
    services.follow("bob", "charlie")
    twit = services.post_twit("alice", "a pot of #tea")
    reply = services.post_twit("charlie", "#tea for me too", reply_to=twit.id)
    services.like("bob", twit.id)
    services.like("charlie", twit.id)
    services.repost("bob", twit.id)
    services.like("bob", reply.id)
    return Scene(twit, reply)


def _lists(reader: str | None, scene: Scene) -> dict[str, tuple[Twit, ...]]:
    """Every list that shows the scene's twits, as ``reader`` sees it."""

    def listed(fetch: Callable[[str | None], Page[Twit]]) -> tuple[Twit, ...]:
        return tuple(all_pages(fetch))

    thread = services.thread(scene.twit, None, reader)
    of_reply = services.thread(scene.reply, None, reader)
    found = {
        "tag": listed(lambda c: services.tag_twits("tea", c, reader=reader)),
        "alice's timeline": listed(lambda c: services.timeline("alice", c, reader=reader)),
        "charlie's timeline": listed(lambda c: services.timeline("charlie", c, reader=reader)),
        "bob's likes": listed(lambda c: services.user_likes("bob", c, reader=reader)),
        "charlie's likes": listed(lambda c: services.user_likes("charlie", c, reader=reader)),
        "replies": listed(lambda c: services.replies(scene.twit.id, c, reader=reader)),
        "thread": (thread.twit, *thread.replies.items),
        "the reply's thread": (of_reply.twit, *(t for t in of_reply.chain if t is not None)),
    }
    if reader is not None:
        found["home"] = listed(lambda c: services.home_stream(reader, c))
    return found


def _by_twit(lists: dict[str, tuple[Twit, ...]]) -> dict[str, dict[str, Shown]]:
    """For each twit, what each list that shows it shows of it."""
    seen: dict[str, dict[str, Shown]] = {}
    for name, twits in lists.items():
        for t in twits:
            seen.setdefault(t.id, {})[name] = shown(t)
    return seen


def test_every_list_shows_a_twit_with_the_same_counts_and_the_readers_flags(
    scene: Scene,
) -> None:
    seen = _by_twit(_lists("bob", scene))
    twit, reply = scene.twit.id, scene.reply.id
    expected_twit = (twit, 1, 2, 1, True, True)
    expected_reply = (reply, 0, 1, 0, True, False)
    assert seen[twit] == {
        name: expected_twit
        for name in (
            "tag",
            "alice's timeline",
            "bob's likes",
            "charlie's likes",
            "thread",
            "the reply's thread",
            "home",
        )
    }
    assert seen[reply] == {
        name: expected_reply
        for name in (
            "tag",
            "charlie's timeline",
            "bob's likes",
            "replies",
            "thread",
            "the reply's thread",
            "home",
        )
    }


def test_without_a_reader_every_list_shows_the_same_counts_and_no_flags(scene: Scene) -> None:
    seen = _by_twit(_lists(None, scene))
    assert {shown for lists in seen.values() for shown in lists.values()} == {
        (scene.twit.id, 1, 2, 1, None, None),
        (scene.reply.id, 0, 1, 0, None, None),
    }


def test_a_suspended_authors_twits_are_absent_from_every_list_while_suspended(
    scene: Scene,
) -> None:
    """Absent from others' likes lists too, which showed them before the
    likes list was hydrated."""
    services.set_disabled("charlie", True)
    lists = _lists("bob", scene)
    # A suspended user's own timeline and a twit's own page are refused
    # before they are listed (the staff console lists the timeline on purpose).
    with pytest.raises(Suspended):
        services.public_user("charlie")
    with pytest.raises(Suspended):
        services.public_twit(scene.reply.id)
    del lists["charlie's timeline"], lists["the reply's thread"]
    assert set(_by_twit(lists)) == {scene.twit.id}
    assert [t.id for t in services.user_likes("bob").items] == [scene.twit.id]
    services.set_disabled("charlie", False)
    assert [t.id for t in services.user_likes("bob").items] == [scene.reply.id, scene.twit.id]


def test_a_repost_by_a_suspended_reposter_leaves_the_stream_but_the_twit_stays(
    scene: Scene,
) -> None:
    """dave follows alice and bob: bob's repost of alice's twit is hidden
    while bob is suspended, and the twit shows at alice's own row."""
    register("dave")
    services.follow("dave", "alice")
    services.follow("dave", "bob")
    (top,) = [t for t in services.home_stream("dave").items if t.id == scene.twit.id]
    assert top.reposted_by == "bob"
    services.set_disabled("bob", True)
    (top,) = [t for t in services.home_stream("dave").items if t.id == scene.twit.id]
    assert (top.reposted_by, shown(top)) == (None, (scene.twit.id, 1, 2, 1, False, False))


def test_a_twit_deleted_after_its_list_rows_were_written_is_left_out(
    alice: User, bob: User
) -> None:
    """A list row that outlives its twit (a stream row whose removal is
    still queued) shows nothing: the counts' multi-get finds no twit row."""
    twit = services.post_twit("alice", "#gone soon")
    page = services.tag_twits("gone")
    assert [t.id for t in page.items] == [twit.id]
    assert services.hydrate(page.items, "bob") == (
        Twit(**{**twit.__dict__, "liked": False, "reposted": False}),
    )
    services.delete_twit("alice", twit.id)
    assert services.hydrate(page.items, "bob") == ()
    assert services.tag_twits("gone") == Page((), None)


def test_a_home_page_waits_on_the_server_three_times_whatever_it_looks_up(
    scene: Scene,
) -> None:
    """The stream's scan is two round trips (open; rows and close), and
    every lookup of the page (suspensions, counts, the reader's likes and
    reposts, and blocks and mutes for a reader who has some) is one more,
    pipelined on one connection: before, each lookup was a round trip."""
    register("dave")
    blocking.block("bob", "dave")
    blocking.mute("bob", "charlie")
    reader = services.get_user("bob")
    assert set(reader.shields or "") == {"b", "m"}
    # Once before, for the process's list of large accounts (a scan it
    # keeps for a while: streams.followed_celebrities), not a page's cost.
    services.home_stream(reader)
    page, turns = socket_turns(lambda: services.home_stream(reader).items)
    assert turns == ["write", "read"] * 3
    # All of it there: charlie's reply hidden (muted), the twit with its
    # counts and bob's flags.
    assert [shown(t) for t in page] == [(scene.twit.id, 1, 2, 1, True, True)]


def test_a_twits_page_reads_the_twit_and_its_author_in_one_round_trip(
    scene: Scene,
) -> None:
    """public_twit: the twit's row and its author's users row at once (a
    twit's key begins with its author's), answering as the two reads one
    after the other did: the twit, or NotFound, or Suspended."""
    twit, turns = socket_turns(lambda: services.public_twit(scene.reply.id))
    assert turns == ["write", "read"]
    assert twit == services.get_twit(scene.reply.id)
    assert (twit.userid, twit.reply_to, twit.likes) == ("charlie", scene.twit.id, 1)
    services.set_disabled("charlie", True)
    with pytest.raises(Suspended):
        services.public_twit(scene.reply.id)
    services.set_disabled("charlie", False)
    # A twit whose author has no users row is not found, as public_user
    # does not find its author.
    with connection() as conn:
        conn.table(table_name("users")).delete(keys.user_key("charlie"))
    with pytest.raises(NotFound, match="No user 'charlie'"):
        services.public_twit(scene.reply.id)
    services.delete_twit("alice", scene.twit.id)
    with pytest.raises(NotFound, match=f"No twit '{scene.twit.id}'"):
        services.public_twit(scene.twit.id)


def _like_and_read(reader: str, twit_ids: list[str], rounds: int) -> list[str]:
    """In a forked child: like each twit and read the home page, unlike and
    read again, ``rounds`` times, then like each for good; what the reader's
    next read got wrong, if anything."""
    reset_pool()  # a forked child must not share its parent's sockets
    wrong = []
    for n in range(rounds):
        for twit_id in twit_ids:
            services.like(reader, twit_id)
            (seen,) = [t for t in services.home_stream(reader).items if t.id == twit_id]
            if not (seen.liked and seen.likes >= 1):
                wrong.append(f"round {n}: liked, then saw {seen.liked} {seen.likes}")
            services.unlike(reader, twit_id)
            (seen,) = [t for t in services.home_stream(reader).items if t.id == twit_id]
            if seen.liked:
                wrong.append(f"round {n}: unliked, then saw it liked")
    for twit_id in twit_ids:
        services.like(reader, twit_id)
    return wrong


def test_a_like_shows_on_the_likers_next_read_while_others_like_the_same_twits(
    alice: User, settings: Settings
) -> None:
    """Four processes like and unlike the same twits at once, each reading
    its home page after each change, and each read shows the reader's own
    change and a count that includes it; at the end every count is exact.
    Each page reads the reader's profile, so the flags its process keeps
    (reactions.FlagsCache) are in play: each change must renew them."""
    readers = [f"reader{i}" for i in range(4)]
    for reader in readers:
        register(reader)
        services.follow(reader, "alice")
    twit_ids = [services.post_twit("alice", f"like me {i}").id for i in range(3)]
    with multiprocessing.get_context("fork").Pool(len(readers)) as pool:
        runs: list[Any] = [
            pool.apply_async(_like_and_read, (reader, twit_ids, 4)) for reader in readers
        ]
        wrong = [w for run in runs for w in run.get(timeout=300)]
    assert wrong == []
    for reader in readers:
        page = services.home_stream(reader).items
        assert sorted((t.id, t.likes, t.liked) for t in page) == sorted(
            (twit_id, len(readers), True) for twit_id in twit_ids
        )
