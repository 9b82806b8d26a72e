"""Follow and unfollow (both idempotent), and the followers/following lists."""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable

import happybase
from django.conf import settings

from feeds.errors import InvalidInput, Suspended
from feeds.jobs import BackfillStream, RemoveFolloweeFromStream, dispatch
from feeds.types import Page, User, UserRef
from storage import keys, ops, rows
from storage.connection import connection, read_only, table_name
from storage.ops import MarkedChange, check_and_put, op_id

from . import accounts, blocks, notify, ratelimit
from ._load import LoadRow
from ._paging import scan_page

OP = rows.EDGE_OP  # the id of the follow that created this edge; its timestamp is the generation
COUNTED = rows.EDGE_COUNTED  # the op whose follow the counts include


def _pair(follower: User | str, followed: str) -> tuple[User, User]:
    """The two profiles; ``follower`` may be loaded already (see accounts.loaded)."""
    accounts.check_userid(followed, "userid")
    userid = accounts.userid_of(follower)
    if userid.lower() == followed.lower():
        raise InvalidInput("userid", "You cannot follow yourself.")
    return accounts.loaded(follower), accounts.get_user(followed)


def _claim_edge(conn: happybase.Connection, edge: bytes) -> tuple[bytes, int, bool]:
    """The edge's (op, generation, created-by-this-call), creating it if absent.

    The generation is the timestamp HBase gave the op cell. Every cell of the
    edge, and every row its backfill writes, is written at that timestamp, and
    unfollow deletes the edge exactly up to it. A delete marker hides all cells at or
    below its timestamp, so a re-follow in the very millisecond of an
    unfollow would be hidden: the loop sees that and writes again once the
    clock has moved on.
    """
    follows = conn.table(table_name("follows"))
    created = False
    while True:
        cell = follows.row(edge, columns=[OP], include_timestamp=True).get(OP)
        if cell is not None:
            return cell[0], cell[1], created
        created = check_and_put(conn, table_name("follows"), edge, OP, None, OP, uuid.uuid4().bytes)
        if created and OP not in follows.row(edge, columns=[OP]):
            time.sleep(0.002)


def follow(follower: User | str, followed: str) -> bool:
    """Make ``follower`` follow ``followed``; False if it already did.
    Counted, first, against the follower's limit of follows and unfollows
    (ratelimit.FOLLOWS): RateLimited beyond it, and nothing done.
    Forbidden if either blocks the other (services.blocks).

    The edge is created by checkAndPut, so of two racing calls one creates
    it. Counts change once per edge: the edge names its operation, counters
    ignore an operation they have applied, and ``f:counted`` is written last,
    so a retry after a crash anywhere finishes the job without double counting.
    A suspended (disabled) account cannot be followed.
    """
    ratelimit.check(ratelimit.FOLLOWS, accounts.userid_of(follower))
    a, b = _pair(follower, followed)
    _forget(a.userid)
    if b.disabled:
        raise Suspended("This account is suspended: it cannot be followed.")
    edge = keys.follows_key(a.userid, b.userid)
    with connection() as conn:
        blocks.refuse_blocked(conn, a.userid, b.userid, "follow them")
        op, generation, created = _claim_edge(conn, edge)
        follows = conn.table(table_name("follows"))
        follows.put(edge, rows.encode_edge(b.userid, b.name, generation), timestamp=generation)
        conn.table(table_name("followedBy")).put(
            keys.followed_by_key(b.userid, a.userid),
            rows.encode_edge(a.userid, a.name, generation, op=op),
            timestamp=generation,
        )
        _followers_changed(conn, b.userid)
        _following_changed(conn, a.userid)
        if follows.row(edge, columns=[COUNTED]).get(COUNTED) != op:
            change = MarkedChange(conn, _uncounted(follows, edge, op))
            # Before the counts and the mark: a retry after a crash notifies
            # again (the same row), and the window between a count and its
            # mark, which a racing unfollow meets, stays as short as it was.
            notify.notify_follow(conn, UserRef(a.userid, a.name), b.userid, generation, change)
            _count_edge(change, a.userid, b.userid, 1, op_id(b"follow", op))
            follows.put(edge, rows.encode_counted_edge(op), timestamp=generation)
            change.settle()
        blocked = blocks.blocked_between(conn, a.userid, b.userid)
    if blocked:
        # A block came while the edge was made: the block may have looked
        # for edges to end before this one was there (blocks' docstring).
        end_follow(a, b.userid)
        with connection() as conn:
            blocks.refuse_blocked(conn, a.userid, b.userid, "follow them")
        return False  # unblocked again since: the follow is undone all the same
    dispatch(BackfillStream(a.userid, b.userid))
    return created


def unfollow(follower: User | str, followed: str) -> bool:
    """Stop ``follower`` following ``followed`` (:func:`end_follow`),
    counted first against the follower's limit as :func:`follow` is."""
    ratelimit.check(ratelimit.FOLLOWS, accounts.userid_of(follower))
    return end_follow(follower, followed)


def end_follow(follower: User | str, followed: str) -> bool:
    """Stop ``follower`` following ``followed``; False if it did not. No
    limit is charged: an account's deletion ends its edges with this.

    Counts go down first (once per edge, as in :func:`follow`), then the
    edges go, then the followee's twits leave the follower's stream. Every
    edge generation adds exactly one +1 (its follow's operation) and one -1
    (its unfollow's), each applied once by whoever gets there first, so the
    counts equal the edges under any interleaving of follows and unfollows.
    """
    a, b = _pair(follower, followed)
    _forget(a.userid)
    edge = keys.follows_key(a.userid, b.userid)
    with connection() as conn:
        follows = conn.table(table_name("follows"))
        row = follows.row(edge, include_timestamp=True)
        if OP not in row:
            dispatch(RemoveFolloweeFromStream(a.userid, b.userid))
            return False
        op, generation = row[OP]
        follow_counts = MarkedChange(conn, _uncounted(follows, edge, op))
        if row.get(COUNTED, (None, 0))[0] != op:
            # The follow that made this edge has not recorded its count yet: it
            # is still running, or it crashed. Apply its +1 here, as part of
            # the follow's own change, so whichever of the two gets there
            # first counts it and the other counts nothing. Without this, the
            # edge would go while its +1 still lands: a follower too many.
            _count_edge(follow_counts, a.userid, b.userid, 1, op_id(b"follow", op))
        # The unfollow is a change of its own, marked done by the edge's delete.
        unfollow_counts = MarkedChange(conn, lambda: follows.row(edge, columns=[OP]).get(OP) == op)
        _count_edge(unfollow_counts, a.userid, b.userid, -1, op_id(b"unfollow", op))
        conn.table(table_name("followedBy")).delete(
            keys.followed_by_key(b.userid, a.userid), timestamp=generation
        )
        follows.delete(edge, timestamp=generation)
        follow_counts.settle()
        unfollow_counts.settle()
        _followers_changed(conn, b.userid)
        _following_changed(conn, a.userid)
    # After the edge is gone: the cleanup does nothing if it finds the edge
    # again (followed anew). An unfollow retried after a crash before this
    # line finds no edge and queues the cleanup all the same.
    dispatch(RemoveFolloweeFromStream(a.userid, b.userid))
    return True


def _uncounted(follows: happybase.table.Table, edge: bytes, op: bytes) -> Callable[[], bool]:
    """Whether the follow ``op`` still waits to be counted: its edge is there
    (an unfollow deletes it; a re-follow makes another op) and not marked
    counted. Its counts go through a MarkedChange (storage.ops) with this."""

    def undone() -> bool:
        row = follows.row(edge, columns=[OP, COUNTED])
        return bool(row.get(OP) == op and row.get(COUNTED) != op)

    return undone


def _count_edge(change: MarkedChange, a: str, b: str, delta: int, op: bytes) -> None:
    """``a``'s following and ``b``'s followers counts, by ``delta``, as part of ``change``."""
    accounts.count_change(change, a, rows.COUNT_FOLLOWING, delta, op)
    accounts.count_change(change, b, rows.COUNT_FOLLOWERS, delta, op)


@read_only
def _followers_changed(conn: happybase.Connection, userid: str) -> None:
    """After a followedBy row of ``userid`` changed: raise their
    FOLLOWERS_CHANGED counter, so a packed list of their followers made
    before is stale (see fanout._planning_followers), and delete the list,
    so none names a follower who left (an account deletion leaves nothing).

    A fan-out racing this call may write a list again, under the version
    before the raise: it is never read, and HBase drops it within ten
    minutes. A crash just before the raise leaves the old list current for
    as long; a retry of the follow or unfollow raises it."""
    accounts.bump(conn, userid, rows.FOLLOWERS_CHANGED)
    conn.table(table_name("followerLists")).delete(keys.user_key(userid))


def _following_changed(conn: happybase.Connection, userid: str) -> None:
    """After a follows row of ``userid`` came or went: raise their
    FOLLOWING_CHANGED counter, so a process that remembers which large
    accounts they follow under the old value asks again
    (streams.FollowedCache). Raised after the edge changed, so an answer
    remembered under the new value saw the change. A crash just before the
    raise leaves the old answer for as long as the cache keeps answers;
    a retry of the follow or unfollow raises it."""
    accounts.bump(conn, userid, rows.FOLLOWING_CHANGED)


def is_following(follower: str, followed: str) -> bool:
    with connection() as conn:
        row = conn.table(table_name("follows")).row(
            keys.follows_key(follower, followed), columns=[OP]
        )
    return OP in row


def _ref(key: bytes, row: dict[bytes, bytes]) -> UserRef | None:
    other = rows.decode_edge(row)
    return None if other is None else UserRef(*other)


@read_only
def _edges(table: str, userid: str, cursor: str | None, limit: int) -> Page[UserRef]:
    """One page of a user's edges in ``table``: a prefix scan, no per-user reads."""
    user = accounts.get_user(userid)
    with connection() as conn:
        return scan_page(
            conn.table(table_name(table)),
            keys.user_hash(user.userid),
            keys.EDGE_KEY_LEN,
            cursor,
            limit,
            _ref,
        )


def followers(userid: str, cursor: str | None = None, limit: int = 20) -> Page[UserRef]:
    """Who follows ``userid`` (the followedBy table)."""
    return _edges("followedBy", userid, cursor, limit)


def following(userid: str, cursor: str | None = None, limit: int = 20) -> Page[UserRef]:
    """Whom ``userid`` follows (the follows table)."""
    return _edges("follows", userid, cursor, limit)


@read_only
def following_among(follower: str, userids: list[str]) -> set[str]:
    """Which of ``userids`` ``follower`` follows (lower-cased): one multi-get
    of the follows rows, for a page of people with follow buttons."""
    wanted = {u.lower() for u in userids if accounts.USERID_RE.fullmatch(u)}
    if not wanted:
        return set()
    by_key = {keys.follows_key(follower, u): u for u in wanted}
    with connection() as conn:
        found = conn.table(table_name("follows")).rows(list(by_key), columns=[OP])
    return {by_key[k] for k, row in found if OP in row}


def followers_among(followed: str, userids: list[str]) -> set[str]:
    """Which of ``userids`` follow ``followed`` (lower-cased): one multi-get
    of the follows rows, for "Follows you" on a page of people."""
    wanted = {u.lower() for u in userids if accounts.USERID_RE.fullmatch(u)}
    if not wanted:
        return set()
    by_key = {keys.follows_key(u, followed): u for u in wanted}
    with connection() as conn:
        found = conn.table(table_name("follows")).rows(list(by_key), columns=[OP])
    return {by_key[k] for k, row in found if OP in row}


# Who to follow: how far the friends-of-friends count reads.
SUGGEST_FROM = 20  # at most this many of the people one follows are asked (md5 order)
SUGGEST_EACH = 100  # at most this many of each one's follows are counted
FOLLOWING_MAX = 1000  # at most this many of one's own follows are left out
POPULAR_SAMPLE = 200  # users rows the popular fallback ranks
SUGGEST_HELD = 20  # candidates ranked at a time and held for the next pages
SUGGEST_USERS_HELD = 10_000  # readers whose candidates a process holds, at most


def _followed_by_followees(conn: happybase.Connection, mine: list[bytes]) -> dict[str, int]:
    """userid (as stored) -> how many of the followee hashes ``mine`` follow them."""
    counts: dict[str, int] = {}
    follows = conn.table(table_name("follows"))
    for followee in mine[:SUGGEST_FROM]:
        for _, row in follows.scan(
            row_prefix=followee, columns=[rows.EDGE_USERID], limit=SUGGEST_EACH, batch_size=500
        ):
            other = rows.edge_userid(row)
            counts[other] = counts.get(other, 0) + 1
    return counts


def _popular(conn: happybase.Connection) -> list[tuple[int, str]]:
    """(followers, userid) of a sample of users (the first POPULAR_SAMPLE rows,
    in md5 order: an arbitrary sample, ranked by follower count)."""
    return [
        (u.followers, u.userid) for u in accounts.sample(conn, POPULAR_SAMPLE) if not u.disabled
    ]


# Whom each reader was last offered, ranked: (table prefix, userid) ->
# (when, the candidates' userids). Oldest first, for the bound.
SUGGESTIONS_HELD: OrderedDict[tuple[str, str], tuple[float, tuple[str, ...]]] = OrderedDict()
_HELD_LOCK = threading.Lock()


@read_only
def suggest_follows(
    userid: str, limit: int = 5, monotonic: Callable[[], float] = time.monotonic
) -> list[User]:
    """Whom ``userid`` might follow, best first; never themselves, anyone they
    follow, or a suspended account.

    People followed by the people ``userid`` follows, ranked by how many of
    those follow them (ties: more followers first, then userid); topped up
    with popular accounts (most followers first), which is all a new user
    gets. Ranking reads: one scan of whom ``userid`` follows, one scan (of at
    most SUGGEST_EACH rows) per followee, up to SUGGEST_FROM of them, one
    multi-get of the candidates' rows, and the fallback's scan of at most
    POPULAR_SAMPLE users rows: some sixty round trips.

    The box is beside every home page, so the ranking (SUGGEST_HELD
    candidates) is kept in the process for TWITBASE_SUGGEST_CACHE_S (0:
    ranked every time), and a page in that time reads only the candidates'
    users rows and the reader's follows rows for them, in one round trip:
    what the docstring's first line promises is checked on each read, so a
    follow or a suspension made by any process shows on the next page; only
    the order, and newcomers to the ranking, may be that old. A follow or
    unfollow made in this process ranks again at once (:func:`_forget`).
    """
    max_age = settings.TWITBASE_SUGGEST_CACHE_S
    if max_age <= 0 or limit > SUGGEST_HELD:
        return _ranked(userid, limit)
    key = (settings.TWITBASE_TABLE_PREFIX, userid.lower())
    now = monotonic()
    with _HELD_LOCK:
        held = SUGGESTIONS_HELD.get(key)
    if held is not None and 0 <= now - held[0] < max_age:
        picks = _still_suggested(userid, held[1], limit)
        if len(picks) >= limit or len(held[1]) < SUGGEST_HELD:
            return picks  # enough, or all there were
    picks = _ranked(userid, SUGGEST_HELD)
    with _HELD_LOCK:
        SUGGESTIONS_HELD[key] = (now, tuple(u.userid for u in picks))
        SUGGESTIONS_HELD.move_to_end(key)
        while len(SUGGESTIONS_HELD) > SUGGEST_USERS_HELD:
            SUGGESTIONS_HELD.popitem(last=False)
    return picks[:limit]


def _forget(userid: str) -> None:
    """``userid``'s held suggestions: ranked again at their next page, as
    their follows have just changed."""
    with _HELD_LOCK:
        SUGGESTIONS_HELD.pop((settings.TWITBASE_TABLE_PREFIX, userid.lower()), None)


def _still_suggested(userid: str, candidates: tuple[str, ...], limit: int) -> list[User]:
    """The first ``limit`` of ``candidates`` (in their order) that have an
    account, are not suspended, and ``userid`` does not follow: their users
    rows and the follows rows from ``userid`` to them, in one round trip
    (the accounts past those are not decoded)."""
    if not candidates:
        return []
    with connection() as conn:
        pipe = ops.Pipeline(conn)
        users = accounts.ask_users(pipe, candidates)
        followed = pipe.rows(
            table_name("follows"), [keys.follows_key(userid, u) for u in candidates], [OP]
        )
        pipe.send()
    found = users()
    edges = {key for key, row in followed.value if OP in row}
    picks: list[User] = []
    for u in candidates:
        if keys.follows_key(userid, u) in edges:
            continue
        user = found.get(u.lower())
        if user is not None and not user.disabled:
            picks.append(user)
            if len(picks) == limit:
                break
    return picks


def _ranked(userid: str, limit: int) -> list[User]:
    """:func:`suggest_follows`, ranked from the follow graph as it is now."""
    me = keys.user_hash(userid)
    with connection() as conn:
        mine = [
            k[keys.MD5_LEN :]
            for k, _ in conn.table(table_name("follows")).scan(
                row_prefix=me,
                filter=ops.KEYS_ONLY,
                limit=FOLLOWING_MAX,
                batch_size=FOLLOWING_MAX,
            )
        ]
        skip = {*mine, me}
        counts = _followed_by_followees(conn, mine)
        ranked = [u for u in counts if keys.user_hash(u) not in skip]
        found = accounts.users_of(conn, ranked)
        scored = []
        for u in ranked:
            user = found.get(u.lower())
            if user is not None and not user.disabled:
                scored.append((-counts[u], -user.followers, user.userid.lower(), user))
        picks = [user for *_, user in sorted(scored, key=lambda s: s[:3])][:limit]
        if len(picks) < limit:
            taken = skip | {keys.user_hash(u.userid) for u in picks}
            popular = sorted(
                (p for p in _popular(conn) if keys.user_hash(p[1]) not in taken),
                key=lambda p: (-p[0], p[1].lower()),
            )
            wanted = [p[1] for p in popular[: limit - len(picks)]]
            extra = accounts.users_of(conn, wanted)
            picks += [extra[u.lower()] for u in wanted if u.lower() in extra]
    return picks


def edge_rows(
    follower: str,
    follower_name: str,
    followed: str,
    followed_name: str,
    generation: int,
    op: bytes,
) -> list[LoadRow]:
    """Both rows of one follow as :func:`follow` leaves them once counted,
    its operation ``op`` at ``generation``: for the bulk loader, which
    counts the users' follows itself; nothing is written."""
    return [
        (
            "follows",
            keys.follows_key(follower, followed),
            rows.encode_edge(followed, followed_name, generation, op=op, counted=op),
            generation,
        ),
        (
            "followedBy",
            keys.followed_by_key(followed, follower),
            rows.encode_edge(follower, follower_name, generation, op=op),
            generation,
        ),
    ]


# -- account deletion (services/deletion.py) ------------------------------------------------


def edges_of(userid: str) -> list[tuple[str, str]]:
    """Every follow ``userid`` is on, as (follower, followed): those they make,
    then those made of them, each as its edge row names the other. Two scans."""
    found = []
    with connection() as conn:
        for table, pair in (
            ("follows", lambda other: (userid, other)),
            ("followedBy", lambda other: (other, userid)),
        ):
            found += [
                pair(rows.edge_userid(d))
                for _, d in conn.table(table_name(table)).scan(
                    row_prefix=keys.user_hash(userid), columns=[rows.EDGE_USERID], batch_size=1000
                )
            ]
    return found


def drop_edge(follower: str, followed: str) -> None:
    """Delete both rows of a follow whose other end is gone already, so no
    count is left to correct (:func:`unfollow` corrects them): for account
    deletion. Idempotent."""
    with connection() as conn:
        conn.table(table_name("follows")).delete(keys.follows_key(follower, followed))
        conn.table(table_name("followedBy")).delete(keys.followed_by_key(followed, follower))


def follower_hashes(user_hash: bytes) -> list[bytes]:
    """The md5s of those who follow the user whose md5 is ``user_hash``: one
    scan of their followedBy keys."""
    with connection() as conn:
        found = ops.row_keys_with_prefix(conn, table_name("followedBy"), user_hash, 1000)
    return [key[keys.MD5_LEN :] for key in found]


def forget_user(userid: str) -> None:
    """Delete ``userid``'s packed list of followers (their followedBy rows go
    with the unfollows): for account deletion."""
    with connection() as conn:
        conn.table(table_name("followerLists")).delete(keys.user_key(userid))


# -- what the fan-out reads (services/fanout.py) ---------------------------------------


def generation(conn: happybase.Connection, follower: str, followed: str) -> int | None:
    """The generation of ``follower``'s follow of ``followed``: its edge's
    timestamp (see :func:`_claim_edge`); None if there is no such follow."""
    edge = conn.table(table_name("follows")).row(
        keys.follows_key(follower, followed), columns=[OP], include_timestamp=True
    )
    return edge[OP][1] if OP in edge else None


def follower_keys(
    conn: happybase.Connection, begin: bytes, end: bytes | None, fetch: int, limit: int | None
) -> list[bytes]:
    """The followedBy keys from ``begin`` up to ``end`` (exclusive; None:
    the table's end), at most ``limit`` of them (None: all), asked for
    ``fetch`` at a time. Keys only: a follower's md5 is the second half of
    its key."""
    return ops.row_keys_between(conn, table_name("followedBy"), begin, end, fetch, limit)


def packed_followers(conn: happybase.Connection, userid: str, version: bytes) -> bytes | None:
    """The md5s of ``userid``'s followers, run together, from their packed
    list if it was made under ``version`` (rows.follower_list_version of
    their users row); else None."""
    cell = conn.table(table_name("followerLists")).row(
        keys.user_key(userid), columns=[rows.FOLLOWER_LIST]
    )
    return rows.decode_follower_list(cell.get(rows.FOLLOWER_LIST), version)


def store_packed_followers(
    conn: happybase.Connection, userid: str, version: bytes, md5s: bytes
) -> None:
    """Store ``md5s`` as ``userid``'s packed list of followers, made under
    ``version``: the next fan-out reads one cell instead of a scan."""
    packed = rows.encode_follower_list(version, md5s)
    conn.table(table_name("followerLists")).put(keys.user_key(userid), {rows.FOLLOWER_LIST: packed})


def followed_among(
    conn: happybase.Connection, follower: str, userids: tuple[str, ...]
) -> tuple[str, ...]:
    """Those of ``userids`` whom ``follower`` follows, in their order: one
    multi-get of the follows rows (a home page's large accounts)."""
    edges = conn.table(table_name("follows")).rows(
        [keys.follows_key(follower, u) for u in userids], columns=[OP]
    )
    followed = {edge[keys.MD5_LEN :] for edge, _ in edges}
    return tuple(u for u in userids if keys.user_hash(u) in followed)
