"""The userSearch index: each user under their userid and under their display
name, normalised, so "users whose userid or name starts with q" is one prefix
scan. Kept in step by :mod:`feeds.services.accounts` (sign-up, rename) and
cleared by :func:`forget_user` (account deletion); read by
:mod:`feeds.services.search`.

The index is a hint, the users row is the truth: search reads the users rows
of what it finds and keeps a row only while the user exists, is not
suspended, and still has that name. So a crash between a rename and its
index update, or a sign-up that lost a race, shows nobody wrongly; it can
only leave a user unfound (a sign-up or rename whose index write died)
until their next rename.
"""

from __future__ import annotations

import unicodedata

import happybase

from feeds.types import Page
from storage import keys, rows
from storage.connection import connection, read_only, table_name

from ._load import LoadRow
from ._paging import scan_page

USERID = keys.SEARCH_USERID
NAME = keys.SEARCH_NAME


def normalise(value: str) -> str:
    """A name, userid or query as the index compares them: Unicode NFKC, case
    folded (``str.casefold``), runs of white space as one space, trimmed."""
    return " ".join(unicodedata.normalize("NFKC", value).casefold().split())


def index_rows(userid: str, name: str) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """The userSearch rows of a user: (key, cells), for the services and the bulk loader."""
    cells = rows.encode_search(userid)
    return [
        (keys.search_key(normalise(userid), userid, USERID), cells),
        (keys.search_key(normalise(name), userid, NAME), cells),
    ]


def load_rows(userid: str, name: str) -> list[LoadRow]:
    """:func:`index_rows` as the bulk loader writes them (services/_load.py)."""
    return [("userSearch", key, cells, None) for key, cells in index_rows(userid, name)]


def _hit(query: str, key: bytes, row: dict[bytes, bytes]) -> tuple[bytes, bytes, bytes] | None:
    value, user_hash, kind = keys.split_search_key(key)
    userid = rows.decode_search(row)
    if userid is None:
        return None
    if kind == NAME and normalise(userid).startswith(query):
        return None  # listed under its userid row
    return value, user_hash, kind


@read_only
def matches(query: str, cursor: str | None, limit: int) -> Page[tuple[bytes, bytes, bytes]]:
    """One page of the index rows under ``query`` (normalised), in index
    order, each as (normalised value, md5 of the userid, USERID or NAME): one
    prefix scan. A user matched by both userid and name is listed once,
    under the userid: their name row is skipped."""
    with connection() as conn:
        return scan_page(
            conn.table(table_name("userSearch")),
            keys.search_value(query),
            None,
            cursor,
            limit,
            lambda key, row: _hit(query, key, row),
        )


def index_user(conn: happybase.Connection, userid: str, name: str) -> None:
    """Index ``userid`` under its userid and ``name`` (idempotent)."""
    table = conn.table(table_name("userSearch"))
    with table.batch() as b:
        for key, cells in index_rows(userid, name):
            b.put(key, cells)


def rename(conn: happybase.Connection, userid: str, old: str, new: str) -> None:
    """Move ``userid``'s name row from ``old`` to ``new`` (idempotent)."""
    table = conn.table(table_name("userSearch"))
    old_key = keys.search_key(normalise(old), userid, NAME)
    new_key = keys.search_key(normalise(new), userid, NAME)
    if old_key != new_key:
        table.delete(old_key)
    table.put(new_key, rows.encode_search(userid))


def forget_user(conn: happybase.Connection, userid: str, name: str) -> None:
    """Take ``userid`` (whose name is ``name``) out of the index: for account deletion."""
    table = conn.table(table_name("userSearch"))
    with table.batch() as b:
        b.delete(keys.search_key(normalise(userid), userid, USERID))
        b.delete(keys.search_key(normalise(name), userid, NAME))
