"""Lists of accounts: a user's named, public lists, and each list's
timeline, its members' twits newest first. This module owns their two
tables (docs/schema.md):

- ``userLists`` md5(owner) + rts + suffix: a user's lists are one prefix
  scan, newest first, and a list's id is its key in hex, so a list is one
  get from its id. The row carries the member count.
- ``listMembers`` md5(list key) + md5(member): a list's members are one
  prefix scan, "is she listed?" is one get.

A list's timeline is merged at read time from its members' own twits
(:func:`merge_newest`), not fanned out into list streams: a post then costs
nothing more however many lists name its author, adding a member needs no
backfill and removing one no cleanup, and a deleted twit leaves every list
with its twits row. The read pays instead, a scan per member; the merge
asks each member for few rows and more only of those whose rows could still
be on the page, so a page of 20 over 20 members reads about 40 rows (the
figures are in docs/benchmarks.md).

The member count is exact however adds and removes race: each membership
is claimed by a checkAndPut naming its operation, and its +1 and its
removal's -1 are counted once each through a MarkedChange, as a follow's
are (:mod:`.follows`). The cap is checked again after the count: an add
that finds the list over it takes itself back.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

import happybase

from feeds.errors import InvalidInput, NotFound, Suspended
from feeds.types import Page, Twit, User, UserRef, from_millis
from storage import keys, ops, rows
from storage.connection import connection, read_only, table_name
from storage.ops import MarkedChange, check_and_put, op_id

from . import accounts, blocks, ratelimit, twits
from ._clock import now_millis
from ._load import LoadRow
from ._paging import check_limit, scan_page
from .hydration import hydrate

NAME_MAX = 50
DESCRIPTION_MAX = 160
MEMBERS_MAX = 500  # members of one list
LISTS_MAX = 100  # lists of one user
ID_LEN = 2 * keys.LIST_KEY_LEN  # a list's id is its key in hex

OP = rows.LIST_MEMBER_OP
COUNTED = rows.LIST_MEMBER_COUNTED


@dataclass(frozen=True)
class AccountList:
    """One list, as its page and the API show it."""

    id: str
    owner: str
    name: str
    description: str
    created: datetime
    members: int


def _list_of(key: bytes, stored: rows.ListRow) -> AccountList:
    return AccountList(
        keys.list_id(key),
        stored.owner,
        stored.name,
        stored.description,
        from_millis(stored.created),
        max(0, stored.members),
    )


def _clean(value: object, field: str, most: int, *, required: bool) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise InvalidInput(field, f"The {field} must be text.")
    value = " ".join(value.split())
    if required and not value:
        raise InvalidInput(field, "Give the list a name.")
    if len(value) > most:
        raise InvalidInput(
            field, f"A list's {field} is at most {most} characters; this is {len(value)}."
        )
    if accounts.has_control_chars(value):
        raise InvalidInput(field, f"A list's {field} cannot contain control characters.")
    return value


def _key(list_id: str) -> bytes:
    try:
        return keys.list_key_from_id(list_id)
    except keys.BadKey:
        raise NotFound(f"No list {list_id!r}.") from None


def _stored(conn: happybase.Connection, key: bytes) -> rows.ListRow | None:
    return rows.decode_list(conn.table(table_name("userLists")).row(key))


# -- the lists -------------------------------------------------------------------------


def create_list(owner: User | str, name: object, description: object = None) -> AccountList:
    """A new list of ``owner``'s, empty. InvalidInput for a name that is
    empty or longer than NAME_MAX, a description longer than
    DESCRIPTION_MAX, or an owner who has LISTS_MAX lists already."""
    user = accounts.loaded(owner)
    ratelimit.check(ratelimit.LIST_CHANGES, user.userid)
    clean_name = _clean(name, "name", NAME_MAX, required=True)
    clean_description = _clean(description, "description", DESCRIPTION_MAX, required=False)
    with connection() as conn:
        mine = ops.row_keys_with_prefix(
            conn, table_name("userLists"), keys.user_hash(user.userid), LISTS_MAX
        )
        if len(mine) >= LISTS_MAX:
            raise InvalidInput("name", f"You have {LISTS_MAX} lists, the most one can have.")
        created = now_millis()
        key = keys.list_key(user.userid, created, keys.new_suffix())
        cells = rows.encode_list(user.userid, clean_name, clean_description, created)
        conn.table(table_name("userLists")).put(key, cells)
    return _list_of(key, rows.ListRow(user.userid, clean_name, clean_description, created, 0))


@read_only
def get_list(list_id: str, reader: User | str | None = None) -> AccountList:
    """The list ``list_id`` as ``reader`` may see it: NotFound if there is
    none, Suspended while its owner is, Forbidden when its owner blocks the
    reader."""
    key = _key(list_id)
    with connection() as conn:
        stored = _stored(conn, key)
    if stored is None:
        raise NotFound(f"No list {list_id!r}.")
    owner = accounts.public_user(stored.owner)
    blocks.refuse_if_blocked_by(owner.userid, reader)
    return _list_of(key, stored)


def _own(owner: str, list_id: str) -> tuple[bytes, rows.ListRow]:
    """The list if ``owner`` owns it: NotFound if it is not there (or is
    someone else's: nobody learns more by trying)."""
    key = _key(list_id)
    with connection() as conn:
        stored = _stored(conn, key)
    if stored is None or stored.owner.lower() != owner.lower():
        raise NotFound(f"You have no list {list_id!r}.")
    return key, stored


@read_only
def lists_of(
    userid: str, cursor: str | None = None, limit: int = 20, reader: User | str | None = None
) -> Page[AccountList]:
    """``userid``'s lists, newest first: one prefix scan."""
    blocks.refuse_if_blocked_by(userid, reader)
    with connection() as conn:
        return scan_page(
            conn.table(table_name("userLists")),
            keys.user_hash(userid),
            keys.LIST_KEY_LEN,
            cursor,
            limit,
            lambda key, row: None if (s := rows.decode_list(row)) is None else _list_of(key, s),
        )


def delete_list(owner: str, list_id: str) -> None:
    """Delete ``owner``'s list and its members. NotFound if it is not theirs.
    A retry after a crash finds the list still there (its row goes last)."""
    key, _ = _own(owner, list_id)
    ratelimit.check(ratelimit.LIST_CHANGES, owner)
    _drop(key)


def _drop(key: bytes) -> None:
    with connection() as conn:
        ops.delete_prefix(conn, table_name("listMembers"), keys.list_hash(key))
        conn.table(table_name("userLists")).delete(key)


# -- members -------------------------------------------------------------------------


def _claim(conn: happybase.Connection, member_key: bytes) -> tuple[bytes, int]:
    """The membership's (op, generation), creating it if absent: of two
    racing adds, one creates it (see follows._claim_edge, whose loop this is)."""
    table = conn.table(table_name("listMembers"))
    while True:
        cell = table.row(member_key, columns=[OP], include_timestamp=True).get(OP)
        if cell is not None:
            return cell[0], cell[1]
        created = check_and_put(
            conn, table_name("listMembers"), member_key, OP, None, OP, uuid.uuid4().bytes
        )
        if created and OP not in table.row(member_key, columns=[OP]):
            time.sleep(0.002)


def _uncounted(table: happybase.table.Table, member_key: bytes, op: bytes) -> Callable[[], bool]:
    def undone() -> bool:
        row = table.row(member_key, columns=[OP, COUNTED])
        return bool(row.get(OP) == op and row.get(COUNTED) != op)

    return undone


def _count(change: MarkedChange, key: bytes, delta: int, op: bytes) -> None:
    change.count(table_name("userLists"), key, rows.LIST_MEMBERS, delta, op)


def add_member(owner: str, list_id: str, member: str) -> bool:
    """Put ``member`` on ``owner``'s list; False if they were on it.
    NotFound for a list that is not the owner's or an unknown member;
    Forbidden if either blocks the other; InvalidInput for a suspended
    member or a list that has MEMBERS_MAX members."""
    key, stored = _own(owner, list_id)
    ratelimit.check(ratelimit.LIST_CHANGES, owner)
    accounts.check_userid(member, "userid")
    user = accounts.get_user(member)
    if user.disabled:
        raise Suspended("This account is suspended: it cannot be added to a list.")
    if stored.members >= MEMBERS_MAX:
        raise InvalidInput("userid", f"A list has at most {MEMBERS_MAX} members; this one is full.")
    member_key = keys.list_member_key(key, user.userid)
    with connection() as conn:
        blocks.refuse_blocked(conn, owner, user.userid, "add them to a list")
        table = conn.table(table_name("listMembers"))
        existed = OP in table.row(member_key, columns=[OP])
        op, generation = _claim(conn, member_key)
        table.put(
            member_key, rows.encode_list_member(key, user.userid, user.name), timestamp=generation
        )
        if table.row(member_key, columns=[COUNTED]).get(COUNTED) != op:
            change = MarkedChange(conn, _uncounted(table, member_key, op))
            _count(change, key, 1, op_id(b"list-add", op))
            table.put(member_key, {COUNTED: op}, timestamp=generation)
            change.settle()
        members = rows.decode_counted(
            conn.table(table_name("userLists"))
            .row(key, columns=[rows.LIST_MEMBERS])
            .get(rows.LIST_MEMBERS)
        ).count
        blocked = blocks.blocked_between(conn, owner, user.userid)
    if members > MEMBERS_MAX and not existed:
        # Racing adds took the list past its cap: this one goes back.
        _end_membership(key, user.userid)
        raise InvalidInput("userid", f"A list has at most {MEMBERS_MAX} members; this one is full.")
    if blocked:
        _end_membership(key, user.userid)
        with connection() as conn:
            blocks.refuse_blocked(conn, owner, user.userid, "add them to a list")
        return False
    if _stored_gone(key):
        # The list was deleted meanwhile: its members go with it.
        _drop(key)
        raise NotFound(f"You have no list {list_id!r}.")
    return not existed


def _stored_gone(key: bytes) -> bool:
    with connection() as conn:
        return _stored(conn, key) is None


def remove_member(owner: str, list_id: str, member: str) -> bool:
    """Take ``member`` off ``owner``'s list; False if they were not on it.
    NotFound for a list that is not the owner's."""
    key, _ = _own(owner, list_id)
    ratelimit.check(ratelimit.LIST_CHANGES, owner)
    return _end_membership(key, member)


def _end_membership(key: bytes, member: str) -> bool:
    """As follows.end_follow: the addition's +1 counted if it was not yet
    (a racing or crashed add), then the removal's -1, marked done by the
    row's delete, so the count equals the rows under any interleaving."""
    member_key = keys.list_member_key(key, member)
    with connection() as conn:
        table = conn.table(table_name("listMembers"))
        row = table.row(member_key, include_timestamp=True)
        if OP not in row:
            return False
        op, generation = row[OP]
        add_counts = MarkedChange(conn, _uncounted(table, member_key, op))
        if row.get(COUNTED, (None, 0))[0] != op:
            _count(add_counts, key, 1, op_id(b"list-add", op))
        remove_counts = MarkedChange(
            conn, lambda: table.row(member_key, columns=[OP]).get(OP) == op
        )
        _count(remove_counts, key, -1, op_id(b"list-remove", op))
        table.delete(member_key, timestamp=generation)
        add_counts.settle()
        remove_counts.settle()
    return True


def _member(_: bytes, row: dict[bytes, bytes]) -> UserRef | None:
    if rows.LIST_MEMBER_USERID not in row:
        return None
    return UserRef(
        row[rows.LIST_MEMBER_USERID].decode(), row.get(rows.LIST_MEMBER_NAME, b"").decode()
    )


def _members_page(key: bytes, cursor: str | None, limit: int) -> Page[UserRef]:
    with connection() as conn:
        return scan_page(
            conn.table(table_name("listMembers")),
            keys.list_hash(key),
            keys.LIST_MEMBER_KEY_LEN,
            cursor,
            limit,
            _member,
            columns=[rows.LIST_MEMBER_USERID, rows.LIST_MEMBER_NAME],
        )


@read_only
def members(
    list_id: str, cursor: str | None = None, limit: int = 20, reader: User | str | None = None
) -> Page[UserRef]:
    """The list's members (in the order of their md5s, as a prefix scan
    gives them), as :func:`get_list` lets ``reader`` see the list."""
    found = get_list(list_id, reader)
    return _members_page(_key(found.id), cursor, limit)


def _all_members(key: bytes) -> list[str]:
    """The list's members' userids: one scan of at most MEMBERS_MAX rows (and
    a few more, should racing adds have gone past it), in two round trips."""
    prefix = keys.list_hash(key)
    with connection() as conn:
        found = ops.scan_rows(
            conn.table(table_name("listMembers")),
            prefix,
            keys.prefix_stop(prefix),
            2 * MEMBERS_MAX,
            [rows.LIST_MEMBER_USERID],
        )
    return [
        row[rows.LIST_MEMBER_USERID].decode() for _, row in found if rows.LIST_MEMBER_USERID in row
    ]


@read_only
def is_member(list_id: str, member: str) -> bool:
    with connection() as conn:
        row = conn.table(table_name("listMembers")).row(
            keys.list_member_key(_key(list_id), member), columns=[OP]
        )
    return OP in row


@read_only
def listed_in(owner: str, member: str) -> list[tuple[AccountList, bool]]:
    """``owner``'s lists (at most LISTS_MAX), each with whether ``member``
    is on it: the profile's "Add to list" menu. One scan and one multi-get."""
    with connection() as conn:
        found = [
            (key, s)
            for key, row in conn.table(table_name("userLists")).scan(
                row_prefix=keys.user_hash(owner), batch_size=LISTS_MAX, limit=LISTS_MAX
            )
            if (s := rows.decode_list(row)) is not None
        ]
        wanted = [keys.list_member_key(key, member) for key, _ in found]
        on = {k for k, _ in conn.table(table_name("listMembers")).rows(wanted, columns=[OP])}
    return [(_list_of(key, s), keys.list_member_key(key, member) in on) for key, s in found]


# -- the timeline: merged at read time ---------------------------------------------------

T = TypeVar("T")


@dataclass(frozen=True)
class Fetch:
    """One source's next rows wanted: from ``start`` (a row key; b"": its
    first), at most ``count``."""

    source: int
    start: bytes
    count: int


@dataclass(frozen=True)
class Fetched(Generic[T]):
    """A row a source gave: its row key, its place in the merged order
    (ascending), and its item (None: a row the merge skips)."""

    key: bytes
    order: bytes
    item: T | None


def merge_newest(
    sources: int,
    after: bytes | None,
    limit: int,
    fetch: Callable[[list[Fetch]], list[list[Fetched[T]]]],
) -> tuple[list[T], bytes | None]:
    """The first ``limit`` items, by ``order``, of ``sources`` sources each
    sorted by it, after the order key ``after`` (None: from the first):
    the items and the order key of the last one when more follow (None on
    the last page). ``fetch`` reads each wanted source's next rows, all at
    once (one round of scans).

    Each source is asked for a few rows, and again, for twice as many, only
    while its last row read sorts before the page's last candidate: every
    row no source has given sorts after its source's last row read, so the
    rows up to the smallest such "last row" among unfinished sources are
    known completely; once ``limit + 1`` items lie there, the page is exact.
    """
    check_limit(limit)
    per = max(2, -(-(limit + 1) // max(1, sources)) + 1)
    starts = [b""] * sources
    last: list[bytes | None] = [None] * sources
    done = [False] * sources
    got: list[Fetched[T]] = []
    wanted = list(range(sources))
    while True:
        if wanted:
            answers = fetch([Fetch(i, starts[i], per) for i in wanted])
            for i, answer in zip(wanted, answers, strict=True):
                if len(answer) < per:
                    done[i] = True
                if answer:
                    last[i] = answer[-1].order
                    starts[i] = keys.after(answer[-1].key)
                got.extend(
                    f for f in answer if f.item is not None and (after is None or f.order > after)
                )
        got.sort(key=lambda f: f.order)
        open_ends = [last[i] or b"" for i in range(sources) if not done[i]]
        bound = min(open_ends) if open_ends else None
        certain = got if bound is None else [f for f in got if f.order <= bound]
        if bound is None or len(certain) > limit:
            page = certain[:limit]
            more = len(certain) > limit
            return [f.item for f in page if f.item is not None], page[-1].order if more else None
        threshold = got[limit].order if len(got) > limit else None
        wanted = [
            i
            for i in range(sources)
            if not done[i] and (threshold is None or (last[i] or b"") < threshold)
        ]
        per *= 2


def _member_rows(
    conn: happybase.Connection, member_ids: Sequence[str], start_after: bytes | None
) -> Callable[[list[Fetch]], list[list[Fetched[Twit]]]]:
    """The merge's ``fetch`` over the members' twits rows: one
    scan_rows_many per round. A first read of a member starts at the
    cursor's time (its twits before it are on earlier pages)."""
    rts = b"" if start_after is None else start_after[: keys.RTS_LEN]

    def fetch(wanted: list[Fetch]) -> list[list[Fetched[Twit]]]:
        scans = [
            twits.timeline_scan_from(
                conn,
                member_ids[w.source],
                w.start or keys.user_hash(member_ids[w.source]) + rts,
                w.count,
            )
            for w in wanted
        ]
        return [
            [
                Fetched(key, keys.list_order_key(key), twits.timeline_twit(key, row))
                for key, row in found
            ]
            for found in ops.scan_rows_many(conn, scans)
        ]

    return fetch


def _decode_cursor(cursor: str | None) -> bytes | None:
    if not cursor:
        return None
    try:
        return keys.decode_cursor(cursor, b"", keys.TWIT_KEY_LEN)
    except keys.BadKey as exc:
        raise InvalidInput("cursor", f"invalid cursor: {exc}") from None


def timeline_page(key: bytes, cursor: str | None, limit: int) -> Page[Twit]:
    """The list's members' twits, newest first, counts and all, not yet
    hydrated: the members' prefix scan, then the read-time merge of their
    twits rows. The cursor is the last twit's order key (keys.list_order_key)."""
    after = _decode_cursor(cursor)
    check_limit(limit)
    member_ids = _all_members(key)
    with connection() as conn:
        found, last = merge_newest(
            len(member_ids), after, limit, _member_rows(conn, member_ids, after)
        )
    return Page(tuple(found), None if last is None else keys.encode_cursor(last))


@read_only
def list_timeline(
    list_id: str, cursor: str | None = None, limit: int = 20, reader: User | str | None = None
) -> Page[Twit]:
    """The list's timeline as ``reader`` sees it: :func:`timeline_page`,
    then the hydrate step, which hides the twits of suspended members and of
    those blocked either way with the reader (a page may then hold fewer
    than ``limit``)."""
    found = get_list(list_id, reader)
    page = timeline_page(_key(found.id), cursor, limit)
    return Page(hydrate(page.items, reader, counted=True), page.next_cursor)


# -- account deletion (services/deletion.py), the bulk loader ------------------------------


def forget_user(userid: str) -> int:
    """The user's lists go, with their members; the user leaves every other
    list (its count corrected). Idempotent. Returns how many lists it left."""
    with connection() as conn:
        mine = ops.row_keys_with_prefix(conn, table_name("userLists"), keys.user_hash(userid), 1000)
    for key in mine:
        _drop(key)
    # Not with ops.KEYS_ONLY: the value filter must see m:userid (tokens.forget_user).
    match = f"SingleColumnValueFilter('m', 'userid', =, 'binary:{userid}', true, true)"
    with connection() as conn:
        found = [
            row[rows.LIST_MEMBER_LIST]
            for _, row in conn.table(table_name("listMembers")).scan(
                filter=match,
                columns=[rows.LIST_MEMBER_USERID, rows.LIST_MEMBER_LIST],
                batch_size=1000,
            )
            if rows.LIST_MEMBER_LIST in row
        ]
    left = 0
    for key in found:
        if _end_membership(key, userid):
            left += 1
    return left


def list_rows(owner: str, name: str, created: int, members: list[UserRef]) -> list[LoadRow]:
    """The rows of a list as adding ``members`` one by one leaves them, for
    the bulk loader (nothing is written)."""
    key = keys.list_key(owner, created, keys.new_suffix())
    found: list[LoadRow] = []
    ops_done = b""
    for m in members:
        op = uuid.uuid4().bytes
        cells = {**rows.encode_list_member(key, m.userid, m.name), OP: op, COUNTED: op}
        found.append(("listMembers", keys.list_member_key(key, m.userid), cells, created))
        ops_done += op_id(b"list-add", op)
    cells = rows.encode_list(owner, name, "", created)
    cells[rows.LIST_MEMBERS] = rows.encode_counted(
        rows.Counted(len(members), ops_done[-ops.WINDOW * rows.OP_LEN :])
    )
    found.append(("userLists", key, cells, created))
    return found
