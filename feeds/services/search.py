"""Search: users by the start of their userid or display name, and twits
by their words.

**Users.**
One prefix scan of ``userSearch`` (see :mod:`feeds.services.userindex`) under
the normalised query, in index order (alphabetical by the matched value),
paged by cursor; then one multi-get of the users rows found, which are the
truth: a row whose user is gone, suspended, or no longer has that name is
left out. A user matched by both userid and name is listed once, under
the userid: a name row is skipped when the user's userid matches too.

**Twits** (:func:`search_twits`): the words index (``twitWords``, written
with each twit by :mod:`.tagindex`) holds a twit's row under each word of
its text, newest first. One word is one prefix scan. Several words mean all
of them: the longest word (the likeliest to be rare) is scanned, and each
batch of its twits is checked for the other words with one multi-get per
word (a row's key is computed from the word and the twit, so membership is
a get, not a scan). The twits are then read from their rows, which are the
truth (a deleted twit's rows are skipped), and hydrated as every list is.
A page scans at most SCAN_MAX rows of its word: a rare combination of
common words gives a short (even empty) page with a cursor to go on, never
an unbounded request.
"""

from __future__ import annotations

from feeds.errors import InvalidInput
from feeds.types import Page, Twit, User
from storage import keys
from storage.connection import connection, read_only

from . import accounts, tagindex, twits, userindex
from ._paging import check_limit, start_row
from .hydration import hydrate
from .textparse import WORD_MIN, words

QUERY_MAX = 50  # characters: as long as the longest name


def check_query(q: object) -> str:
    """The query normalised as the index is (one leading '@' dropped), or
    InvalidInput naming ``q`` when it is empty, too long or holds control characters."""
    if isinstance(q, str) and len(q) > QUERY_MAX:
        raise InvalidInput("q", f"A search is at most {QUERY_MAX} characters; this is {len(q)}.")
    if not isinstance(q, str) or not q.strip().removeprefix("@").strip():
        raise InvalidInput("q", "Type the start of a name or userid to search for.")
    raw = q.strip().removeprefix("@").strip()
    if accounts.has_control_chars(raw):
        raise InvalidInput("q", "A search cannot contain control characters.")
    normal = userindex.normalise(raw)
    if len(normal.encode()) > keys.SEARCH_VALUE_MAX:
        raise InvalidInput("q", "That search is too long: try the first few words.")
    return normal


@read_only
def search_users(
    q: str, cursor: str | None = None, limit: int = 20, *, suspended: bool = False
) -> Page[User]:
    """Users whose userid or display name starts with ``q`` (case-insensitive,
    see userindex.normalise), in the index's order; suspended users left
    out, unless ``suspended`` (the staff console's search)."""
    query = check_query(q)
    page = userindex.matches(query, cursor, limit)
    found = accounts.users_by_hash(h for _, h, _ in page.items)
    users = []
    for value, user_hash, kind in page.items:
        user = found.get(user_hash)
        if user is None or (user.disabled and not suspended):
            continue
        if kind == keys.SEARCH_NAME and keys.search_value(userindex.normalise(user.name)) != value:
            continue  # renamed since: the index row is stale
        users.append(user)
    return Page(tuple(users), page.next_cursor)


QUERY_WORDS_MAX = 5  # words in one search of twits
SCAN_MAX = 1000  # rows of the scanned word one page reads at most


def check_words(q: object) -> list[str]:
    """The words of a search of twits, normalised as the index's are, or
    InvalidInput naming ``q``."""
    if isinstance(q, str) and len(q) > QUERY_MAX:
        raise InvalidInput("q", f"A search is at most {QUERY_MAX} characters; this is {len(q)}.")
    if not isinstance(q, str) or accounts.has_control_chars(q):
        raise InvalidInput("q", "Type the words to search twits for.")
    found = words(q)
    if not found:
        raise InvalidInput(
            "q", f"Type a word of at least {WORD_MIN} letters or digits to search twits for."
        )
    if len(found) > QUERY_WORDS_MAX:
        raise InvalidInput("q", f"Search for at most {QUERY_WORDS_MAX} words at once.")
    return found


@read_only
def search_twits(
    q: str, cursor: str | None = None, limit: int = 20, reader: User | str | None = None
) -> Page[Twit]:
    """Twits with every word of ``q`` (whole words, any case), newest first,
    as ``reader`` sees them; see the module's docstring."""
    wanted = check_words(q)
    check_limit(limit)
    scanned = max(wanted, key=lambda w: (len(w), w))
    others = [w for w in wanted if w != scanned]
    start = start_row(cursor, keys.word_hash(scanned), keys.TAG_KEY_LEN) if cursor else None
    shown: list[Twit] = []
    read = 0
    while True:
        room = min(max(2 * limit, 50), SCAN_MAX - read)
        with connection() as conn:
            found = tagindex.word_scan(conn, scanned, start, room)
            twit_keys = [keys.twit_key_from_word_key(k) for k in found]
            matching = tagindex.with_words(conn, twit_keys, others) if others else set(twit_keys)
            stored = twits.twits_of(conn, [keys.twit_id(k) for k in twit_keys if k in matching])
        read += len(found)
        seen = {t.id: t for t in hydrate(tuple(stored.values()), reader, counted=True)}
        for row, twit_key in zip(found, twit_keys, strict=True):
            twit = seen.get(keys.twit_id(twit_key))
            if twit is not None:
                shown.append(twit)
                if len(shown) == limit:
                    # Full: the next page starts after this row, unless it was the last.
                    more = row != found[-1] or len(found) == room
                    return Page(tuple(shown), keys.encode_cursor(row) if more else None)
        if len(found) < room:
            return Page(tuple(shown), None)
        if read >= SCAN_MAX:
            return Page(tuple(shown), keys.encode_cursor(found[-1]))
        start = keys.after(found[-1])
