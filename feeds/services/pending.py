"""Pending fan-outs: the lease each one runs under, and the index the sweep reads.

The lease. While a twit's fan-out is unfinished, its ``t:fanout`` cell holds
a lease, ``owner:since:takeovers:queued``: the id its chunk tasks carry, when
it was taken or last renewed (milliseconds), how often the sweep has taken it
over, and the highest chunk queued under it. Every change goes through
checkAndPut on that cell, comparing the whole value, so two sweeps, or a sweep
and a chunk renewing, cannot both win. A lease expires TWITBASE_SWEEP_AFTER_S
after ``since``, doubled for each takeover (up to 2**MAX_DOUBLINGS times): a
fan-out that waits behind a long queue is not queued again every minute, and
each copy queued meanwhile finds its lease taken over and stops at once.
``queued`` lets each chunk be queued once per lease: a chunk retried after an
error does not queue its successor again (and with it a second copy of the
rest of the chain). The finishing chunk swaps the lease for FINISHED, again by
checkAndPut, so exactly one chunk records the fan-out as done; then the cell
is deleted. A checkAndPut that expects a lease never writes to a twit that was
deleted or finished: the cell it compares is gone.

A chunk renews the lease when it starts and when it queues the next, so one
chunk must take less than the lease to write (500 rows take well under a
second). If one ever takes longer, the sweep may start a second copy; the
writes are idempotent, so that costs work, never correctness.

Written by hand, not taken from a lock library (redis-py's Lock, pottery's
Redlock): those keep the lock in Redis, the broker, which may be down or lose
its data while the twit row survives (posting works with the broker down, and
the sweep must find and lease those twits). The lease lives on the twit row,
beside the progress it guards, and needs only HBase's own checkAndPut. The
twits module owns that row: this module reads and swaps the cell through its
verbs (twits.fanout_mark, twits.swap_fanout_mark) and owns what the value means.

The index. ``pendingFanouts`` has one row per unfinished fan-out, keyed like
the twit. posting.post_twit writes it before the twit row (a crash in between leaves
an entry without a twit, which the sweep drops, never a pending twit the
sweep cannot find); the finishing chunk deletes it. The sweep, ``manage.py
sweepfanout`` and the console read this index and then get the twit rows it
names, so their cost follows the backlog, not the twits table.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace

import happybase

from feeds.jobs import RemoveRepostFromStreams, RemoveTwitFromStreams, RepostToStreams, dispatch
from storage import keys, ops, rows
from storage.connection import connection, table_name
from storage.ops import check_and_put

from . import twits as twits_service

MARK = rows.FANOUT  # on the twit row: the lease, present while the fan-out is unfinished
FINISHED = rows.LEASE_FINISHED  # the mark's value while the finishing chunk clears it
INDEX = "pendingFanouts"
JOB_MARK = rows.PENDING_LEASE  # on a stream job's entry: its lease, as MARK on a twit row
MAX_DOUBLINGS = 4
# An index entry whose twit has no mark is dropped by the sweep once the twit
# is this old: younger, posting.post_twit may not have written the twit row yet.
STALE_AFTER_S = 60


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True)
class Lease:
    owner: str
    since: int  # ms: taken or last renewed
    takeovers: int = 0
    queued: int = 0  # the highest chunk queued under this lease

    def encode(self) -> bytes:
        return rows.encode_lease(self.owner, self.since, self.takeovers, self.queued)

    def expires_at(self, after_s: float) -> float:
        return self.since + after_s * 1000 * float(2 ** min(self.takeovers, MAX_DOUBLINGS))

    def expired(self, after_s: float, now: int) -> bool:
        return now >= self.expires_at(after_s)


def decode(raw: bytes) -> Lease:
    """The lease in a mark. A mark from before leases ("pending") is a lease
    nobody holds, expired since 1970: anyone may take it."""
    return Lease(*rows.decode_lease(raw))


def new_lease(takeovers: int = 0) -> Lease:
    return Lease(os.urandom(8).hex(), now_ms(), takeovers)


def is_open(raw: bytes | None) -> bool:
    """Whether a mark stands for an unfinished fan-out."""
    return raw is not None and raw != FINISHED


def add_to_index(conn: happybase.Connection, twit: bytes, author: str) -> None:
    conn.table(table_name(INDEX)).put(keys.pending_fanout_key(twit), rows.encode_pending(author))


def add_all_to_index(conn: happybase.Connection, twits: list[tuple[bytes, str]]) -> None:
    """:func:`add_to_index` for each (twit key, author) of ``twits``, in batches."""
    with conn.table(table_name(INDEX)).batch(batch_size=1000) as b:
        for twit, author in twits:
            b.put(keys.pending_fanout_key(twit), rows.encode_pending(author))


def remove_from_index(out: happybase.Connection | ops.Pipeline, twit: bytes) -> None:
    with ops.pipelined(out) as pipe:
        pipe.delete(table_name(INDEX), keys.pending_fanout_key(twit))


def forget_user(conn: happybase.Connection, userid: str) -> int:
    """Drop the index entries of ``userid``'s twit fan-outs, for their
    account's deletion (the entry's key begins with the twit's key, which
    begins with md5(author)). Their stream jobs' entries stay: the removals
    of the deleted twits from readers' streams are such jobs, and each
    deletes its entry when its last chunk is done (dropped here, a chunk
    still running would write its progress into a row nobody ends).
    Idempotent; the entries dropped."""
    table = conn.table(table_name(INDEX))
    found = [
        key
        for key, _ in table.scan(row_prefix=keys.user_hash(userid), filter=ops.KEYS_ONLY)
        if not keys.is_pending_job_key(key)
    ]
    with table.batch() as b:
        for key in found:
            b.delete(key)
    return len(found)


def index_keys(conn: happybase.Connection, limit: int | None = None) -> list[bytes]:
    """Twit keys of the pending twit fan-outs, in key order, among the first
    ``limit`` entries (stream jobs' entries are left out: :func:`job_entries`)."""
    return [
        keys.twit_key_from_pending_key(key)
        for key in _entries(conn, limit)
        if not keys.is_pending_job_key(key)
    ]


def entries(conn: happybase.Connection) -> tuple[list[bytes], list[bytes]]:
    """Every entry of the index, in one scan: the twit keys of the pending
    twit fan-outs, and the entry keys of the stream jobs (:func:`job_entries`)."""
    found = _entries(conn)
    return (
        [keys.twit_key_from_pending_key(k) for k in found if not keys.is_pending_job_key(k)],
        [k for k in found if keys.is_pending_job_key(k)],
    )


def _entries(conn: happybase.Connection, limit: int | None = None) -> list[bytes]:
    return [
        key
        for key, _ in conn.table(table_name(INDEX)).scan(
            filter=ops.KEYS_ONLY,
            limit=limit,
            batch_size=min(limit + 1, 1000) if limit else 1000,
        )
    ]


def marks(conn: happybase.Connection, twits: Iterable[bytes]) -> dict[bytes, bytes]:
    """The mark of each twit that has one (gets, in batches)."""
    return twits_service.fanout_marks(conn, list(twits))


def read_mark(conn: happybase.Connection, twit: bytes) -> bytes | None:
    """The lease cell of a twit's fan-out (a twit key: on the twit row), or
    of a stream job (an entry key: on its entry, see :func:`queue_stream_job`)."""
    if keys.is_pending_job_key(twit):
        mark: bytes | None = (
            conn.table(table_name(INDEX)).row(twit, columns=[JOB_MARK]).get(JOB_MARK)
        )
        return mark
    return twits_service.fanout_mark(conn, twit)


def swap(conn: happybase.Connection, twit: bytes, expected: bytes, value: bytes) -> bool:
    """Replace the mark (see :func:`read_mark`) if it still holds ``expected``
    (checkAndPut)."""
    if keys.is_pending_job_key(twit):
        return check_and_put(conn, table_name(INDEX), twit, JOB_MARK, expected, JOB_MARK, value)
    return twits_service.swap_fanout_mark(conn, twit, expected, value)


def _held_by(
    conn: happybase.Connection, twit: bytes, owner: str, raw: bytes | None = None
) -> tuple[bytes, Lease] | None:
    """The open mark and its lease if ``owner`` holds it, else None. ``raw``
    is the mark as last read (None: read it now)."""
    if raw is None:
        raw = read_mark(conn, twit)
    if raw is None or raw == FINISHED:
        return None
    lease = decode(raw)
    return (raw, lease) if lease.owner == owner else None


def hold(
    conn: happybase.Connection, twit: bytes, owner: str, raw: bytes | None, renew_s: float
) -> bool:
    """Whether ``owner`` still holds the twit's lease, renewing it when it is
    older than ``renew_s``. ``raw`` is the mark as last read (None: read it).

    False when the lease was taken over, or the fan-out is finished. Chunks of
    one lease renew it concurrently: a lost checkAndPut reads again and asks
    whose the lease is now.
    """
    while True:
        held = _held_by(conn, twit, owner, raw)
        if held is None:
            return False
        raw, lease = held
        now = now_ms()
        if now - lease.since < renew_s * 1000:
            return True
        if swap(conn, twit, raw, replace(lease, since=now).encode()):
            return True
        raw = None


def queue_chunk(
    conn: happybase.Connection, twit: bytes, owner: str, chunk: int, hint: bytes | None = None
) -> bool | None:
    """Whether the caller should queue ``chunk`` of the fan-out under ``owner``'s
    lease: True once per chunk and lease (recorded, and the lease renewed),
    False if it was queued already, None if the lease is lost.

    ``hint`` is the mark as the caller last read it, which saves a read when
    it is still current (the checkAndPut then succeeds), or when it shows
    ``chunk`` queued under ``owner`` already (a chunk its planner queued):
    ``queued`` only grows under one owner, so the answer is False whatever
    happened since (had the lease been taken over since, False still queues
    nothing, and the chunk's own rows are the same under any lease). Any
    other answer is read again first.
    """
    while True:
        held = _held_by(conn, twit, owner, hint)
        if held is not None and held[1].queued >= chunk:
            return False
        if held is None:
            if hint is not None:
                hint = None  # stale, perhaps: ask the row
                continue
            return None
        raw, lease = held
        if swap(conn, twit, raw, replace(lease, since=now_ms(), queued=chunk).encode()):
            return True
        hint = None


def take(conn: happybase.Connection, twit: bytes) -> Lease | None:
    """Take the twit's lease whoever holds it (an explicit request to run the
    fan-out again); None if the fan-out is finished."""
    while True:
        raw = read_mark(conn, twit)
        if not is_open(raw):
            return None
        assert raw is not None
        lease = new_lease(decode(raw).takeovers)
        if swap(conn, twit, raw, lease.encode()):
            return lease


def take_if_expired(
    conn: happybase.Connection, twit: bytes, raw: bytes, after_s: float, now: int
) -> Lease | None:
    """The sweep's takeover: a new lease if the one in ``raw`` has expired and
    nobody changed it since it was read; else None."""
    if not is_open(raw):
        return None
    old = decode(raw)
    if not old.expired(after_s, now):
        return None
    lease = new_lease(old.takeovers + 1)
    return lease if swap(conn, twit, raw, lease.encode()) else None


def close(conn: happybase.Connection, twit: bytes, hint: bytes | None = None) -> bool:
    """Mark the fan-out finished. True for exactly one caller, whoever holds
    the lease: all chunks are done, so finishing is right for any of them.
    ``hint``: the mark as the caller last read it (None: read it), tried
    first; if it is stale the checkAndPut fails, and the mark is read."""
    raw = hint
    while True:
        if raw is None:
            raw = read_mark(conn, twit)
        if not is_open(raw):
            return False
        assert raw is not None
        if swap(conn, twit, raw, FINISHED):
            return True
        raw = None


# -- stream jobs: a repost's or a removal's fan-out ----------------------------------------

StreamJob = RepostToStreams | RemoveRepostFromStreams | RemoveTwitFromStreams
_STREAM_JOBS: dict[str, type[StreamJob]] = {
    kind.__name__: kind
    for kind in (RepostToStreams, RemoveRepostFromStreams, RemoveTwitFromStreams)
}


def first_chunk(job: StreamJob) -> StreamJob:
    """The job as queued first: its first chunk, under no lease."""
    return dataclasses.replace(job, start="", chunk=0, stop="", readers="", lease="")


def _encode_job(job: StreamJob) -> bytes:
    fields = {"kind": type(job).__name__, **dataclasses.asdict(first_chunk(job))}
    return json.dumps(fields, sort_keys=True).encode()


def decode_job(raw: bytes | None) -> StreamJob | None:
    """The job an entry holds (its first chunk); None if unreadable."""
    try:
        fields = json.loads(raw or b"")
        return _STREAM_JOBS[fields.pop("kind")](**fields)
    except (ValueError, KeyError, TypeError):
        return None


def job_key(job: StreamJob) -> bytes:
    """The job's entry in the index: the same for each of its chunks, and for
    the same job queued again (a delete retried)."""
    digest = hashlib.md5(_encode_job(job)).digest()
    return keys.pending_job_key(keys.twit_key_from_id(job.twit_id), digest)


def queue_stream_job(job: StreamJob) -> None:
    """Queue a repost's or a removal's fan-out as a twit's is queued: first
    its entry in the index, holding the job and a new lease, then its first
    chunk under that lease. Its chunks renew the lease and record their
    progress on the entry; the last one deletes it. A fan-out whose chunks
    died with their worker (or were lost with the broker's data) is queued
    again by the sweep once its lease expires, and resumes where it stopped.
    Queuing the same job again takes over the lease: the copy in flight stops."""
    first, lease = first_chunk(job), new_lease()
    with connection() as conn:
        conn.table(table_name(INDEX)).put(
            job_key(first), {rows.PENDING_JOB: _encode_job(first), JOB_MARK: lease.encode()}
        )
    dispatch(dataclasses.replace(first, lease=lease.owner))


def job_row(conn: happybase.Connection, entry: bytes) -> dict[bytes, bytes]:
    """A stream job's entry: its lease (JOB_MARK) and its finished chunks
    (rows.decode_progress)."""
    found: dict[bytes, bytes] = conn.table(table_name(INDEX)).row(entry)
    return found


def ask_job_row(pipe: ops.Pipeline, entry: bytes) -> None:
    """:func:`job_row`, asked in ``pipe``: the answer is the pipeline's."""
    pipe.row(table_name(INDEX), entry)


def record_job_chunk(pipe: ops.Pipeline, entry: bytes, chunk: int, start: str, after: str) -> None:
    """Record chunk ``chunk`` of a stream job as done, from ``start`` to
    ``after`` (hex; "": the end). Written after the job finished (a late
    copy), it leaves a row without a lease, which the sweep drops."""
    cell = {rows.progress_column(chunk, rows.JOB_PROGRESS): rows.encode_progress(start, after)}
    pipe.put(table_name(INDEX), entry, cell)


def finish_job(conn: happybase.Connection, entry: bytes, hint: bytes | None) -> bool:
    """Every chunk of the job is done: exactly one caller closes its lease
    (see :func:`close`) and deletes its entry; True for that one."""
    if not close(conn, entry, hint):
        return False
    drop_job(conn, entry)
    return True


def drop_job(conn: happybase.Connection, entry: bytes) -> None:
    conn.table(table_name(INDEX)).delete(entry)


def job_entries(
    conn: happybase.Connection, wanted: list[bytes]
) -> dict[bytes, tuple[bytes | None, StreamJob | None]]:
    """The stream jobs' entries ``wanted`` (see :func:`entries`): each one's
    lease cell and job, by entry key (gets, in batches)."""
    found: dict[bytes, tuple[bytes | None, StreamJob | None]] = {}
    table = conn.table(table_name(INDEX))
    for i in range(0, len(wanted), 1000):
        got = dict(table.rows(wanted[i : i + 1000], columns=[JOB_MARK, rows.PENDING_JOB]))
        for key in wanted[i : i + 1000]:
            row = got.get(key, {})
            found[key] = (row.get(JOB_MARK), decode_job(row.get(rows.PENDING_JOB)))
    return found
