"""Blocks racing follows, likes, reposts and fan-outs leave nothing of what
a block ends: several processes follow, unfollow, post, like, repost, block
and unblock among four users at once, while a real Celery worker, through a
real Redis, fans out, backfills, cleans up and takes reactions back. Once the
queue is empty, for every block that stands: no follow either way, no like
or repost by the blocked of the blocker's twits, neither's twits in the
other's home stream; and every follower count equals its list. On both
servers."""

from __future__ import annotations

from devtools.processes import CeleryWorkerProcess, RedisProcess
from feeds import services
from feeds.services import blocks, reactions
from tests.services import hammer as hammers
from tests.services.test_model import all_pages
from tests.waiting import eventually
from tests.worker.helpers import broker_idle

USERS = ["ana", "ben", "cat", "dan"]
PROCESSES = 3
OPS = 80  # each process's operations: about 6 s of them on a quiet machine


def test_nothing_a_block_ends_outlives_it(
    stack: CeleryWorkerProcess, redis_broker: RedisProcess
) -> None:
    for name in USERS:
        services.register(name, name.title(), f"{name}@example.com", "password-123")
    procs = hammers.start(PROCESSES, f"ops={OPS}", "--blocks", *USERS, eager=False)
    ops = hammers.finish(procs, timeout=600)
    assert ops == PROCESSES * OPS
    eventually(lambda: broker_idle(redis_broker), timeout=60, what="the worker's queue drained")
    standing = {(a, b.userid) for a in USERS for b in blocks.blocked(a, limit=10).items}
    assert standing, "no block stood at the end: the test proved nothing"
    for blocker, blocked in standing:
        for x, y in ((blocker, blocked), (blocked, blocker)):
            assert not services.is_following(x, y), f"{x} follows {y} through a block"
            home = all_pages(lambda c, x=x: services.home_stream(x, c, limit=50))
            assert not [t for t in home if y in (t.userid, t.reposted_by)], (x, y)
        theirs = [t.id for t in all_pages(lambda c, b=blocker: services.timeline(b, c, limit=50))]
        for kind in reactions.KINDS:
            kept = reactions.reacted(kind, blocked, theirs)
            assert kept == set(), f"{blocked} still {kind.name.decode()}s {blocker}'s twits"
    for user in USERS:
        profile = services.get_user(user)
        followers = all_pages(lambda c, u=user: services.followers(u, c, limit=50))
        following = all_pages(lambda c, u=user: services.following(u, c, limit=50))
        assert (profile.followers, profile.following) == (len(followers), len(following))
