"""Notifications: mentions, replies, likes, reposts and new followers, newest
first, with an unread count.

One table holds them, keyed md5(recipient) + rts + kind + subject
(storage/keys.notification_key): a user's notifications are one prefix scan,
cursor-paged, and every key is computed from what caused the notification
(the twit that mentions or replies, the liked twit, the follow's
generation), so a retried write writes the same row and a delete computes
the rows to delete without reading them.

Likes (and reposts) are grouped: a twit's likes are one notification row,
"Ana and 12 others liked your twit", keyed at its latest like's time, so it
moves to the top when someone likes the twit again. A group row
(``notifyGroups``, keyed by the twit) holds the group's state, one JSON cell
moved by checkAndPut (its generation, where its notification row is, its
latest actors), and its count, an apply-once cell. The notification row is
written with the state's generation as its cell timestamp, and the row it
replaces is deleted up to the generation that wrote it, so a slow writer that
lost the race can neither leave a stale row nor resurrect a moved one.

The unread count is an apply-once cell in the recipient's users row
(``c:unread``): a notification adds 1 under an operation id made of its own
key (or of the like), so a retry counts it once; opening the page sets it to
0. Unlikes and deletes take notifications away but leave the count as it
is: it counts what arrived since the user last looked, and never goes
below 0.

Nobody is notified of their own doing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import happybase

from feeds.errors import InvalidInput
from feeds.types import Notification, Page, UserRef, from_millis
from storage import keys, rows
from storage.connection import connection, read_only, table_name
from storage.ops import MarkedChange, apply_once, check_and_put, delete_prefix, op_id

from . import accounts, blocks
from ._paging import scan_page
from .textparse import mentions

KIND_NAMES = {
    keys.NOTIFY_MENTION: "mention",
    keys.NOTIFY_REPLY: "reply",
    keys.NOTIFY_LIKE: "like",
    keys.NOTIFY_REPOST: "repost",
    keys.NOTIFY_FOLLOW: "follow",
    keys.NOTIFY_QUOTE: "quote",
}


def _unread_add(
    conn: happybase.Connection,
    recipient_hash: bytes,
    op: bytes,
    change: MarkedChange | None = None,
) -> None:
    """Count one more unread notification, once for ``op``: through
    ``change`` when it is part of one (see :func:`group_change`)."""
    accounts.count_unread(conn, recipient_hash, op, change)


def _put(
    conn: happybase.Connection,
    recipient_hash: bytes,
    millis: int,
    kind: bytes,
    subject: bytes,
    row: rows.NotificationRow,
    change: MarkedChange | None = None,
) -> None:
    """Write one (ungrouped) notification and count it unread; may be repeated."""
    key = keys.notification_key(recipient_hash, millis, kind, subject)
    # At the cause's own time: a delete of the cause (at a later time) hides
    # it for good, even from a retry of this write that comes after.
    conn.table(table_name("notifications")).put(
        key, rows.encode_notification(row), timestamp=millis
    )
    _unread_add(conn, recipient_hash, op_id(b"notify", key), change)


def _twit_recipients(author: str, text: str, reply_userid: str) -> tuple[str | None, list[str]]:
    """Whom a twit notifies: the author it replies to, and whom it mentions
    (lower-cased; the replied-to author only once, as a reply), never its author."""
    author = author.lower()
    replied = reply_userid.lower() if reply_userid else None
    if replied == author:
        replied = None
    mentioned = [u for u in mentions(text) if u not in (author, replied)]
    return replied, mentioned


def notify_twit(conn: happybase.Connection, key: bytes, twit: rows.TwitRow) -> None:
    """The notifications a newly posted twit causes: its reply, its mentions
    of existing users. Idempotent (every key comes from the twit's)."""
    replied, mentioned = _twit_recipients(twit.userid, twit.text, twit.reply_userid)
    millis = keys.split_twit_key(key).millis
    row = rows.NotificationRow(
        ((twit.userid, twit.name),), 1, keys.twit_id(key), twit.text[: rows.NOTIFY_SNIPPET]
    )
    # Nobody who blocks, is blocked by or mutes the author; the read checks
    # again (a block or mute may come after this).
    allowed = set(
        blocks.unshielded(conn, twit.userid, [*([replied] if replied else []), *mentioned])
    )
    if replied is not None and replied in allowed:
        _put(conn, keys.user_hash(replied), millis, keys.NOTIFY_REPLY, key, row)
    for userid in accounts.enabled(conn, [u for u in mentioned if u in allowed]):
        _put(conn, keys.user_hash(userid), millis, keys.NOTIFY_MENTION, key, row)
    notify_quote(conn, key, twit, row)


def notify_quote(
    conn: happybase.Connection, key: bytes, twit: rows.TwitRow, row: rows.NotificationRow
) -> None:
    """A quote's notification to the quoted twit's author: not one's own
    quote, nor across a block or a mute (as a reply's). Idempotent."""
    quoted = twit.quote_userid.lower()
    if not twit.quote_of or not quoted or quoted == twit.userid.lower():
        return
    if not blocks.unshielded(conn, twit.userid, [quoted]):
        return
    if not accounts.enabled(conn, [quoted]):
        return
    millis = keys.split_twit_key(key).millis
    _put(conn, keys.user_hash(quoted), millis, keys.NOTIFY_QUOTE, key, row)


def forget_quote(conn: happybase.Connection, key: bytes, author: str, quoted: str) -> None:
    """Delete the notification the quote ``key`` by ``author`` sent the
    author of the twit it quotes, ``quoted`` (none: nothing). Safe to repeat."""
    if not quoted or quoted.lower() == author.lower():
        return
    millis = keys.split_twit_key(key).millis
    conn.table(table_name("notifications")).delete(
        keys.notification_key(keys.user_hash(quoted.lower()), millis, keys.NOTIFY_QUOTE, key)
    )


def forget_twit(
    conn: happybase.Connection, key: bytes, author: str, text: str, reply_userid: str
) -> None:
    """Delete the notifications the twit ``key`` caused (its reply and
    mentions, computed from its text) and its like and repost groups. Reads
    only the groups; safe to repeat."""
    replied, mentioned = _twit_recipients(author, text, reply_userid)
    millis = keys.split_twit_key(key).millis
    table = conn.table(table_name("notifications"))
    caused = [(u, keys.NOTIFY_MENTION) for u in mentioned]
    if replied is not None:
        caused.append((replied, keys.NOTIFY_REPLY))
    for userid, kind in caused:
        table.delete(keys.notification_key(keys.user_hash(userid), millis, kind, key))
    groups = conn.table(table_name("notifyGroups"))
    for kind in (keys.NOTIFY_LIKE, keys.NOTIFY_REPOST):
        gkey = keys.notify_group_key(key, kind)
        state = rows.decode_group_state(groups.row(gkey).get(rows.GROUP_STATE))
        for top, _gen in ((state.top, state.gen), *state.was):
            if top:
                table.delete(keys.notification_key(key[: keys.MD5_LEN], top, kind, key))
        groups.delete(gkey)


def notify_follow(
    conn: happybase.Connection,
    follower: UserRef,
    followed: str,
    millis: int,
    change: MarkedChange | None = None,
) -> None:
    """A new follower; ``millis`` is the edge's generation, so a retried
    follow writes the same row, and its unread count goes through the
    follow's ``change`` (once, however late a twin). An unfollow leaves it:
    it tells of something that happened, and a re-follow (a new generation)
    is a new notification."""
    row = rows.NotificationRow(((follower.userid, follower.name),), 1, None, "")
    subject = keys.follow_subject(follower.userid, millis)
    _put(conn, keys.user_hash(followed), millis, keys.NOTIFY_FOLLOW, subject, row, change)


def forget_follower(conn: happybase.Connection, userid: str) -> int:
    """Delete the follow notifications ``userid`` caused, for the deletion of
    their account (their likes, reposts, mentions and replies went with the
    unlikes, un-reposts and twit deletes before). Notifications are keyed by
    recipient, so no prefix finds an actor's: like the tokens, this is one
    scan of the table, filtered on the server by the actors cell, then
    matched exactly here. Returns how many were deleted."""
    table = conn.table(table_name("notifications"))
    wanted = userid.lower()
    # SubstringComparator ignores case; the exact match is below.
    match = f"SingleColumnValueFilter('n', 'actors', =, 'substring:{wanted}', true, true)"
    gone = []
    for key, data in table.scan(filter=match, columns=[rows.NOTIFY_ACTORS_CELL]):
        found = rows.decode_notification(data)
        if (
            found is not None
            and keys.split_notification_key(key)[1] == keys.NOTIFY_FOLLOW
            and any(actor.lower() == wanted for actor, _ in found.actors)
        ):
            gone.append(key)
    for key in gone:
        table.delete(key)
    return len(gone)


# -- groups: likes and reposts ------------------------------------------------------------


def group_change(
    conn: happybase.Connection,
    kind: bytes,
    twit: bytes,
    actor: str,
    name: str,
    millis: int,
    on: bool,
    op: bytes,
    change: MarkedChange | None = None,
    refill: Callable[[], list[tuple[str, str, int]]] | None = None,
    subject: Callable[[], str | None] = lambda: None,
) -> None:
    """``actor`` joined (``on``) or left the like or repost group of ``twit``,
    at ``millis``. ``op`` names this change (the same on every retry): the
    group's count takes it once. The group's notification row is rewritten at
    its latest actor's time; with nobody left it is deleted.

    ``change``: the like or repost state change this is part of, whose
    twins count through it exactly once (without one, the counts take a
    retry once within storage.ops.WINDOW). A change a twin has finished
    already leaves the group alone: it may have been undone since, and
    rewriting the group would bring its actor back.

    ``refill``: the kind's latest actors (userid, name, ms), newest first,
    read from its own rows: what the group's list of latest actors is
    refilled from when a leaving actor empties it while others remain.
    ``subject``: the twit's text, None once its delete has begun (a twit
    being deleted gets no notification: its delete, or a reaction that
    finds it deleting, drops the group: :func:`drop_group`). It is asked
    after the group's state has moved."""
    recipient = twit[: keys.MD5_LEN]
    if keys.user_hash(actor) == recipient:
        return
    gname = table_name("notifyGroups")
    gkey = keys.notify_group_key(twit, kind)
    delta = 1 if on else -1
    unread = op_id(b"notify", op)
    if change is None:
        apply_once(conn, gname, gkey, rows.GROUP_COUNT, delta, op)
        if on:
            _unread_add(conn, recipient, unread)
    else:
        if not change.count(gname, gkey, rows.GROUP_COUNT, delta, op):
            return
        if on:
            _unread_add(conn, recipient, unread, change)

    def moved(state: rows.GroupState, count: int) -> rows.GroupState:
        latest = [e for e in state.latest if e[0].lower() != actor.lower()]
        if on:
            latest.append((actor, name, millis))
        latest.sort(key=lambda e: -e[2])
        latest = latest[: rows.NOTIFY_ACTORS]
        if not latest and count > 0 and refill is not None:
            latest = refill()
        top = max((e[2] for e in latest), default=0) if count > 0 else 0
        # The rows an earlier change may have left: the one this state
        # points at and the one before it (a crash between the state's move
        # and the old row's delete leaves that one; a retry deletes it).
        was = tuple(w for w in ((state.top, state.gen), *state.was[:1]) if w[0] and w[0] != top)
        return rows.GroupState(state.gen + 1, top, tuple(latest), was)

    new = _move_group(conn, gkey, moved)
    assert new is not None
    # The count as it is after this state won: a racing change that counted
    # later also moves the state later, and rewrites the row at a later generation.
    groups = conn.table(gname)
    count = rows.decode_count(groups.row(gkey, columns=[rows.GROUP_COUNT]).get(rows.GROUP_COUNT))
    text = subject() if new.top and count > 0 else None
    table = conn.table(table_name("notifications"))
    if text is not None:
        body = rows.NotificationRow(
            tuple((u, n) for u, n, _ in new.latest),
            count,
            keys.twit_id(twit),
            text[: rows.NOTIFY_SNIPPET],
        )
        table.put(
            keys.notification_key(recipient, new.top, kind, twit),
            rows.encode_notification(body),
            timestamp=new.gen,
        )
    for old, gen in new.was:
        table.delete(keys.notification_key(recipient, old, kind, twit), timestamp=gen)


def _move_group(
    conn: happybase.Connection,
    gkey: bytes,
    step: Callable[[rows.GroupState, int], rows.GroupState],
    *,
    missing_ok: bool = True,
) -> rows.GroupState | None:
    """Move a group's state by checkAndPut to ``step(state, count)``, read
    afresh until it wins; the state written. A group without a state row
    gives None when ``missing_ok`` is false (nothing to move)."""
    gname = table_name("notifyGroups")
    groups = conn.table(gname)
    while True:
        row = groups.row(gkey, columns=[rows.GROUP_STATE, rows.GROUP_COUNT])
        cell = row.get(rows.GROUP_STATE)
        if cell is None and not missing_ok:
            return None
        state = rows.decode_group_state(cell)
        new = step(state, rows.decode_count(row.get(rows.GROUP_COUNT)))
        encoded = rows.encode_group_state(new)
        if check_and_put(conn, gname, gkey, rows.GROUP_STATE, cell, rows.GROUP_STATE, encoded):
            return new


def drop_group(conn: happybase.Connection, twit: bytes, kind: bytes) -> None:
    """Take the ``kind`` group of ``twit`` away with its notification, for
    the twit's delete (idempotent). The state moves to a later generation
    first, and the rows it pointed at are deleted up to that generation, so
    a slow writer that moved the group before this can leave no row behind."""
    gkey = keys.notify_group_key(twit, kind)

    def dead(state: rows.GroupState, _count: int) -> rows.GroupState:
        gone = tuple(w for w in ((state.top, state.gen), *state.was) if w[0])
        return rows.GroupState(state.gen + 1, 0, (), gone)

    final = _move_group(conn, gkey, dead, missing_ok=False)
    if final is None:
        return
    table = conn.table(table_name("notifications"))
    recipient = twit[: keys.MD5_LEN]
    for top, _gen in final.was:
        table.delete(keys.notification_key(recipient, top, kind, twit), timestamp=final.gen)
    conn.table(table_name("notifyGroups")).delete(gkey)


# -- reading ------------------------------------------------------------------------------


def _decode(key: bytes, data: dict[bytes, bytes]) -> Notification | None:
    stored = rows.decode_notification(data)
    if stored is None:
        return None
    millis, kind, _subject = keys.split_notification_key(key)
    return Notification(
        id=keys.encode_cursor(key),
        type=KIND_NAMES[kind],
        actors=tuple(UserRef(u, n) for u, n in stored.actors),
        count=stored.count,
        twit_id=stored.twit_id,
        text=stored.text,
        created=from_millis(millis),
    )


def check_type(only: object) -> bytes | None:
    """The kind byte of a notification type name ("mention", "like", ...);
    None for None (every type). InvalidInput naming ``type`` otherwise."""
    if only is None:
        return None
    for kind, name in KIND_NAMES.items():
        if only == name:
            return kind
    raise InvalidInput("type", f"A type is one of: {', '.join(KIND_NAMES.values())}.")


@read_only
def notifications(
    userid: str, cursor: str | None = None, limit: int = 20, only: str | None = None
) -> Page[Notification]:
    """``userid``'s notifications, newest first: one prefix scan a page,
    without what the user's blocks and mutes hide (:func:`shielded`), so a
    page may hold fewer than ``limit``. ``only``: one type of them (its name,
    as :data:`KIND_NAMES` gives it); the scan reads past the others (the
    kind is in the key, so they are skipped undecoded), as many as a page
    needs."""
    user = accounts.get_user(userid)
    kind = check_type(only)

    def decode(key: bytes, data: dict[bytes, bytes]) -> Notification | None:
        if kind is not None and keys.split_notification_key(key)[1] != kind:
            return None
        return _decode(key, data)

    with connection() as conn:
        page = scan_page(
            conn.table(table_name("notifications")),
            keys.user_hash(user.userid),
            keys.NOTIFY_KEY_LEN,
            cursor,
            limit,
            decode,
        )
    if not page.items or not blocks.needs_shield(user.shields, muting=True):
        return page
    actors = {a.userid for n in page.items for a in n.actors}
    shield = blocks.shield(user.userid, actors, muting=True, marks=user.shields)
    shown = (shielded(n, shield) for n in page.items)
    return Page(tuple(n for n in shown if n is not None), page.next_cursor)


def shielded(n: Notification, shield: blocks.Shield) -> Notification | None:
    """``n`` as its recipient sees it: without the actors they block, are
    blocked by or mute, and gone if none is left, or if a muted word is in
    the text of the twit that mentions or replies (a like or repost is of
    one's own twit, which a muted word never hides). A group's count drops
    by the actors it names who are hidden; those beyond the few it names
    are counted still."""
    if n.type in ("mention", "reply") and shield.hides_text(n.text):
        return None
    actors = tuple(a for a in n.actors if not shield.hides(a.userid))
    if len(actors) == len(n.actors):
        return n
    if not actors:
        return None
    return dataclasses.replace(n, actors=actors, count=n.count - (len(n.actors) - len(actors)))


def unread_count(userid: str) -> int:
    """How many notifications arrived since ``userid`` last opened them."""
    return accounts.unread(userid)


def mark_read(userid: str) -> None:
    """Set ``userid``'s unread count to 0 (see accounts.clear_unread)."""
    accounts.clear_unread(userid)


def forget_user(userid: str) -> int:
    """Delete ``userid``'s notifications, and the follow notifications they
    caused others (:func:`forget_follower`): for the deletion of their
    account. Returns how many rows went."""
    with connection() as conn:
        gone = delete_prefix(conn, table_name("notifications"), keys.user_hash(userid))
        return gone + forget_follower(conn, userid)
