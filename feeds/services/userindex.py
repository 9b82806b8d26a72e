"""The userSearch index: each user under their userid and under their display
name, normalised, so "users whose userid or name starts with q" is one prefix
scan; and under their email address, so "the accounts of this address" (the
password reset's "forgot your userid?") is one too. Kept in step by
:mod:`feeds.services.accounts` (sign-up, rename; there is no email change)
and cleared by :func:`forget_user` (account deletion); read by
:mod:`feeds.services.search` (which never sees the email rows:
:func:`matches` leaves them out) and :mod:`feeds.services.passwordreset`
(:func:`userids_by_email`).

The index is a hint, the users row is the truth: search reads the users rows
of what it finds and keeps a row only while the user exists, is not
suspended, and still has that name. So a crash between a rename and its
index update, or a sign-up that lost a race, shows nobody wrongly; it can
only leave a user unfound (a sign-up or rename whose index write died)
until their next rename. The same goes for an email row: the reset reads the
users row of each account the address finds and sends only to those whose
email still reads the same (an address longer than the index keeps shares
its row's key with others that begin the same). Accounts made before the
email rows were written are found by address once :func:`reindex` has run
(``manage.py users reindex``), which also mends the rows a crash cost.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

import happybase

from feeds.types import Page, User
from storage import keys, rows
from storage.connection import connection, read_only, table_name

from ._load import LoadRow
from ._paging import scan_page

USERID = keys.SEARCH_USERID
NAME = keys.SEARCH_NAME
EMAIL = keys.SEARCH_EMAIL


def normalise(value: str) -> str:
    """A name, userid or query as the index compares them: Unicode NFKC, case
    folded (``str.casefold``), runs of white space as one space, trimmed."""
    return " ".join(unicodedata.normalize("NFKC", value).casefold().split())


def index_rows(userid: str, name: str, email: str) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """The userSearch rows of a user: (key, cells), for the services and the bulk loader."""
    cells = rows.encode_search(userid)
    return [
        (keys.search_key(normalise(userid), userid, USERID), cells),
        (keys.search_key(normalise(name), userid, NAME), cells),
        (keys.search_key(normalise(email), userid, EMAIL), cells),
    ]


def load_rows(userid: str, name: str, email: str) -> list[LoadRow]:
    """:func:`index_rows` as the bulk loader writes them (services/_load.py)."""
    return [("userSearch", key, cells, None) for key, cells in index_rows(userid, name, email)]


def _hit(query: str, key: bytes, row: dict[bytes, bytes]) -> tuple[bytes, bytes, bytes] | None:
    value, user_hash, kind = keys.split_search_key(key)
    userid = rows.decode_search(row)
    if userid is None or kind == EMAIL:
        return None  # an address is found only whole, by userids_by_email
    if kind == NAME and normalise(userid).startswith(query):
        return None  # listed under its userid row
    return value, user_hash, kind


@read_only
def matches(query: str, cursor: str | None, limit: int) -> Page[tuple[bytes, bytes, bytes]]:
    """One page of the index rows under ``query`` (normalised), in index
    order, each as (normalised value, md5 of the userid, USERID or NAME): one
    prefix scan. A user matched by both userid and name is listed once,
    under the userid: their name row is skipped. Email rows are never listed."""
    with connection() as conn:
        return scan_page(
            conn.table(table_name("userSearch")),
            keys.search_value(query),
            None,
            cursor,
            limit,
            lambda key, row: _hit(query, key, row),
        )


@read_only
def userids_by_email(email: str, limit: int = 20) -> list[str]:
    """The userids indexed under ``email`` (normalised here), at most
    ``limit``: one prefix scan. A hint: the caller checks each users row."""
    prefix = keys.search_value(normalise(email)) + keys.SEARCH_SEP
    found: list[str] = []
    with connection() as conn:
        # Name rows can read the same (a display name may look like an
        # address): every row under the value is looked at, not a fixed count.
        for key, row in conn.table(table_name("userSearch")).scan(row_prefix=prefix):
            userid = rows.decode_search(row)
            if userid is not None and keys.split_search_key(key)[2] == EMAIL:
                found.append(userid)
                if len(found) == limit:
                    break
    return found


def index_user(conn: happybase.Connection, userid: str, name: str, email: str) -> None:
    """Index ``userid`` under its userid, ``name`` and ``email`` (idempotent)."""
    table = conn.table(table_name("userSearch"))
    with table.batch() as b:
        for key, cells in index_rows(userid, name, email):
            b.put(key, cells)


def reindex(users: Iterable[User]) -> int:
    """Write every index row of each of ``users`` (idempotent): the email rows
    of accounts made before there were any, and any row a crash cost. How
    many users were indexed."""
    count = 0
    with connection() as conn:
        for user in users:
            index_user(conn, user.userid, user.name, user.email)
            count += 1
    return count


def rename(conn: happybase.Connection, userid: str, old: str, new: str) -> None:
    """Move ``userid``'s name row from ``old`` to ``new`` (idempotent)."""
    table = conn.table(table_name("userSearch"))
    old_key = keys.search_key(normalise(old), userid, NAME)
    new_key = keys.search_key(normalise(new), userid, NAME)
    if old_key != new_key:
        table.delete(old_key)
    table.put(new_key, rows.encode_search(userid))


def forget_user(conn: happybase.Connection, userid: str, name: str, email: str) -> None:
    """Take ``userid`` (whose name is ``name`` and address ``email``) out of
    the index: for account deletion."""
    table = conn.table(table_name("userSearch"))
    with table.batch() as b:
        for key, _ in index_rows(userid, name, email):
            b.delete(key)
