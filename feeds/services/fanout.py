"""The derived rows: streams kept in step with twits and follows.

These functions are what HBase coprocessors would do, run by the Celery
workers (worker/tasks.py). Each takes ids, reads fresh data, and is
idempotent: stream row keys are computed from the twit's key, and stream
cells carry a deterministic timestamp, so running one twice, or again after
a crash half-way, leaves the same rows.

Timestamps: a fanned-out stream row is written at the twit's time, so one
chunk is one mutateRows (Thrift1 gives a batch one timestamp). A backfilled
row is written at the follow edge's generation (see follows._claim_edge),
which is later than any delete marker an earlier unfollow left on it. Unfollow
deletes each row at its own timestamp, so it can never hide a row a later
follow writes again.

At most one fan-out in flight per twit: the chunks of a fan-out carry the id
of its lease (see pending), renew it as they go, and stop without writing
once the sweep has taken it over. A fan-out run again resumes: each chunk
records itself on the twit row, and only chunks missing from that record run.
What a chunk does is decided by fanplan's pure functions; this module reads
what they need and does what they say.

Reposts, and the removal of a twit or a repost, go through the same chunks
(start_stream_chunk): the same follower reads, the same planner, successors
queued before the chunk writes, the streams due trimmed after an add. They
carry no lease and record no progress (a repost's rows are at its time, a
removal's markers at the time of deleting, so any chunk may run again):
a chunk that dies is run again by Celery's redelivery and retries, not by
the sweep.

Large accounts: a twit whose author has more followers than
TWITBASE_CELEBRITY_THRESHOLD is not fanned out; the author is recorded in the
celebrities table and readers merge such followees' twits when they read
(streams.home_stream). Readers keep that table's list for a short while, so a
newly recorded author is fanned out a while longer (still_fanned_out).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import time
from dataclasses import dataclass

import happybase
from django.conf import settings

from feeds.jobs import (
    FanOutChunk,
    RemoveRepostFromStreams,
    RemoveTwitFromStreams,
    dispatch,
)
from storage import keys, ops, rows
from storage.connection import connection

from . import accounts, fanplan, follows, metrics, notify, pending, reactions, streams
from . import twits as twits_service

log = logging.getLogger(__name__)

BACKFILL = 100
# A chunk without a fixed end reads the keys of this many chunks of
# followers at once and queues them all (see start_chunk): 128,000 followers
# at the default chunk of 2,000, more than a fanned-out account has.
PLAN_AHEAD = 64
# On the twit row, one cell per finished chunk (rows.progress_column), holding
# where it began and where the next begins. A fan-out taken over by the sweep
# follows this chain and runs only the chunks missing from it.


def is_celebrity(conn: happybase.Connection, userid: str) -> bool:
    followers, _ = accounts.followers_of(conn, userid)
    threshold: int = settings.TWITBASE_CELEBRITY_THRESHOLD
    return followers > threshold


def still_fanned_out(conn: happybase.Connection, author: str) -> bool:
    """Whether the twits of ``author``, a large account, are still fanned out:
    for twice TWITBASE_CELEBRITY_CACHE_S after the author is first listed in
    the celebrities table (listed here, at the first such twit: streams.list_celebrity).

    Web processes keep that table's list for the TTL (streams.CELEBRITIES),
    so a reader may not merge a newly listed author's twits until then; until
    every list has been read again, the twits reach readers as stream rows.
    Twice the TTL leaves room for the clocks of the workers to differ. The
    listing's time is its cell's timestamp, written once.
    """
    now = int(time.time() * 1000)
    listed = streams.list_celebrity(conn, author, now)
    grace_s: int = 2 * settings.TWITBASE_CELEBRITY_CACHE_S
    return now - listed < grace_s * 1000


@dataclass(frozen=True)
class ChunkResult:
    rows: int
    next_start: bytes | None
    finished: bool
    taken_over: bool = False


@dataclass(frozen=True)
class ChunkWrite:
    """A chunk read under its lease, the chunks after it planned, its rows
    not yet written: what :func:`start_chunk` hands to the task that runs the
    chunk, which queues ``successors`` and then calls :func:`write_chunk`."""

    job: FanOutChunk
    # Queued before writing, so the chunks run in parallel on free workers.
    successors: tuple[FanOutChunk, ...]
    key: bytes
    readers: bytes  # the md5s of the followers this chunk writes to, run together
    cells: dict[bytes, bytes]  # the stream row's cells, from the twit row as read
    after: str  # the next chunk's start (hex); "": this is the last
    written: int  # rows written already (the author's own, by the first chunk)
    recorded: bool  # on record as done already: write nothing again


def start_chunk(job: FanOutChunk) -> ChunkResult | ChunkWrite:
    """Begin one chunk of a twit's fan-out: the followers from ``job.start``,
    up to ``job.stop`` or, without one, up to CHUNK of them.

    The first chunk also writes the author's own stream row. A chunk without
    a ``stop`` plans: it reads up to PLAN_AHEAD chunks of followers (from
    the author's packed list when it is current, else in one key-only scan:
    see :func:`_planning_followers`), fixes where each of those chunks
    begins and ends, records them all as queued under the lease, and
    returns them as ``successors`` (see fanplan.plan_chunk).
    The caller queues them *before* :func:`write_chunk`, so a fan-out of
    10,000 followers is on the queue at once, its chunks run in parallel on
    free workers, and one account never holds a worker for long. Fixed
    bounds make the chain of chunks meet however followers come and go
    meanwhile; a follower who arrives while the chunks wait gets the twit
    from their follow's backfill, as one arriving during any fan-out does.
    Each chunk records itself on the twit row when done; the chunk that completes
    the chain clears the twit's pending mark and index entry and records the
    fan-out's lag.

    ``job.lease`` is the owner id of the fan-out's lease (see pending): a chunk
    whose lease was taken over stops without writing. Without one (a direct
    call: tests, a task queued before leases existed) the chunk takes the
    lease itself. A chunk already recorded as done writes nothing again.

    Returns a ChunkResult when the chunk is over already (the twit deleted,
    the fan-out finished, the lease taken over, or a large account's twit),
    else the ChunkWrite to queue from and write.

    The decisions are fanplan's; this reads what they need and does what
    they say.
    """
    key = keys.twit_key_from_id(job.twit_id)
    with connection() as conn:
        row = twits_service.fanout_row(conn, key)
        twit = rows.decode_twit(row)
        held = _admit(conn, key, job, twit is not None, row.get(pending.MARK))
        if isinstance(held, ChunkResult):
            return held
        job, mark = held
        assert twit is not None
        progress = rows.decode_progress(row)
        after = fanplan.recorded_after(progress, job)
        if after is not None:
            plan = fanplan.resume(job, progress, b"", after)
            return _queue(conn, key, job, mark, plan, {}, 0, recorded=True)
        written, version = 0, None
        if job.chunk == 0:
            written = 1
            fans_out, version = _first_chunk(conn, key, twit, rows.TWIT_COUNTED in row)
            if not fans_out:
                _finish_unfanned(conn, key, written)
                return ChunkResult(written, None, True)
        found = _chunk_followers(conn, twit.userid, job, version)
        size: int = settings.TWITBASE_FANOUT_CHUNK
        plan = fanplan.plan_chunk(job, progress, keys.user_hash(twit.userid), size, found)
        return _queue(conn, key, job, mark, plan, rows.encode_stream(twit), written, recorded=False)


def _admit(
    conn: happybase.Connection, key: bytes, job: FanOutChunk, found: bool, mark: bytes | None
) -> ChunkResult | tuple[FanOutChunk, bytes]:
    """The chunk's job under the lease it holds, with the mark as last seen
    (queue_chunk starts from it: a renewal by hold makes it stale, and
    queue_chunk then reads it again); or the ChunkResult of a chunk that
    stops here."""
    admitted = fanplan.admit(found, pending.is_open(mark), job.lease)
    if admitted is fanplan.Admit.GONE:
        pending.remove_from_index(conn, key)
        return ChunkResult(0, None, True)  # deleted meanwhile: nothing to do
    if admitted is fanplan.Admit.FINISHED:
        return ChunkResult(0, None, True)
    assert mark is not None
    if admitted is fanplan.Admit.HOLD:
        renew_s = settings.TWITBASE_SWEEP_AFTER_S / 4
        if not pending.hold(conn, key, job.lease, mark, renew_s):
            log.info("fan-out of %s chunk %d: lease taken over, stopping", job.twit_id, job.chunk)
            return ChunkResult(0, None, False, taken_over=True)
        return job, mark
    taken = pending.take(conn, key)
    if taken is None:
        return ChunkResult(0, None, True)
    return dataclasses.replace(job, lease=taken.owner), taken.encode()


def _first_chunk(
    conn: happybase.Connection, key: bytes, twit: rows.TwitRow, counted: bool
) -> tuple[bool, bytes | None]:
    """The first chunk's own work: the count, the author's own stream row,
    the twit's mentions and reply (here rather than in the post: the post
    stays fast, and a retried chunk writes the same rows). Then whether the
    twit is fanned out (not a large account's), and the version of the
    author's packed follower list if it is worth reading (more followers
    than a chunk)."""
    author = twit.userid
    twits_service.count_once(conn, key, author, counted)
    streams.write_own_row(conn, author, key, twit)
    notify.notify_twit(conn, key, twit)
    followers, version = accounts.followers_of(conn, author)
    threshold: int = settings.TWITBASE_CELEBRITY_THRESHOLD
    if followers > threshold and not still_fanned_out(conn, author):
        return False, None
    size: int = settings.TWITBASE_FANOUT_CHUNK
    return True, version if followers > size else None


def _finish_unfanned(conn: happybase.Connection, key: bytes, written: int) -> None:
    """A large account's twit: its one chunk on record, the fan-out finished."""
    twits_service.record_chunk(conn, key, 0, "", "")
    metrics.record_rows(conn, written)
    _finish(conn, key)


def _chunk_followers(
    conn: happybase.Connection, author: str, job: FanOutChunk, version: bytes | None
) -> fanplan.Followers:
    """The followers of a chunk not on record as done, from where
    fanplan.source says they are."""
    size: int = settings.TWITBASE_FANOUT_CHUNK
    found = fanplan.source(job)
    if found is fanplan.Source.CARRIED:
        return fanplan.Followers(bytes.fromhex(job.readers))
    if found is fanplan.Source.LISTED:
        return fanplan.Followers(_listed_followers(conn, author, job, size))
    if found is fanplan.Source.BETWEEN:
        return fanplan.Followers(
            _followers(_follower_edges(conn, author, job.start, job.stop, size))
        )
    listed, complete, stored = _planning_followers(conn, author, job.start, size, version)
    return fanplan.Followers(listed, complete, stored)


def _queue(
    conn: happybase.Connection,
    key: bytes,
    job: FanOutChunk,
    mark: bytes,
    plan: fanplan.Plan,
    cells: dict[bytes, bytes],
    written: int,
    recorded: bool,
) -> ChunkResult | ChunkWrite:
    """Record the plan's successors as queued under the lease, and hand
    the chunk on to be written; a ChunkResult if the lease was lost."""
    successors: tuple[FanOutChunk, ...] = ()
    if plan.queue is not None:
        queue = pending.queue_chunk(conn, key, job.lease, plan.queue, mark)
        if queue is None:
            return _taken_over(conn, job.twit_id, job.chunk, written)
        if queue:
            successors = plan.successors
    return ChunkWrite(job, successors, key, plan.readers, cells, plan.after, written, recorded)


def _listed_followers(
    conn: happybase.Connection, author: str, job: FanOutChunk, size: int
) -> bytes:
    """A planned chunk's followers (md5s, run together), from the author's
    packed list while it is the version the planning chunk divided (then
    they are the ones it saw), else from followedBy between the chunk's
    bounds, as for a chunk queued without them: the list was made again
    since, under a follow or unfollow, or has expired."""
    packed = follows.packed_followers(conn, author, job.listed.encode())
    if packed is not None:
        first = job.offset * keys.MD5_LEN
        readers = packed[first : first + job.count * keys.MD5_LEN]
        # The same list, so the same followers; checked against the bounds all the same.
        begins = bytes.fromhex(job.start)[keys.MD5_LEN :]
        if len(readers) == job.count * keys.MD5_LEN and readers[: keys.MD5_LEN] == begins:
            return readers
    return _followers(_follower_edges(conn, author, job.start, job.stop, size))


def _follower_edges(
    conn: happybase.Connection, author: str, start: str, stop: str, size: int
) -> list[bytes]:
    """The author's followedBy keys from ``start`` (hex; "": the first): up to
    ``stop`` (hex) when the chunk's end is fixed, else up to PLAN_AHEAD chunks
    of them and one more, the start of the chunk after those.

    The follower's md5 is the second half of a followedBy key: keys are all a
    fan-out needs, so the scan carries no values.
    """
    prefix = keys.user_hash(author)
    begin = bytes.fromhex(start) if start else prefix
    end = bytes.fromhex(stop) if stop else keys.prefix_stop(prefix)
    limit = None if stop else size * PLAN_AHEAD + 1
    fetch = min(limit or 2 * size, 10_000)
    return follows.follower_keys(conn, begin, end, fetch, limit)


def _planning_followers(
    conn: happybase.Connection, author: str, start: str, size: int, version: bytes | None
) -> tuple[bytes, bool, bytes | None]:
    """The md5s of the followers a planning chunk divides, from ``start``,
    run together; whether they run to the end of the author's followers; and
    the version of the packed list they are now stored as, if they are.

    With a ``version`` (the first chunk of an author with more followers
    than a chunk), the author's packed list in followerLists is read, one
    cell instead of a row per follower, if it was made under that version of
    the users row; else the followers are scanned and, when the scan reached
    the end, the list is written for the next post. Follows and unfollows
    raise the version after changing followedBy (follows._followers_changed),
    so a list read under the current version holds every follower the scan
    would find, except one whose follow is still under way (its backfill
    brings them the twit, as for any follow during a fan-out).
    """
    version = version if not start else None  # a list is of all the followers
    if version is not None:
        cached = follows.packed_followers(conn, author, version)
        if cached is not None:
            return cached, True, version
    edges = _follower_edges(conn, author, start, "", size)
    complete = len(edges) <= size * PLAN_AHEAD
    listed = _followers(edges)
    if version is not None and complete:
        follows.store_packed_followers(conn, author, version, listed)
        return listed, True, version
    return listed, complete, None


def _followers(edges: list[bytes]) -> bytes:
    """The followers' md5s, run together: the second half of their followedBy keys."""
    return b"".join(edge[keys.MD5_LEN :] for edge in edges)


def _taken_over(conn: happybase.Connection, twit_id: str, chunk: int, written: int) -> ChunkResult:
    log.info("fan-out of %s chunk %d: lease taken over, stopping", twit_id, chunk)
    if written:
        metrics.record_rows(conn, written)  # the author's row, written already
    return ChunkResult(written, None, False, taken_over=True)


def write_chunk(step: ChunkWrite) -> ChunkResult:
    """Write a chunk begun by :func:`start_chunk` (after queuing its ``next``),
    record it on the twit row, and finish the fan-out if it was the last."""
    key, after, written = step.key, step.after, step.written
    with connection() as conn:
        # The record, the count and the read of every chunk's record wait
        # on no answer but the rows': one round trip (ops.Pipeline).
        pipe = ops.Pipeline(conn)
        if not step.recorded:
            written += _write_stream_rows(conn, key, step.readers, step.cells)
            twits_service.record_chunk(pipe, key, step.job.chunk, step.job.start, after)
            metrics.record_rows(pipe, written)
        twits_service.ask_fanout_row(pipe, key)
        row = pipe.send()[-1]
        if fanplan.next_unfinished(rows.decode_progress(row), 0, "") is None:
            _finish(conn, key, row)
    return ChunkResult(written, bytes.fromhex(after) if after else None, not after)


def _finish(conn: happybase.Connection, key: bytes, row: dict[bytes, bytes] | None = None) -> None:
    """Every chunk is done: exactly one caller records it and clears the mark,
    the chunks' progress and the index entry. ``row``: the twit row's
    family t as the caller read it with every chunk done (None: read it).

    Two round trips, where it took seven: the mark swapped for FINISHED
    from the value in ``row`` (read again only if that was stale), then the
    count, the lag, the clearing and the index entry in one pipeline. The
    progress cells to clear are those in ``row``: a chunk run again later
    writes one of those, at the twit's time, under this delete's marker."""
    if row is None:
        row = twits_service.fanout_row(conn, key)
    if not pending.close(conn, key, row.get(pending.MARK)):
        return  # another chunk got there first
    chunks = rows.progress_columns(row)
    # Not below 0: a twit's time may run a few ms ahead in a burst (_clock).
    lag_ms = max(0, int(time.time() * 1000) - keys.split_twit_key(key).millis)
    pipe = ops.Pipeline(conn)
    metrics.record_fanout_done(pipe, lag_ms)
    twits_service.clear_fanout(pipe, key, chunks)
    pending.remove_from_index(pipe, key)
    pipe.send()
    log.info("fan-out of %s done: %d chunk(s), lag %d ms", keys.twit_id(key), len(chunks), lag_ms)


def _write_stream_rows(
    conn: happybase.Connection, key: bytes, readers: bytes, cells: dict[bytes, bytes]
) -> int:
    """The twit's row in each reader's stream (md5s, run together), at the
    twit's time: one mutateRows for the chunk, the same cells however often
    it runs; then the trims due."""
    millis = keys.split_twit_key(key).millis
    written = streams.write_rows(conn, readers, keys.stream_key_tail(key), cells, millis)
    _trim_streams(conn, _trims_due(key, readers))
    return written


def _trims_due(key: bytes, readers: bytes) -> list[bytes]:
    """The readers whose streams writing this twit also trims.

    Decided by the pair, so a replay trims the same streams: a reader is due
    when its md5's first four bytes plus those of the twit key's md5 are a
    multiple of STREAM_MAX, so each twit trims one STREAM_MAX-th of the
    readers, a different part for each twit. The readers are md5s already,
    so a chunk hashes once, not once per reader, and the pick is a compiled
    pass over the chunk's bytes (ops.spread_pick). On average a stream is
    trimmed once every TWITBASE_STREAM_MAX writes: a trim reads the stream's
    keys (HBase has no row offset to start from), so with these odds
    trimming costs about two key reads per row written, whatever the limit,
    and a scan for one write in STREAM_MAX. The price is a soft limit:
    between trims a stream grows past it, by STREAM_MAX rows on average. (A
    fixed rate, such as one write in 256, would make trimming's cost per row
    grow with the limit, since each trim reads the whole stream.)
    """
    limit: int = settings.TWITBASE_STREAM_MAX
    salt = int.from_bytes(hashlib.md5(key).digest()[:4], "big")
    return ops.spread_pick(readers, keys.MD5_LEN, salt, limit)


def trim_stream(reader: str) -> int:
    """Keep the newest TWITBASE_STREAM_MAX rows of a reader's stream; delete the rest.

    Deterministic: the rows kept are the first N in key order, newest first.
    """
    with connection() as conn:
        return _trim_streams(conn, [keys.user_hash(reader)])


def _trim_streams(conn: happybase.Connection, readers: list[bytes]) -> int:
    """:func:`trim_stream` on an open connection, for each of the readers'
    md5s (streams.trim); how many rows it deleted."""
    limit: int = settings.TWITBASE_STREAM_MAX
    return streams.trim(conn, readers, limit)


def backfill_stream(follower: str, followed: str) -> int:
    """Copy the followee's newest twits and reposts (up to BACKFILL of each)
    into the follower's stream."""
    with connection() as conn:
        generation = follows.generation(conn, follower, followed)
        if generation is None:
            return 0  # unfollowed meanwhile
        found = twits_service.newest_of(conn, followed, BACKFILL)
        # The followee's reposts too: their rows carry what a stream row of
        # the repost holds. One undone meanwhile has its rows deleted after
        # this read, by a marker later than the generation, which hides them.
        reposted = reactions.latest_own_rows(conn, reactions.REPOST, followed, BACKFILL)
        copies = [(keys.stream_key(follower, key), rows.encode_stream(t)) for key, t in found]
        for key, row in reposted:
            ms = keys.millis_from_rts(key[keys.MD5_LEN : keys.MD5_LEN + keys.RTS_LEN])
            twit_key = keys.twit_key_from_repost_key(key)
            copies.append((keys.repost_stream_key(follower, ms, followed, twit_key), row))
        streams.put_rows(conn, copies, generation)
    trim_stream(follower)
    return len(copies)


def remove_followee_from_stream(follower: str, followed: str) -> int:
    """Delete the followee's twits and reposts from the follower's stream,
    unless the follower follows them again by the time this runs (see
    streams.delete_authors_rows)."""
    if follows.is_following(follower, followed):
        return 0  # followed again meanwhile: the rows are wanted
    with connection() as conn:
        return streams.delete_authors_rows(conn, follower, followed)


def sweep_pending(older_than_s: float = 60.0) -> list[str]:
    """Queue again the fan-outs whose lease has expired (see pending.Lease:
    ``older_than_s`` after it was last renewed, doubled per earlier takeover).

    Reads the index of pending fan-outs and the marks of the twits it names,
    never the whole twits table; and the stream jobs' entries in it (see
    :func:`_sweep_stream_jobs`). Each fan-out queued is first given a new
    lease by checkAndPut, so of sweeps racing one wins, and the chunks still
    queued under the old lease stop when they run. Returns the twit ids
    queued. Index entries whose fan-out is over are dropped on the way.
    """
    now = pending.now_ms()
    taken: list[tuple[bytes, pending.Lease]] = []
    with connection() as conn:
        entries, jobs = pending.entries(conn)
        marks = pending.marks(conn, entries)
        for key in entries:
            raw = marks.get(key)
            if raw is None:
                # Finished, or deleted, or being posted right now (the index
                # entry is written first): dropped once surely not the last.
                if now - keys.split_twit_key(key).millis > pending.STALE_AFTER_S * 1000:
                    pending.remove_from_index(conn, key)
                continue
            if raw == pending.FINISHED:
                # The finishing chunk died before cleaning up: finish its job.
                twits_service.clear_fanout(conn, key, [])
                pending.remove_from_index(conn, key)
                continue
            lease = pending.take_if_expired(conn, key, raw, older_than_s, now)
            if lease is not None:
                taken.append((key, lease))
        requeued = _sweep_stream_jobs(conn, jobs, older_than_s, now)
    for key, lease in taken:
        dispatch(FanOutChunk(keys.twit_id(key), lease.owner))
    for job in requeued:
        dispatch(job)
    return [keys.twit_id(key) for key, _ in taken] + [job.twit_id for job in requeued]


def _sweep_stream_jobs(
    conn: happybase.Connection, entries: list[bytes], older_than_s: float, now: int
) -> list[StreamJob]:
    """The stream jobs (reposts', removals' fan-outs) whose lease has
    expired, each under a new lease taken by checkAndPut, to queue again
    from their first chunk (which resumes from their progress). An entry
    without an open lease is dropped: its job finished (its last chunk died
    before dropping it, or a late chunk recorded itself after), or cannot
    be read."""
    requeued: list[StreamJob] = []
    for entry, (raw, job) in pending.job_entries(conn, entries).items():
        if job is None or not pending.is_open(raw):
            pending.drop_job(conn, entry)
            continue
        assert raw is not None
        lease = pending.take_if_expired(conn, entry, raw, older_than_s, now)
        if lease is not None:
            requeued.append(dataclasses.replace(job, lease=lease.owner))
    return requeued


def requeue(twit_id: str) -> bool:
    """Queue a fan-out again now, taking its lease whoever holds it (a staff
    request). False if it is finished: there is nothing to queue."""
    key = keys.twit_key_from_id(twit_id)
    with connection() as conn:
        lease = pending.take(conn, key)
    if lease is None:
        return False
    dispatch(FanOutChunk(twit_id, lease.owner))
    return True


def reindex_pending() -> int:
    """Add to the pending index every twit that carries a pending mark, and
    return how many. A scan of the whole twits table, so not for routine use:
    run once after upgrading from a version without the index, whose pending
    twits the sweep would otherwise never see."""
    with connection() as conn:
        marked = twits_service.fanout_marked(conn)
        pending.add_all_to_index(conn, marked)
    return len(marked)


# -- reposts and removals: the same chunks -----------------------------------------------

StreamJob = pending.StreamJob


@dataclass(frozen=True)
class StreamChange:
    """What a repost or a removal does to each reader's stream: the row
    ``md5(reader) + tail`` gets ``cells`` at ``timestamp``, or, without
    cells, is deleted (markers at the time of deleting, so an add of the
    same row that comes late, at its earlier timestamp, stays hidden)."""

    author: str  # whose streams and followers' streams: the reposter, the twit's author
    tail: bytes
    cells: dict[bytes, bytes] | None = None
    timestamp: int = 0


@dataclass(frozen=True)
class StreamStep:
    """A chunk of a repost or a removal, read and planned, not yet written:
    the task queues ``successors``, then calls :func:`write_stream_chunk`."""

    successors: tuple[StreamJob, ...]
    change: StreamChange | None  # None: nothing to write (the repost was undone)
    readers: bytes  # the md5s of the streams this chunk changes, run together
    # The job's entry in the pending index, under whose lease the chunk runs
    # (b"": an untracked job, from before leases, or one that stops here).
    entry: bytes = b""
    chunk: int = 0
    start: str = ""
    after: str = ""  # the next chunk's start (hex); "": this is the last
    recorded: bool = False  # on record as done already: write nothing again


_STOP = StreamStep((), None, b"")


def _stream_change(conn: happybase.Connection, job: StreamJob) -> StreamChange | None:
    """What ``job`` does to a stream; None if nothing (a repost undone,
    superseded, or of a twit gone)."""
    key = keys.twit_key_from_id(job.twit_id)
    if isinstance(job, RemoveTwitFromStreams):
        return StreamChange(job.author, keys.stream_key_tail(key))
    tail = keys.repost_stream_key_tail(job.ms, job.reposter, key)
    if isinstance(job, RemoveRepostFromStreams):
        return StreamChange(job.reposter, tail)
    on, at, name = reactions.current(conn, reactions.REPOST, key, job.reposter)
    stored = twits_service.stored(conn, key) if on and at == job.ms else None
    if stored is None:
        return None
    cells = rows.encode_repost_stream(stored, job.twit_id, job.reposter, name)
    return StreamChange(job.reposter, tail, cells, job.ms)


def start_stream_chunk(job: StreamJob) -> StreamStep:
    """Begin one chunk of a repost's or a removal's fan-out, as
    :func:`start_chunk` a twit's: the same chunks of followers, read from
    the same place and planned by the same planner (fanplan.plan_chunk),
    under the same kind of lease (see pending.queue_stream_job), whose cell
    and progress live on the job's own entry in the pending index rather
    than on a twit row. The first chunk also changes the author's own
    stream and, reading ahead, plans the chunks after it, each carrying its
    followers; a repost by a large account is not fanned out (readers merge
    its reposts rows), its removal is, to every follower.

    A chunk whose lease was taken over, or whose job is finished, stops
    without writing; one on record as done writes nothing again but queues
    the next chunk not on record, so a fan-out queued again by the sweep
    resumes where it stopped. A job without a lease (queued before leases)
    runs untracked: every chunk's change is the same however often it runs.
    """
    span = FanOutChunk(job.twit_id, job.lease, job.start, job.chunk, job.stop, job.readers)
    with connection() as conn:
        entry, progress, mark = b"", {}, b""
        if job.lease:
            entry = pending.job_key(job)
            row = pending.job_row(conn, entry)
            held = _admit_stream(conn, entry, job, row.get(pending.JOB_MARK))
            if held is None:
                return _STOP
            mark, progress = held, rows.decode_progress(row)
            after = fanplan.recorded_after(progress, span)
            if after is not None:
                plan = fanplan.resume(span, progress, b"", after)
                return _stream_queue(conn, job, entry, mark, plan, None, b"", recorded=True)
        change = _stream_change(conn, job)
        if change is None:
            if entry:  # the repost was undone: the job has nothing left to do
                pending.finish_job(conn, entry, mark)
            return _STOP
        own = keys.user_hash(change.author) if job.chunk == 0 else b""
        if own and change.cells is not None and _unfanned(conn, change.author):
            plan = fanplan.Plan(b"", "", None, ())
            return _stream_queue(conn, job, entry, mark, plan, change, own, recorded=False)
        found = _chunk_followers(conn, change.author, span, None)
        size: int = settings.TWITBASE_FANOUT_CHUNK
        plan = fanplan.plan_chunk(span, progress, keys.user_hash(change.author), size, found)
        return _stream_queue(conn, job, entry, mark, plan, change, own, recorded=False)


def _admit_stream(
    conn: happybase.Connection, entry: bytes, job: StreamJob, mark: bytes | None
) -> bytes | None:
    """The job's lease cell, renewed if due, if the chunk still holds it;
    None if the chunk stops here (the job finished, or taken over)."""
    if fanplan.admit(True, pending.is_open(mark), job.lease) is not fanplan.Admit.HOLD:
        return None
    assert mark is not None
    renew_s = settings.TWITBASE_SWEEP_AFTER_S / 4
    if not pending.hold(conn, entry, job.lease, mark, renew_s):
        log.info("%s chunk %d: lease taken over, stopping", type(job).__name__, job.chunk)
        return None
    return mark


def _stream_queue(
    conn: happybase.Connection,
    job: StreamJob,
    entry: bytes,
    mark: bytes,
    plan: fanplan.Plan,
    change: StreamChange | None,
    own: bytes,
    recorded: bool,
) -> StreamStep:
    """As :func:`_queue` for a twit's chunk: the plan's successors, recorded
    as queued under the lease (an untracked job's planning chunk queues
    them as planned; its other chunks queue nothing, having no record of
    what was queued), and the chunk handed on to be written; nothing if the
    lease was lost."""
    successors: tuple[StreamJob, ...] = ()
    if plan.queue is not None:
        if entry:
            queue = pending.queue_chunk(conn, entry, job.lease, plan.queue, mark)
        else:  # untracked: only a planning chunk queues, what it planned
            queue = not (job.stop or job.readers)
        if queue is None:
            log.info("%s chunk %d: lease taken over, stopping", type(job).__name__, job.chunk)
            return _STOP
        if queue:
            successors = tuple(
                dataclasses.replace(
                    job, start=s.start, chunk=s.chunk, stop=s.stop, readers=s.readers
                )
                for s in plan.successors
            )
    readers = own + plan.readers
    return StreamStep(
        successors, change, readers, entry, job.chunk, job.start, plan.after, recorded
    )


def _unfanned(conn: happybase.Connection, author: str) -> bool:
    """Whether ``author``'s stream rows go to their own stream only."""
    return is_celebrity(conn, author) and not still_fanned_out(conn, author)


def write_stream_chunk(step: StreamStep) -> int:
    """Write a chunk begun by :func:`start_stream_chunk` (after queuing its
    successors): its rows, trimming the streams due as a twit's chunk does,
    or its deletes; then, under a lease, record it on the job's entry and
    finish the job if it was the last. Returns the rows written or deleted."""
    change, done = step.change, 0
    with connection() as conn:
        if change is not None and step.readers and not step.recorded:
            if change.cells is None:
                done = streams.delete_rows(conn, step.readers, change.tail)
            else:
                done = streams.write_rows(
                    conn, step.readers, change.tail, change.cells, change.timestamp
                )
                _trim_streams(conn, _trims_due(change.tail, step.readers))
        if step.entry:
            pipe = ops.Pipeline(conn)
            if not step.recorded:
                pending.record_job_chunk(pipe, step.entry, step.chunk, step.start, step.after)
            pending.ask_job_row(pipe, step.entry)
            row = pipe.send()[-1]
            if fanplan.next_unfinished(rows.decode_progress(row), 0, "") is None:
                pending.finish_job(conn, step.entry, row.get(pending.JOB_MARK))
    return done
