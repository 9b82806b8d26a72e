"""Counts that a late twin cannot apply twice (storage.ops.MarkedChange).

A like, a repost, a follow, a post's count or a delete is one change,
finished by whoever finds it unfinished: the request itself, a twin
request (a double click, a retry, a racing unfollow), a post's fan-out, or
the pair's next change after a crash. Each twin test stalls one finisher
at the moment it is about to write a count, lets a twin finish the same
change, then pushes more operations through the count than its cell
remembers (storage.ops.WINDOW), and only then lets the stalled one go on.
Before MarkedChange the stalled one counted again (a like counted twice
with one liker: seen once in CI); now every count, the notification
group's included, equals what is there. Then a late twin of a like undone
since, and processes killed at random moments. Each test runs on both
servers.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.services import twits as twits_service
from feeds.types import Twit, User
from storage import keys, ops, rows
from storage.connection import connection, table_name
from tests.helpers import ServerAddr, register
from tests.services.test_concurrency import USERS, start_hammers

# Like and unlike pairs pushed through a count while its first finisher
# stalls: more operations than the cell remembers.
PAST_THE_WINDOW = ops.WINDOW // 2 + 3
# Rounds of hammer processes killed at random moments.
KILL_ROUNDS = 3


@pytest.fixture(autouse=True)
def no_action_limits(settings: Settings) -> None:
    """These tests push more follows and likes through one account in a
    minute than its limits allow (test_action_limits.py tests those)."""
    settings.TWITBASE_FOLLOWS_PER_MINUTE = 1_000_000
    settings.TWITBASE_REACTIONS_PER_MINUTE = 1_000_000


@pytest.fixture
def stall(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[bytes, Callable[[], None]], None]]:
    """``stall(column, meanwhile)``: the first compare-and-set of a count in
    ``column`` runs ``meanwhile`` first, as if its process paused there."""
    real = ops.check_and_put
    armed: dict[bytes, Callable[[], None]] = {}

    def paused(conn: Any, table: str, row: bytes, column: bytes, *rest: Any) -> bool:
        meanwhile = armed.pop(column, None)
        if meanwhile is not None:
            meanwhile()
        return real(conn, table, row, column, *rest)

    monkeypatch.setattr(ops, "check_and_put", paused)

    def arm(column: bytes, meanwhile: Callable[[], None]) -> None:
        armed[column] = meanwhile

    yield arm
    assert not armed, "the stalled count was never written: the test tested nothing"


def _group_count(twit_id: str, kind: bytes) -> int:
    with connection() as conn:
        key = keys.notify_group_key(keys.twit_key_from_id(twit_id), kind)
        row = conn.table(table_name("notifyGroups")).row(key, columns=[rows.GROUP_COUNT])
    return rows.decode_count(row.get(rows.GROUP_COUNT))


@dataclass(frozen=True)
class Reaction:
    """Likes or reposts, as the twin tests drive and read them."""

    do: Callable[[str, str], Twit]
    undo: Callable[[str, str], Twit]
    column: bytes  # the count's cell
    count: Callable[[Twit], int]
    who: Callable[[str], list[str]]
    kind: bytes  # the notification group's


REACTIONS = {
    "like": Reaction(
        services.like,
        services.unlike,
        rows.COUNT_LIKES,
        lambda t: t.likes,
        services.likers,
        keys.NOTIFY_LIKE,
    ),
    "repost": Reaction(
        services.repost,
        services.unrepost,
        rows.COUNT_REPOSTS,
        lambda t: t.reposts,
        services.reposters,
        keys.NOTIFY_REPOST,
    ),
}


@pytest.mark.parametrize("undoing", [False, True], ids=["do", "undo"])
@pytest.mark.parametrize("name", sorted(REACTIONS))
def test_a_like_or_repost_finished_by_a_twin_counts_once_however_late_the_first(
    alice: User,
    bob: User,
    charlie: User,
    stall: Callable[[bytes, Callable[[], None]], None],
    name: str,
    undoing: bool,
) -> None:
    """bob likes (or reposts; or takes it back), a twin request finishes it
    while the first stalls, and charlie's changes push past the window."""
    r = REACTIONS[name]
    twit = services.post_twit("alice", f"{name} raced")
    first, then = (r.undo, r.do) if undoing else (r.do, r.undo)
    if undoing:
        r.do("bob", twit.id)
        r.do("charlie", twit.id)

    def meanwhile() -> None:
        # A twin request of bob's finds it unfinished and finishes it...
        first("bob", twit.id)
        # ...then more come and go than the count's cell remembers.
        for _ in range(PAST_THE_WINDOW):
            first("charlie", twit.id)
            then("charlie", twit.id)

    stall(r.column, meanwhile)
    assert r.count(first("bob", twit.id)) == 1
    assert r.who(twit.id) == (["charlie"] if undoing else ["bob"])
    assert r.count(services.get_twit(twit.id)) == 1
    assert _group_count(twit.id, r.kind) == 1
    # One unread each time someone likes (reposts): bob and charlie at the
    # start when undoing, and each of charlie's in the loop.
    assert services.unread_count("alice") == (2 if undoing else 1) + PAST_THE_WINDOW


def test_a_follow_finished_by_a_twin_counts_once_however_late_the_first(
    alice: User, bob: User, charlie: User, stall: Callable[[bytes, Callable[[], None]], None]
) -> None:
    register("dana")

    def meanwhile() -> None:
        # A twin request of alice's follow finishes it...
        services.follow("alice", "bob")
        # ...then more follows of bob come and go than his count remembers.
        for _ in range(PAST_THE_WINDOW):
            services.follow("charlie", "bob")
            services.unfollow("charlie", "bob")

    stall(rows.COUNT_FOLLOWERS, meanwhile)
    services.follow("alice", "bob")
    services.follow("dana", "bob")
    assert services.get_user("bob").followers == 2
    assert services.get_user("alice").following == 1
    assert sorted(u.userid for u in services.followers("bob").items) == ["alice", "dana"]
    # One unread per follow: alice's, each of charlie's, and dana's.
    assert services.unread_count("bob") == 1 + PAST_THE_WINDOW + 1


def test_a_post_counted_by_a_twin_counts_once_however_late_the_post(
    alice: User, settings: Settings, stall: Callable[[bytes, Callable[[], None]], None]
) -> None:
    settings.TWITBASE_POSTS_PER_MINUTE = 1000

    def meanwhile() -> None:
        # The twit's fan-out or delete counts it too, if the post may have
        # died: here it comes first...
        (newest,) = services.timeline("alice", limit=1).items
        with connection() as conn:
            twits_service.count_once(conn, keys.twit_key_from_id(newest.id), "alice")
        # ...and more posts pass through the count than it remembers.
        for i in range(2 * PAST_THE_WINDOW):
            services.post_twit("alice", f"filler {i}")

    stall(rows.COUNT_TWITS, meanwhile)
    services.post_twit("alice", "counted by a twin first")
    assert services.get_user("alice").twits == 1 + 2 * PAST_THE_WINDOW


def test_a_delete_finished_by_a_twin_counts_once_however_late_the_first(
    alice: User, settings: Settings, stall: Callable[[bytes, Callable[[], None]], None]
) -> None:
    settings.TWITBASE_POSTS_PER_MINUTE = 1000
    gone = services.post_twit("alice", "deleted twice at once")

    def meanwhile() -> None:
        services.delete_twit("alice", gone.id)
        for i in range(2 * PAST_THE_WINDOW):
            services.post_twit("alice", f"filler {i}")

    stall(rows.COUNT_TWITS, meanwhile)
    services.delete_twit("alice", gone.id)
    assert services.get_user("alice").twits == 2 * PAST_THE_WINDOW


def test_a_reply_deleted_by_a_twin_leaves_its_parent_once_however_late_the_first(
    alice: User, bob: User, settings: Settings, stall: Callable[[bytes, Callable[[], None]], None]
) -> None:
    settings.TWITBASE_POSTS_PER_MINUTE = 1000
    parent = services.post_twit("alice", "busy thread")
    gone = services.post_twit("bob", "deleted twice at once", reply_to=parent.id)

    def meanwhile() -> None:
        services.delete_twit("bob", gone.id)
        for i in range(2 * PAST_THE_WINDOW):
            services.post_twit("alice", f"filler {i}", reply_to=parent.id)

    stall(rows.COUNT_REPLIES, meanwhile)
    services.delete_twit("bob", gone.id)
    assert services.get_twit(parent.id).replies == 2 * PAST_THE_WINDOW


def test_likes_stay_exact_when_processes_are_killed_mid_change(
    twitbase: ServerAddr, alice: User
) -> None:
    """Rounds of 8 processes liking and unliking one twit as 4 users, each
    process killed (SIGKILL) at a random moment: some die between a count
    and its mark, some between the mark and the settle. Then each user's
    next like finishes what their pair left pending, and every count equals
    the likers."""
    for userid in USERS:
        register(userid)
    twit = services.post_twit("alice", "hammered and killed")
    key = keys.twit_key_from_id(twit.id)
    rng = random.Random(14)
    kills = 0
    for _ in range(KILL_ROUNDS):
        before = _like_changes(key)
        procs = start_hammers(twitbase, "s=600", "--likes", twit.id)
        try:
            # They are liking (start_hammers returns once they have started).
            deadline = time.monotonic() + 120
            while _like_changes(key) < before + 40:
                assert time.monotonic() < deadline, "the hammers made no changes in 2 minutes"
                assert all(p.poll() is None for p in procs), "a hammer process died"
                time.sleep(0.1)
            for proc in procs:
                time.sleep(rng.uniform(0, 0.3))
                proc.kill()
                proc.wait()
                kills += 1
        finally:
            for proc in procs:  # none left hammering when an assertion fails
                proc.kill()
                proc.communicate()
    for userid in USERS:
        services.like(userid, twit.id)
    assert sorted(services.likers(twit.id)) == sorted(USERS)
    assert services.get_twit(twit.id).likes == len(USERS)
    assert _group_count(twit.id, keys.NOTIFY_LIKE) == len(USERS)
    with connection() as conn:
        cell = conn.table(table_name("twits")).row(key, columns=[rows.COUNT_LIKES])
    # What kills between a mark and its settle leave: at most one id each.
    assert len(rows.decode_counted(cell[rows.COUNT_LIKES]).pending) <= kills * rows.OP_LEN


def _like_changes(twit: bytes) -> int:
    """The like and unlike changes made on the twit so far: its likers'
    generations, summed."""
    with connection() as conn:
        states = conn.table(table_name("likers")).scan(row_prefix=twit)
        return sum(rows.decode_like_state(d.get(rows.LIKE_STATE))[1] for _, d in states)


def test_a_late_twin_of_a_like_undone_since_leaves_its_notification_alone(
    alice: User, bob: User, charlie: User, stall: Callable[[bytes, Callable[[], None]], None]
) -> None:
    twit = services.post_twit("alice", "liked, then not")
    services.like("charlie", twit.id)

    def meanwhile() -> None:
        # A twin finishes bob's like, notification included; then bob takes it back.
        services.like("bob", twit.id)
        services.unlike("bob", twit.id)

    stall(rows.GROUP_COUNT, meanwhile)
    services.like("bob", twit.id)
    assert services.likers(twit.id) == ["charlie"]
    assert services.get_twit(twit.id).likes == 1
    assert _group_count(twit.id, keys.NOTIFY_LIKE) == 1
    (note,) = services.notifications("alice").items
    # The late twin did not write bob back into the group's actors.
    assert [a.userid for a in note.actors] == ["charlie"] and note.count == 1
