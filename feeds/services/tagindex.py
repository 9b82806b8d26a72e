"""The rows a twit's text adds: its row on each of its hashtags' pages, a
use counted in each tag's trending counter, and its row under each of its
words (``twitWords``, the search of twits). Written and dropped by
:mod:`feeds.services.twits` (post and delete); read by
:mod:`feeds.services.tags` and :mod:`feeds.services.search`.

The words rows follow the hashtags rows in everything below: same key
layout, written just before them and deleted with them.

Exactness of the pages rests on the twit row, not on these rows: a twit's
hashtags rows are written *before* its twit row and deleted before it, and a
tag page keeps only the rows whose twit row still has its text (one multi-get
it makes anyway, for the counts). So a post that dies half-way leaves at
worst a row nobody is shown, and a delete retried after a crash finds the
twit row and drops what is left. The keys come from the tag and the twit's
key, and the cells carry the twit's own time as their timestamp: writing
them twice leaves the same rows, and a delete's marker (at the time of the
delete, later) hides a late copy too.

The trending counters are plain HBase increments, one per tag per post, in
the post itself (never in a retried task, so never counted twice); a delete
takes the use back once, guarded by a mark on the twit row written first. A
crash between the twit row and the increment, or between the mark and the
decrement, loses that one change: trending is a ranking of the last hour,
and a lost use among many moves nothing.
"""

from __future__ import annotations

from collections.abc import Callable

import happybase

from feeds.types import Page
from storage import keys, ops, rows
from storage.connection import connection, read_only, table_name

from ._load import LoadRow
from ._paging import scan_page
from .textparse import hashtags, words

# Trending counts uses per BUCKET_MS and sums the buckets of the last WINDOW_MS.
BUCKET_MS = 5 * 60 * 1000
WINDOW_MS = 60 * 60 * 1000
# On the twit row, written once its uses are taken back out of the counters.


def bucket_of(millis: int) -> int:
    """The trending bucket a moment falls in."""
    return millis // BUCKET_MS


def tag_rows(key: bytes, twit: rows.TwitRow) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """The hashtags rows of the twit ``key``: (key, cells), one per tag, to be
    written at the twit's own time (the services and the bulk loader)."""
    return [(keys.tag_key(tag, key), rows.encode_hashtag(tag, twit)) for tag in hashtags(twit.text)]


def word_rows(key: bytes, twit: rows.TwitRow) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """The twit ``key``'s rows in the words index, one per word of its text."""
    return [(keys.word_key(word, key), {rows.WORD_MARK: b"1"}) for word in words(twit.text)]


def load_rows(key: bytes, twit: rows.TwitRow) -> list[LoadRow]:
    """:func:`tag_rows` and :func:`word_rows` as the bulk loader writes them
    (services/_load.py)."""
    out: list[LoadRow] = []
    for table, found in (("hashtags", tag_rows(key, twit)), ("twitWords", word_rows(key, twit))):
        out += [(table, row, cells, twit.created) for row, cells in found]
    return out


def _tagged(key: bytes, row: dict[bytes, bytes]) -> tuple[bytes, rows.TwitRow] | None:
    stored = rows.decode_hashtag(row)
    return None if stored is None else (keys.twit_key_from_tag_key(key), stored)


@read_only
def tag_page(tag: str, cursor: str | None, limit: int) -> Page[tuple[bytes, rows.TwitRow]]:
    """One page of the tag ``tag``'s (normalised) rows, newest first, each as
    (the twit's key, the twit as the row carries it): one prefix scan. Rows
    of twits since deleted are among them (see the module's docstring)."""
    with connection() as conn:
        return scan_page(
            conn.table(table_name("hashtags")),
            keys.tag_hash(tag),
            keys.TAG_KEY_LEN,
            cursor,
            limit,
            _tagged,
        )


@read_only
def uses(first: int, last: int) -> dict[str, int]:
    """Each tag's uses summed over the buckets ``first`` to ``last``, both
    inclusive: one short scan per salt range of the counters."""
    found: dict[str, int] = {}
    with connection() as conn:
        table = conn.table(table_name("tagCounts"))
        for salt in range(keys.TREND_SALTS):
            for key, row in table.scan(
                row_start=keys.trend_bucket_prefix(salt, first),
                row_stop=keys.trend_bucket_prefix(salt, last + 1),
                columns=[rows.TAG_USES],
                batch_size=1000,
            ):
                _, tag = keys.split_trend_key(key)
                found[tag] = found.get(tag, 0) + rows.decode_count(row.get(rows.TAG_USES))
    return found


def write_tag_rows(conn: happybase.Connection, key: bytes, twit: rows.TwitRow) -> list[str]:
    """The twit ``key``'s rows under its words and on each of its tags' pages
    (idempotent); returns the tags."""
    for table, found in (("twitWords", word_rows(key, twit)), ("hashtags", tag_rows(key, twit))):
        if found:
            with conn.table(table_name(table)).batch(timestamp=twit.created) as b:
                for row, cells in found:
                    b.put(row, cells)
    return hashtags(twit.text)


def count_uses(conn: happybase.Connection, tags: list[str], millis: int, delta: int = 1) -> None:
    """Add ``delta`` uses of each of ``tags`` to the bucket of ``millis``."""
    table = conn.table(table_name("tagCounts"))
    for tag in tags:
        table.counter_inc(keys.trend_key(tag, bucket_of(millis)), rows.TAG_USES, delta)


def drop_tag_rows(
    conn: happybase.Connection, key: bytes, texts: list[str], now_ms: int, claim: Callable[[], bool]
) -> None:
    """Take the twit ``key`` off its tags' pages and out of the words index,
    for each text it has had (``texts``, the one it was posted with first;
    ``now_ms`` at or after the time of each), and its uses out of the
    trending counters if they still count. Those are its posted text's
    (an edit moves rows, not uses: move_tag_rows), taken back once:
    ``claim()``, twits' mark on the twit row, is true only the first time,
    and is asked before the counts go down. Call before the twit row is
    deleted."""
    tags = hashtags(texts[0])
    millis = keys.split_twit_key(key).millis
    if tags and now_ms - millis < WINDOW_MS + BUCKET_MS and claim():
        count_uses(conn, tags, millis, -1)
    drop_rows_of(conn, key, texts, now_ms)


# -- the words index's reads, for services.search ------------------------------------


def word_scan(
    conn: happybase.Connection, word: str, start: bytes | None, limit: int
) -> list[bytes]:
    """Up to ``limit`` twit keys under ``word`` (normalised), newest first,
    from the row ``start`` on (None: the newest): one scan, keys only.
    Returned as the rows' keys (the cursor's currency)."""
    prefix = keys.word_hash(word)
    found = conn.table(table_name("twitWords")).scan(
        row_start=start or prefix,
        row_stop=keys.prefix_stop(prefix),
        filter=ops.KEYS_ONLY,
        limit=limit,
        batch_size=limit,
    )
    return [key for key, _ in found]


def with_words(conn: happybase.Connection, twit_keys: list[bytes], wanted: list[str]) -> set[bytes]:
    """Of ``twit_keys``, those whose text has every word of ``wanted``: one
    multi-get of their rows per word."""
    left = set(twit_keys)
    for word in wanted:
        if not left:
            break
        table = conn.table(table_name("twitWords"))
        got = table.rows([keys.word_key(word, k) for k in sorted(left)], columns=[rows.WORD_MARK])
        left = {keys.twit_key_from_word_key(k) for k, _ in got}
    return left


# -- an edit's move of the rows (services/twits.py: edit_twit) -----------------------


def move_tag_rows(
    conn: happybase.Connection, key: bytes, old: rows.TwitRow, new: rows.TwitRow, ts: int
) -> None:
    """The twit ``key``'s rows follow an edit from ``old``'s text to ``new``'s,
    at the edit's time ``ts``: its new words and tags written (tag rows carry
    the new text), the words and tags it lost deleted. Every cell is at
    ``ts`` and every delete at ``ts`` (removing what is at or below it), so
    edits applied in any order, or twice, leave the rows of the latest: a
    later edit's row outlives an earlier edit's delete of it, and an earlier
    edit's late put is hidden by a later edit's delete. Trending counts stay
    as the twit was posted."""
    for table, found in (("twitWords", word_rows(key, new)), ("hashtags", tag_rows(key, new))):
        if found:
            with conn.table(table_name(table)).batch(timestamp=ts) as b:
                for row, cells in found:
                    b.put(row, cells)
    kept_words, kept_tags = set(words(new.text)), set(hashtags(new.text))
    for table, doomed in (
        ("hashtags", [keys.tag_key(t, key) for t in hashtags(old.text) if t not in kept_tags]),
        ("twitWords", [keys.word_key(w, key) for w in words(old.text) if w not in kept_words]),
    ):
        if doomed:
            with conn.table(table_name(table)).batch(timestamp=ts) as b:
                for row in doomed:
                    b.delete(row)


def drop_rows_of(conn: happybase.Connection, key: bytes, texts: list[str], ts: int) -> None:
    """Delete the twit ``key``'s words and tags rows for each of ``texts``,
    every cell at or before ``ts`` (an edit's time, which may be ahead of
    the clock by a millisecond or so): the twit's delete, and an edit that
    lost a race with it taking back what it wrote."""
    for table, doomed in (
        ("hashtags", {keys.tag_key(t, key) for text in texts for t in hashtags(text)}),
        ("twitWords", {keys.word_key(w, key) for text in texts for w in words(text)}),
    ):
        if doomed:
            with conn.table(table_name(table)).batch(timestamp=ts) as b:
                for row in sorted(doomed):
                    b.delete(row)
