"""Counts stay exact under any interleaving: 8 processes hammer 4 users with
follow, unfollow, post and delete at once; afterwards every counter must equal
the rows it counts."""

from __future__ import annotations

import subprocess

from django.conf import settings

from feeds import services
from tests.helpers import ServerAddr, register
from tests.services import hammer as hammers
from tests.services.test_model import all_pages

USERS = ["ana", "ben", "cat", "dan"]
PROCESSES = 8
# How much each hammer process does, on each server (here and in
# test_likes, test_reposts): a number of operations, so the test does the
# same work however busy the machine (a time limit made a loaded machine's
# run do too little, and fail its floor). About what each process made in
# the 5 s locally and 8 s on HBase these tests ran for before (2026-11-28);
# the processes start together (hammer.start's gate). With a fix reverted
# (2026-11-26): the unfollow that lands mid-follow (9372b23) failed the
# counts test 4 times in 4 at 3 s locally, and 3 in 3 at 5 s on HBase; a
# like started before the last one finished counting (react's first step)
# failed the likes test 3 in 3 at 2 s.
OPS = {
    "counts": {"local": 60, "hbase": 40},
    "replies": {"local": 50, "hbase": 30},
    "likes": {"local": 150, "hbase": 80},
    "reposts": {"local": 90, "hbase": 50},
}


def hammer(server: ServerAddr, ops: int, *mode: str) -> int:
    """Run PROCESSES hammer processes of ``ops`` operations each; their
    operations in all."""
    done = hammers.finish(start_hammers(server, f"ops={ops}", *mode), timeout=600)
    assert done == PROCESSES * ops
    return done


def start_hammers(server: ServerAddr, budget: str, *mode: str) -> list[subprocess.Popen[str]]:
    """PROCESSES hammer processes (tests/services/hammer.py) on ``server``
    (the one the settings point at), started. The stream upkeep runs
    inline: these processes test counts, and the upkeep's reads and writes
    are part of the load."""
    assert (
        server.host,
        server.port,
    ) == (settings.TWITBASE_HBASE_HOST, settings.TWITBASE_HBASE_PORT)
    return hammers.start(PROCESSES, budget, *mode, *USERS, eager=True)


def test_counts_equal_rows_after_concurrent_follows_posts_and_deletes(
    twitbase: ServerAddr,
) -> None:
    for userid in USERS:
        register(userid)
    ops = hammer(twitbase, OPS["counts"][twitbase.kind])

    drift = {}
    for userid in USERS:
        profile = services.get_user(userid)
        followers = all_pages(lambda c, u=userid: services.followers(u, c, limit=100))
        following = all_pages(lambda c, u=userid: services.following(u, c, limit=100))
        twits = all_pages(lambda c, u=userid: services.timeline(u, c, limit=100))
        counted = (profile.followers, profile.following, profile.twits)
        actual = (len(followers), len(following), len(twits))
        if counted != actual:
            drift[userid] = {"counted": counted, "rows": actual}
        # The two edge tables mirror each other.
        for f in following:
            assert services.is_following(userid, f.userid)
    assert not drift, f"counts differ from rows after {ops} operations: {drift}"


def test_reply_count_equals_replies_after_concurrent_replies_and_deletes(
    twitbase: ServerAddr,
) -> None:
    for userid in USERS:
        register(userid)
    parent = services.post_twit("ana", "reply to me, all at once")
    ops = hammer(twitbase, OPS["replies"][twitbase.kind], "--replies", parent.id)
    listed = all_pages(lambda c: services.replies(parent.id, c, limit=100))
    assert len(listed) > 0
    assert services.get_twit(parent.id).replies == len(listed), f"after {ops} operations"
