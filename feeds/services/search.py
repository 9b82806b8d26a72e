"""Search: users by the start of their userid or display name.

One prefix scan of ``userSearch`` (see :mod:`feeds.services.userindex`) under
the normalised query, in index order (alphabetical by the matched value),
paged by cursor; then one multi-get of the users rows found, which are the
truth: a row whose user is gone, suspended, or no longer has that name is
left out. A user matched by both userid and name is listed once, under
the userid: a name row is skipped when the user's userid matches too.
"""

from __future__ import annotations

from feeds.errors import InvalidInput
from feeds.types import Page, User
from storage import keys
from storage.connection import read_only

from . import accounts, userindex

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
def search_users(q: str, cursor: str | None = None, limit: int = 20) -> Page[User]:
    """Users whose userid or display name starts with ``q`` (case-insensitive,
    see userindex.normalise), in the index's order; suspended users left out."""
    query = check_query(q)
    page = userindex.matches(query, cursor, limit)
    found = accounts.users_by_hash(h for _, h, _ in page.items)
    users = []
    for value, user_hash, kind in page.items:
        user = found.get(user_hash)
        if user is None or user.disabled:
            continue
        if kind == keys.SEARCH_NAME and keys.search_value(userindex.normalise(user.name)) != value:
            continue  # renamed since: the index row is stale
        users.append(user)
    return Page(tuple(users), page.next_cursor)
