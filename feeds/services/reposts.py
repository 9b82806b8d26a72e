"""A repost's stream rows: written into its reposter's readers' streams,
and deleted from them (the rest of a repost is services/reactions.py's)."""

from __future__ import annotations

import happybase

from storage import keys, ops, rows
from storage.connection import connection, table_name

from . import fanout

_state = rows.decode_like_state


def _readers(conn: happybase.Connection, reposter: str) -> list[bytes]:
    """The md5s of the streams a repost by ``reposter`` goes to: their own,
    and each follower's, unless they are too large to fan out (readers then
    merge their reposts rows)."""
    own = [keys.user_hash(reposter)]
    if fanout.is_celebrity(conn, reposter) and not fanout.still_fanned_out(conn, reposter):
        return own
    prefix = keys.user_hash(reposter)
    edges = conn.table(table_name("followedBy")).scan(
        row_prefix=prefix, filter=ops.KEYS_ONLY, batch_size=1000
    )
    return own + [edge[keys.MD5_LEN :] for edge, _ in edges]


def repost_to_streams(twit_id: str, reposter: str, ms: int) -> int:
    """Write the repost (``reposter``'s, made at ``ms``) into its readers'
    streams, at ``ms``: the same rows however often it runs. Nothing when
    the repost is undone, superseded or the twit is gone. Returns the rows
    written."""
    key = keys.twit_key_from_id(twit_id)
    with connection() as conn:
        state = conn.table(table_name("reposters")).row(keys.reposter_key(key, reposter))
        on, _, at, _ = _state(state.get(rows.REPOST_STATE))
        if not on or at != ms:
            return 0
        stored = rows.decode_twit(conn.table(table_name("twits")).row(key, columns=[rows.TWIT]))
        if stored is None:
            return 0
        name = state.get(rows.REPOSTER_NAME, reposter.encode()).decode()
        cells = rows.encode_repost_stream(stored, twit_id, reposter, name)
        readers = _readers(conn, reposter)
        with conn.table(table_name("streams")).batch(timestamp=ms, batch_size=1000) as b:
            for reader in readers:
                b.put(keys.repost_stream_key_for_hash(reader, ms, reposter, key), cells)
    return len(readers)


def remove_repost_from_streams(twit_id: str, reposter: str, ms: int) -> int:
    """Delete the repost's rows (``reposter``'s, made at ``ms``) from its
    readers' streams. The delete markers are at the time of deleting, so a
    fan-out of this repost that writes after it (at ``ms``) stays hidden.
    Returns the rows deleted."""
    key = keys.twit_key_from_id(twit_id)
    with connection() as conn:
        own = keys.user_hash(reposter)
        edges = conn.table(table_name("followedBy")).scan(
            row_prefix=own, filter=ops.KEYS_ONLY, batch_size=1000
        )
        readers = [own] + [edge[keys.MD5_LEN :] for edge, _ in edges]
        with conn.table(table_name("streams")).batch(batch_size=1000) as b:
            for reader in readers:
                b.delete(keys.repost_stream_key_for_hash(reader, ms, reposter, key))
    return len(readers)
