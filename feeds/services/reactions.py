"""Reactions: a user's like, repost or bookmark of a twit, each idempotent;
a like's and a repost's with an exact count on the twit's row and a
notification group (a bookmark is private: neither). One state machine
serves every kind; a kind is a :class:`Reaction`, the tables and cells that
hold it.

The owner of the ``likers``, ``likes``, ``reposters``, ``reposts``,
``bookmarkers`` and ``bookmarks`` tables.

The state of a (twit, user) pair is one cell of its pairs row,
b"on:gen:ms:counted", moved by compare-and-set:

- a change (react or take it back) bumps ``gen`` and writes counted=0;
- then it writes or deletes the user's own row (keyed by the reaction's ms,
  newest first), carries a repost to streams (queued), moves the twit's
  notification group, and adds +1/-1 to the twit's counter under an
  operation id made of (kind, twit, user, gen); then sets counted=1
  (compare-and-set from the exact state it wrote).

Whoever finds counted=0 (a retry, a twin request, or the pair's next change
after a crash) finishes the pending change with the same ids. The counts go
through storage.ops.MarkedChange: a change counts once however late its twin
comes. A new reaction gets a later ms than the pair's last one, so its rows
have keys of their own, which no earlier removal's delete marker can hide.

A reaction racing its twit's delete leaves nothing. The delete marks the
twit "deleting" (twits.mark_deleting) before it takes the twit's reactions
away (:func:`drop_twit`); every change here looks at the twit after it has
done all its writing, and if the twit is deleting or gone, takes its own
rows, notification group, stream rows and counter cells away. The two look
in opposite orders (write, then read), so whichever comes second sees the
other: either the delete finds the change's pairs row, or the change finds
the delete's mark.

Written by hand on storage.ops: no library keeps HBase reactions.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Set
from dataclasses import dataclass

import happybase
from django.conf import settings

from feeds.errors import Forbidden
from feeds.jobs import RemoveRepostFromStreams, RepostToStreams
from feeds.types import Page, Twit, User
from storage import keys, ops, rows
from storage.connection import connection, read_only, table_name
from storage.ops import MarkedChange, check_and_put, op_id

from . import accounts, blocks, notify, pending, ratelimit, twits
from ._kept import Kept, merged
from ._load import LoadRow
from ._paging import scan_page

_state = rows.decode_like_state
_cell = rows.encode_like_state


@dataclass(frozen=True)
class Reaction:
    """A kind of reaction: where its state, its users' rows and its count live."""

    name: bytes  # names its operations (op ids) and its notification ops
    pairs: str  # table keyed twit + md5(user): the state, the user's id and name
    mine: str  # table keyed md5(user) + rts(ms) + twit: the user's, newest first
    state: bytes  # the pairs row's state cell
    userid: bytes  # the pairs row's userid cell
    display: bytes  # the pairs row's display-name cell
    count: bytes | None  # the twit row's counter; None: private, uncounted
    group: bytes | None  # the notification group's kind (keys.NOTIFY_*); None: nobody told
    pair_key: Callable[[bytes, str], bytes]
    mine_key: Callable[[str, int, bytes], bytes]
    twit_from_mine: Callable[[bytes], bytes]
    # A repost's own row carries the twit (what readers merge for an account
    # too large to fan out), and the repost goes to its followers' streams.
    carries_twit: bool = False
    own_refusal: str = ""  # reacting to one's own twit is refused with this
    mark: bytes = rows.LIKE_MARK  # the own row's cell, for a kind that carries no twit


LIKE = Reaction(
    b"like",
    "likers",
    "likes",
    rows.LIKE_STATE,
    rows.LIKER_USERID,
    rows.LIKER_NAME,
    rows.COUNT_LIKES,
    keys.NOTIFY_LIKE,
    keys.liker_key,
    keys.like_key,
    keys.twit_key_from_like_key,
)
REPOST = Reaction(
    b"repost",
    "reposters",
    "reposts",
    rows.REPOST_STATE,
    rows.REPOSTER_USERID,
    rows.REPOSTER_NAME,
    rows.COUNT_REPOSTS,
    keys.NOTIFY_REPOST,
    keys.reposter_key,
    keys.repost_key,
    keys.twit_key_from_repost_key,
    carries_twit=True,
    own_refusal="You cannot repost your own twit.",
)
BOOKMARK = Reaction(
    b"bookmark",
    "bookmarkers",
    "bookmarks",
    rows.BOOKMARK_STATE,
    rows.BOOKMARKER_USERID,
    rows.BOOKMARKER_NAME,
    None,
    None,
    keys.bookmarker_key,
    keys.bookmark_key,
    keys.twit_key_from_bookmark_key,
    mark=rows.BOOKMARK_MARK,
)
KINDS = (LIKE, REPOST, BOOKMARK)
# The kinds whose flags (liked, reposted) a list shows on each twit: a
# change of one raises the user's REACTIONS_CHANGED (see FlagsCache).
FLAGGED = (LIKE, REPOST)


# -- the state machine --------------------------------------------------------------


def _pair(conn: happybase.Connection, kind: Reaction, twit: bytes, user: str) -> dict[bytes, bytes]:
    row: dict[bytes, bytes] = conn.table(table_name(kind.pairs)).row(kind.pair_key(twit, user))
    return row


def _own_cells(
    kind: Reaction, twit: bytes, user: str, name: str, stored: rows.TwitRow | None
) -> dict[bytes, bytes] | None:
    """The cells of the user's own row; None for a kind that carries the
    twit when there is no twit (``stored``) to copy."""
    if not kind.carries_twit:
        return {kind.mark: b"1"}
    if stored is None:
        return None
    return rows.encode_repost_stream(stored, keys.twit_id(twit), user, name)


def _mine_cells(
    conn: happybase.Connection, kind: Reaction, twit: bytes, user: str, name: str
) -> dict[bytes, bytes] | None:
    """The cells of the user's own row, the twit read if the kind carries it."""
    stored = twits.stored(conn, twit) if kind.carries_twit else None
    return _own_cells(kind, twit, user, name, stored)


def _carry(kind: Reaction, twit: bytes, user: str, ms: int, on: bool) -> None:
    """Queue the repost's stream upkeep (idempotent; nothing for a like)."""
    if kind.carries_twit:
        job = RepostToStreams if on else RemoveRepostFromStreams
        pending.queue_stream_job(job(keys.twit_id(twit), user, ms))


def _finish(
    conn: happybase.Connection, kind: Reaction, twit: bytes, user: str, cell: bytes
) -> None:
    """Apply the change whose state is ``cell`` once, and mark it counted."""
    on, gen, ms, counted = _state(cell)
    if counted:
        return
    pair = _pair(conn, kind, twit, user)
    name = pair.get(kind.display, user.encode()).decode()
    mine = conn.table(table_name(kind.mine))
    cells = _mine_cells(conn, kind, twit, user, name) if on else None
    if cells:
        mine.put(kind.mine_key(user, ms, twit), cells)
    elif not on:
        mine.delete(kind.mine_key(user, ms, twit))
    _carry(kind, twit, user, ms, on)
    pairs = conn.table(table_name(kind.pairs))
    row = kind.pair_key(twit, user)
    # The side effects above take a while: by now a twin may have finished
    # this state and many changes may have followed. The counts are the
    # change's: a twin that finished it leaves nothing for this one to count.
    change = MarkedChange(
        conn, lambda: pairs.row(row, columns=[kind.state]).get(kind.state) == cell
    )
    # Before the count and its mark: a retry after a crash moves the group
    # again with the same generation, which counts once.
    if kind.group is not None:
        notify.group_change(
            conn,
            kind.group,
            twit,
            user,
            name,
            ms if on else int(time.time() * 1000),
            on,
            op_id(b"notify-" + kind.name, twit, user.lower().encode(), str(gen).encode()),
            change,
            refill=lambda: recent_actors(conn, kind, twit),
            subject=lambda: twits.text_if_alive(conn, twit),
        )
    if kind.count is not None:
        op = op_id(kind.name, twit, user.encode(), str(gen).encode())
        twits.count_change(change, twit, kind.count, 1 if on else -1, op)
    if kind in FLAGGED:
        # After the state, before the change is marked done: a retry after a
        # crash raises it again, which costs a page one fresh lookup.
        accounts.bump(conn, user, rows.REACTIONS_CHANGED)
    check_and_put(
        conn, table_name(kind.pairs), row, kind.state, cell, kind.state, _cell(on, gen, ms, True)
    )
    change.settle()


def _move(
    conn: happybase.Connection, kind: Reaction, twit: bytes, user: str, name: str, on: bool
) -> None:
    """Move the pair's state to ``on`` (nothing if it is there), finishing
    first any change left unfinished; then, if the twit is deleting or gone,
    take what this pair wrote away (see the module's docstring)."""
    row = kind.pair_key(twit, user)
    pairs = conn.table(table_name(kind.pairs))
    # The ms of each change finished here: their own rows are keyed by it,
    # and the delete may have taken the pairs row that says it.
    finished = set()
    while True:
        cell = pairs.row(row, columns=[kind.state]).get(kind.state)
        was_on, gen, ms, counted = _state(cell)
        if not counted:
            _finish(conn, kind, twit, user, cell or b"")
            finished.add(ms)
            continue
        if was_on == on:
            break
        new_ms = max(int(time.time() * 1000), ms + 1) if on else ms
        new = _cell(on, gen + 1, new_ms, False)
        # Who and their name first: whoever finishes the state reads them.
        pairs.put(row, {kind.userid: user.encode(), kind.display: name.encode()})
        if check_and_put(conn, table_name(kind.pairs), row, kind.state, cell, kind.state, new):
            _finish(conn, kind, twit, user, new)
            finished.add(new_ms)
            break
    if not twits.alive(conn, twit):
        _forget_pair(conn, kind, twit, user, finished)
        if kind.group is not None:
            notify.drop_group(conn, twit, kind.group)
        twits.drop_counts(conn, twit)


def _forget_pair(
    conn: happybase.Connection, kind: Reaction, twit: bytes, user: str, also: Set[int] = frozenset()
) -> None:
    """The pair's rows, its user's own rows and its stream rows, gone
    (idempotent): those of the change the pairs row says, and of the
    changes at the ms in ``also``. The stream removal is queued before the
    pairs row goes, so a crash between leaves the row for a retry to find."""
    _on, _gen, ms, _counted = _state(_pair(conn, kind, twit, user).get(kind.state))
    for at in sorted({ms, *also} - {0}):
        _carry(kind, twit, user, at, False)
        conn.table(table_name(kind.mine)).delete(kind.mine_key(user, at, twit))
    conn.table(table_name(kind.pairs)).delete(kind.pair_key(twit, user))


# -- verbs -----------------------------------------------------------------------------


def react(kind: Reaction, userid: str, twit_id: str, on: bool) -> Twit:
    """React to the twit as ``userid`` (``on``) or take it back; idempotent.
    Returns the twit with the reader's flags. Forbidden: a kind that refuses
    one's own twit. Counted first against the user's limit of reactions
    (ratelimit.REACTIONS): RateLimited beyond it, and nothing done."""
    ratelimit.check(ratelimit.REACTIONS, userid)
    twit = twits.public_twit(twit_id)
    user = accounts.get_user(userid)
    if kind.own_refusal and twit.userid.lower() == user.userid.lower():
        if on:
            raise Forbidden(kind.own_refusal)
        return _flagged(user.userid, twit, kind, False)
    twit_key = keys.twit_key_from_id(twit.id)
    doing = f"{kind.name.decode()} their twits"
    with connection() as conn:
        if on:
            blocks.refuse_blocked(conn, user.userid, twit.userid, doing)
        _move(conn, kind, twit_key, user.userid, user.name, on)
        if on and blocks.blocked_between(conn, user.userid, twit.userid):
            # A block came while this was written: the block's own sweep of
            # reactions may have looked before this one was there.
            _move(conn, kind, twit_key, user.userid, user.name, False)
            blocks.refuse_blocked(conn, user.userid, twit.userid, doing)
    return _flagged(user.userid, twits.get_twit(twit.id), kind, on)


def _flagged(userid: str, twit: Twit, kind: Reaction, on: bool) -> Twit:
    """``twit`` as ``userid`` sees it now: this kind's flag as the change
    left it, the other kind's looked up."""
    liked = on if kind is LIKE else twit.id in reacted(LIKE, userid, [twit.id])
    reposted = on if kind is REPOST else twit.id in reacted(REPOST, userid, [twit.id])
    return dataclasses.replace(twit, liked=liked, reposted=reposted)


def like(userid: str, twit_id: str) -> Twit:
    return react(LIKE, userid, twit_id, True)


def unlike(userid: str, twit_id: str) -> Twit:
    return react(LIKE, userid, twit_id, False)


def repost(userid: str, twit_id: str) -> Twit:
    return react(REPOST, userid, twit_id, True)


def unrepost(userid: str, twit_id: str) -> Twit:
    return react(REPOST, userid, twit_id, False)


@read_only
def reacted(kind: Reaction, userid: str, twit_ids: list[str]) -> set[str]:
    """Which of ``twit_ids`` ``userid`` has reacted to: one multi-get."""
    if not twit_ids:
        return set()
    with connection() as conn, ops.pipelined(conn) as pipe:
        answer = ask_reacted(pipe, kind, userid, twit_ids)
    return answer()


def ask_reacted(
    pipe: ops.Pipeline, kind: Reaction, userid: str, twit_ids: list[str]
) -> Callable[[], set[str]]:
    """:func:`reacted` as a call in ``pipe``: its answer, once ``pipe`` is
    sent. A page asks the reader's likes and reposts beside its other
    lookups, in one round trip."""
    if not twit_ids:
        return set
    wanted = [kind.pair_key(keys.twit_key_from_id(t), userid) for t in twit_ids]
    reply = pipe.rows(table_name(kind.pairs), wanted, [kind.state])

    def answer() -> set[str]:
        on = {k[: keys.TWIT_KEY_LEN] for k, d in reply.value if _state(d.get(kind.state))[0]}
        return {keys.twit_id(k) for k in on}

    return answer


# A page's flags: the ids of the twits the reader likes, and of those they reposted.
Flags = tuple[frozenset[str], frozenset[str]]


class FlagsCache:
    """The reader's likes and reposts of the twits their pages asked about,
    as this process last read them: a page of 50 asks about some 90 pairs rows
    for them, most of them not there, and a reader reading again asks about
    the same twits. Kept (services._kept) under the reader's
    REACTIONS_CHANGED counter, as read with their profile in the same
    request, for at most TWITBASE_PAGE_CACHE_S seconds; at most
    MOST_READERS readers, MOST_TWITS twits each.

    Exact for a profile read whole: every change of a like or repost
    (the user's own, or one a block takes away) raises the counter after the
    pair's state changed and before the change is done, so flags kept under
    the value a request read were read after every change that finished
    before it. A counter of 0 (never raised, or a profile read without it)
    is asked about every time. A crash between a change and its raise leaves
    the old flags for the TTL at most; the change's retry raises it. The
    bulk loader raises the counters of the accounts it makes likes and
    reposts for once it has written them (accounts.reacted_rows).
    """

    MOST_READERS = 10_000
    MOST_TWITS = 1_000

    def __init__(self) -> None:
        self._kept: Kept[dict[str, tuple[bool, bool]]] = Kept(
            self.MOST_READERS, lambda: settings.TWITBASE_PAGE_CACHE_S
        )

    def ask(
        self, pipe: ops.Pipeline, reader: User | str, twit_ids: list[str]
    ) -> Callable[[], Flags]:
        """The reader's flags for ``twit_ids`` once ``pipe`` is sent: those
        kept answered from here, the others asked in ``pipe``."""
        userid = reader if isinstance(reader, str) else reader.userid
        if isinstance(reader, str) or not reader.reactions_changed:
            return _flags(pipe, userid, twit_ids)
        if not settings.TWITBASE_PAGE_CACHE_S:
            return _flags(pipe, userid, twit_ids)
        # With the account's creation: a deleted account's userid, taken
        # again, starts its counter again.
        key = (table_name("likers"), userid, reader.created, reader.reactions_changed)
        known = self._kept.get(key)
        unknown = twit_ids if known is None else [t for t in twit_ids if t not in known]
        fresh = _flags(pipe, userid, unknown)

        def answer() -> Flags:
            liked, reposted = fresh()
            got = {t: (t in liked, t in reposted) for t in unknown}
            flags, new = merged(known, got, twit_ids, self.MOST_TWITS)
            if new:
                self._kept.keep(key, flags)
            return (
                frozenset(t for t in twit_ids if flags[t][0]),
                frozenset(t for t in twit_ids if flags[t][1]),
            )

        return answer

    def clear(self) -> None:
        self._kept.clear()


FLAGS = FlagsCache()


def _flags(pipe: ops.Pipeline, userid: str, twit_ids: list[str]) -> Callable[[], Flags]:
    liked = ask_reacted(pipe, LIKE, userid, twit_ids)
    reposted = ask_reacted(pipe, REPOST, userid, twit_ids)
    return lambda: (frozenset(liked()), frozenset(reposted()))


def ask_flags(pipe: ops.Pipeline, reader: User | str, twit_ids: list[str]) -> Callable[[], Flags]:
    """The reader's likes and reposts among ``twit_ids``, as (liked ids,
    reposted ids), once ``pipe`` is sent: what a page shows on each twit.
    A reader given as their profile, read in this request, is answered
    from :data:`FLAGS` as far as it can."""
    return FLAGS.ask(pipe, reader, twit_ids)


def liked(userid: str, twit_ids: list[str]) -> set[str]:
    return reacted(LIKE, userid, twit_ids)


def reposted(userid: str, twit_ids: list[str]) -> set[str]:
    return reacted(REPOST, userid, twit_ids)


def bookmark(userid: str, twit_id: str) -> Twit:
    return react(BOOKMARK, userid, twit_id, True)


def unbookmark(userid: str, twit_id: str) -> Twit:
    return react(BOOKMARK, userid, twit_id, False)


def _reactors(
    conn: happybase.Connection, kind: Reaction, twit: bytes
) -> list[tuple[str, str, int]]:
    """(userid, display name, ms) of each user whose reaction to ``twit`` is on."""
    found = []
    for _, d in conn.table(table_name(kind.pairs)).scan(row_prefix=twit, batch_size=1000):
        on, _gen, ms, _counted = _state(d.get(kind.state))
        userid = d.get(kind.userid, b"").decode()
        if on and userid:
            found.append((userid, d.get(kind.display, b"").decode(), ms))
    return found


def reactors(kind: Reaction, twit_id: str) -> list[str]:
    """Who has reacted to the twit (a prefix scan of its pairs rows)."""
    with connection() as conn:
        return [u for u, _, _ in _reactors(conn, kind, keys.twit_key_from_id(twit_id))]


def likers(twit_id: str) -> list[str]:
    return reactors(LIKE, twit_id)


def reposters(twit_id: str) -> list[str]:
    return reactors(REPOST, twit_id)


def recent_actors(
    conn: happybase.Connection, kind: Reaction, twit: bytes
) -> list[tuple[str, str, int]]:
    """The latest few reactors to ``twit`` other than its author, newest
    first, with display names: what a notification group refills its list
    of latest actors from when a take-back empties it."""
    author = twit[: keys.MD5_LEN]
    found = [e for e in _reactors(conn, kind, twit) if keys.user_hash(e[0]) != author]
    found.sort(key=lambda e: -e[2])
    found = found[: rows.NOTIFY_ACTORS]
    # Pairs rows written before names were kept in them: the account's name.
    unnamed = [u for u, n, _ in found if not n]
    names = accounts.display_names(conn, unnamed) if unnamed else {}
    return [(u, n or names.get(u.lower(), u), ms) for u, n, ms in found]


def count(kind: Reaction, twit_id: str) -> int:
    """The twit's count of this kind, as its row holds it (a kind without
    a count: ValueError)."""
    if kind.count is None:
        raise ValueError(f"{kind.name.decode()}s are not counted")
    with connection() as conn:
        return twits.counter(conn, keys.twit_key_from_id(twit_id), kind.count)


def like_count(twit_id: str) -> int:
    return count(LIKE, twit_id)


def repost_count(twit_id: str) -> int:
    return count(REPOST, twit_id)


@read_only
def reacted_page(
    kind: Reaction, userid: str, cursor: str | None = None, limit: int = 20
) -> Page[str]:
    """The ids of the twits ``userid`` reacted to, newest first: one prefix
    scan of their own rows and one multi-get of the pairs' rows, whose state
    (on, at the row's ms) is the truth: a racing twin's late finish can
    leave a stale row, which is left out, so a page may hold fewer than
    ``limit``. A deleted twit's rows go with its delete (twitlists drops one
    deleted meanwhile)."""
    with connection() as conn:
        page = scan_page(
            conn.table(table_name(kind.mine)),
            keys.user_hash(userid),
            keys.MD5_LEN + keys.RTS_LEN + keys.TWIT_KEY_LEN,
            cursor,
            limit,
            lambda key, _: (
                kind.twit_from_mine(key),
                keys.millis_from_rts(key[keys.MD5_LEN : keys.MD5_LEN + keys.RTS_LEN]),
            ),
        )
        if not page.items:
            return Page((), page.next_cursor)
        states = dict(
            conn.table(table_name(kind.pairs)).rows(
                [kind.pair_key(twit, userid) for twit, _ in page.items], columns=[kind.state]
            )
        )
    kept = []
    for twit, ms in page.items:
        on, _gen, at, _counted = _state(states.get(kind.pair_key(twit, userid), {}).get(kind.state))
        if on and at == ms:
            kept.append(keys.twit_id(twit))
    return Page(tuple(kept), page.next_cursor)


def liked_page(userid: str, cursor: str | None = None, limit: int = 20) -> Page[str]:
    return reacted_page(LIKE, userid, cursor, limit)


def bookmarked_page(userid: str, cursor: str | None = None, limit: int = 20) -> Page[str]:
    return reacted_page(BOOKMARK, userid, cursor, limit)


# -- for the stream upkeep and the merged reads ----------------------------------------------


def current(
    conn: happybase.Connection, kind: Reaction, twit: bytes, user: str
) -> tuple[bool, int, str]:
    """The pair's state as it stands: (on, the reaction's ms, the user's
    display name as they reacted)."""
    pair = _pair(conn, kind, twit, user)
    on, _gen, ms, _counted = _state(pair.get(kind.state))
    return on, ms, pair.get(kind.display, user.encode()).decode()


def own_rows_scan(
    conn: happybase.Connection, kind: Reaction, user_hash: bytes, rts: bytes, limit: int
) -> ops.Scan:
    """A scan (for storage.ops.scan_rows_many) of the user's own rows from
    the reversed time ``rts`` on (b"": the newest), at most ``limit``: what a
    reader merges for an account too large to fan out."""
    return (
        conn.table(table_name(kind.mine)),
        user_hash + rts,
        keys.prefix_stop(user_hash),
        limit,
        None,
    )


def latest_own_rows(
    conn: happybase.Connection, kind: Reaction, userid: str, limit: int
) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """The user's newest own rows, at most ``limit`` (a backfill's reposts)."""
    table = conn.table(table_name(kind.mine))
    return list(table.scan(row_prefix=keys.user_hash(userid), limit=limit, batch_size=limit))


# -- a twit's delete, an account's deletion ------------------------------------------------


def drop_twit(conn: happybase.Connection, twit: bytes) -> None:
    """Take every reaction to the twit keyed ``twit`` away, for its delete:
    each pair's rows, its user's row, a repost's stream rows (queued), and
    the notification groups. Called after twits.mark_deleting, so a change
    that this scan misses finds the mark and cleans up after itself."""
    for kind in KINDS:
        pairs = conn.table(table_name(kind.pairs))
        for key, d in list(pairs.scan(row_prefix=twit)):
            user = d.get(kind.userid, b"").decode()
            if user:
                _forget_pair(conn, kind, twit, user)
            else:  # a pair whose change never got as far as naming its user
                pairs.delete(key)
        if kind.group is not None:
            notify.drop_group(conn, twit, kind.group)


def withdraw_all(userid: str) -> int:
    """Take all of ``userid``'s reactions back, for their account's deletion:
    each count goes down once, a repost leaves the streams, as taking it back
    does; then the pairs' rows and the user's own rows go. A twit deleted
    already took its reactions with it. Repeating it does nothing. Returns
    the own rows found."""
    done = 0
    with connection() as conn:
        for kind in KINDS:
            mine = conn.table(table_name(kind.mine))
            found = [
                k for k, _ in mine.scan(row_prefix=keys.user_hash(userid), filter=ops.KEYS_ONLY)
            ]
            for key in found:
                twit = kind.twit_from_mine(key)
                if twits.alive(conn, twit):
                    _move(conn, kind, twit, userid, userid, False)
                conn.table(table_name(kind.pairs)).delete(kind.pair_key(twit, userid))
                mine.delete(key)
            done += len(found)
    return done


def withdraw_from(userid: str, author: str) -> int:
    """Take back ``userid``'s reactions to ``author``'s twits, each as
    taking it back does (counts, groups, streams): for a block, whose
    blocked must not be seen liking or reposting the blocker. One scan of
    the user's own rows per kind, keys only; returns how many went."""
    done = 0
    author_hash = keys.user_hash(author)
    with connection() as conn:
        for kind in KINDS:
            mine = conn.table(table_name(kind.mine))
            found = mine.scan(row_prefix=keys.user_hash(userid), filter=ops.KEYS_ONLY)
            theirs = {
                twit
                for twit in (kind.twit_from_mine(key) for key, _ in found)
                if twit.startswith(author_hash)
            }
            for twit in sorted(theirs):
                _move(conn, kind, twit, userid, userid, False)
            done += len(theirs)
    return done


# -- the bulk loader -----------------------------------------------------------------------


def load_rows(
    kind: Reaction, twit: bytes, user: str, name: str, ms: int, stored: rows.TwitRow | None = None
) -> list[LoadRow]:
    """The rows a finished reaction leaves, for the bulk loader to write: the
    pairs row (on, generation 1, counted) and the user's own row. The twit's
    count and notification group are the loader's to sum. ``stored``: the
    twit, for a kind whose own row carries it."""
    pair = {
        kind.userid: user.encode(),
        kind.display: name.encode(),
        kind.state: _cell(True, 1, ms, True),
    }
    mine = _own_cells(kind, twit, user, name, stored)
    assert mine is not None, "a repost's row carries its twit"
    return [
        (kind.pairs, kind.pair_key(twit, user), pair, None),
        (kind.mine, kind.mine_key(user, ms, twit), mine, None),
    ]
