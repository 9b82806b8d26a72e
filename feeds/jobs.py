"""Background work as data: one frozen dataclass per kind of job, and the
port the services hand jobs to.

A job carries ids only (userids, twit ids, a lease's owner id), never
objects, so the work always reads fresh data; :func:`kwargs` is what goes on
the wire. Every job is idempotent: running one twice leaves the same rows.

The services call :func:`dispatch`; what runs a job is registered at start-up
(``worker/apps.py`` registers ``worker.jobs.dispatch``, which maps each job
type to its Celery task), so feeds never imports worker and no import runs in
a circle. Under CELERY_TASK_ALWAYS_EAGER (unit tests only) Celery runs the
job in the caller.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from django.core.exceptions import ImproperlyConfigured


class _Job:
    """What every kind of job says about itself, besides its ids."""

    # Whether a job lost on its way to the broker is queued again by someone
    # else. When nothing records that a job is owed, lost it would be lost for
    # good, so with the broker down it runs in the caller instead.
    requeued_if_lost: ClassVar[bool] = False


@dataclass(frozen=True)
class FanOutChunk(_Job):
    """Write one chunk of a twit's fan-out (see fanout.start_chunk), under
    the fan-out's lease (see pending; "": the chunk takes the lease itself)."""

    twit_id: str
    lease: str = ""
    start: str = ""  # the first follower key, in hex; "": the first
    chunk: int = 0
    # The next chunk's first follower key, in hex, when the chunk that
    # planned this one fixed it; "": this chunk reads ahead and plans the
    # chunks after it (see fanout.start_chunk).
    stop: str = ""
    # The md5s (hex, run together) of the followers from start to stop, as
    # the planning chunk read them; "": read them from followedBy, or:
    readers: str = ""
    # When the planning chunk divided the author's packed follower list
    # (followerLists), the version of that list, and where this chunk's
    # followers are in it: the first one's place and how many. The chunk
    # reads them from the list while it is that version, else from
    # followedBy. "": not planned from a list.
    listed: str = ""
    offset: int = 0
    count: int = 0

    # Lost (the broker was down), it is queued again by the sweep, which finds
    # the twit's pending mark: so it is left for the sweep, never run in the
    # caller (a fan-out can be large).
    requeued_if_lost: ClassVar[bool] = True


@dataclass(frozen=True)
class BackfillStream(_Job):
    """Copy the followee's newest twits into the follower's stream (after a follow)."""

    follower: str
    followed: str


@dataclass(frozen=True)
class RemoveFolloweeFromStream(_Job):
    """Delete the followee's twits from the follower's stream (after an unfollow)."""

    follower: str
    followed: str


@dataclass(frozen=True)
class RemoveTwitFromStreams(_Job):
    """Delete a twit's row from its author's and every follower's stream."""

    author: str
    twit_id: str
    # A chunk of its followers, as FanOutChunk's (see fanout.start_stream_chunk):
    # "" and 0, the first, which also plans the rest.
    start: str = ""
    chunk: int = 0
    stop: str = ""
    readers: str = ""
    # The owner id of the job's lease, as FanOutChunk's (see
    # pending.queue_stream_job); "": untracked (a message from before leases).
    lease: str = ""


@dataclass(frozen=True)
class RepostToStreams(_Job):
    """Write a repost's row into the reposter's and each follower's stream
    (see fanout.start_stream_chunk); nothing if it was undone meanwhile."""

    twit_id: str
    reposter: str
    ms: int  # the repost's time: its stream rows' key and timestamp
    # A chunk of its followers, as FanOutChunk's (see fanout.start_stream_chunk):
    # "" and 0, the first, which also plans the rest.
    start: str = ""
    chunk: int = 0
    stop: str = ""
    readers: str = ""
    # The owner id of the job's lease, as FanOutChunk's (see
    # pending.queue_stream_job); "": untracked (a message from before leases).
    lease: str = ""


@dataclass(frozen=True)
class RemoveRepostFromStreams(_Job):
    """Delete a repost's row from the reposter's and each follower's stream
    (after an un-repost, or the twit's delete)."""

    twit_id: str
    reposter: str
    ms: int
    # A chunk of its followers, as FanOutChunk's (see fanout.start_stream_chunk):
    # "" and 0, the first, which also plans the rest.
    start: str = ""
    chunk: int = 0
    stop: str = ""
    readers: str = ""
    # The owner id of the job's lease, as FanOutChunk's (see
    # pending.queue_stream_job); "": untracked (a message from before leases).
    lease: str = ""


@dataclass(frozen=True)
class TrimStream(_Job):
    """Keep only the newest TWITBASE_STREAM_MAX rows of the reader's stream."""

    reader: str


@dataclass(frozen=True)
class SweepPendingFanouts(_Job):
    """Queue again the fan-outs whose lease expired (Celery beat runs it)."""

    # Beat sends it again at its next tick.
    requeued_if_lost: ClassVar[bool] = True


@dataclass(frozen=True)
class DeleteAccount(_Job):
    """Delete every row of a (suspended) account, the users row last (see
    services/deletion.py); ``created`` (ms) names the account, so a stale
    retry leaves a new account of the same userid alone."""

    userid: str
    created: int


@dataclass(frozen=True)
class RefreshTableStats(_Job):
    """Count a table's rows and sample its key spread for the console's pages
    (console.refresh_stats); "": every table."""

    table: str = ""
    due_only: int = 0  # 1: only tables whose count is due (console.refresh_stats)

    # Beat sends it again at its next tick; a full count is not for a web
    # request to run in its place.
    requeued_if_lost: ClassVar[bool] = True


@dataclass(frozen=True)
class WithdrawReactions(_Job):
    """Take back ``userid``'s likes and reposts of ``author``'s twits (after
    ``author`` blocked them; see blocking.block)."""

    userid: str
    author: str


@dataclass(frozen=True)
class SendPasswordReset(_Job):
    """Email ``userid``'s account, if there is one, a new password reset link
    on ``site`` (scheme and host); see passwordreset.send_reset. The worker
    makes the link's token: the broker never holds one."""

    userid: str
    site: str


@dataclass(frozen=True)
class SendPasswordResetsTo(_Job):
    """Email ``email`` a new password reset link on ``site`` for each account
    registered with it ("forgot your userid?"; see
    passwordreset.send_resets_to). No token on the broker, as above."""

    email: str
    site: str


@dataclass(frozen=True)
class SweepUnattachedMedia(_Job):
    """Delete uploaded images no twit used within a day (media.sweep_unattached;
    Celery beat runs it)."""

    # Beat sends it again at its next tick.
    requeued_if_lost: ClassVar[bool] = True


Job = (
    FanOutChunk
    | BackfillStream
    | RemoveFolloweeFromStream
    | RemoveTwitFromStreams
    | TrimStream
    | SweepPendingFanouts
    | RepostToStreams
    | RemoveRepostFromStreams
    | DeleteAccount
    | RefreshTableStats
    | WithdrawReactions
    | SendPasswordReset
    | SendPasswordResetsTo
    | SweepUnattachedMedia
)

Dispatcher = Callable[[Job], None]


def kwargs(job: Job) -> dict[str, str | int]:
    """The job as its task's keyword arguments: field name -> id."""
    return dataclasses.asdict(job)


_dispatcher: Dispatcher | None = None


def register(dispatcher: Dispatcher | None) -> Dispatcher | None:
    """Make ``dispatcher`` run every job handed to :func:`dispatch` (done once
    at start-up; tests may swap in a recorder). Returns the one it replaces."""
    global _dispatcher
    previous, _dispatcher = _dispatcher, dispatcher
    return previous


def dispatch(job: Job) -> None:
    """Hand ``job`` to the background. Returns once it is queued (or, with the
    broker down, run here or left to be queued again: see ``requeued_if_lost``)."""
    if _dispatcher is None:
        raise ImproperlyConfigured(
            "No job dispatcher is registered: add 'worker' to INSTALLED_APPS "
            "(worker.apps registers it when Django starts)."
        )
    _dispatcher(job)
