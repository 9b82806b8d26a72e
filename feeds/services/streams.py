"""The home stream: the reader's own twits and those of everyone they follow."""

from __future__ import annotations

import threading
import time
from contextlib import closing
from dataclasses import dataclass

import happybase
from django.conf import settings

from feeds.errors import InvalidInput
from feeds.types import Page, Twit, User, from_millis, new_twit
from storage import keys, ops, rows
from storage.connection import connection, read_only, table_name
from storage.schema import SCHEMA

from . import accounts, follows, reactions
from . import twits as twits_service
from ._kept import Kept
from ._load import LoadRow
from ._paging import check_limit, scan_page, start_row
from .hydration import hydrate
from .twits import twit_of


def _stream_twit(key: bytes, row: dict[bytes, bytes]) -> Twit | None:
    packed = rows.packed_stream_item(row)
    if packed is not None:
        # Nearly every row: its Twit made in one step, as a page makes one
        # per row, without the TwitRow that twit_of goes by.
        userid, name, text, created, reply_to, reply_userid, repost_of, by, by_name = packed
        if repost_of is None:
            twit_id = keys.stream_twit_id(key)
        else:
            # A repost's row: its key says the reposter and the repost's
            # time; the twit's id is in its cell, and must be one.
            keys.twit_key_from_id(repost_of)
            twit_id = repost_of
        created_at = from_millis(created)
        return new_twit(
            twit_id, userid, name, text, created_at, reply_to, reply_userid, 0, 0, 0, by, by_name
        )
    # Any other row: one written before stream rows were packed.
    item = rows.decode_stream_item(row)
    if item is None:
        return None
    stored, repost = item
    if repost is None:
        return twit_of(keys.twit_key_from_stream_key(key), stored)
    twit_id, by, name = repost
    return twit_of(keys.twit_key_from_id(twit_id), stored, reposted_by=by, reposted_by_name=name)


def _once_each(found: tuple[Twit, ...]) -> tuple[Twit, ...]:
    """``found`` (newest first) with each twit once: its newest appearance,
    whether its own row or a repost (two followees reposted it, or its
    author is followed and someone reposted it too)."""
    seen: set[str] = set()
    unique = []
    for t in found:
        if t.id not in seen:
            seen.add(t.id)
            unique.append(t)
    return tuple(unique)


class CelebrityCache:
    """The celebrities table as last read by this process, for
    TWITBASE_CELEBRITY_CACHE_S seconds: every stream request needs it, and it
    changes only when an author first passes the threshold.

    Written by hand: it is one list per table name with an expiry time, and
    no library (Django's cache backends pickle and may live in Redis) is
    smaller or cheaper. Keyed by the table's name, so a process switching
    table prefixes (the tests) never reads another prefix's list.

    A stale list is safe because the fan-out keeps fanning out a newly listed
    author's twits for twice the TTL after listing them (fanout.still_fanned_out):
    a reader whose list lacks the author reads those twits from their stream
    rows; a reader whose list has them merges the author's twits too, and the
    merge keys each twit by its stream key, so a twit found both ways is shown
    once.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lists: dict[str, tuple[float, tuple[str, ...]]] = {}

    def get(self, conn: happybase.Connection) -> tuple[str, ...]:
        name = table_name("celebrities")
        now = time.monotonic()
        with self._lock:
            cached = self._lists.get(name)
        if cached is not None and now < cached[0]:
            return cached[1]
        celebs = tuple(
            rows.decode_celebrity(data) for _, data in conn.table(name).scan(batch_size=1000)
        )
        with self._lock:
            self._lists[name] = (now + settings.TWITBASE_CELEBRITY_CACHE_S, celebs)
        return celebs

    def clear(self) -> None:
        with self._lock:
            self._lists.clear()


CELEBRITIES = CelebrityCache()


class FollowedCache:
    """Which of the listed large accounts each reader follows, as this
    process last asked: asking is a multi-get of the reader's follows rows,
    a round trip of its own before every merged home page. An answer is kept
    under the reader's FOLLOWING_CHANGED counter, as read with their profile
    in the same request, and the list it was asked of, for at most
    TWITBASE_CELEBRITY_CACHE_S seconds.

    Exact for a profile read whole: a follow or unfollow raises the counter
    after the follows row changes, so an answer kept under the new value was
    asked after the change. A counter of 0 (never raised, or a profile read
    without it) is asked about every time. A crash between the change and
    the raise leaves the old answer for the TTL at most, as the list itself
    may be stale for as long (see :class:`CelebrityCache`).

    Kept by :class:`_kept.Kept` (at most MAX answers, the oldest dropped
    first). Keyed by the streams table's name too (it carries the table
    prefix), so the tests' table sets never share answers.
    """

    MAX = 10_000

    def __init__(self) -> None:
        self._kept: Kept[tuple[str, ...]] = Kept(
            self.MAX, lambda: settings.TWITBASE_CELEBRITY_CACHE_S
        )

    def get(
        self, conn: happybase.Connection, user: User, listed: tuple[str, ...]
    ) -> tuple[str, ...]:
        if not user.following_changed:
            return _followed_of(conn, user.userid, listed)
        # With the account's creation: a deleted account's userid, taken
        # again, starts its counter again.
        key = (table_name("streams"), user.userid, user.created, user.following_changed, listed)
        kept = self._kept.get(key)
        if kept is not None:
            return kept
        followed = _followed_of(conn, user.userid, listed)
        self._kept.keep(key, followed)
        return followed

    def clear(self) -> None:
        self._kept.clear()


FOLLOWED = FollowedCache()


def followed_celebrities(conn: happybase.Connection, user: User) -> tuple[str, ...]:
    """The large accounts ``user`` follows: their twits are not fanned out."""
    listed = CELEBRITIES.get(conn)
    if not listed:
        return ()
    return FOLLOWED.get(conn, user, listed)


def _followed_of(
    conn: happybase.Connection, userid: str, listed: tuple[str, ...]
) -> tuple[str, ...]:
    return follows.followed_among(conn, userid, listed)


@read_only
def home_stream(reader: User | str, cursor: str | None = None, limit: int = 20) -> Page[Twit]:
    """The stream of ``reader`` (a profile loaded already, or a userid; see
    :func:`_stream_page`) without the twits of suspended (disabled) authors:
    their rows stay, hidden while they are suspended. A page can then hold
    fewer than ``limit`` twits; its cursor still continues after the last row
    it read.

    Reposts by whom the reader follows are items too, at the repost's time,
    with ``reposted_by``; a repost by a suspended user is hidden as their
    twits are. No twit shows twice in one page: its newest appearance stays.
    Counts, flags and suspensions come from :func:`hydration.hydrate`, as
    for every list of twits."""
    user = accounts.loaded(reader)
    page = _stream_page(user, cursor, limit)
    # Hidden rows first, then each twit once: a twit whose newest row is a
    # hidden repost still shows at its own row.
    shown = hydrate(page.items, user, muting=True)
    return Page(_once_each(shown), page.next_cursor)


def _stream_page(user: User, cursor: str | None, limit: int) -> Page[Twit]:
    """Newest first. One prefix scan of the streams table, whose rows carry what
    the page shows; plus, for followed large accounts (not fanned out), a
    prefix scan of each one's twits, merged in.

    The merge orders every twit by the key it has, or would have, in the
    reader's stream (reader + rts + author + suffix), and the cursor is such a
    key, so paging stays exact across the merge: no twit twice, none skipped.
    """
    with connection() as conn:
        streams = conn.table(table_name("streams"))
        reader = keys.user_hash(user.userid)
        celebs = followed_celebrities(conn, user)
        if not celebs:
            return scan_page(streams, reader, keys.STREAM_KEY_LEN, cursor, limit, _stream_twit)
        check_limit(limit)
        start = start_row(cursor, reader, keys.STREAM_KEY_LEN)
        # The reversed timestamp of the cursor: no later-page twit is newer.
        rts = start[keys.MD5_LEN : keys.MD5_LEN + keys.RTS_LEN] if cursor else b""
        # The stream and each account's twits and reposts, scanned at once:
        # two round trips for them all (ops.scan_rows_many).
        scans: list[ops.Scan] = [(streams, start, keys.prefix_stop(reader), limit + 1, None)]
        for celeb in celebs:
            prefix = keys.user_hash(celeb)
            scans.append(twits_service.timeline_scan(conn, prefix, rts, limit + 1))
            scans.append(reactions.own_rows_scan(conn, reactions.REPOST, prefix, rts, limit + 1))
        scanned = ops.scan_rows_many(conn, scans)
        found: dict[bytes, Twit] = {}
        for key, row in scanned[0]:
            twit = _stream_twit(key, row)
            if twit is not None:
                found[key] = twit
        for n, celeb in enumerate(celebs):
            for key, row in scanned[1 + 2 * n]:
                virtual = keys.stream_key(user.userid, key)
                stored = rows.decode_twit(row)
                if virtual >= start and stored is not None:
                    found.setdefault(virtual, twit_of(key, stored))
            # The large account's reposts, as its twits: the key each has in
            # the reader's stream orders and pages them.
            for key, row in scanned[2 + 2 * n]:
                ms = keys.millis_from_rts(key[keys.MD5_LEN : keys.MD5_LEN + keys.RTS_LEN])
                twit_key = keys.twit_key_from_repost_key(key)
                virtual = keys.repost_stream_key(user.userid, ms, celeb, twit_key)
                reposted = _stream_twit(virtual, row)
                if virtual >= start and reposted is not None:
                    found.setdefault(virtual, reposted)
        ordered = sorted(found)
        page = ordered[:limit]
        next_cursor = keys.encode_cursor(page[-1]) if len(ordered) > limit else None
        return Page(tuple(found[k] for k in page), next_cursor)


# -- writes: the fan-out's rows ------------------------------------------------------

# A trim deletes its rows in requests of at most this many.
TRIM_DELETES = 2_000


def write_rows(
    conn: happybase.Connection,
    readers: bytes,
    tail: bytes,
    cells: dict[bytes, bytes],
    timestamp: int,
) -> int:
    """Put ``cells`` in the row ``md5 + tail`` of each reader whose md5 is in
    ``readers`` (run together), at ``timestamp``: one mutateRows, the same
    cells however often it runs. Returns the rows written."""
    ops.put_tailed_rows_alike(
        conn, table_name("streams"), readers, keys.MD5_LEN, tail, cells, timestamp
    )
    return len(readers) // keys.MD5_LEN


def write_own_row(conn: happybase.Connection, author: str, key: bytes, twit: rows.TwitRow) -> None:
    """The twit ``key``'s row in its author's own stream, at the twit's time
    (idempotent): written by the post, so the author sees it at once, and
    again by the fan-out's first chunk."""
    millis = keys.split_twit_key(key).millis
    conn.table(table_name("streams")).put(
        keys.stream_key(author, key), rows.encode_stream(twit), timestamp=millis
    )


def delete_rows(conn: happybase.Connection, readers: bytes, tail: bytes) -> int:
    """Delete the row ``md5 + tail`` of each reader whose md5 is in
    ``readers`` (run together), in one mutateRows. The markers are at the
    time of deleting, so the same row written later at an earlier timestamp
    (a late fan-out of what is removed) stays hidden. Returns the rows."""
    doomed = [readers[i : i + keys.MD5_LEN] + tail for i in range(0, len(readers), keys.MD5_LEN)]
    ops.delete_rows(conn, table_name("streams"), doomed, _FAMILIES)
    return len(doomed)


def trim(conn: happybase.Connection, readers: list[bytes], limit: int) -> int:
    """Keep the newest ``limit`` rows of each stream whose reader's md5 is
    in ``readers``; delete the rest and return how many. Deterministic: the
    rows kept are the first ``limit`` in key order, newest first.

    A due stream holds about twice the limit (see fanout._trims_due): its
    keys are asked for in one fetch of four times the limit (at most 10,000
    a fetch). The streams' scans go together (ops.row_keys_with_prefixes),
    and so do their deletes (ops.Pipeline): three round trips for a chunk's
    trims, where one stream at a time took three or four each.
    """
    if not readers:
        return 0
    table = table_name("streams")
    found = ops.row_keys_with_prefixes(conn, table, readers, min(4 * limit, 10_000))
    doomed = [row for stream in found for row in stream[limit:]]
    if doomed:
        pipe = ops.Pipeline(conn)
        for i in range(0, len(doomed), TRIM_DELETES):
            pipe.delete_rows(table, doomed[i : i + TRIM_DELETES], _FAMILIES)
        pipe.send()
    return len(doomed)


_FAMILIES = [family.encode() for family in SCHEMA["streams"]]


def put_rows(
    conn: happybase.Connection, found: list[tuple[bytes, dict[bytes, bytes]]], timestamp: int
) -> None:
    """Put each (stream row key, cells) of ``found`` at ``timestamp``, in
    one batch (a follow's backfill, at the edge's generation)."""
    with conn.table(table_name("streams")).batch(timestamp=timestamp) as b:
        for key, cells in found:
            b.put(key, cells)


def delete_authors_rows(conn: happybase.Connection, reader: str, author: str) -> int:
    """Delete from ``reader``'s stream every row of ``author``'s twits and
    reposts (the author's md5 is where a twit's row has its author, a
    repost's its reposter); returns how many.

    Each row is deleted at its own timestamp: the marker hides that row as
    written, never the same row written again later by a new follow's
    backfill.
    """
    streams = conn.table(table_name("streams"))
    by_ts: dict[int, list[bytes]] = {}
    author_hash = keys.user_hash(author)
    for row, data in streams.scan(
        row_prefix=keys.user_hash(reader),
        filter=ops.KEYS_ONLY,
        include_timestamp=True,
        batch_size=1000,
    ):
        if keys.twit_key_from_stream_key(row)[: keys.MD5_LEN] == author_hash:
            ((_, ts),) = data.values()
            by_ts.setdefault(ts, []).append(row)
    for ts, doomed in by_ts.items():
        with streams.batch(timestamp=ts) as b:
            for row in doomed:
                b.delete(row)
    return sum(len(doomed) for doomed in by_ts.values())


# -- live updates --------------------------------------------------------------------

# New twits are counted up to this many; more reads as "20+".
NEW_CAP = 20
# Column names without values: a repost's stream row is told from a twit's by
# its column (rows.is_repost_row), which FirstKeyOnlyFilter could drop.
_NAMES_ONLY = "KeyOnlyFilter()"
# At most this many times the cap of stream rows are read, the reader's own
# included: a reader who posted a lot meanwhile may see an undercount.
_OWN_SLACK = 3


@dataclass(frozen=True)
class NewTwits:
    """How many twits arrived above the newest one a page shows: ``count``
    is exact up to the cap; ``more`` says there are more than that."""

    count: int
    more: bool


@read_only
def new_in_stream(reader: User | str, since: str | None) -> NewTwits:
    """How many twits in ``reader``'s home stream are newer than the twit
    ``since`` (the newest their page shows; None or "" when it shows none),
    not counting the reader's own: what the "N new twits" banner says.

    Cheap by design, as every open home page asks every few seconds: a
    key-only scan from the top of the reader's stream prefix that stops at
    ``since``'s stream row (computed from its id, not looked up) or after
    ``NEW_CAP + 1`` rows, plus the same bounded scan of each followed large
    account's twits (not fanned out). Never a scan of the whole stream.
    The twits of suspended authors are counted, though the page hides
    them: the count is a hint to reload, not a promise.
    """
    user = accounts.loaded(reader)
    reader_hash = keys.user_hash(user.userid)
    since_key = None
    if since:
        try:
            since_key = keys.twit_key_from_id(since)
        except keys.BadKey:
            raise InvalidInput("since", "since must be a twit id.") from None
    since_tag = keys.repost_tag(since_key) if since_key is not None else None
    cap = NEW_CAP + 1
    found = 0
    with connection() as conn:
        stop = (
            keys.stream_key_for_hash(reader_hash, since_key)
            if since_key is not None
            else keys.prefix_stop(reader_hash)
        )
        with closing(
            conn.table(table_name("streams")).scan(
                row_start=reader_hash,
                row_stop=stop,
                filter=_NAMES_ONLY,
                # The reader's own rows are skipped but still read: a bound on them too.
                limit=_OWN_SLACK * cap,
                batch_size=cap,
            )
        ) as scan:
            for key, row in scan:
                if rows.is_repost_row(row):
                    # A repost of the twit the page shows on top is that
                    # item (the page shows a twit once, at its newest row).
                    if since_tag is not None and key.endswith(since_tag):
                        break
                    by = key[keys.MD5_LEN + keys.RTS_LEN : 2 * keys.MD5_LEN + keys.RTS_LEN]
                else:
                    by = keys.twit_key_from_stream_key(key)[: keys.MD5_LEN]
                if by != reader_hash:
                    found += 1
                    if found >= cap:
                        break
        for celeb in followed_celebrities(conn, user):
            if found >= cap:
                break
            prefix = keys.user_hash(celeb)
            # Keys before the since twit's time are newer (reversed time).
            celeb_stop = (
                keys.prefix_stop(prefix)
                if since_key is None
                else prefix + since_key[keys.MD5_LEN : keys.MD5_LEN + keys.RTS_LEN]
            )
            found += twits_service.count_keys(conn, prefix, celeb_stop, cap - found)
    return NewTwits(min(found, NEW_CAP), found > NEW_CAP)


def stream_rows(
    reader_hashes: list[bytes], key: bytes, twit: rows.TwitRow, generation: int
) -> list[LoadRow]:
    """The twit ``key``'s row in the stream of each reader whose md5 is in
    ``reader_hashes``, as the fan-out writes it, at the timestamp
    ``generation`` (the edges' it was fanned out along): for the bulk
    loader; nothing is written."""
    cells = rows.encode_stream(twit)
    return [("streams", keys.stream_key_for_hash(h, key), cells, generation) for h in reader_hashes]


def repost_stream_rows(
    reader_hashes: list[bytes],
    millis: int,
    reposter: str,
    key: bytes,
    cells: dict[bytes, bytes],
    generation: int,
) -> list[LoadRow]:
    """The repost by ``reposter`` at ``millis`` of the twit ``key`` (whose
    stream cells are ``cells``: rows.encode_repost_stream) in the stream of
    each reader whose md5 is in ``reader_hashes``, at the timestamp
    ``generation``: for the bulk loader; nothing is written."""
    return [
        ("streams", keys.repost_stream_key_for_hash(h, millis, reposter, key), cells, generation)
        for h in reader_hashes
    ]


# -- account deletion (services/deletion.py) ------------------------------------------------


def forget_user(userid: str) -> int:
    """Delete ``userid``'s whole stream; returns the rows there were."""
    with connection() as conn:
        return ops.delete_prefix(conn, table_name("streams"), keys.user_hash(userid))


def forget_parent(reader_hashes: list[bytes], reply: bytes, twit: rows.TwitRow | None) -> None:
    """The reply ``reply``, now ``twit`` (twits.forget_parent), answers
    nothing any more: its rows in the streams of the readers whose md5s are
    ``reader_hashes`` lose reply_to and reply_userid.

    A stream row keeps the twit in one cell (rows.STREAM_TWIT), so each
    reader's row that exists is written again from ``twit``, at the twit's
    own time as the fan-out wrote it; a row a reader no longer has
    (unfollowed, trimmed) is not made again. Rows from before the packing
    lose their two cells."""
    with connection() as conn:
        streams = conn.table(table_name("streams"))
        wanted = [keys.stream_key_for_hash(reader, reply) for reader in reader_hashes]
        found: list[tuple[bytes, dict[bytes, bytes]]] = []
        for i in range(0, len(wanted), 1000):
            found += streams.rows(wanted[i : i + 1000], columns=[rows.STREAM_TWIT])
        if twit is not None and found:
            millis = keys.split_twit_key(reply).millis
            with streams.batch(batch_size=1000, timestamp=millis) as b:
                for key, _ in found:
                    b.put(key, rows.encode_stream(twit))
        gone = [rows.STREAM_REPLY_TO, rows.STREAM_REPLY_USERID]
        with streams.batch(batch_size=1000) as b:
            for key in wanted:
                b.delete(key, columns=gone)


# -- the accounts too large to fan out (the celebrities table) -------------------------------


def list_celebrity(conn: happybase.Connection, author: str, now: int) -> int:
    """When ``author`` was first listed as too large to fan out (ms), listing
    them at ``now`` if they were not: the cell's timestamp, written once."""
    table = conn.table(table_name("celebrities"))
    key = keys.user_key(author)
    found = table.row(key, include_timestamp=True)
    if found:
        listed: int = min(at for _, at in found.values())
        return listed
    table.put(key, rows.encode_celebrity(author), timestamp=now)
    return now


def celebrity_rows(author: str, listed: int) -> list[LoadRow]:
    """``author``'s listing as too large to fan out, at ``listed`` (ms), for
    the bulk loader."""
    return [("celebrities", keys.user_key(author), rows.encode_celebrity(author), listed)]


def forget_celebrity(conn: happybase.Connection, userid: str) -> None:
    """Take ``userid`` off the list of accounts too large to fan out, for
    their account's deletion. Idempotent."""
    conn.table(table_name("celebrities")).delete(keys.user_key(userid))
