"""Direct messages: one-to-one conversations, each user's inbox ordered by
the latest message, and unread counts per conversation and in all.

Three tables, owned here (docs/schema.md says why each key looks as it does):

- ``messages``: md5(low) + md5(high) + rts + suffix. The two participants'
  md5s in byte order (the seeds' MD5(a)MD5(b) relation key, made the same
  from both sides), so a message is written once and a conversation's newest
  page is one prefix scan. Only the two can read it: a reader names the other
  participant, never a conversation, so no request reaches a pair it is not in.
- ``inbox``: md5(owner) + rts(latest message) + md5(other). A user's
  conversations, latest first, one prefix scan; each message moves both
  participants' rows to the top (a new key, the old row deleted), as
  notify's like groups move their one row.
- ``inboxState``: md5(owner) + md5(other), the place of that inbox row
  (moved by checkAndPut, so racing senders agree which row is current) and
  the conversation's unread count; md5(owner) alone holds the total. Counts
  are HBase increments, exact under any number of racing senders; marking
  read swaps the conversation's count for 0 by checkAndPut and takes what
  it held off the total, so a message that lands meanwhile is never lost.

A moved inbox row is written with its generation as the cell timestamp, and
the row it replaces deleted at that generation: a slow mover that lost the
race (an older message) can neither leave a stale row nor bring back one
deleted. The generation is at least the current time, so the delete markers
an account deletion leaves never hide a later account's rows.

Sending is refused to or from a suspended account, between two people either
of whom blocks the other, and to oneself. Deleting an account deletes its
conversations whole: every row of one has the deleted user's md5 in its key,
and the partner, left unable to answer, keeps no half of a dialogue.
"""

from __future__ import annotations

from collections.abc import Callable

import happybase

from feeds.errors import Forbidden, InvalidInput, NotFound
from feeds.types import Conversation, Message, Page, User, from_millis
from storage import keys, ops, rows
from storage.connection import connection, read_only, table_name
from storage.ops import check_and_put, delete_prefix, row_keys_between, row_keys_with_prefix

from . import _clock, accounts, blocks, ratelimit
from ._load import LoadRow
from ._paging import scan_page
from .twits import TEXT_MAX

__all__ = [
    "conversation",
    "forget_user",
    "inbox",
    "load_rows",
    "mark_read",
    "new_in_conversation",
    "send",
    "sent",
    "unread_total",
]


def clean_text(text: object) -> str:
    """1 to TEXT_MAX characters after trimming, as a twit; InvalidInput naming ``text``."""
    if not isinstance(text, str) or not text.replace("\r\n", "\n").strip():
        raise InvalidInput("text", "Write something to send.")
    text = text.replace("\r\n", "\n").strip()
    if len(text) > TEXT_MAX:
        raise InvalidInput(
            "text", f"A message is at most {TEXT_MAX} characters; this is {len(text)}."
        )
    if accounts.has_control_chars(text, allow_newlines=True):
        raise InvalidInput("text", "A message cannot contain control characters.")
    return text


def _partner(sender: User, userid: str) -> User:
    """The account ``sender`` may write to: NotFound for none (or suspended:
    a suspended account takes no new messages)."""
    if not isinstance(userid, str) or userid.lower() == sender.userid.lower():
        raise InvalidInput("userid", "You cannot send a message to yourself.")
    other = accounts.find_user(userid)
    if other is None or other.disabled:
        raise NotFound(f"There is no user @{userid}.")
    return other


def send(
    sender: User | str, userid: str, text: object, at: tuple[int, bytes] | None = None
) -> Message:
    """Send ``text`` from ``sender`` to ``userid``: the message is written
    once, under both; both inbox rows move to it, and the recipient's unread
    counts (the conversation's and the total) go up by one, exactly.

    Forbidden when the sender is suspended or either blocks the other
    (saying which); NotFound for no such recipient; InvalidInput for bad text;
    RateLimited past ratelimit.MESSAGES (nothing written).
    ``at``: the (millis, suffix) of the message's key, chosen beforehand by
    an Idempotency-Key's claim (feeds/services/idempotency.py)."""
    sender = accounts.loaded(sender)
    if sender.disabled:
        raise Forbidden("Your account is suspended: you cannot send messages.")
    body = clean_text(text)
    other = _partner(sender, userid)
    ratelimit.check(ratelimit.MESSAGES, sender.userid)
    millis, suffix = at or (_clock.now_millis(), keys.new_suffix())
    key = keys.message_key(keys.conversation_key(sender.userid, other.userid), millis, suffix)
    with connection() as conn:
        blocks.refuse_blocked(conn, sender.userid, other.userid, "send them messages")
        table = conn.table(table_name("messages"))
        table.put(key, rows.encode_message(rows.MessageRow(sender.userid, body)))
        # Again after the write, as a follow does: a block that landed
        # meanwhile takes the message back before anyone counts or lists
        # it. A block after this check finds the message sent before it.
        try:
            blocks.refuse_blocked(conn, sender.userid, other.userid, "send them messages")
        except Forbidden:
            table.delete(key)
            raise
        state = conn.table(table_name("inboxState"))
        state.counter_inc(keys.inbox_state_key(other.userid, sender.userid), rows.INBOX_UNREAD)
        state.counter_inc(keys.unread_total_key(other.userid), rows.INBOX_UNREAD)
        _move(
            conn,
            sender.userid,
            other.userid,
            millis,
            rows.InboxRow(other.userid, sender.userid, body),
        )
        _move(
            conn,
            other.userid,
            sender.userid,
            millis,
            rows.InboxRow(sender.userid, sender.userid, body),
        )
    return Message(keys.encode_cursor(key), sender.userid, body, from_millis(millis))


def _move(
    conn: happybase.Connection, owner: str, other: str, millis: int, row: rows.InboxRow
) -> None:
    """Put ``owner``'s inbox row for ``other`` at ``millis`` (a message's
    time), unless a later message has put it later already."""
    sname = table_name("inboxState")
    skey = keys.inbox_state_key(owner, other)
    state = conn.table(sname)
    while True:
        cell = state.row(skey, columns=[rows.INBOX_PLACE]).get(rows.INBOX_PLACE)
        place = rows.decode_inbox_place(cell)
        if millis < place.top:
            return
        gen = max(place.gen + 1, _clock.now_millis())
        new = rows.InboxPlace(millis, place.top if place.top != millis else place.was, gen)
        encoded = rows.encode_inbox_place(new)
        if check_and_put(conn, sname, skey, rows.INBOX_PLACE, cell, rows.INBOX_PLACE, encoded):
            break
    inbox = conn.table(table_name("inbox"))
    inbox.put(keys.inbox_key(owner, millis, other), rows.encode_inbox(row), timestamp=gen)
    # The row this one replaces, and the one before it (left by a mover
    # that crashed between its state's move and its delete).
    for old in {place.top, place.was} - {0, millis}:
        inbox.delete(keys.inbox_key(owner, old, other), timestamp=gen)


def sent(sender: str, userid: str, millis: int, suffix: bytes) -> Message | None:
    """The message ``sender`` sent to ``userid`` at (millis, suffix), if written."""
    key = keys.message_key(keys.conversation_key(sender, userid), millis, suffix)
    with connection() as conn:
        return _message(key, conn.table(table_name("messages")).row(key))


# -- reading -------------------------------------------------------------------------------


def _message(key: bytes, data: dict[bytes, bytes]) -> Message | None:
    stored = rows.decode_message(data)
    if stored is None:
        return None
    created = from_millis(keys.message_millis(key))
    return Message(keys.encode_cursor(key), stored.sender, stored.text, created)


def conversation(
    reader: User | str, userid: str, cursor: str | None = None, limit: int = 20
) -> tuple[User, Page[Message]]:
    """The other participant and a page of the reader's conversation with
    ``userid``, newest first (one prefix scan); the first page marks the
    conversation read. The reader is always one of the two: the key is made
    of the reader and the other."""
    reader = accounts.loaded(reader)
    other = accounts.find_user(userid) if isinstance(userid, str) else None
    if other is None or other.userid.lower() == reader.userid.lower():
        raise NotFound(f"There is no conversation with @{userid}.")
    with connection() as conn:
        page = scan_page(
            conn.table(table_name("messages")),
            keys.conversation_key(reader.userid, other.userid),
            keys.MESSAGE_KEY_LEN,
            cursor,
            limit,
            _message,
        )
    if not cursor:
        mark_read(reader.userid, other.userid)
    return other, page


@read_only
def inbox(userid: str, cursor: str | None = None, limit: int = 20) -> Page[Conversation]:
    """``userid``'s conversations, latest message first: one prefix scan of
    the inbox, one multi-get of their unread counts and one of the names.
    An unknown ``userid`` has an empty inbox (its key is a hash all the same)."""
    with connection() as conn:
        page = scan_page(
            conn.table(table_name("inbox")),
            keys.user_hash(userid),
            keys.INBOX_KEY_LEN,
            cursor,
            limit,
            lambda key, data: (key, rows.decode_inbox(data)),
        )
        found = [(key, row) for key, row in page.items if row is not None]
        if not found:
            return Page((), page.next_cursor)
        others = [row.other for _, row in found]
        states = dict(
            conn.table(table_name("inboxState")).rows(
                [keys.inbox_state_key(userid, o) for o in others],
                columns=[rows.INBOX_UNREAD],
            )
        )
        names = accounts.display_names(conn, others)
    items = []
    for key, row in found:
        cell = states.get(keys.inbox_state_key(userid, row.other), {}).get(rows.INBOX_UNREAD)
        items.append(
            Conversation(
                userid=row.other,
                name=names.get(row.other.lower(), row.other),
                last_from=row.sender,
                text=row.text,
                updated=from_millis(keys.millis_from_rts(key[keys.MD5_LEN : -keys.MD5_LEN])),
                unread=max(0, rows.decode_count(cell)),
            )
        )
    return Page(tuple(items), page.next_cursor)


NEW_CAP = 20  # the most new messages a live poll counts ("20+")


@read_only
def new_in_conversation(reader: str, userid: str, since: str | None) -> tuple[int, bool]:
    """How many messages of ``reader``'s conversation with ``userid`` are newer
    than the message ``since`` (its id; None: count from the start), at most
    NEW_CAP, and whether there are more: one keys-only scan from the newest
    down to ``since``. InvalidInput naming ``since`` for an id of another list."""
    prefix = keys.conversation_key(reader, userid)
    stop = keys.prefix_stop(prefix)
    if since:
        try:
            stop = keys.decode_cursor(since, prefix, keys.MESSAGE_KEY_LEN)
        except keys.BadKey:
            raise InvalidInput("since", "not a message of this conversation") from None
    with connection() as conn:
        found = row_keys_between(
            conn, table_name("messages"), prefix, stop, NEW_CAP + 1, NEW_CAP + 1
        )
    return min(len(found), NEW_CAP), len(found) > NEW_CAP


@read_only
def unread_total(userid: str) -> int:
    """How many messages to ``userid`` are unread, in all conversations: one cell."""
    with connection() as conn:
        pipe = ops.Pipeline(conn)
        answer = ask_unread_total(pipe, userid)
        pipe.send()
    return answer()


def ask_unread_total(pipe: ops.Pipeline, userid: str) -> Callable[[], int]:
    """:func:`unread_total` as a call in ``pipe``: its answer, once ``pipe`` is sent."""
    return pipe.count(table_name("inboxState"), keys.unread_total_key(userid), rows.INBOX_UNREAD)


@read_only
def unread_badges(userid: str) -> tuple[int, int]:
    """What the top bar of every page shows ``userid``: (unread
    notifications, unread direct messages), the users row's cell and the
    inbox total's, in one round trip."""
    with connection() as conn:
        pipe = ops.Pipeline(conn)
        notifications = accounts.ask_unread(pipe, userid)
        direct = ask_unread_total(pipe, userid)
        pipe.send()
    return notifications(), direct()


def mark_read(userid: str, other: str) -> int:
    """Set the unread count of ``userid``'s conversation with ``other`` to 0
    and take what it held off their total; returns that. A message counted
    between the read and the swap fails the swap, which reads again: the
    total never loses one, and two readers at once take it off once."""
    with connection() as conn:
        return _clear(conn, keys.inbox_state_key(userid, other), keys.unread_total_key(userid))


def _clear(conn: happybase.Connection, skey: bytes, total: bytes) -> int:
    sname = table_name("inboxState")
    state = conn.table(sname)
    while True:
        cell = state.row(skey, columns=[rows.INBOX_UNREAD]).get(rows.INBOX_UNREAD)
        n = rows.decode_count(cell)
        if n == 0:
            return 0
        zero = rows.encode_count(0)
        if check_and_put(conn, sname, skey, rows.INBOX_UNREAD, cell, rows.INBOX_UNREAD, zero):
            state.counter_inc(total, rows.INBOX_UNREAD, -n)
            return n


# -- the bulk loader (services/bulk.py) ---------------------------------------------------


def load_rows(
    conversations: list[tuple[str, str, list[tuple[bool, str, int, bytes]]]],
) -> list[LoadRow]:
    """The rows these conversations leave, as :func:`send` and
    :func:`mark_read` would: each (a, b, messages), a message being (sent by
    ``a``?, text, ms, suffix) in time order. A participant has read what
    came before their own latest message; what the other sent after it is
    unread. Each pair at most once; no user with themselves."""
    out: list[LoadRow] = []
    totals: dict[str, int] = {}
    for a, b, said in conversations:
        if not said:
            continue
        conversation = keys.conversation_key(a, b)
        for by_a, text, ms, suffix in said:
            row = rows.MessageRow(a if by_a else b, text)
            out.append(
                (
                    "messages",
                    keys.message_key(conversation, ms, suffix),
                    rows.encode_message(row),
                    None,
                )
            )
        by_a, text, ms, _ = said[-1]
        sender = a if by_a else b
        for owner, other, mine in ((a, b, True), (b, a, False)):
            latest = rows.InboxRow(other, sender, text)
            out.append(("inbox", keys.inbox_key(owner, ms, other), rows.encode_inbox(latest), ms))
            unread = 0
            for m in reversed(said):
                if m[0] == mine:
                    break
                unread += 1
            place = rows.encode_inbox_place(rows.InboxPlace(ms, 0, ms))
            cells = {rows.INBOX_PLACE: place, rows.INBOX_UNREAD: rows.encode_count(unread)}
            out.append(("inboxState", keys.inbox_state_key(owner, other), cells, None))
            totals[owner] = totals.get(owner, 0) + unread
    for owner, unread in totals.items():
        cells = {rows.INBOX_UNREAD: rows.encode_count(unread)}
        out.append(("inboxState", keys.unread_total_key(owner), cells, None))
    return out


# -- account deletion ----------------------------------------------------------------------


def forget_user(userid: str) -> int:
    """Delete ``userid``'s conversations whole (both sides' messages), their
    inbox and state rows, and each partner's row for them, the partner's
    unread for it taken off their total. Returns how many conversations
    there were. Safe to repeat."""
    mine = keys.user_hash(userid)
    sname = table_name("inboxState")
    with connection() as conn:
        state = conn.table(sname)
        inbox = conn.table(table_name("inbox"))
        found = row_keys_with_prefix(conn, sname, mine, 1000)
        partners = [k[keys.MD5_LEN :] for k in found if len(k) == keys.EDGE_KEY_LEN]
        for partner in partners:
            theirs = partner + mine
            _clear(conn, theirs, partner)
            place = rows.decode_inbox_place(
                state.row(theirs, columns=[rows.INBOX_PLACE]).get(rows.INBOX_PLACE)
            )
            for at in {place.top, place.was} - {0}:
                inbox.delete(keys.inbox_key_for_hashes(partner, at, mine))
            state.delete(theirs)
            delete_prefix(
                conn, table_name("messages"), keys.conversation_key_for_hashes(mine, partner)
            )
        delete_prefix(conn, table_name("inbox"), mine)
        delete_prefix(conn, sname, mine)
    return len(partners)
