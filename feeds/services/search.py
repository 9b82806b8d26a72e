"""Search: users by the start of their userid or display name.

One prefix scan of ``userSearch`` (see :mod:`feeds.services.userindex`) under
the normalised query, in index order (alphabetical by the matched value),
paged by cursor; then one multi-get of the users rows found, which are the
truth: a row whose user is gone, suspended, or no longer has that name is
left out. A user matched by both userid and name is listed once, under
the userid: a name row is skipped when the user's userid matches too.
"""

from __future__ import annotations

from collections.abc import Callable

from feeds.errors import InvalidInput
from feeds.types import Page, User
from storage import keys, rows
from storage.connection import connection, read_only, table_name

from . import accounts, userindex
from ._paging import scan_page

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


def _hit(query: str) -> Callable[[bytes, dict[bytes, bytes]], tuple[bytes, bytes, bytes] | None]:
    def decode(key: bytes, row: dict[bytes, bytes]) -> tuple[bytes, bytes, bytes] | None:
        value, user_hash, kind = keys.split_search_key(key)
        userid = rows.decode_search(row)
        if userid is None:
            return None
        if kind == keys.SEARCH_NAME and userindex.normalise(userid).startswith(query):
            return None  # listed under its userid row
        return value, user_hash, kind

    return decode


@read_only
def search_users(q: str, cursor: str | None = None, limit: int = 20) -> Page[User]:
    """Users whose userid or display name starts with ``q`` (case-insensitive,
    see userindex.normalise), in the index's order; suspended users left out."""
    query = check_query(q)
    with connection() as conn:
        page = scan_page(
            conn.table(table_name("userSearch")),
            keys.search_value(query),
            None,
            cursor,
            limit,
            _hit(query),
        )
        wanted = sorted({h for _, h, _ in page.items})
        found = dict(conn.table(table_name("users")).rows(wanted)) if wanted else {}
    users = []
    for value, user_hash, kind in page.items:
        user = accounts.user_from_row(found.get(user_hash, {}))
        if user is None or user.disabled:
            continue
        if kind == keys.SEARCH_NAME and keys.search_value(userindex.normalise(user.name)) != value:
            continue  # renamed since: the index row is stale
        users.append(user)
    return Page(tuple(users), page.next_cursor)
