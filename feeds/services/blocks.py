"""Blocks and mutes: whom a user will not deal with, and what they would
rather not see. This module owns their tables and answers every question
about them; :mod:`.blocking` does the acts (a block ends follows and takes
reactions back), as :mod:`.follows` does a follow.

The tables (docs/schema.md), in the style of follows and followedBy:

- ``blocks`` md5(blocker) + md5(blocked) and ``blockedBy`` the same pair the
  other way: "whom do I block" and "who blocks me" are each one prefix scan;
- ``mutes`` md5(muter) + md5(muted);
- ``mutedWords`` md5(muter) + md5(word), the word in its cell: a user's few
  muted words are one short prefix scan.

Where each is applied:

- **Before a write**, by the writer: a follow, a like or repost, a reply
  between two people either of whom blocks the other is Forbidden
  (:func:`refuse_blocked`). A follow and a like check again after their
  write and undo it if a block arrived meanwhile; a block writes its row
  before it ends follows and takes reactions back. Whichever comes second
  sees the other, so no follow or reaction outlives a block.
- **At fan-out**: a block ends the follows both ways, so neither's new
  twits reach the other's stream, and the rows already there leave with the
  unfollow's cleanup. Mentions and replies do not notify someone who
  blocks, is blocked by, or mutes their author (:func:`unshielded`).
- **At read time**, where it must be: reposts by third parties, rows a
  fan-out in flight wrote after the block, likes and follows by muted
  accounts. :func:`shield` gives, for a reader and the people on a page, whom
  to hide and which words; :func:`.hydration.hydrate` and
  :func:`.notify.notifications` apply it. Blocks hide everywhere a signed-in
  reader looks; mutes and muted words only in their home stream and
  notifications (a profile or a search one visits on purpose still shows).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property

import happybase

from feeds.errors import Forbidden, InvalidInput
from feeds.types import Page, User, UserRef
from storage import keys, ops, rows
from storage.connection import connection, read_only, table_name

from . import accounts
from ._clock import now_millis
from ._paging import scan_page

MUTED_WORDS_MAX = 100  # a user's muted words and hashtags
WORD_MAX = 50  # characters of one


# -- the questions, for writers and readers ---------------------------------------------


def _either_way(conn: happybase.Connection, userid: str, others: Iterable[str]) -> set[str]:
    """Of ``others``, those (lower-cased) who block ``userid`` or whom it
    blocks: one multi-get of both rows of each pair."""
    with ops.pipelined(conn) as pipe:
        answer = _ask_either_way(pipe, userid, others)
    return answer()


def _ask_either_way(
    pipe: ops.Pipeline, userid: str, others: Iterable[str]
) -> Callable[[], set[str]]:
    """:func:`_either_way` as a call in ``pipe``, answered once it is sent."""
    wanted = sorted({u.lower() for u in others} - {userid.lower()})
    if not wanted:
        return set
    by_key: dict[bytes, str] = {}
    for other in wanted:
        by_key[keys.pair_key(userid, other)] = other
        by_key[keys.pair_key(other, userid)] = other
    reply = pipe.rows(table_name("blocks"), sorted(by_key), [rows.BLOCK_USERID])
    return lambda: {by_key[key] for key, _ in reply.value}


def _ask_muted(pipe: ops.Pipeline, userid: str, others: Iterable[str]) -> Callable[[], set[str]]:
    """Of ``others``, those (lower-cased) ``userid`` mutes: one multi-get,
    a call in ``pipe``, answered once it is sent."""
    wanted = sorted({u.lower() for u in others} - {userid.lower()})
    if not wanted:
        return set
    by_key = {keys.pair_key(userid, other): other for other in wanted}
    reply = pipe.rows(table_name("mutes"), sorted(by_key), [rows.MUTE_USERID])
    return lambda: {by_key[key] for key, _ in reply.value}


def blocked_between(conn: happybase.Connection, a: str, b: str) -> bool:
    """Whether either of ``a`` and ``b`` blocks the other."""
    return bool(_either_way(conn, a, [b]))


def refuse_blocked(conn: happybase.Connection, actor: str, other: str, doing: str) -> None:
    """Forbidden if either of ``actor`` and ``other`` blocks the other, with
    a message that says which: ``doing`` is the act ("follow them")."""
    if actor.lower() == other.lower():
        return
    table = conn.table(table_name("blocks"))
    mine, theirs = keys.pair_key(actor, other), keys.pair_key(other, actor)
    found = {key for key, _ in table.rows([mine, theirs], columns=[rows.BLOCK_USERID])}
    if mine in found:
        raise Forbidden(f"You have blocked @{other}: unblock them to {doing}.")
    if theirs in found:
        raise Forbidden(f"@{other} has blocked you: you cannot {doing}.")


def unshielded(conn: happybase.Connection, author: str, recipients: list[str]) -> list[str]:
    """Of ``recipients``, in order, those an ``author``'s twit may notify:
    not blocking or blocked by the author, not muting them."""
    if not recipients:
        return recipients
    hidden = _either_way(conn, author, recipients)
    author_hash = keys.user_hash(author)
    by_key = {keys.user_hash(r) + author_hash: r.lower() for r in recipients}
    muting = conn.table(table_name("mutes")).rows(sorted(by_key), columns=[rows.MUTE_USERID])
    hidden |= {by_key[key] for key, _ in muting}
    return [r for r in recipients if r.lower() not in hidden]


def _word_pattern(word: str) -> str:
    """A muted word as a pattern: the whole word or phrase, any case; "tea"
    also matches "#tea", but "#tea" only the hashtag."""
    before = r"(?<![\w#])" if word.startswith("#") else r"(?<!\w)"
    return rf"{before}{re.escape(word)}(?!\w)"


@dataclass(frozen=True)
class Shield:
    """What one reader does not see: people (lower-cased userids) blocked
    either way or muted, and muted words (case-folded)."""

    people: frozenset[str]
    words: tuple[str, ...]

    @cached_property
    def _pattern(self) -> re.Pattern[str] | None:
        if not self.words:
            return None
        return re.compile("|".join(_word_pattern(w) for w in self.words), re.IGNORECASE)

    def hides_text(self, text: str) -> bool:
        return self._pattern is not None and self._pattern.search(text) is not None

    def hides(self, userid: str | None) -> bool:
        return userid is not None and userid.lower() in self.people


NOTHING_HIDDEN = Shield(frozenset(), ())


def needs_shield(marks: str | None, *, muting: bool) -> bool:
    """Whether a reader with ``marks`` (their User's ``shields``; None:
    not known) may have anything to hide: else :func:`shield` is skipped."""
    return marks is None or "b" in marks or (muting and bool({"m", "w"} & set(marks)))


@read_only
def shield(reader: str, people: Iterable[str], *, muting: bool, marks: str | None = None) -> Shield:
    """What ``reader`` must not see among ``people`` (the authors and
    reposters of a page, or its notifications' actors): those blocked either
    way and, with ``muting`` (the reader's home stream and notifications),
    those muted and the muted words. One round trip for each kind of row the
    reader's ``marks`` (rows.SHIELD_MARKS; None: all kinds) say they have:
    most people have none, and pay nothing."""
    with connection() as conn, ops.pipelined(conn) as pipe:
        answer = ask_shield(conn, pipe, reader, people, muting=muting, marks=marks)
    return answer()


def ask_shield(
    conn: happybase.Connection,
    pipe: ops.Pipeline,
    reader: str,
    people: Iterable[str],
    *,
    muting: bool,
    marks: str | None = None,
) -> Callable[[], Shield]:
    """:func:`shield` with its multi-gets (blocks, mutes) as calls in
    ``pipe``, on ``conn``: its answer once ``pipe`` is sent. A page asks it
    beside its other lookups, in one round trip. Muted words are a prefix
    scan, read at once on ``conn`` (a pipeline's calls wait in its own
    buffer until it is sent), and only for a reader whose marks say they
    have some."""
    people = list(people)
    marks = "bmw" if marks is None else marks
    parts: list[Callable[[], set[str]]] = []
    if "b" in marks:
        parts.append(_ask_either_way(pipe, reader, people))
    if muting and "m" in marks:
        parts.append(_ask_muted(pipe, reader, people))
    words: tuple[str, ...] = ()
    if muting and "w" in marks:
        words = tuple(w.casefold() for w in _words(conn, reader))

    def answer() -> Shield:
        hidden: set[str] = set()
        for part in parts:
            hidden |= part()
        return Shield(frozenset(hidden), words)

    return answer


def refuse_if_blocked_by(owner: str, reader: User | str | None) -> None:
    """Forbidden when ``owner`` blocks ``reader`` (signed in; their profile
    or userid): their profile, lists and twits are not the reader's to see.
    A profile whose marks say no block ever touched it is asked nothing."""
    if reader is None:
        return
    if isinstance(reader, User) and not needs_shield(reader.shields, muting=False):
        return
    userid = accounts.userid_of(reader)
    if userid.lower() == owner.lower():
        return
    with connection() as conn:
        row = conn.table(table_name("blocks")).row(
            keys.pair_key(owner, userid), columns=[rows.BLOCK_USERID]
        )
    if row:
        raise Forbidden(f"@{owner} has blocked you.")


def visible_user(userid: str, reader: User | str | None) -> User:
    """``userid``'s public profile as ``reader`` may see it: Suspended for a
    suspended account, Forbidden when it blocks the reader."""
    user = accounts.public_user(userid)
    refuse_if_blocked_by(user.userid, reader)
    return user


@dataclass(frozen=True)
class Stance:
    """Where a reader stands with one other account."""

    blocking: bool  # the reader blocks them
    blocked_by: bool  # they block the reader
    muting: bool  # the reader mutes them


@read_only
def stance(reader: str, other: str) -> Stance:
    """One multi-get of the three rows that say it."""
    with connection() as conn:
        found = {
            key
            for key, _ in conn.table(table_name("blocks")).rows(
                [keys.pair_key(reader, other), keys.pair_key(other, reader)]
            )
        }
        muting = bool(conn.table(table_name("mutes")).row(keys.pair_key(reader, other)))
    return Stance(
        keys.pair_key(reader, other) in found, keys.pair_key(other, reader) in found, muting
    )


# -- the rows, for services.blocking ---------------------------------------------------


def record_block(conn: happybase.Connection, blocker: str, blocked: str) -> bool:
    """Write the block both ways (blockedBy first: a block is in force from
    its blocks row, and the other is only for finding it); False if it was
    there. Repeatable."""
    key = keys.pair_key(blocker, blocked)
    table = conn.table(table_name("blocks"))
    there = bool(table.row(key, columns=[rows.BLOCK_USERID]))
    accounts.mark_shields(conn, [blocker, blocked], "b")
    ms = now_millis()
    conn.table(table_name("blockedBy")).put(
        keys.pair_key(blocked, blocker),
        rows.encode_pair(rows.BLOCK_USERID, rows.BLOCK_CREATED, blocker, ms),
    )
    if not there:
        table.put(key, rows.encode_pair(rows.BLOCK_USERID, rows.BLOCK_CREATED, blocked, ms))
    return not there


def erase_block(conn: happybase.Connection, blocker: str, blocked: str) -> bool:
    """Remove the block (its blocks row first); False if there was none."""
    there = _erase(conn, "blocks", keys.pair_key(blocker, blocked), rows.BLOCK_USERID)
    conn.table(table_name("blockedBy")).delete(keys.pair_key(blocked, blocker))
    return there


def record_mute(conn: happybase.Connection, muter: str, muted: str) -> bool:
    key = keys.pair_key(muter, muted)
    table = conn.table(table_name("mutes"))
    if table.row(key, columns=[rows.MUTE_USERID]):
        return False
    accounts.mark_shields(conn, [muter], "m")
    table.put(key, rows.encode_pair(rows.MUTE_USERID, rows.MUTE_CREATED, muted, now_millis()))
    return True


def _erase(conn: happybase.Connection, table: str, key: bytes, cell: bytes) -> bool:
    """Delete the row ``key``; whether it was there (``cell`` says so)."""
    found = conn.table(table_name(table))
    there = bool(found.row(key, columns=[cell]))
    found.delete(key)
    return there


def erase_mute(conn: happybase.Connection, muter: str, muted: str) -> bool:
    return _erase(conn, "mutes", keys.pair_key(muter, muted), rows.MUTE_USERID)


def check_word(word: object) -> str:
    """A muted word or phrase as stored: trimmed, 1 to WORD_MAX characters,
    on one line, with a letter or digit; a hashtag keeps its #."""
    if not isinstance(word, str):
        raise InvalidInput("word", "A muted word is text.")
    word = " ".join(word.split())
    if not word or len(word) > WORD_MAX:
        raise InvalidInput("word", f"A muted word is 1 to {WORD_MAX} characters.")
    if accounts.has_control_chars(word) or not re.search(r"\w", word):
        raise InvalidInput("word", "A muted word needs a letter or digit.")
    return word


def _words(conn: happybase.Connection, userid: str) -> list[str]:
    found = conn.table(table_name("mutedWords")).scan(
        row_prefix=keys.user_hash(userid), columns=[rows.MUTED_WORD]
    )
    return sorted((d[rows.MUTED_WORD].decode() for _, d in found), key=str.casefold)


def record_word(conn: happybase.Connection, userid: str, word: str) -> bool:
    """Mute ``word`` (checked by :func:`check_word`) for ``userid``; False
    if it was muted already. InvalidInput beyond MUTED_WORDS_MAX."""
    key = keys.muted_word_key(userid, word)
    table = conn.table(table_name("mutedWords"))
    if table.row(key, columns=[rows.MUTED_WORD]):
        return False
    if len(_words(conn, userid)) >= MUTED_WORDS_MAX:
        raise InvalidInput("word", f"You can mute at most {MUTED_WORDS_MAX} words.")
    accounts.mark_shields(conn, [userid], "w")
    table.put(key, rows.encode_muted_word(word, now_millis()))
    return True


def erase_word(conn: happybase.Connection, userid: str, word: str) -> bool:
    return _erase(conn, "mutedWords", keys.muted_word_key(userid, word), rows.MUTED_WORD)


# -- the lists -----------------------------------------------------------------------------


def _people(table: str, cell: bytes, userid: str, cursor: str | None, limit: int) -> Page[UserRef]:
    """One page of the accounts a user blocks or mutes, in key order, with
    their display names now (one multi-get for the page)."""
    user = accounts.get_user(userid)
    with connection() as conn:
        page = scan_page(
            conn.table(table_name(table)),
            keys.user_hash(user.userid),
            keys.EDGE_KEY_LEN,
            cursor,
            limit,
            lambda _key, row: row[cell].decode() if cell in row else None,
        )
        names = accounts.display_names(conn, page.items)
    return Page(tuple(UserRef(u, names.get(u.lower(), u)) for u in page.items), page.next_cursor)


@read_only
def blocked(userid: str, cursor: str | None = None, limit: int = 20) -> Page[UserRef]:
    """Whom ``userid`` blocks."""
    return _people("blocks", rows.BLOCK_USERID, userid, cursor, limit)


@read_only
def muted(userid: str, cursor: str | None = None, limit: int = 20) -> Page[UserRef]:
    """Whom ``userid`` mutes."""
    return _people("mutes", rows.MUTE_USERID, userid, cursor, limit)


@read_only
def muted_words(userid: str) -> list[str]:
    """``userid``'s muted words and hashtags, alphabetically."""
    with connection() as conn:
        return _words(conn, accounts.get_user(userid).userid)


def forget_user(userid: str) -> int:
    """Delete ``userid``'s blocks, mutes and muted words, and the blocks of
    them by others (found through blockedBy): for the deletion of their
    account. Others' mutes of them stay (they name nobody who exists, and
    go when the muter unmutes). Returns how many rows went."""
    prefix = keys.user_hash(userid)
    gone = 0
    with connection() as conn:
        blockers = conn.table(table_name("blockedBy")).scan(row_prefix=prefix, filter=ops.KEYS_ONLY)
        blocks = conn.table(table_name("blocks"))
        for key, _ in blockers:
            blocks.delete(key[keys.MD5_LEN :] + prefix)
            gone += 1
        blocked_by = conn.table(table_name("blockedBy"))
        for key, _ in blocks.scan(row_prefix=prefix, filter=ops.KEYS_ONLY):
            blocked_by.delete(key[keys.MD5_LEN :] + prefix)
            gone += 1
        for table in ("blocks", "blockedBy", "mutes", "mutedWords"):
            gone += ops.delete_prefix(conn, table_name(table), prefix)
    return gone
