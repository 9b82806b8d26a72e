"""Hashtag pages and trending hashtags: reads of the rows tagindex writes.

A tag page is one prefix scan of ``hashtags`` under md5(tag), newest first,
paged by cursor; then the hydrate step (feeds.services.hydration): the
authors' suspensions, the counts (and whether each twit still exists: see
tagindex) and the reader's flags, a multi-get each. Trending sums the
per-bucket counters of the last hour: one short scan per salt range of
``tagCounts``.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable

from django.conf import settings

from feeds.errors import InvalidInput
from feeds.types import Page, TagCount, Twit, User
from storage.connection import read_only

from . import tagindex
from .hydration import hydrate
from .textparse import MAX_TAG, normalise_tag
from .twits import twit_of

# Case folding can make a tag longer (ß -> ss): at most three characters for one.
TAG_MAX = 3 * MAX_TAG
TRENDING = 10  # how many tags the trending box shows
# The trending box's last answer in this process: (the tables' prefix, when
# by the monotonic clock, the tags).
_box: tuple[str, float, tuple[TagCount, ...]] | None = None
_box_lock = threading.Lock()
_WORD = re.compile(r"\w+")


def check_tag(tag: object) -> str:
    """``tag`` (one leading '#' allowed) normalised, or InvalidInput naming ``tag``."""
    if not isinstance(tag, str):
        raise InvalidInput("tag", "Give a hashtag.")
    if len(tag) > TAG_MAX:
        raise InvalidInput("tag", f"A hashtag is at most {MAX_TAG} characters.")
    raw = tag.strip().removeprefix("#")
    if not raw:
        raise InvalidInput("tag", "Give a hashtag, like #hbase.")
    if not _WORD.fullmatch(raw):
        raise InvalidInput("tag", "A hashtag is letters, digits and underscores only.")
    if not raw.strip("_") or raw.replace("_", "").isdigit():
        raise InvalidInput("tag", "A hashtag needs a letter in it.")
    normal = normalise_tag(raw)
    if len(normal) > TAG_MAX or not _WORD.fullmatch(normal):
        raise InvalidInput("tag", f"A hashtag is at most {MAX_TAG} characters.")
    return normal


@read_only
def tag_twits(
    tag: str,
    cursor: str | None = None,
    limit: int = 20,
    reader: User | str | None = None,
) -> Page[Twit]:
    """The twits with hashtag ``tag`` (any case, '#' optional), newest first,
    as ``reader`` (their profile, a userid, or None) sees them
    (:func:`hydration.hydrate`).

    Twits since deleted and twits of suspended authors are left out, so a
    page may hold fewer than ``limit``; its cursor still goes on from the
    last row it read. InvalidInput("tag") for something that is no hashtag.
    """
    normal = check_tag(tag)
    page = tagindex.tag_page(normal, cursor, limit)
    found = tuple(twit_of(key, stored) for key, stored in page.items)
    return Page(hydrate(found, reader), page.next_cursor)


@read_only
def trending(limit: int = TRENDING, now_ms: int | None = None) -> tuple[TagCount, ...]:
    """The ``limit`` tags used most in the last hour (the buckets from the one
    an hour before ``now_ms``, exclusive, to ``now_ms``'s, inclusive), most
    used first, ties alphabetically. ``now_ms`` defaults to the clock; tests
    pass their own."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    last = tagindex.bucket_of(now)
    first = tagindex.bucket_of(now - tagindex.WINDOW_MS) + 1
    uses = tagindex.uses(first, last)
    ranked = sorted((-n, tag) for tag, n in uses.items() if n > 0)
    return tuple(TagCount(tag, -n) for n, tag in ranked[:limit])


def trending_box(monotonic: Callable[[], float] = time.monotonic) -> tuple[TagCount, ...]:
    """:func:`trending` as the box beside every home page shows it: read at
    most once per TWITBASE_TRENDING_CACHE_S in a process (0: every time).

    The box is the same for every reader and sums an hour of counters, and
    it was a third of a home page's reads (five scans of ``tagCounts``); an
    answer some seconds old is one nobody can tell from a fresh one. What
    must be exact is not here: a tag page's twits and a twit's own counts
    are read as they are."""
    global _box
    max_age = settings.TWITBASE_TRENDING_CACHE_S
    tables = settings.TWITBASE_TABLE_PREFIX
    now = monotonic()

    def fresh_enough(held: tuple[str, float, tuple[TagCount, ...]] | None) -> bool:
        return held is not None and held[0] == tables and 0 <= now - held[1] < max_age

    held = _box
    if fresh_enough(held):
        return held[2]  # type: ignore[index]
    with _box_lock:
        if fresh_enough(_box):
            return _box[2]  # type: ignore[index]
        tags = trending()
        _box = (tables, now, tags)
        return tags
