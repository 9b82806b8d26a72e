"""Cursor paging over a prefix scan: each page starts after the last row key
of the one before, never at an offset (HBase has none to skip to).

A page is ``limit`` rows from the row after the cursor's; one row more is
read to know whether another page follows. Rows that arrive while a user
pages sort before the cursor (newest first) or after it, never in between,
so no page repeats or skips a row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import happybase

from feeds.errors import InvalidInput
from feeds.types import Page
from storage import keys, ops

T = TypeVar("T")

MAX_LIMIT = 100
# A cursor is a row key in hex; anything longer is no cursor of ours.
MAX_CURSOR_LEN = keys.MAX_CURSOR_LEN


def check_limit(limit: int) -> int:
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput("limit", f"limit must be a whole number from 1 to {MAX_LIMIT}")
    return limit


def start_row(cursor: str | None, prefix: bytes, key_len: int | None) -> bytes:
    if not cursor:
        return prefix
    try:
        return keys.after(keys.decode_cursor(cursor, prefix, key_len))
    except keys.BadKey as exc:
        raise InvalidInput("cursor", f"invalid cursor: {exc}") from None


def scan_page(
    table: happybase.Table,
    prefix: bytes,
    key_len: int | None,
    cursor: str | None,
    limit: int,
    decode: Callable[[bytes, dict[bytes, bytes]], T | None],
    columns: list[bytes] | None = None,
) -> Page[T]:
    """One page of rows under ``prefix``; ``decode`` may drop a row (None).

    The ``limit + 1`` rows come in one fetch of two round trips
    (:func:`storage.ops.scan_rows`); only rows dropped by ``decode`` make
    it fetch again, from after the last row read, for as many as are
    still wanted."""
    check_limit(limit)
    start = start_row(cursor, prefix, key_len)
    stop = keys.prefix_stop(prefix)
    items: list[T] = []
    last: bytes | None = None
    while True:
        wanted = limit + 1 - len(items)
        fetched = ops.scan_rows(table, start, stop, wanted, columns)
        for key, data in fetched:
            if len(items) == limit:
                # A row beyond the page exists: the page ends at the last row taken.
                assert last is not None
                return Page(tuple(items), keys.encode_cursor(last))
            item = decode(key, data)
            last = key
            if item is not None:
                items.append(item)
        if len(fetched) < wanted:
            return Page(tuple(items), None)
        assert last is not None
        start = keys.after(last)
