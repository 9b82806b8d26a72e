"""Twits: post (a reply too), delete, look up, a user's timeline, and threads.

A reply is a twit like any other (its author's timeline, the fan-out) that
also names its parent, and is listed under the parent's key in the replies
table, oldest first. The parent counts its replies exactly: each reply's +1
and its delete's -1 are apply-once operations named by the reply's key, and
the reply row records once its +1 is in (as a twit does for its author's
count), so a retry after a crash anywhere never counts twice.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

import happybase

from feeds.errors import Conflict, Forbidden, InvalidInput, NotFound, Suspended
from feeds.types import Page, Twit, TwitImage, User, from_millis, new_twit
from storage import keys, ops, rows, schema
from storage.connection import connection, read_only, table_name
from storage.ops import MarkedChange, op_id

from . import _clock, accounts, blocks, notify, tagindex
from ._load import LoadRow
from ._paging import scan_page
from .ratelimit import check_post_rate

TEXT_MAX = 280
TWIT_ID_LEN = 2 * keys.TWIT_KEY_LEN  # a twit's id is its row key in hex
FANOUT = rows.FANOUT  # the fan-out's lease, present while the fan-out is unfinished
_GET_BATCH = 1000


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


THREAD_DEPTH = 10  # how many ancestors a permalink shows at most


def twit_of(
    key: bytes,
    stored: rows.TwitRow,
    replies: int = 0,
    likes: int = 0,
    reposts: int = 0,
    reposted_by: str | None = None,
    reposted_by_name: str = "",
    quotes: int = 0,
) -> Twit:
    """The twit whose row (or stream row, keyed by the twit's key) holds
    ``stored``; ``reposted_by``: the reposter, for a repost's stream row."""
    twit = new_twit(
        keys.twit_id(key),
        stored.userid,
        stored.name,
        stored.text,
        from_millis(stored.created),
        stored.reply_to,
        stored.reply_userid,
        replies,
        likes,
        reposts,
        reposted_by,
        reposted_by_name,
        stored.quote_of,
        quotes,
        images_of(stored.images),
    )
    if stored.edited:
        object.__setattr__(twit, "edited", stored.edited)
    return twit


def images_of(refs: tuple[rows.ImageRef, ...]) -> tuple[TwitImage, ...]:
    """A twit row's images, as a Twit carries them."""
    return tuple(TwitImage(r.id, r.alt, r.width, r.height) for r in refs)


class Counts(NamedTuple):
    """A twit's counts as its twits row holds them, and the twit it quotes
    (a stream row does not carry it: see hydration). A named tuple: a page
    makes one per twit, in a fifth of a frozen dataclass's time."""

    replies: int
    likes: int
    reposts: int
    # Its current text and latest edit's ms (0: never edited): a list row's
    # copy of the text may predate an edit (see edit_twit).
    text: str = ""
    edited: int = 0
    quotes: int = 0
    quote_of: str | None = None
    images: tuple[TwitImage, ...] = ()  # read with them: a list's rows do not carry images


def counts(conn: happybase.Connection, twit_ids: Iterable[str]) -> dict[str, Counts]:
    """The counts of each of ``twit_ids`` whose twit row is there, by id: one
    multi-get. A twit whose row has no text (deleted, or a post that died
    before writing it; see :func:`storage.rows.decode_twit`) is left out,
    so a list built on other tables' rows (streams, hashtags, replies,
    likes) can drop it."""
    with ops.pipelined(conn) as pipe:
        answer = ask_counts(pipe, twit_ids)
    return answer()


_COUNTED = [
    rows.TEXT,
    rows.EDIT,
    rows.COUNT_REPLIES,
    rows.COUNT_LIKES,
    rows.COUNT_REPOSTS,
    rows.COUNT_QUOTES,
    rows.QUOTE_OF,
    rows.TWIT_IMAGES,
]


def ask_counts(pipe: ops.Pipeline, twit_ids: Iterable[str]) -> Callable[[], dict[str, Counts]]:
    """:func:`counts` as a call in ``pipe``: its answer, once ``pipe`` is
    sent. A page asks it beside its other lookups, in one round trip."""
    wanted = sorted(set(twit_ids))
    if not wanted:
        return dict
    reply = pipe.rows(table_name("twits"), [keys.twit_key_from_id(t) for t in wanted], _COUNTED)

    def answer() -> dict[str, Counts]:
        return {keys.twit_id(key): _counts_of(row) for key, row in reply.value if rows.TEXT in row}

    return answer


def _counts_of(row: dict[bytes, bytes]) -> Counts:
    replies, likes, reposts, quotes = rows.decode_twit_counts(row)
    edit = rows.decode_edit(row)
    quote_of = row.get(rows.QUOTE_OF)
    images = row.get(rows.TWIT_IMAGES)
    return Counts(
        replies,
        likes,
        reposts,
        row[rows.TEXT].decode() if edit is None else edit.text,
        0 if edit is None else edit.ts,
        quotes,
        None if quote_of is None else quote_of.decode(),
        images_of(rows.decode_images(images)) if images else (),
    )


def twits_of(conn: happybase.Connection, twit_ids: Iterable[str]) -> dict[str, Twit]:
    """Each of ``twit_ids`` whose twit row is there, with its counts, by id:
    one multi-get of the whole rows (for a list whose rows carry only ids)."""
    wanted = sorted(set(twit_ids))
    if not wanted:
        return {}
    got = conn.table(table_name("twits")).rows(
        [keys.twit_key_from_id(t) for t in wanted], columns=[rows.TWIT]
    )
    found = (_timeline_twit(key, row) for key, row in got)
    return {t.id: t for t in found if t is not None}


def _parent(reply_to: object) -> Twit:
    """The twit a reply answers: it must exist, and its author not be suspended."""
    if not isinstance(reply_to, str):
        raise InvalidInput("reply_to", "reply_to must be a twit id.")
    try:
        return public_twit(reply_to)
    except Suspended:
        # A Suspended is a NotFound, but the twit is there: say why instead.
        raise InvalidInput(
            "reply_to", "The author of the twit you reply to is suspended."
        ) from None
    except NotFound:
        raise InvalidInput(
            "reply_to", "The twit you reply to does not exist: it may have been deleted."
        ) from None


@dataclass(frozen=True)
class NewTwit:
    """A twit checked and keyed, not yet stored: what :func:`new_twit_row`
    makes and :func:`store_new` writes (feeds.services.posting composes
    them with the fan-out's lease and the author's own stream row)."""

    key: bytes
    stored: rows.TwitRow
    parent: bytes | None  # the key of the twit it replies to
    quoted: bytes | None = None  # the key of the twit it quotes

    @property
    def twit(self) -> Twit:
        return twit_of(self.key, self.stored)


def new_twit_row(
    author: User | str,
    text: object,
    reply_to: str | None = None,
    *,
    at: tuple[int, bytes] | None = None,
    quote_of: str | None = None,
) -> tuple[User, NewTwit]:
    """A twit by ``author`` (a profile loaded already, or a userid), checked
    (its text, its parent, a block between them, the author's post rate)
    and keyed, nothing written: the author as loaded, and the twit.

    ``at``: the twit's millisecond and key suffix, chosen by the caller (an
    Idempotency-Key's claim, see :mod:`feeds.services.idempotency`); None:
    now, and a new suffix. ``quote_of``: the id of a twit it quotes (see
    :func:`_quoted` for what is refused).
    """
    author = accounts.loaded(author)
    body = clean_text(text)
    parent = None if reply_to is None else _parent(reply_to)
    quoted = None if quote_of is None else _quoted(quote_of)
    if parent is not None or quoted is not None:
        with connection() as conn:
            if parent is not None:
                blocks.refuse_blocked(conn, author.userid, parent.userid, "reply to them")
            if quoted is not None:
                blocks.refuse_blocked(conn, author.userid, quoted.userid, "quote them")
    check_post_rate(author.userid)
    # Later than any twit this process made before: two posts in one
    # millisecond still list newest first (see _clock).
    millis, suffix = at if at is not None else (_clock.now_millis(), keys.new_suffix())
    key = keys.twit_key(author.userid, millis, suffix)
    stored = rows.TwitRow(
        author.userid,
        author.name,
        body,
        millis,
        reply_to=None if parent is None else parent.id,
        reply_userid="" if parent is None else parent.userid,
        quote_of=None if quoted is None else quoted.id,
        quote_userid="" if quoted is None else quoted.userid,
    )
    return author, NewTwit(
        key,
        stored,
        None if parent is None else keys.twit_key_from_id(parent.id),
        None if quoted is None else keys.twit_key_from_id(quoted.id),
    )


def store_new(conn: happybase.Connection, new: NewTwit, lease: bytes) -> None:
    """Write a new twit's rows: its hashtags, its twit row carrying the
    fan-out's lease ``lease`` (the pending mark, see
    :mod:`feeds.services.pending`), its author's count, and, for a reply,
    its entry among the parent's replies and the parent's count.

    Writing the same twit again (the same key) writes the same rows,
    counted once. The twit row is the truth the streams are derived from;
    it is new, so nobody else can hold its lease yet, and the lease is
    simply written with it.
    """
    key, stored = new.key, new.stored
    # Before the twit row: a tag page shows only rows whose twit row exists.
    tags = tagindex.write_tag_rows(conn, key, stored)
    conn.table(table_name("twits")).put(key, {**rows.encode_twit(stored), FANOUT: lease})
    # Counted at once, and only while the row is there: a delete racing
    # this post counts it itself before it takes the row away.
    count_once(conn, key, stored.userid)
    tagindex.count_uses(conn, tags, stored.created)
    if new.parent is not None:
        conn.table(table_name("replies")).put(
            keys.reply_key(new.parent, key), rows.encode_reply(stored), timestamp=stored.created
        )
        count_reply_once(conn, key, new.parent, counted=False)
    if new.quoted is not None:
        quote_into(conn, key, new.quoted, stored)


def count_once(
    conn: happybase.Connection, key: bytes, author: str, counted: bool | None = None
) -> None:
    """Put the twit in its author's count, once, whoever gets here first: the
    post itself, or, if the post died after storing the twit (HBase gone
    mid-request), the twit's fan-out or its delete. They all count the
    post's own change (storage.ops.MarkedChange), marked done by the twit
    row's ``t:counted``, so the count takes it once however late a twin.
    ``counted``: whether the twit row as the caller read it has the mark
    (None: not read; the change reads it after the count's cell, and a row
    deleted meanwhile is not counted, as its delete counted it before
    taking it away).
    """
    twits = conn.table(table_name("twits"))
    if counted:
        return
    change = MarkedChange(conn, _unmarked(twits, key, rows.TWIT_COUNTED))
    accounts.count_change(change, author, rows.COUNT_TWITS, 1, op_id(b"post", key))
    # At the twit's own time, as the fan-out's progress cells: a delete hides it.
    twits.put(key, {rows.TWIT_COUNTED: b"1"}, timestamp=keys.split_twit_key(key).millis)
    change.settle()


def _unmarked(twits: happybase.table.Table, key: bytes, mark: bytes | None) -> Callable[[], bool]:
    """Whether the twit row ``key`` is there (a delete takes it, and a key
    is never used again) without the cell ``mark`` (None: the row's delete
    is the mark): the state that a MarkedChange's count of the post, the
    reply or the delete waits on."""
    columns = [rows.TEXT] if mark is None else [rows.TEXT, mark]

    def undone() -> bool:
        found = twits.row(key, columns=columns)
        return rows.TEXT in found and (mark is None or mark not in found)

    return undone


def count_reply_once(
    conn: happybase.Connection, key: bytes, parent: bytes, counted: bool | None = None
) -> None:
    """Put the reply ``key`` in its parent's reply count, once: the post, or
    the reply's delete if the post died first, counts the same change, and
    the reply row's mark says it is done (as :func:`count_once`)."""
    twits = conn.table(table_name("twits"))
    if counted is None:
        counted = rows.REPLY_COUNTED in twits.row(key, columns=[rows.REPLY_COUNTED])
    if counted:
        return
    change = MarkedChange(conn, _unmarked(twits, key, rows.REPLY_COUNTED))
    change.count(table_name("twits"), parent, rows.COUNT_REPLIES, 1, op_id(b"reply", key))
    twits.put(key, {rows.REPLY_COUNTED: b"1"}, timestamp=keys.split_twit_key(key).millis)
    change.settle()


# -- quotes -------------------------------------------------------------------------------


def _quoted(quote_of: object) -> Twit:
    """The twit a quote quotes: it must exist (NotFound, naming it, if not),
    its author not be suspended."""
    if not isinstance(quote_of, str):
        raise InvalidInput("quote_of", "quote_of must be a twit id.")
    try:
        return public_twit(quote_of)
    except Suspended:
        raise NotFound("The author of the twit you quote is suspended.") from None
    except NotFound:
        raise NotFound("The twit you quote does not exist: it may have been deleted.") from None


def quote_into(conn: happybase.Connection, key: bytes, quoted: bytes, stored: rows.TwitRow) -> None:
    """List the twit ``key`` among the quotes of ``quoted`` and count it
    there, once (as a reply in its parent's). Then, if the quoted twit's
    delete has begun meanwhile, take both back: the delete may have dropped
    its quotes before this row came, and an increment after the delete
    would leave a count in a row that holds no twit. The delete marks the
    row before it drops the quotes, so one of the two always sees the other.
    Repeatable (the same rows, counted once)."""
    conn.table(table_name("quotes")).put(
        keys.quote_key(quoted, key), rows.encode_quote(stored), timestamp=stored.created
    )
    count_quote_once(conn, key, quoted, counted=False)
    if not alive(conn, quoted):
        conn.table(table_name("quotes")).delete(keys.quote_key(quoted, key))
        conn.table(table_name("twits")).delete(quoted, columns=[rows.COUNT_QUOTES])


def count_quote_once(
    conn: happybase.Connection, key: bytes, quoted: bytes, counted: bool | None = None
) -> None:
    """Put the quote ``key`` in the quoted twit's quote count, once (as
    :func:`count_reply_once`; the quote row's ``t:qcounted`` marks it done)."""
    twits = conn.table(table_name("twits"))
    if counted is None:
        counted = rows.QUOTE_COUNTED in twits.row(key, columns=[rows.QUOTE_COUNTED])
    if counted:
        return
    change = MarkedChange(conn, _unmarked(twits, key, rows.QUOTE_COUNTED))
    change.count(table_name("twits"), quoted, rows.COUNT_QUOTES, 1, op_id(b"quote", key))
    twits.put(key, {rows.QUOTE_COUNTED: b"1"}, timestamp=keys.split_twit_key(key).millis)
    change.settle()


def _leave_quoted(conn: happybase.Connection, key: bytes, quoted: bytes) -> None:
    """Take the quote ``key`` out of the quoted twit's quotes and count, once
    however often retried (as :func:`_leave_parent`: ``t:quncounted`` marks
    the -1 done). A quoted twit deleted already keeps no count to lower."""
    twits = conn.table(table_name("twits"))
    quote = twits.row(key, columns=[rows.TEXT, rows.QUOTE_COUNTED, rows.QUOTE_UNCOUNTED])
    if rows.TEXT in quote and rows.QUOTE_UNCOUNTED not in quote and alive(conn, quoted):
        count_quote_once(conn, key, quoted, counted=rows.QUOTE_COUNTED in quote)
        change = MarkedChange(conn, _unmarked(twits, key, rows.QUOTE_UNCOUNTED))
        change.count(table_name("twits"), quoted, rows.COUNT_QUOTES, -1, op_id(b"unquote", key))
        twits.put(key, {rows.QUOTE_UNCOUNTED: b"1"}, timestamp=keys.split_twit_key(key).millis)
        change.settle()
        if not alive(conn, quoted):
            # Its delete took the row while this -1 was on its way in.
            twits.delete(quoted, columns=[rows.COUNT_QUOTES])
    conn.table(table_name("quotes")).delete(keys.quote_key(quoted, key))


def _quoted_author(conn: happybase.Connection, key: bytes) -> str:
    """The author of the twit the twit ``key`` quotes, as its row names it."""
    row: dict[bytes, bytes] = conn.table(table_name("twits")).row(key, columns=[rows.QUOTE_USERID])
    return row.get(rows.QUOTE_USERID, b"").decode()


def cards_of(conn: happybase.Connection, twit_ids: Iterable[str]) -> dict[str, Twit]:
    """The quoted twits among ``twit_ids`` still there (no delete begun), by
    id: one multi-get, for the hydrate step's cards."""
    wanted = sorted(set(twit_ids))
    if not wanted:
        return {}
    got = conn.table(table_name("twits")).rows(
        [keys.twit_key_from_id(t) for t in wanted],
        columns=[rows.AUTHOR, rows.NAME, rows.TEXT, rows.CREATED, rows.DELETING],
    )
    found = {}
    for key, row in got:
        stored = rows.decode_twit(row)
        if stored is not None and rows.DELETING not in row:
            found[keys.twit_id(key)] = twit_of(key, stored)
    return found


def _listed_under(
    decode_row: Callable[..., rows.TwitRow | None],
    twit_key: Callable[[bytes], bytes],
    **under: str,
) -> Callable[[bytes, dict[bytes, bytes]], Twit | None]:
    """The decoder of a table that lists twits under another twit's key
    (replies under their parent, quotes under the twit they quote): each
    row's twit, with ``under`` (the fields naming that twit, which its row
    does not keep) set as ``decode_row`` reads it."""

    def decode(key: bytes, row: dict[bytes, bytes]) -> Twit | None:
        stored = decode_row(row, **under)
        return None if stored is None else twit_of(twit_key(key), stored)

    return decode


def quotes_page(quoted: Twit, cursor: str | None, limit: int) -> Page[Twit]:
    """The twits that quote ``quoted``, newest first, without their counts:
    one prefix scan of the quotes table under its key
    (feeds.services.twitlists.quotes hydrates it)."""
    with connection() as conn:
        return scan_page(
            conn.table(table_name("quotes")),
            _key(quoted.id),
            keys.QUOTE_KEY_LEN,
            cursor,
            limit,
            _listed_under(
                rows.decode_quote,
                keys.twit_key_from_quote_key,
                quote_of=quoted.id,
                quote_userid=quoted.userid,
            ),
        )


def _key(twit_id: str) -> bytes:
    try:
        return keys.twit_key_from_id(twit_id)
    except keys.BadKey:
        raise NotFound(f"No twit {twit_id!r}.") from None


@read_only
def get_twit(twit_id: str) -> Twit:
    key = _key(twit_id)
    with connection() as conn:
        row = conn.table(table_name("twits")).row(key)
    return _twit_in(key, row)


def _twit_in(key: bytes, row: dict[bytes, bytes]) -> Twit:
    """The twit (with its counts) in its twits row; NotFound when there is
    none, or its delete has begun."""
    stored = rows.decode_twit(row)
    if stored is None or rows.DELETING in row:
        raise NotFound(f"No twit {keys.twit_id(key)!r}.")
    replies, likes, reposts, quotes = rows.decode_twit_counts(row)
    return twit_of(key, stored, replies, likes, reposts, quotes=quotes)


@read_only
def public_twit(twit_id: str) -> Twit:
    """:func:`get_twit` for pages everyone sees: Suspended while its author
    is (NotFound if their account is gone). The twit's row and its
    author's users row are read in one round trip: a twit's key begins
    with its author's key (MD5 of the userid), so the author's row is known
    before the twit is read. They were two, one after the other, at the
    top of every twit's page (issue 39)."""
    key = _key(twit_id)
    with connection() as conn, ops.pipelined(conn) as pipe:
        found = pipe.rows(table_name("twits"), [key])
        author = accounts.ask_user_keyed(pipe, keys.split_twit_key(key).author_hash)
    twit = _twit_in(key, found.row)
    accounts.shown_publicly(author(), twit.userid)
    return twit


def own_twit(userid: str, twit_id: str) -> Twit:
    """The twit ``twit_id`` if ``userid`` wrote it: what a delete would take.
    NotFound if there is none; Forbidden if it is someone else's."""
    twit = get_twit(twit_id)
    if twit.userid.lower() != userid.lower():
        raise Forbidden("You can delete only your own twits.")
    return twit


def deletable(userid: str, twit_id: str) -> Twit:
    """The twit ``twit_id`` if ``userid`` wrote it, its delete begun or not:
    what a delete (or its retry) takes. NotFound if there is none left;
    Forbidden if it is someone else's."""
    key = _key(twit_id)
    with connection() as conn:
        row = conn.table(table_name("twits")).row(key)
    stored = rows.decode_twit(row)
    if stored is None:
        raise NotFound(f"No twit {twit_id!r}.")
    if stored.userid.lower() != userid.lower():
        raise Forbidden("You can delete only your own twits.")
    return twit_of(key, stored)


def mark_deleting(conn: happybase.Connection, key: bytes) -> None:
    """The first step of a twit's delete: from now on readers find no twit,
    and a reaction that finds the mark takes itself away (services/reactions.py)."""
    conn.table(table_name("twits")).put(key, {rows.DELETING: b"1"})


def alive(conn: happybase.Connection, key: bytes) -> bool:
    """Whether the twit keyed ``key`` is there and no delete of it has begun."""
    row = conn.table(table_name("twits")).row(key, columns=[rows.TEXT, rows.DELETING])
    return rows.TEXT in row and rows.DELETING not in row


def text_if_alive(conn: happybase.Connection, key: bytes) -> str | None:
    """The twit's text; None if it is gone or its delete has begun."""
    row = conn.table(table_name("twits")).row(key, columns=[rows.TEXT, rows.DELETING])
    return row[rows.TEXT].decode() if rows.TEXT in row and rows.DELETING not in row else None


def stored(conn: happybase.Connection, key: bytes) -> rows.TwitRow | None:
    """The twit's stored cells (None when it has no text)."""
    return rows.decode_twit(conn.table(table_name("twits")).row(key, columns=[rows.TWIT]))


def counter(conn: happybase.Connection, key: bytes, column: bytes) -> int:
    """One of the twit's counts (``rows.COUNT_*``), as its row holds it."""
    return rows.decode_count(conn.table(table_name("twits")).row(key, columns=[column]).get(column))


def count_change(change: MarkedChange, key: bytes, column: bytes, delta: int, op: bytes) -> bool:
    """Add ``delta`` to one of the twit's counts as part of ``change`` (once)."""
    return change.count(table_name("twits"), key, column, delta, op)


def drop_counts(conn: happybase.Connection, key: bytes) -> None:
    """Delete the twit's like and repost counters: what a reaction's late
    count can write into the row of a twit being deleted, after the delete
    took the row. A no-op on a row without them."""
    conn.table(table_name("twits")).delete(key, columns=[rows.COUNT_LIKES, rows.COUNT_REPOSTS])


def _claim_tags_uncounted(conn: happybase.Connection, key: bytes) -> bool:
    """Whether the twit's hashtag uses are still to be taken out of the
    trending counts; marks them taken (at the twit's own time, so the row's
    delete hides the mark), so only the first caller is told yes."""
    twits = conn.table(table_name("twits"))
    if rows.TAGS_UNCOUNTED in twits.row(key, columns=[rows.TAGS_UNCOUNTED]):
        return False
    twits.put(key, {rows.TAGS_UNCOUNTED: b"1"}, timestamp=keys.split_twit_key(key).millis)
    return True


def leave_thread(conn: happybase.Connection, key: bytes, twit: Twit) -> None:
    """A deleted twit's part in threads: a reply leaves its parent's replies,
    and the parent's count goes down once however often the delete is
    retried. The twit's own replies stay: their threads show "this twit was
    deleted" in its place; only their entries under its key go, as nobody
    can page them any more."""
    if twit.reply_to is not None:
        _leave_parent(conn, key, keys.twit_key_from_id(twit.reply_to))
    _drop_reply_entries(conn, key)
    # Quotes as replies: a quote leaves the quoted twit's list and count; the
    # twit's own quotes stay, their cards showing it deleted.
    if twit.quote_of is not None:
        _leave_quoted(conn, key, keys.twit_key_from_id(twit.quote_of))
    _drop_entries(conn, "quotes", key)


def erase(conn: happybase.Connection, key: bytes, twit: Twit) -> None:
    """The last steps of a twit's delete, after its mark, its thread entries
    and its reactions, and its stream rows' removal queued: its author's
    count, its notifications, its hashtags and words, then the row, whose
    absence marks it done."""
    table = conn.table(table_name("twits"))
    # Every text it has had, read now that the mark is there: ``twit`` was
    # read before it, and an edit accepted meanwhile kept what it wrote (one
    # accepted after the mark writes nothing, and one written again after it
    # takes its own rows back: edit_twit).
    row = table.row(key, columns=[rows.TWIT])
    stored = rows.decode_twit(row)
    if stored is not None:
        texts = _texts(table, key, row, stored)
    else:  # a delete racing this one has finished: what is left is idempotent
        texts = {keys.split_twit_key(key).millis: twit.text}
    posted = texts[min(texts)]
    # Each edit is timed after the one before, so a burst of them runs ahead
    # of the clock: what removes their cells is at the latest one's time.
    until = max(int(time.time() * 1000), max(texts))
    # A post that died after storing the twit never counted it: count it
    # first, or this -1 would take away a twit the count never had.
    count_once(conn, key, twit.userid)
    # The delete is a change of its own, marked done by the row's delete.
    deleted = MarkedChange(conn, _unmarked(table, key, None))
    accounts.count_change(deleted, twit.userid, rows.COUNT_TWITS, -1, op_id(b"delete", key))
    # The notifications it caused (as posted: an edit notifies nobody),
    # while its row (what finds them) is there.
    notify.forget_twit(conn, key, twit.userid, posted, twit.reply_userid)
    if twit.quote_of is not None:
        notify.forget_quote(conn, key, twit.userid, _quoted_author(conn, key))
    # Off its hashtags' pages before the twit row goes, so a retry still finds the texts.
    others = sorted(set(texts.values()) - {posted})
    tagindex.drop_tag_rows(
        conn, key, [posted, *others], until, lambda: _claim_tags_uncounted(conn, key)
    )
    if len(texts) > 1:
        # An edit's cells are at the times it chose, perhaps ahead of the
        # server's clock, where a delete at the server's time leaves them.
        table.delete(key, timestamp=until)
    table.delete(key)
    deleted.settle()


def _leave_parent(conn: happybase.Connection, key: bytes, parent: bytes) -> None:
    """Take the reply ``key`` out of its parent's replies and count (retry-safe).

    The reply row is deleted last (by the caller), so a retry finds it and
    redoes this: the -1 is a change of its own (storage.ops.MarkedChange),
    marked done by the reply row's ``t:runcounted``. A parent deleted
    already keeps no count to lower.
    """
    twits = conn.table(table_name("twits"))
    reply = twits.row(key, columns=[rows.TEXT, rows.REPLY_COUNTED, rows.REPLY_UNCOUNTED])
    # No reply row: a delete racing this one has finished, -1 included (it
    # lowers the count before it deletes the row). The marks, not only the
    # operation ids, say what is done.
    if (
        rows.TEXT in reply
        and rows.REPLY_UNCOUNTED not in reply
        and rows.TEXT in twits.row(parent, columns=[rows.TEXT])
    ):
        # A post that died before counting the reply: count it first, or the
        # -1 would take away a reply the count never had.
        count_reply_once(conn, key, parent, counted=rows.REPLY_COUNTED in reply)
        change = MarkedChange(conn, _unmarked(twits, key, rows.REPLY_UNCOUNTED))
        change.count(table_name("twits"), parent, rows.COUNT_REPLIES, -1, op_id(b"unreply", key))
        twits.put(key, {rows.REPLY_UNCOUNTED: b"1"}, timestamp=keys.split_twit_key(key).millis)
        change.settle()
    conn.table(table_name("replies")).delete(keys.reply_key(parent, key))


def _drop_reply_entries(conn: happybase.Connection, key: bytes) -> None:
    """Delete the replies-table entries under the twit ``key`` (its replies'
    own twits stay). Keys only, in batches."""
    _drop_entries(conn, "replies", key)


def _drop_entries(conn: happybase.Connection, table_of: str, key: bytes) -> None:
    """Delete the entries of ``table_of`` (replies or quotes) under the twit
    ``key``: keys only, in batches."""
    table = conn.table(table_name(table_of))
    found = [k for k, _ in table.scan(row_prefix=key, filter=ops.KEYS_ONLY, batch_size=500)]
    with table.batch(batch_size=500) as b:
        for k in found:
            b.delete(k)


def _timeline_twit(key: bytes, row: dict[bytes, bytes]) -> Twit | None:
    # A fan-out's bookkeeping cell written just after a delete can leave a
    # row with no text behind: that is no twit.
    stored = rows.decode_twit(row)
    if stored is None:
        return None
    replies, likes, reposts, quotes = rows.decode_twit_counts(row)
    return twit_of(key, stored, replies, likes, reposts, quotes=quotes)


def timeline_scan(conn: happybase.Connection, user_hash: bytes, rts: bytes, limit: int) -> ops.Scan:
    """A scan (for storage.ops.scan_rows_many) of the twits of the user
    keyed ``user_hash`` from the reversed time ``rts`` on (b"": the newest),
    at most ``limit`` rows, whole twits: what a reader merges for an
    account too large to fan out."""
    table = conn.table(table_name("twits"))
    return (table, user_hash + rts, keys.prefix_stop(user_hash), limit, [rows.TWIT])


def count_keys(conn: happybase.Connection, start: bytes, stop: bytes | None, cap: int) -> int:
    """How many twit rows lie from ``start`` up to ``stop``, counting no
    further than ``cap``: keys only."""
    if cap <= 0:
        return 0
    found = conn.table(table_name("twits")).scan(
        row_start=start, row_stop=stop, filter=ops.KEYS_ONLY, limit=cap, batch_size=cap
    )
    return sum(1 for _ in found)


def timeline_page(user: User, cursor: str | None, limit: int) -> Page[Twit]:
    """``user``'s own twits, newest first, with their counts: one prefix
    scan of the twits table (feeds.services.twitlists.timeline hydrates it)."""
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


def replies_page(parent: Twit, cursor: str | None, limit: int) -> Page[Twit]:
    """The replies to ``parent``, oldest first, without their counts: one
    prefix scan of the replies table under the parent's key
    (feeds.services.twitlists.replies hydrates it)."""
    with connection() as conn:
        return scan_page(
            conn.table(table_name("replies")),
            _key(parent.id),
            keys.REPLY_KEY_LEN,
            cursor,
            limit,
            _listed_under(
                rows.decode_reply,
                keys.twit_key_from_reply_key,
                reply_to=parent.id,
                reply_userid=parent.userid,
            ),
        )


@read_only
def ancestors(twit: Twit, depth: int = THREAD_DEPTH) -> tuple[Twit | None, ...]:
    """The chain ``twit`` replies to, oldest first, at most ``depth`` twits,
    as stored: what a reader may see of it is the hydrate step's to say
    (feeds.services.twitlists.thread leaves out what it hides).

    None stands for a deleted twit, and is then the first item: a deleted
    twit no longer says what it replied to. A chain longer than ``depth``
    starts with a twit whose own ``reply_to`` is set (where to read on).
    """
    chain: list[Twit | None] = []
    parent = twit.reply_to
    while parent is not None and len(chain) < depth:
        try:
            found = get_twit(parent)
        except NotFound:
            chain.append(None)
            break
        chain.append(found)
        parent = found.reply_to
    return tuple(reversed(chain))


@dataclass(frozen=True)
class FanningOut:
    """A twit whose fan-out is unfinished, as its twits row records it. A row
    whose twit cells are not written yet reads author "?", no text, time 0."""

    key: bytes
    userid: str
    text: str
    created: int  # ms
    lease: bytes  # the fan-out's mark, which pending.decode reads
    chunks_done: int
    chunks_total: int | None  # None until the last chunk is known


def _chunk_counts(row: dict[bytes, bytes]) -> tuple[int, int | None]:
    """Chunks finished, and how many there are (None until the last is known)."""
    progress = rows.decode_progress(row)
    last = [n for n, (_, nxt) in progress.items() if not nxt]
    return len(progress), (min(last) + 1 if last else None)


def fanning_out(conn: happybase.Connection, twit_keys: list[bytes]) -> list[FanningOut]:
    """Those of ``twit_keys`` whose fan-out is unfinished, in the order given:
    one multi-get. A twit finished meanwhile, or deleted, is left out."""
    found = dict(conn.table(table_name("twits")).rows(twit_keys, columns=[rows.TWIT]))
    out = []
    for key in twit_keys:
        row = found.get(key, {})
        mark = row.get(FANOUT)
        if mark is None or mark == rows.LEASE_FINISHED:
            continue
        done, total = _chunk_counts(row)
        out.append(
            FanningOut(
                key=key,
                userid=row.get(rows.AUTHOR, b"?").decode(errors="replace"),
                text=row.get(rows.TEXT, b"").decode(errors="replace"),
                created=int(row.get(rows.CREATED, b"0") or 0),
                lease=mark,
                chunks_done=done,
                chunks_total=total,
            )
        )
    return out


def twit_rows(
    key: bytes,
    twit: rows.TwitRow,
    *,
    parent: bytes | None = None,
    replies: int = 0,
    likes: int = 0,
    reposts: int = 0,
    quoted: bytes | None = None,
    quotes: int = 0,
) -> list[LoadRow]:
    """The rows of the twit ``key`` as a finished post leaves them, with
    these counts, for the bulk loader (nothing is written): its twits row,
    counted (and its reply counted under ``parent``, the key of the twit it
    answers), its entry under ``parent`` in replies, and its hashtags' rows.
    A delete of it then counts as a posted twit's does."""
    cells = rows.encode_twit(twit)
    cells[rows.TWIT_COUNTED] = b"1"
    for column, count in (
        (rows.COUNT_REPLIES, replies),
        (rows.COUNT_LIKES, likes),
        (rows.COUNT_REPOSTS, reposts),
        (rows.COUNT_QUOTES, quotes),
    ):
        if count:
            cells[column] = rows.encode_count(count)
    found: list[LoadRow] = []
    if parent is not None:
        cells[rows.REPLY_COUNTED] = b"1"
        found.append(("replies", keys.reply_key(parent, key), rows.encode_reply(twit), None))
    if quoted is not None:
        # ``twit`` names it (quote_of); ``quotes`` on the quoted twit's rows counts it.
        cells[rows.QUOTE_COUNTED] = b"1"
        found.append(("quotes", keys.quote_key(quoted, key), rows.encode_quote(twit), None))
    found.append(("twits", key, cells, None))
    return found + tagindex.load_rows(key, twit)


# -- account deletion (services/deletion.py) ------------------------------------------------


def twit_keys_of(userid: str) -> list[bytes]:
    """The keys of ``userid``'s twits rows (a row may hold no twit: a fan-out's
    bookkeeping written after a delete), in key order: one scan for keys."""
    with connection() as conn:
        return ops.row_keys_with_prefix(conn, table_name("twits"), keys.user_hash(userid), 1000)


def reply_keys(key: bytes) -> list[bytes]:
    """The twit keys of the replies listed under the twit ``key``, oldest first."""
    with connection() as conn:
        found = ops.row_keys_with_prefix(conn, table_name("replies"), key, 1000)
    return [keys.twit_key_from_reply_key(entry) for entry in found]


def forget_parent(reply: bytes) -> rows.TwitRow | None:
    """The reply ``reply`` answers nothing any more (its parent's author is
    being deleted): its row loses reply_to and reply_userid. Returns the
    twit as its row now holds it (None: no twit). Idempotent."""
    with connection() as conn:
        table = conn.table(table_name("twits"))
        table.delete(reply, columns=[rows.REPLY_TO, rows.REPLY_USERID])
        return rows.decode_twit(table.row(reply))


def drop_row(key: bytes) -> None:
    """Delete the twits row ``key`` that holds no twit (what delete_twit cannot
    find): for account deletion."""
    with connection() as conn:
        conn.table(table_name("twits")).delete(key)


# -- a fan-out's bookkeeping on the twit row (services/fanout.py, services/pending.py) ----


def fanout_mark(conn: happybase.Connection, key: bytes) -> bytes | None:
    """The twit's fan-out mark (FANOUT: a lease, see pending), if it has one."""
    mark: bytes | None = conn.table(table_name("twits")).row(key, columns=[FANOUT]).get(FANOUT)
    return mark


def fanout_marks(conn: happybase.Connection, twit_keys: list[bytes]) -> dict[bytes, bytes]:
    """The fan-out mark of each of ``twit_keys`` that has one (gets, in batches)."""
    found: dict[bytes, bytes] = {}
    table = conn.table(table_name("twits"))
    for i in range(0, len(twit_keys), _GET_BATCH):
        for key, row in table.rows(twit_keys[i : i + _GET_BATCH], columns=[FANOUT]):
            if FANOUT in row:
                found[key] = row[FANOUT]
    return found


def swap_fanout_mark(conn: happybase.Connection, key: bytes, expected: bytes, value: bytes) -> bool:
    """Replace the twit's fan-out mark if it still holds ``expected``
    (checkAndPut: false, and nothing written, if it changed or is gone)."""
    return ops.check_and_put(conn, table_name("twits"), key, FANOUT, expected, FANOUT, value)


def fanout_row(conn: happybase.Connection, key: bytes) -> dict[bytes, bytes]:
    """The twit row: the twit, its fan-out's mark (FANOUT) and the progress
    of its chunks (rows.decode_progress)."""
    found: dict[bytes, bytes] = conn.table(table_name("twits")).row(key, columns=[rows.TWIT])
    return found


def ask_fanout_row(pipe: ops.Pipeline, key: bytes) -> None:
    """:func:`fanout_row`, asked in ``pipe``: the answer is the pipeline's."""
    pipe.row(table_name("twits"), key, columns=[rows.TWIT])


def record_chunk(
    out: happybase.Connection | ops.Pipeline, key: bytes, chunk: int, start: str, after: str
) -> None:
    """Record chunk ``chunk`` of the twit's fan-out as done, from ``start`` to
    ``after`` (hex; "": the end), at the twit's own time: a delete of the
    twit (a marker at the time of deleting) then hides it even when a chunk
    that read the twit just before writes it just after."""
    cell = {rows.progress_column(chunk): rows.encode_progress(start, after)}
    with ops.pipelined(out) as pipe:
        pipe.put(table_name("twits"), key, cell, keys.split_twit_key(key).millis)


def clear_fanout(out: happybase.Connection | ops.Pipeline, key: bytes, chunks: list[bytes]) -> None:
    """Delete the fan-out's mark and the progress cells ``chunks``
    (rows.progress_columns): the fan-out is over."""
    with ops.pipelined(out) as pipe:
        pipe.delete(table_name("twits"), key, [FANOUT, *chunks])


def fanout_marked(conn: happybase.Connection) -> list[tuple[bytes, str]]:
    """Every twit whose row carries a fan-out mark, with its author: a scan
    of the whole table, for ``sweepfanout --reindex``."""
    twits = conn.table(table_name("twits"))
    marked = [key for key, _ in twits.scan(columns=[FANOUT], batch_size=1000)]
    authors = dict(twits.rows(marked, columns=[rows.AUTHOR])) if marked else {}
    return [(key, rows.twit_author(authors.get(key, {}))) for key in marked]


def newest_of(
    conn: happybase.Connection, userid: str, limit: int
) -> list[tuple[bytes, rows.TwitRow]]:
    """``userid``'s newest twits, up to ``limit``, newest first, with their
    keys: a follow's backfill."""
    found = conn.table(table_name("twits")).scan(
        row_prefix=keys.user_hash(userid), columns=[rows.TWIT], limit=limit, batch_size=limit
    )
    return [(key, twit) for key, row in found if (twit := rows.decode_twit(row)) is not None]


# -- a list's timeline (services/lists.py) ---------------------------------------------------


def timeline_scan_from(
    conn: happybase.Connection, userid: str, start: bytes, limit: int
) -> ops.Scan:
    """:func:`timeline_scan` of ``userid``'s twits from the row key ``start``
    on (inclusive; b"": from the newest): what a list's read-time merge
    continues from."""
    user_hash = keys.user_hash(userid)
    table = conn.table(table_name("twits"))
    return (table, max(start, user_hash), keys.prefix_stop(user_hash), limit, [rows.TWIT])


def timeline_twit(key: bytes, row: dict[bytes, bytes]) -> Twit | None:
    """The twit a twits row read by a timeline scan holds, counts and all
    (None: a row with no twit)."""
    return _timeline_twit(key, row)


# -- edits: the text changed within EDIT_WINDOW_MS, kept as cell versions ----------------
#
# The twit's row decides: one compare-and-set of its t:edit cell (the latest
# edit: its number, time, text and the text it replaced; see storage/rows.py)
# makes an edit, so concurrent edits are put in one order and each accepted
# once. Everything else follows from that cell and can be written again by
# whoever finds it unapplied (the editor, or the next edit before its own
# compare-and-set): the texts as versions of h:text (the history), t:text,
# and the words and tags rows (tagindex.move_tag_rows). All are written at
# the edit's time, strictly later than the one before, so late or repeated
# writes never put an older text back. Readers see the edit at once: a twit
# row's t:edit is in every read of the row, and the hydrate step takes it
# from the same multi-get as the counts, so list rows (streams, replies,
# reposts, tags) keep the text as posted and are never rewritten.

EDIT_WINDOW_MS = 15 * 60 * 1000
EDITS_MAX = schema.EDITS_MAX
_EDIT_ATTEMPTS = 50  # compare-and-set rounds before giving up (each loser saw another win)


@dataclass(frozen=True)
class Version:
    """One text a twit had, and from when (ms)."""

    text: str
    at: int


def edit_twit(userid: str, twit_id: str, text: object) -> Twit:
    """Change the text of ``userid``'s twit ``twit_id`` (checked as a post's
    text is) and return the twit as it is now. NotFound if there is none (or
    its delete has begun); Forbidden if it is someone else's; Conflict once
    15 minutes have passed since it was posted, or after EDITS_MAX edits.
    Two editors at once: each edit is accepted or refused whole, in one
    order; the text is the last accepted one's."""
    key = _key(twit_id)
    body = clean_text(text)
    with connection() as conn:
        table = conn.table(table_name("twits"))
        for _ in range(_EDIT_ATTEMPTS):
            row = table.row(key, columns=[rows.TWIT], include_timestamp=True)
            cells = {column: value for column, (value, _) in row.items()}
            stored = rows.decode_twit(cells)
            if stored is None or rows.DELETING in cells:
                raise NotFound(f"No twit {twit_id!r}.")
            if stored.userid.lower() != userid.lower():
                raise Forbidden("You can edit only your own twits.")
            last = rows.decode_edit(cells)
            if last is not None:
                # A crashed or slow editor's, written again: as its own
                # editor does, take it back if the twit's delete began
                # meanwhile, or its rows would outlive the delete's.
                _apply_edit(conn, key, stored, last)
                _unless_deleted(conn, key, last)
            now = _clock.now_millis()
            if now - stored.created > EDIT_WINDOW_MS:
                raise Conflict("A twit can be edited only within 15 minutes of posting.")
            if last is not None and last.n >= EDITS_MAX:
                raise Conflict(f"A twit can be edited at most {EDITS_MAX} times.")
            if body == stored.text:
                return _as_twit(key, cells)  # nothing to change: no edit made
            # Strictly after the text it replaces, so its cells always win.
            after = last.ts if last is not None else row[rows.TEXT][1]
            edit = rows.Edit(
                1 if last is None else last.n + 1, max(now, after + 1), body, stored.text
            )
            # The latest edit is still the one read (the first: still none).
            expected = None if last is None else cells[rows.EDIT]
            if ops.check_and_put(
                conn,
                table_name("twits"),
                key,
                rows.EDIT,
                expected,
                rows.EDIT,
                rows.encode_edit(edit),
            ):
                if not _still_there(conn, key):
                    raise NotFound(f"No twit {twit_id!r}.")
                _apply_edit(conn, key, stored, edit)
                _unless_deleted(conn, key, edit)
                return get_twit(twit_id)
        raise Conflict("The twit is being edited elsewhere; try again.")


def _apply_edit(
    conn: happybase.Connection, key: bytes, stored: rows.TwitRow, edit: rows.Edit
) -> None:
    """Write what the accepted ``edit`` implies (idempotent, at its time):
    the history's versions, t:text, and the words and tags rows."""
    table = conn.table(table_name("twits"))
    if edit.n == 1:  # the original text, as the history's first version
        table.put(key, {rows.HISTORY_TEXT: edit.prev.encode()}, timestamp=stored.created)
    table.put(key, {rows.HISTORY_TEXT: edit.text.encode(), rows.TEXT: edit.text.encode()}, edit.ts)
    before = dataclasses.replace(stored, text=edit.prev)
    after = dataclasses.replace(stored, text=edit.text)
    tagindex.move_tag_rows(conn, key, before, after, edit.ts)


def _still_there(conn: happybase.Connection, key: bytes) -> bool:
    """After an edit's compare-and-set: whether the twit is there and no
    delete of it has begun. A first edit's compare-and-set (t:edit absent)
    succeeds on a row a delete has just taken too, leaving t:edit alone in
    it: that cell goes again (a row without its author is no twit to
    readers, rows.decode_twit, even if this step is never reached)."""
    table = conn.table(table_name("twits"))
    row = table.row(key, columns=[rows.AUTHOR, rows.DELETING])
    if rows.AUTHOR not in row:
        table.delete(key)
        return False
    return rows.DELETING not in row


def _unless_deleted(conn: happybase.Connection, key: bytes, edit: rows.Edit) -> None:
    """An edit accepted just as the twit's delete began takes back what it
    wrote: the delete read the text before or after it, so the rows of
    either text may be left; and cells written after the delete took the
    row would leave a row without a twit."""
    row = conn.table(table_name("twits")).row(key, columns=[rows.AUTHOR, rows.DELETING])
    if rows.AUTHOR in row and rows.DELETING not in row:
        return
    # At the edit's time or later: a delete marker hides only what is at or before it.
    ts = max(edit.ts, _clock.now_millis())
    tagindex.drop_rows_of(conn, key, [edit.prev, edit.text], ts)
    if rows.AUTHOR not in row:
        conn.table(table_name("twits")).delete(key, timestamp=ts)


def _as_twit(key: bytes, row: dict[bytes, bytes]) -> Twit:
    found = _timeline_twit(key, row)
    if found is None:
        raise NotFound(f"No twit {keys.twit_id(key)!r}.")
    return found


@read_only
def history(twit_id: str) -> list[Version]:
    """The texts the twit ``twit_id`` has had, newest first, each with its
    time (the first: the current text; the last: the text as posted): one
    get of the twit's cells and, once it was edited, of h:text's versions.
    NotFound if it is gone."""
    key = _key(twit_id)
    with connection() as conn:
        table = conn.table(table_name("twits"))
        row = table.row(
            key, columns=[rows.TEXT, rows.AUTHOR, rows.NAME, rows.CREATED, rows.EDIT, rows.DELETING]
        )
        stored = rows.decode_twit(row)
        if stored is None or rows.DELETING in row:
            raise NotFound(f"No twit {twit_id!r}.")
        texts = _texts(table, key, row, stored)
    return [Version(text, at) for at, text in sorted(texts.items(), reverse=True)]


def _texts(
    table: happybase.Table, key: bytes, row: dict[bytes, bytes], stored: rows.TwitRow
) -> dict[int, str]:
    """The texts the twit ``key`` has had, by time (ms), from ``row`` (its
    t:edit, as ``stored`` was decoded from it) and, once it was edited, one
    read of h:text's versions. Every accepted edit is among them: the latest
    from t:edit (its versions perhaps not written yet), each earlier one
    from the history, which an edit's writer fills before the next edit is
    accepted (edit_twit)."""
    edit = rows.decode_edit(row)
    if edit is None:
        return {stored.created: stored.text}
    found = table.cells(key, rows.HISTORY_TEXT, versions=EDITS_MAX + 1, include_timestamp=True)
    texts = {ts: value.decode() for value, ts in found}
    texts[edit.ts] = edit.text
    if edit.n == 1:
        texts.setdefault(stored.created, edit.prev)
    return texts


def editable(twit: Twit, now_ms: int | None = None) -> bool:
    """Whether ``twit`` can still be edited (by its author): within the
    window. The edit itself says when too many edits were made."""
    now = _clock.now_millis() if now_ms is None else now_ms
    return now - int(twit.created.timestamp() * 1000) <= EDIT_WINDOW_MS


def load_edits(conn: happybase.Connection, key: bytes, texts: list[tuple[str, int]]) -> int:
    """Edit the twit ``key`` to each of ``texts`` (text, ms: in order, each
    later than the last and the twit) as :func:`edit_twit` would have at
    those times, without its checks or its compare-and-set: for the demo
    loader, whose rows nobody reads yet. The cells are those an accepted
    edit leaves (:func:`_apply_edit`). Returns the edits made."""
    row = conn.table(table_name("twits")).row(key, columns=[rows.TWIT])
    stored = rows.decode_twit(row)
    if stored is None:
        return 0
    last = rows.decode_edit(row)
    done = 0
    for text, at in texts[: EDITS_MAX - (0 if last is None else last.n)]:
        body = clean_text(text)
        n = 1 if last is None else last.n + 1
        prev = stored.text if last is None else last.text
        edit = rows.Edit(n, at, body, prev)
        conn.table(table_name("twits")).put(key, {rows.EDIT: rows.encode_edit(edit)}, at)
        _apply_edit(conn, key, dataclasses.replace(stored, text=prev), edit)
        last, done = edit, done + 1
    return done
