"""The derived rows: streams kept in step with twits and follows.

These functions are what HBase coprocessors would do, run as background
work. Each takes ids, reads fresh data, and is idempotent: stream row keys
are computed from the twit's key, and stream cells carry a deterministic
timestamp, so running one twice leaves the same rows.

Timestamps: a followee's twit in a reader's stream is written at the follow
edge's generation (see follows._claim_edge), so unfollow removes exactly the
rows of the generation it ends. A reader's own twits are written at the
twit's time.
"""

from __future__ import annotations

import happybase

from storage import keys
from storage.connection import connection, table_name

from . import twits as twits_service

BACKFILL = 100
FANOUT_CHUNK = 500


def _stream_cells(row: dict[bytes, bytes]) -> dict[bytes, bytes]:
    return {
        b"s:userid": row[twits_service.AUTHOR],
        b"s:name": row[twits_service.NAME],
        b"s:text": row[twits_service.TEXT],
        b"s:created": row[twits_service.CREATED],
    }


def write_own_stream_row(
    conn: happybase.Connection, author: str, key: bytes, row: dict[bytes, bytes]
) -> None:
    millis = keys.split_twit_key(key).millis
    conn.table(table_name("streams")).put(
        keys.stream_key(author, key), _stream_cells(row), timestamp=millis
    )


def fan_out_twit(twit_id: str) -> int:
    """Write the twit into its author's and every follower's stream; clear the mark.

    Returns the number of stream rows written. A twit deleted meanwhile is
    skipped.
    """
    key = keys.twit_key_from_id(twit_id)
    written = 0
    with connection() as conn:
        row = conn.table(table_name("twits")).row(key)
        if twits_service.TEXT not in row:
            return 0
        author = row[twits_service.AUTHOR].decode()
        cells = _stream_cells(row)
        write_own_stream_row(conn, author, key, row)
        written += 1
        streams = conn.table(table_name("streams"))
        prefix = keys.user_hash(author)
        batch: list[tuple[bytes, int]] = []
        for _, data in conn.table(table_name("followedBy")).scan(
            row_start=prefix,
            row_stop=keys.prefix_stop(prefix),
            columns=[b"f:userid"],
            include_timestamp=True,
            batch_size=FANOUT_CHUNK,
        ):
            follower, generation = data[b"f:userid"]
            batch.append((keys.stream_key(follower.decode(), key), generation))
            if len(batch) >= FANOUT_CHUNK:
                written += _write_stream_rows(streams, batch, cells)
                batch = []
        written += _write_stream_rows(streams, batch, cells)
        conn.table(table_name("twits")).delete(key, columns=[twits_service.FANOUT])
    return written


def _write_stream_rows(
    streams: happybase.Table, rows: list[tuple[bytes, int]], cells: dict[bytes, bytes]
) -> int:
    # One batch per generation: happybase batches carry one timestamp.
    by_ts: dict[int, list[bytes]] = {}
    for stream_row, ts in rows:
        by_ts.setdefault(ts, []).append(stream_row)
    for ts, stream_rows in by_ts.items():
        with streams.batch(timestamp=ts) as b:
            for stream_row in stream_rows:
                b.put(stream_row, cells)
    return len(rows)


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
                    b.put(keys.stream_key(follower, key), _stream_cells(row))
    return len(rows)


def remove_followee_from_stream(follower: str, followed: str, generation: str) -> int:
    """Delete the followee's twits, written up to ``generation``, from the stream."""
    author = keys.user_hash(followed)
    prefix = keys.user_hash(follower)
    removed = 0
    with connection() as conn:
        streams = conn.table(table_name("streams"))
        doomed = [
            row
            for row, _ in streams.scan(
                row_start=prefix,
                row_stop=keys.prefix_stop(prefix),
                filter="KeyOnlyFilter() AND FirstKeyOnlyFilter()",
                batch_size=1000,
            )
            if keys.twit_key_from_stream_key(row)[: keys.MD5_LEN] == author
        ]
        with streams.batch(timestamp=int(generation)) as b:
            for row in doomed:
                b.delete(row)
                removed += 1
    return removed


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
                batch_size=FANOUT_CHUNK,
            )
        ]
        with streams.batch(batch_size=FANOUT_CHUNK) as b:
            for reader in readers:
                b.delete(keys.stream_key(reader, key))
    return len(readers)
