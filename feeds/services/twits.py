"""Twits: post, delete, look up, and a user's timeline."""

from __future__ import annotations

import time

import happybase

from feeds.errors import Forbidden, InvalidInput, NotFound
from feeds.jobs import FanOutChunk, RemoveTwitFromStreams, dispatch
from feeds.types import Page, Twit, User, from_millis
from storage import keys, rows
from storage.connection import connection, read_only, table_name
from storage.ops import apply_once, op_id

from . import accounts, pending
from ._paging import scan_page
from .ratelimit import check_post_rate

TEXT_MAX = 280
TWIT_ID_LEN = 2 * keys.TWIT_KEY_LEN  # a twit's id is its row key in hex
FANOUT = rows.FANOUT  # the fan-out's lease, present while the fan-out is unfinished


def clean_text(text: object) -> str:
    """1 to 280 characters after trimming; newlines allowed, other controls not."""
    if not isinstance(text, str):
        raise InvalidInput("text", "Write something to post.")
    text = text.replace("\r\n", "\n").strip()
    if not text:
        raise InvalidInput("text", "Write something to post.")
    if len(text) > TEXT_MAX:
        raise InvalidInput("text", f"A twit is at most {TEXT_MAX} characters; this is {len(text)}.")
    if accounts.has_control_chars(text, allow_newlines=True):
        raise InvalidInput("text", "A twit cannot contain control characters.")
    return text


def twit_of(key: bytes, stored: rows.TwitRow) -> Twit:
    """The twit whose row (or stream row, keyed by the twit's key) holds ``stored``."""
    return Twit(
        id=keys.twit_id(key),
        userid=stored.userid,
        name=stored.name,
        text=stored.text,
        created=from_millis(stored.created),
    )


def write_own_stream_row(
    conn: happybase.Connection, author: str, key: bytes, twit: rows.TwitRow
) -> None:
    """The author's own stream row, at the twit's time (idempotent)."""
    millis = keys.split_twit_key(key).millis
    conn.table(table_name("streams")).put(
        keys.stream_key(author, key), rows.encode_stream(twit), timestamp=millis
    )


def post_twit(author: User | str, text: object) -> Twit:
    """Store a twit by ``author`` (a profile loaded already, or a userid), count
    it, and queue its fan-out to followers' streams.

    The twit row is written first: it is the truth the streams are derived
    from. It carries the fan-out's lease (the pending mark) until the fan-out
    is done; the index of pending fan-outs names it (written just before, so
    the sweep can always find a pending twit).
    """
    author = accounts.loaded(author)
    body = clean_text(text)
    check_post_rate(author.userid)
    millis = int(time.time() * 1000)
    key = keys.twit_key(author.userid, millis, keys.new_suffix())
    stored = rows.TwitRow(author.userid, author.name, body, millis)
    # A new row: nobody else can hold its lease yet, so it is simply written
    # with the row. The fan-out task carries the lease's id.
    lease = pending.new_lease()
    with connection() as conn:
        pending.add_to_index(conn, key, author.userid)
        conn.table(table_name("twits")).put(
            key, {**rows.encode_twit(stored), FANOUT: lease.encode()}
        )
        # The author sees the twit at once; followers get it from the workers.
        write_own_stream_row(conn, author.userid, key, stored)
        count_once(conn, key, author.userid, counted=False)
    twit = twit_of(key, stored)
    dispatch(FanOutChunk(twit.id, lease.owner))
    return twit


def count_once(
    conn: happybase.Connection, key: bytes, author: str, counted: bool | None = None
) -> None:
    """Put the twit in its author's count, once, whoever gets here first: the
    post itself, or, if the post died after storing the twit (HBase gone
    mid-request), the twit's fan-out or its delete. They all apply the post's
    own operation id, so the count takes it once (storage.ops.apply_once).
    ``counted``: whether the twit row as the caller read it has the mark
    (None: read it here).
    """
    twits = conn.table(table_name("twits"))
    if counted is None:
        counted = rows.TWIT_COUNTED in twits.row(key, columns=[rows.TWIT_COUNTED])
    if counted:
        return
    users = table_name("users")
    apply_once(conn, users, keys.user_key(author), rows.COUNT_TWITS, 1, op_id(b"post", key))
    # At the twit's own time, as the fan-out's progress cells: a delete hides it.
    twits.put(key, {rows.TWIT_COUNTED: b"1"}, timestamp=keys.split_twit_key(key).millis)


def _key(twit_id: str) -> bytes:
    try:
        return keys.twit_key_from_id(twit_id)
    except keys.BadKey:
        raise NotFound(f"No twit {twit_id!r}.") from None


@read_only
def get_twit(twit_id: str) -> Twit:
    key = _key(twit_id)
    with connection() as conn:
        stored = rows.decode_twit(conn.table(table_name("twits")).row(key))
    if stored is None:
        raise NotFound(f"No twit {twit_id!r}.")
    return twit_of(key, stored)


def public_twit(twit_id: str) -> Twit:
    """:func:`get_twit` for pages everyone sees: Suspended while its author is."""
    twit = get_twit(twit_id)
    accounts.public_user(twit.userid)
    return twit


def own_twit(userid: str, twit_id: str) -> Twit:
    """The twit ``twit_id`` if ``userid`` wrote it: what a delete would take.
    NotFound if there is none; Forbidden if it is someone else's."""
    twit = get_twit(twit_id)
    if twit.userid.lower() != userid.lower():
        raise Forbidden("You can delete only your own twits.")
    return twit


def delete_twit(userid: str, twit_id: str) -> None:
    """Delete one's own twit, from the twits table and from every stream."""
    twit = own_twit(userid, twit_id)
    key = _key(twit_id)
    with connection() as conn:
        # A post that died after storing the twit never counted it: count it
        # first, or this -1 would take away a twit the count never had.
        count_once(conn, key, twit.userid)
        apply_once(
            conn,
            table_name("users"),
            keys.user_key(twit.userid),
            rows.COUNT_TWITS,
            -1,
            op_id(b"delete", key),
        )
        # Streams first: the cleanup finds the twit's author in the key, and
        # a retry after a crash still finds the twit row and finishes the job.
        dispatch(RemoveTwitFromStreams(twit.userid, twit_id))
        conn.table(table_name("twits")).delete(key)


def _timeline_twit(key: bytes, row: dict[bytes, bytes]) -> Twit | None:
    # A fan-out's bookkeeping cell written just after a delete can leave a
    # row with no text behind: that is no twit.
    stored = rows.decode_twit(row)
    return None if stored is None else twit_of(key, stored)


@read_only
def timeline(userid: str, cursor: str | None = None, limit: int = 20) -> Page[Twit]:
    """A user's own twits, newest first: one prefix scan of the twits table."""
    user = accounts.get_user(userid)
    with connection() as conn:
        return scan_page(
            conn.table(table_name("twits")),
            keys.user_hash(user.userid),
            keys.TWIT_KEY_LEN,
            cursor,
            limit,
            _timeline_twit,
            columns=[rows.TWIT],
        )
