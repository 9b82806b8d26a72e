"""Fan-out status and actions: the fan-outs still pending (read from their
index, as the sweep reads it; see pending), the fan-out figures with each
worker's heartbeat, and a staff member's requeue or sweep.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from feeds.errors import Conflict
from feeds.types import Twit, from_millis
from storage import keys
from storage.connection import connection

from .. import fanout, metrics, pending
from .. import twits as twits_service
from .._paging import check_limit
from .audit import record
from .moderation import find_twit


@dataclass(frozen=True)
class PendingFanout:
    twit_id: str
    userid: str
    text: str
    created: datetime
    age_s: float  # since the twit was posted: the fan-out's lag so far
    chunks_done: int
    chunks_total: int | None  # None until the last chunk is known
    stuck: bool  # its lease has expired: the sweep would queue it again


@dataclass(frozen=True)
class PendingList:
    items: tuple[PendingFanout, ...]
    more: bool


def pending_fanouts(limit: int = 50) -> PendingList:
    """Twits whose fan-out is unfinished, in key order: the first ``limit``
    entries of the pending index (read up to ``limit`` + 1), then their rows.

    ``stuck`` is the sweep's own test: the fan-out's lease has expired.
    """
    check_limit(limit)
    now = pending.now_ms()
    with connection() as conn:
        listed = pending.index_keys(conn, limit + 1)
        # A twit finished meanwhile (or deleted) is left out: the sweep drops its entry.
        found = twits_service.fanning_out(conn, listed[:limit])
    items = tuple(
        PendingFanout(
            twit_id=keys.twit_id(twit.key),
            userid=twit.userid,
            text=twit.text,
            created=from_millis(twit.created),
            age_s=max(0.0, (now - twit.created) / 1000),
            chunks_done=twit.chunks_done,
            chunks_total=twit.chunks_total,
            stuck=pending.decode(twit.lease).expired(settings.TWITBASE_SWEEP_AFTER_S, now),
        )
        for twit in found
    )
    return PendingList(items, len(listed) > limit)


# A worker writes a heartbeat after its tasks (at most every 5 s), and beat
# runs the sweep every minute: a worker silent for longer is idle or gone.
WORKER_QUIET_S = 120


@dataclass(frozen=True)
class Worker:
    name: str
    last_seen: datetime
    age_s: float
    tasks: int
    quiet: bool  # no heartbeat for WORKER_QUIET_S


@dataclass(frozen=True)
class FanoutOverview:
    stats: metrics.FanoutStats
    workers: tuple[Worker, ...]


def fanout_overview() -> FanoutOverview:
    """The fan-out figures (metrics.fanout_stats) and each worker's last heartbeat."""
    stats = metrics.fanout_stats()
    now = time.time() * 1000
    workers = tuple(
        Worker(
            name=name,
            last_seen=from_millis(seen),
            age_s=max(0.0, (now - seen) / 1000),
            tasks=tasks,
            quiet=(now - seen) / 1000 > WORKER_QUIET_S,
        )
        for name, seen, tasks in sorted(stats.workers, key=lambda w: -w[1])
    )
    return FanoutOverview(stats, workers)


def requeue_fanout(actor: str, twit_id: str) -> Twit:
    """Queue the fan-out of a twit again (it is idempotent); Conflict if it is
    not pending: a finished fan-out has nothing left to do."""
    twit = find_twit(twit_id)
    if not fanout.requeue(twit.id):
        raise Conflict("The fan-out of this twit is finished: there is nothing to queue.")
    record(actor, "fanout.requeue", twit.id, f"by @{twit.userid}")
    return twit


def sweep_fanouts(actor: str) -> list[str]:
    """Queue again every pending fan-out whose lease expired (after
    TWITBASE_SWEEP_AFTER_S), as the minutely sweep does. Returns the twit ids queued."""
    queued = fanout.sweep_pending(settings.TWITBASE_SWEEP_AFTER_S)
    n = len(queued)
    record(actor, "fanout.sweep", f"{n} twit{'s' if n != 1 else ''}", " ".join(queued))
    return queued
