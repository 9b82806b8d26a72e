"""The home stream: the reader's own twits and those of everyone they follow."""

from __future__ import annotations

from feeds.types import Page, Twit, from_millis
from storage import keys
from storage.connection import connection, table_name

from . import accounts
from ._paging import scan_page


def _stream_twit(key: bytes, row: dict[bytes, bytes]) -> Twit | None:
    if b"s:text" not in row:
        return None
    return Twit(
        id=keys.twit_id(keys.twit_key_from_stream_key(key)),
        userid=row[b"s:userid"].decode(),
        name=row[b"s:name"].decode(),
        text=row[b"s:text"].decode(),
        created=from_millis(int(row[b"s:created"])),
    )


def home_stream(userid: str, cursor: str | None = None, limit: int = 20) -> Page[Twit]:
    """Newest first, one prefix scan of the streams table: every row carries
    what the page shows, so rendering needs no further read."""
    user = accounts.get_user(userid)
    with connection() as conn:
        return scan_page(
            conn.table(table_name("streams")),
            keys.user_hash(user.userid),
            keys.STREAM_KEY_LEN,
            cursor,
            limit,
            _stream_twit,
        )
