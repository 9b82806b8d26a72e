"""Likes: like/unlike a twit, idempotent, with an exact count on the twit row.

Hand-written on storage.ops (no library does HBase likes). A like's state is
one cell of its likers row, b"on:gen:ms:counted", moved by compare-and-set:

- a like or unlike that changes the state bumps ``gen`` and writes counted=0;
- then it adds +1/-1 to the twit's ``t:likes`` under an operation id made
  of (twit, liker, gen), and sets counted=1 (compare-and-set from the exact
  state it wrote).

Whoever finds counted=0 (a retry, a twin request, or the next like/unlike of
the same pair after a crash) finishes the pending count with the same
operation id. The counts go through storage.ops.MarkedChange, which counts
only while the state still reads counted=0 and holds the id in the count's
cell until the mark is written, so the count is applied once however late a
twin comes and however many other likes pass meanwhile.
Concurrent callers on one pair serialise on the state cell.
"""

from __future__ import annotations

import dataclasses
import time

import happybase

from feeds.services import notify
from feeds.services import twits as twits_service
from feeds.services._paging import scan_page
from feeds.types import Page, Twit
from storage import keys, rows
from storage.connection import connection, read_only, table_name
from storage.ops import MarkedChange, check_and_put, op_id

_state = rows.decode_like_state
_cell = rows.encode_like_state


def _finish(conn: happybase.Connection, twit: bytes, liker: str, cell: bytes) -> None:
    """Apply the count of the state in ``cell`` once, and mark it counted."""
    on, gen, ms, counted = _state(cell)
    if counted:
        return
    like_row = keys.like_key(liker, ms, twit)
    likes = conn.table(table_name("likes"))
    if on:
        likes.put(like_row, {rows.LIKE_MARK: b"1"})
    else:
        likes.delete(like_row)
    state_row = keys.liker_key(twit, liker)
    likers = conn.table(table_name("likers"))
    change = MarkedChange(
        conn, lambda: likers.row(state_row, columns=[rows.LIKE_STATE]).get(rows.LIKE_STATE) == cell
    )
    # Before the count and the mark, so a retry or the pair's next change
    # redoes it (same gen).
    notify.notify_like(conn, twit, liker, ms, on, gen, change)
    op = op_id(b"like", twit, liker.encode(), str(gen).encode())
    change.count(table_name("twits"), twit, rows.COUNT_LIKES, 1 if on else -1, op)
    check_and_put(
        conn,
        table_name("likers"),
        state_row,
        rows.LIKE_STATE,
        cell,
        rows.LIKE_STATE,
        _cell(on, gen, ms, True),
    )
    change.settle()


def set_like(userid: str, twit_id: str, on: bool) -> Twit:
    """Like (``on``) or unlike the twit as ``userid``; idempotent. Returns the twit."""
    twit = twits_service.public_twit(twit_id)
    key = keys.twit_key_from_id(twit.id)
    row = keys.liker_key(key, userid)
    with connection() as conn:
        likers = conn.table(table_name("likers"))
        while True:
            cell = likers.row(row, columns=[rows.LIKE_STATE]).get(rows.LIKE_STATE)
            was_on, gen, ms, counted = _state(cell)
            if not counted:
                # A change before this one did not finish counting: finish it first.
                _finish(conn, key, userid, cell or b"")
                continue
            if was_on == on:
                break
            # A new like gets a later ms than the pair's last one: the same key
            # would meet the unlike's delete (HBase masks a put at or before a
            # delete's timestamp).
            new_ms = max(int(time.time() * 1000), ms + 1) if on else ms
            new = _cell(on, gen + 1, new_ms, False)
            if check_and_put(
                conn, table_name("likers"), row, rows.LIKE_STATE, cell, rows.LIKE_STATE, new
            ):
                likers.put(row, {rows.LIKER_USERID: userid.encode()})
                _finish(conn, key, userid, new)
                break
    return dataclasses.replace(twits_service.get_twit(twit.id), liked=on)


def like(userid: str, twit_id: str) -> Twit:
    return set_like(userid, twit_id, True)


def unlike(userid: str, twit_id: str) -> Twit:
    return set_like(userid, twit_id, False)


def like_count(twit_id: str) -> int:
    with connection() as conn:
        key = keys.twit_key_from_id(twit_id)
        cell = conn.table(table_name("twits")).row(key, columns=[rows.COUNT_LIKES])
        return rows.decode_count(cell.get(rows.COUNT_LIKES))


def liked(userid: str, twit_ids: list[str]) -> set[str]:
    """Which of ``twit_ids`` ``userid`` likes: one multi-get."""
    if not twit_ids:
        return set()
    with connection() as conn:
        wanted = [keys.liker_key(keys.twit_key_from_id(t), userid) for t in twit_ids]
        found = conn.table(table_name("likers")).rows(wanted, columns=[rows.LIKE_STATE])
    on = {k[: keys.TWIT_KEY_LEN] for k, d in found if _state(d.get(rows.LIKE_STATE))[0]}
    return {keys.twit_id(k) for k in on}


def likers(twit_id: str) -> list[str]:
    """Who likes the twit (a prefix scan of its likers rows)."""
    key = keys.twit_key_from_id(twit_id)
    with connection() as conn:
        table = conn.table(table_name("likers"))
        return [
            d[rows.LIKER_USERID].decode()
            for _, d in table.scan(row_prefix=key)
            if _state(d.get(rows.LIKE_STATE))[0] and rows.LIKER_USERID in d
        ]


@read_only
def liked_page(userid: str, cursor: str | None = None, limit: int = 20) -> Page[str]:
    """The ids of the twits ``userid`` likes, newest like first: one prefix
    scan of their likes rows (one small cell each) and one multi-get of the pairs'
    likers rows, whose state (on, at the like row's ms) is the truth: a
    racing twin's late finish can leave a stale likes row, which is left
    out, so a page may hold fewer than ``limit``. A deleted twit's rows go
    with its delete (feeds.services.twitlists.user_likes drops one deleted
    meanwhile)."""
    with connection() as conn:
        page = scan_page(
            conn.table(table_name("likes")),
            keys.user_hash(userid),
            keys.MD5_LEN + keys.RTS_LEN + keys.TWIT_KEY_LEN,
            cursor,
            limit,
            _like_row,
        )
        if not page.items:
            return Page((), page.next_cursor)
        states = dict(
            conn.table(table_name("likers")).rows(
                [keys.liker_key(twit, userid) for twit, _ in page.items],
                columns=[rows.LIKE_STATE],
            )
        )
    kept = []
    for twit, ms in page.items:
        on, _gen, at, _counted = _state(
            states.get(keys.liker_key(twit, userid), {}).get(rows.LIKE_STATE)
        )
        if on and at == ms:
            kept.append(keys.twit_id(twit))
    return Page(tuple(kept), page.next_cursor)


def _like_row(key: bytes, _: dict[bytes, bytes]) -> tuple[bytes, int]:
    """A likes row's twit key and like time, from its key."""
    ms = keys.millis_from_rts(key[keys.MD5_LEN : keys.MD5_LEN + keys.RTS_LEN])
    return keys.twit_key_from_like_key(key), ms


# -- account deletion (account branch) -------------------------------------------------


def withdraw_like(userid: str, twit: bytes) -> None:
    """Take ``userid``'s like of the twit keyed ``twit`` back and delete the
    pair's likers row, without looking the twit up as a reader would (its
    author may be suspended, or itself being deleted): for an account's
    deletion. The count goes down once, as :func:`unlike` does it; a twit
    deleted already keeps no count to lower. Repeating it does nothing."""
    row = keys.liker_key(twit, userid)
    with connection() as conn:
        likers = conn.table(table_name("likers"))
        alive = rows.TEXT in conn.table(table_name("twits")).row(twit, columns=[rows.TEXT])
        while alive:
            cell = likers.row(row, columns=[rows.LIKE_STATE]).get(rows.LIKE_STATE)
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
                conn, table_name("likers"), row, rows.LIKE_STATE, cell, rows.LIKE_STATE, new
            ):
                _finish(conn, twit, userid, new)
                break
        likers.delete(row)
