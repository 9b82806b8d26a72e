"""Reactions racing their twits' deletes leave nothing: several processes
like, unlike, repost and un-repost the newest twits of an author who posts
and deletes them over and over; a real Celery worker, through a real Redis, does
the stream upkeep. Once the queue is empty, no table holds a row that
refers to any of those twits: no stream copy, no notification, no count
cell recreating a twit row. On both servers."""

from __future__ import annotations

import random
import time

from pytest_django.fixtures import Settings

from devtools.processes import CeleryWorkerProcess, RedisProcess
from feeds import services
from tests.services import hammer as hammers
from tests.services.test_reactions import leftovers
from tests.waiting import eventually
from tests.worker.helpers import broker_idle

REACTORS = ["ana", "ben", "cat", "dan"]
PROCESSES = 4
OPS = 80  # each process's operations: about 6 s of them on a quiet machine


def test_reactions_racing_deletes_leave_nothing(
    stack: CeleryWorkerProcess, redis_broker: RedisProcess, settings: Settings
) -> None:
    settings.TWITBASE_POSTS_PER_MINUTE = 1_000_000
    for name in ["alice", "reader", *REACTORS]:
        services.register(name, name.title(), f"{name}@example.com", "password-123")
    for name in REACTORS:
        services.follow("reader", name)  # each repost goes to reader's stream
    procs = hammers.start(PROCESSES, f"ops={OPS}", "--reactions", "alice", *REACTORS, eager=False)
    # Post and delete, over and over, each delete landing amid reactions.
    rng = random.Random(7)
    twit_ids = []
    # Until the last hammer is done (they take a while to start).
    while any(proc.poll() is None for proc in procs):
        twit = services.post_twit("alice", f"racing {len(twit_ids)}")
        twit_ids.append(twit.id)
        time.sleep(rng.uniform(0.02, 0.15))
        services.delete_twit("alice", twit.id)
    ops = hammers.finish(procs, timeout=600)
    assert ops == PROCESSES * OPS
    eventually(lambda: broker_idle(redis_broker), timeout=60, what="the worker's queue drained")
    left = {t: found for t in twit_ids if (found := leftovers(t))}
    assert left == {}, f"rows left after {ops} reactions: {left}"
    assert services.home_stream("reader").items == ()
    assert services.notifications("alice").items == ()
