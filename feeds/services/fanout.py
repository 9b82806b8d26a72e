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

Large accounts: a twit whose author has more followers than
TWITBASE_CELEBRITY_THRESHOLD is not fanned out; the author is recorded in the
celebrities table and readers merge such followees' twits when they read
(streams.home_stream).
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass

import happybase
from django.conf import settings

from storage import keys
from storage.connection import connection, table_name
from storage.ops import apply_once, decode_count

from . import accounts, metrics
from . import twits as twits_service
from .queue import dispatch

log = logging.getLogger(__name__)

BACKFILL = 100
# Each stream write trims its reader with these odds, chosen by a hash: a
# trim reads up to TWITBASE_STREAM_MAX keys, so it is paid once in a while.
TRIM_ONE_IN = 256
CHUNKS = b"t:chunks"  # set by the last chunk: how many chunks this fan-out has
DONE = b"t:done"  # retry-proof count of chunks finished


def is_celebrity(conn: happybase.Connection, userid: str) -> bool:
    row = conn.table(table_name("users")).row(
        keys.user_key(userid), columns=[accounts.COUNT_FOLLOWERS]
    )
    return decode_count(row.get(accounts.COUNT_FOLLOWERS)) > settings.TWITBASE_CELEBRITY_THRESHOLD


@dataclass(frozen=True)
class ChunkResult:
    rows: int
    next_start: bytes | None
    finished: bool


def fan_out_twit(twit_id: str, start: str = "", chunk: int = 0) -> ChunkResult:
    """Write one chunk of a twit's fan-out: up to CHUNK followers from ``start``.

    The first chunk also writes the author's own stream row. If followers
    remain, the next chunk is queued *before* this one writes, so chunks of a
    large fan-out run in parallel on free workers and one account never holds
    a worker for long. The chunk that completes the set clears the twit's
    pending mark and records the fan-out's lag.
    """
    key = keys.twit_key_from_id(twit_id)
    size = settings.TWITBASE_FANOUT_CHUNK
    with connection() as conn:
        twits = conn.table(table_name("twits"))
        row = twits.row(key)
        if twits_service.TEXT not in row:
            return ChunkResult(0, None, True)  # deleted meanwhile: nothing to do
        author = row[twits_service.AUTHOR].decode()
        cells = twits_service.stream_cells(row)
        written = 0
        if chunk == 0:
            twits_service.write_own_stream_row(conn, author, key, row)
            written += 1
            if is_celebrity(conn, author):
                conn.table(table_name("celebrities")).put(
                    keys.user_key(author), {b"c:userid": author.encode()}
                )
                _finish(conn, key, row, chunks=1, chunk=0, rows=written)
                return ChunkResult(written, None, True)
        prefix = keys.user_hash(author)
        begin = bytes.fromhex(start) if start else prefix
        # The follower's md5 is the second half of the followedBy key: keys
        # are all a fan-out needs, so the scan carries no values.
        edges = [
            edge
            for edge, _ in conn.table(table_name("followedBy")).scan(
                row_start=begin,
                row_stop=keys.prefix_stop(prefix),
                filter="KeyOnlyFilter() AND FirstKeyOnlyFilter()",
                limit=size + 1,
                batch_size=size + 1,
            )
        ]
        next_start = edges[size] if len(edges) > size else None
        if next_start is not None:
            dispatch("fan_out_twit", twit_id=twit_id, start=next_start.hex(), chunk=chunk + 1)
        else:
            twits.put(key, {CHUNKS: str(chunk + 1).encode()})
        readers = [edge[keys.MD5_LEN :] for edge in edges[:size]]
        written += _write_stream_rows(conn, key, readers, cells)
        _finish(conn, key, twits.row(key, columns=[CHUNKS]), chunk=chunk, rows=written)
    return ChunkResult(written, next_start, next_start is None)


def _finish(
    conn: happybase.Connection,
    key: bytes,
    row: dict[bytes, bytes],
    *,
    chunk: int,
    rows: int,
    chunks: int | None = None,
) -> None:
    """Count this chunk done (once, however often it runs); the last clears the mark."""
    twits = table_name("twits")
    done = apply_once(conn, twits, key, DONE, 1, hashlib.md5(key + b"%d" % chunk).digest())
    total = chunks if chunks is not None else int(row.get(CHUNKS, b"0") or 0)
    metrics.record_rows(conn, rows)
    if total and done >= total:
        t = conn.table(twits)
        t.delete(key, columns=[twits_service.FANOUT])
        lag_ms = int(time.time() * 1000) - keys.split_twit_key(key).millis
        metrics.record_fanout_done(conn, lag_ms)
        log.info("fan-out of %s done: %d chunk(s), lag %d ms", keys.twit_id(key), total, lag_ms)


def _write_stream_rows(
    conn: happybase.Connection, key: bytes, readers: list[bytes], cells: dict[bytes, bytes]
) -> int:
    """The twit's row in each reader's stream (md5s), at the twit's time: one
    mutateRows for the chunk, the same cells however often it runs."""
    millis = keys.split_twit_key(key).millis
    with conn.table(table_name("streams")).batch(timestamp=millis) as b:
        for reader in readers:
            b.put(keys.stream_key_for_hash(reader, key), cells)
    for reader in readers:
        if _trims(key, reader):
            _trim(conn, reader)
    return len(readers)


def _trims(key: bytes, reader: bytes) -> bool:
    """Whether writing this twit to this reader also trims the reader's stream.

    Decided by a hash of the pair, so a replay trims the same streams, and on
    average a stream is trimmed once every TRIM_ONE_IN writes.
    """
    return hashlib.md5(key + reader).digest()[0] % TRIM_ONE_IN == 0


def trim_stream(reader: str) -> int:
    """Keep the newest TWITBASE_STREAM_MAX rows of a reader's stream; delete the rest.

    Deterministic: the rows kept are the first N in key order, newest first.
    """
    with connection() as conn:
        return _trim(conn, keys.user_hash(reader))


def _trim(conn: happybase.Connection, reader: bytes) -> int:
    limit = settings.TWITBASE_STREAM_MAX
    streams = conn.table(table_name("streams"))
    doomed = [
        row
        for i, (row, _) in enumerate(
            streams.scan(
                row_start=reader,
                row_stop=keys.prefix_stop(reader),
                filter="KeyOnlyFilter() AND FirstKeyOnlyFilter()",
                batch_size=1000,
            )
        )
        if i >= limit
    ]
    with streams.batch(batch_size=1000) as b:
        for row in doomed:
            b.delete(row)
    return len(doomed)


def backfill_stream(follower: str, followed: str) -> int:
    """Copy the followee's newest twits (up to BACKFILL) into the follower's stream."""
    with connection() as conn:
        edge = conn.table(table_name("follows")).row(
            keys.follows_key(follower, followed), columns=[b"f:op"], include_timestamp=True
        )
        if b"f:op" not in edge:
            return 0  # unfollowed meanwhile
        generation = edge[b"f:op"][1]
        prefix = keys.user_hash(followed)
        rows = list(
            conn.table(table_name("twits")).scan(
                row_start=prefix,
                row_stop=keys.prefix_stop(prefix),
                columns=[b"t"],
                limit=BACKFILL,
                batch_size=BACKFILL,
            )
        )
        streams = conn.table(table_name("streams"))
        with streams.batch(timestamp=generation) as b:
            for key, row in rows:
                if twits_service.TEXT in row:
                    b.put(keys.stream_key(follower, key), twits_service.stream_cells(row))
    trim_stream(follower)
    return len(rows)


def remove_followee_from_stream(follower: str, followed: str) -> int:
    """Delete the followee's twits from the follower's stream, unless the
    follower follows them again by the time this runs.

    Each row is deleted at its own timestamp: the marker hides that row as
    written, never the same row written again later by a new follow's backfill.
    """
    with connection() as conn:
        edge = conn.table(table_name("follows")).row(
            keys.follows_key(follower, followed), columns=[b"f:op"]
        )
        if b"f:op" in edge:
            return 0  # followed again meanwhile: the rows are wanted
        author = keys.user_hash(followed)
        prefix = keys.user_hash(follower)
        streams = conn.table(table_name("streams"))
        by_ts: dict[int, list[bytes]] = {}
        for row, data in streams.scan(
            row_start=prefix,
            row_stop=keys.prefix_stop(prefix),
            filter="KeyOnlyFilter() AND FirstKeyOnlyFilter()",
            include_timestamp=True,
            batch_size=1000,
        ):
            if keys.twit_key_from_stream_key(row)[: keys.MD5_LEN] == author:
                ((_, ts),) = data.values()
                by_ts.setdefault(ts, []).append(row)
        for ts, rows in by_ts.items():
            with streams.batch(timestamp=ts) as b:
                for row in rows:
                    b.delete(row)
    return sum(len(rows) for rows in by_ts.values())


def remove_twit_from_streams(author: str, twit_id: str) -> int:
    """Delete a twit's row from its author's and every follower's stream."""
    key = keys.twit_key_from_id(twit_id)
    prefix = keys.user_hash(author)
    with connection() as conn:
        streams = conn.table(table_name("streams"))
        readers = [author] + [
            data[b"f:userid"].decode()
            for _, data in conn.table(table_name("followedBy")).scan(
                row_start=prefix,
                row_stop=keys.prefix_stop(prefix),
                columns=[b"f:userid"],
                batch_size=1000,
            )
        ]
        with streams.batch(batch_size=1000) as b:
            for reader in readers:
                b.delete(keys.stream_key(reader, key))
    return len(readers)


def sweep_pending(older_than_s: float = 60.0) -> list[str]:
    """Queue again the fan-outs still marked pending after ``older_than_s``.

    Returns the twit ids queued. Safe to run any time, as often as wanted:
    fan-out is idempotent, and a finished fan-out has no mark.
    """
    cutoff = int((time.time() - older_than_s) * 1000)
    queued = []
    with connection() as conn:
        for key, data in conn.table(table_name("twits")).scan(
            columns=[twits_service.FANOUT], include_timestamp=True, batch_size=1000
        ):
            _, marked_at = data[twits_service.FANOUT]
            if marked_at <= cutoff:
                queued.append(keys.twit_id(key))
    for twit_id in queued:
        dispatch("fan_out_twit", twit_id=twit_id)
    return queued
