"""Reposts: repost/un-repost a twit, idempotent, with an exact count on the
twit row, and the repost carried to the reposter's followers' streams.

The design is the likes' (see services/likes.py): a repost's state is one
cell of its reposters row, b"on:gen:ms:counted", moved by compare-and-set;
the change that moves it bumps ``gen`` and writes counted=0, then applies
+1/-1 to the twit's ``t:reposts`` under an operation id made of (twit,
reposter, gen), through storage.ops.MarkedChange, and sets counted=1.
Whoever finds counted=0 (a retry, or the pair's next change after a crash)
finishes the pending step with the same operation id, and it counts once.

Finishing a repost also writes the reposter's ``reposts`` row and queues the
stream upkeep: :func:`repost_to_streams` writes a row at the repost's time
into the reposter's own stream and each follower's (keys.repost_stream_key),
so the repost shows as new, "reposted by" its reposter; an un-repost queues
:func:`remove_repost_from_streams`. A new repost gets a later ms than the
pair's last one, so its rows have keys of their own, and a removal's delete
markers (at the time of deleting) hide the undone repost's rows even when a
late fan-out writes them after the removal ran.

A reposter too large to fan out (fanout.is_celebrity) writes only their own
row: readers merge that account's ``reposts`` rows when they read, as they
merge its twits (streams.home_stream).

Reposting one's own twit is refused (Forbidden); un-reposting it is a no-op.
"""

from __future__ import annotations

import dataclasses
import time

import happybase

from feeds.errors import Forbidden
from feeds.jobs import RemoveRepostFromStreams, RepostToStreams, dispatch
from feeds.types import Twit
from storage import keys, ops, rows
from storage.connection import connection, read_only, table_name
from storage.ops import MarkedChange, check_and_put, op_id

from . import accounts, fanout, notify
from . import likes as likes_service
from . import twits as twits_service

_state = rows.decode_like_state
_cell = rows.encode_like_state


def _finish(conn: happybase.Connection, twit: bytes, reposter: str, cell: bytes) -> None:
    """Apply the state in ``cell`` once: the reposter's reposts row, the
    stream upkeep (queued; idempotent), the count; then mark it counted."""
    on, gen, ms, counted = _state(cell)
    if counted:
        return
    twit_id = keys.twit_id(twit)
    repost_row = keys.repost_key(reposter, ms, twit)
    reposts = conn.table(table_name("reposts"))
    if on:
        stored = rows.decode_twit(conn.table(table_name("twits")).row(twit, columns=[rows.TWIT]))
        name = conn.table(table_name("reposters")).row(
            keys.reposter_key(twit, reposter), columns=[rows.REPOSTER_NAME]
        )
        if stored is not None:
            by = name.get(rows.REPOSTER_NAME, reposter.encode()).decode()
            reposts.put(repost_row, rows.encode_repost_stream(stored, twit_id, reposter, by))
        dispatch(RepostToStreams(twit_id, reposter, ms))
    else:
        reposts.delete(repost_row)
        dispatch(RemoveRepostFromStreams(twit_id, reposter, ms))
    state_row = keys.reposter_key(twit, reposter)
    reposters = conn.table(table_name("reposters"))
    # The side effects above take a while (the upkeep may run here): by now
    # another caller may have finished this state and many changes may have
    # followed. The counts are the change's (storage.ops.MarkedChange): a
    # twin that finished it already leaves nothing for this one to count.
    change = MarkedChange(
        conn,
        lambda: (
            reposters.row(state_row, columns=[rows.REPOST_STATE]).get(rows.REPOST_STATE) == cell
        ),
    )
    # Before the count and its mark, as likes do: a retry after a crash
    # notifies again with the same generation, which counts once.
    if on:
        notify.notify_repost(reposter, twit_id, gen, ms, change)
    else:
        notify.unnotify_repost(reposter, twit_id, gen, change)
    op = op_id(b"repost", twit, reposter.encode(), str(gen).encode())
    change.count(table_name("twits"), twit, rows.COUNT_REPOSTS, 1 if on else -1, op)
    check_and_put(
        conn,
        table_name("reposters"),
        state_row,
        rows.REPOST_STATE,
        cell,
        rows.REPOST_STATE,
        _cell(on, gen, ms, True),
    )
    change.settle()


def set_repost(userid: str, twit_id: str, on: bool) -> Twit:
    """Repost (``on``) or un-repost the twit as ``userid``; idempotent (a
    second repost, or un-repost, changes nothing). Returns the twit, with
    the reader's ``liked`` and ``reposted``. Forbidden: reposting one's own."""
    twit = twits_service.public_twit(twit_id)
    if twit.userid.lower() == userid.lower():
        if on:
            raise Forbidden("You cannot repost your own twit.")
        return _flagged(userid, twit, False)
    reposter = accounts.get_user(userid)
    key = keys.twit_key_from_id(twit.id)
    row = keys.reposter_key(key, reposter.userid)
    with connection() as conn:
        reposters = conn.table(table_name("reposters"))
        while True:
            cell = reposters.row(row, columns=[rows.REPOST_STATE]).get(rows.REPOST_STATE)
            was_on, gen, ms, counted = _state(cell)
            if not counted:
                # A change before this one did not finish: finish it first.
                _finish(conn, key, reposter.userid, cell or b"")
                continue
            if was_on == on:
                break
            # A new repost gets a later ms than the pair's last one: its rows
            # then have keys of their own, which no earlier removal's delete
            # marker can hide.
            new_ms = max(int(time.time() * 1000), ms + 1) if on else ms
            new = _cell(on, gen + 1, new_ms, False)
            # The userid and name first: whoever finishes the state reads them.
            reposters.put(
                row,
                {
                    rows.REPOSTER_USERID: reposter.userid.encode(),
                    rows.REPOSTER_NAME: reposter.name.encode(),
                },
            )
            if check_and_put(
                conn, table_name("reposters"), row, rows.REPOST_STATE, cell, rows.REPOST_STATE, new
            ):
                _finish(conn, key, reposter.userid, new)
                break
    return _flagged(reposter.userid, twits_service.get_twit(twit.id), on)


def _flagged(userid: str, twit: Twit, on: bool) -> Twit:
    """``twit`` as ``userid`` now sees it: ``reposted`` as this change left
    it, ``liked`` looked up."""
    return dataclasses.replace(
        twit, liked=twit.id in likes_service.liked(userid, [twit.id]), reposted=on
    )


def withdraw_repost(userid: str, twit: bytes) -> None:
    """Take ``userid``'s repost of the twit keyed ``twit`` back and delete the
    pair's reposters row, without looking the twit up as a reader would (its
    author may be suspended or being deleted): for an account's deletion.
    The count goes down once, and the repost leaves the streams, as
    :func:`unrepost` does it; a twit deleted already took its reposts with
    it. Repeating it does nothing."""
    row = keys.reposter_key(twit, userid)
    with connection() as conn:
        reposters = conn.table(table_name("reposters"))
        alive = rows.TEXT in conn.table(table_name("twits")).row(twit, columns=[rows.TEXT])
        while alive:
            cell = reposters.row(row, columns=[rows.REPOST_STATE]).get(rows.REPOST_STATE)
            if cell is None:
                break
            on, gen, ms, counted = _state(cell)
            if not counted:
                _finish(conn, twit, userid, cell)
                continue
            if not on:
                break
            new = _cell(False, gen + 1, ms, False)
            if check_and_put(
                conn, table_name("reposters"), row, rows.REPOST_STATE, cell, rows.REPOST_STATE, new
            ):
                _finish(conn, twit, userid, new)
                break
        reposters.delete(row)


def repost(userid: str, twit_id: str) -> Twit:
    return set_repost(userid, twit_id, True)


def unrepost(userid: str, twit_id: str) -> Twit:
    return set_repost(userid, twit_id, False)


def repost_count(twit_id: str) -> int:
    with connection() as conn:
        key = keys.twit_key_from_id(twit_id)
        cell = conn.table(table_name("twits")).row(key, columns=[rows.COUNT_REPOSTS])
        return rows.decode_count(cell.get(rows.COUNT_REPOSTS))


@read_only
def reposted(userid: str, twit_ids: list[str]) -> set[str]:
    """Which of ``twit_ids`` ``userid`` has reposted: one multi-get."""
    if not twit_ids:
        return set()
    with connection() as conn:
        wanted = [keys.reposter_key(keys.twit_key_from_id(t), userid) for t in twit_ids]
        found = conn.table(table_name("reposters")).rows(wanted, columns=[rows.REPOST_STATE])
    on = {k[: keys.TWIT_KEY_LEN] for k, d in found if _state(d.get(rows.REPOST_STATE))[0]}
    return {keys.twit_id(k) for k in on}


def reposters(twit_id: str) -> list[str]:
    """Who has reposted the twit (a prefix scan of its reposters rows)."""
    key = keys.twit_key_from_id(twit_id)
    with connection() as conn:
        table = conn.table(table_name("reposters"))
        return [
            d[rows.REPOSTER_USERID].decode()
            for _, d in table.scan(row_prefix=key)
            if _state(d.get(rows.REPOST_STATE))[0] and rows.REPOSTER_USERID in d
        ]


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
