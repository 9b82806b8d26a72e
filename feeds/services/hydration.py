"""The one hydrate step every list of twits goes through before a reader sees it.

A list's own rows (a stream's, a hashtag's, a twit's replies, a user's
likes) say which twits it holds and carry their content, not what changes:
who is suspended, the counts, what the reader likes and reposted.
:func:`hydrate` fills those in for a whole page at once, from their owners'
verbs, each one multi-get for the page:

- ``accounts.suspended``: twits whose author, or whose reposter, is
  suspended are left out;
- ``twits.counts``: replies, likes, reposts and images, as the twit rows hold them;
  a twit whose row is gone (deleted since its list row was read) is left out;
- ``reactions.liked`` and ``reactions.reposted``: the reader's flags;
- ``blocks.shield``: for a signed-in reader, twits whose author or reposter
  they block or are blocked by are left out, and, with ``muting`` (their
  home stream), those of accounts they mute or with a word they mute.

The lookups need only the page's ids, so all but one run on a small pool of
threads while the caller's thread makes the last: on HBase, about a
millisecond a round trip, the page then waits for the slowest instead of
the sum. Each takes a connection of its own from the pool, and the
caller's thread must hold none while it waits (call :func:`hydrate` outside
``with connection()``), so a full pool makes them queue, never deadlock.
One set of threads per process: a forked child (a Celery or test worker)
starts its own, as threads do not survive a fork. With
TWITBASE_PAGE_LOOKUP_THREADS=0 (devstack's local server, which answers one
request at a time) they run one after another.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any, TypeVar

from django.conf import settings

from feeds.types import Twit
from storage.connection import connection

from . import accounts, blocks, reactions, twits

T = TypeVar("T")

NOBODY: frozenset[str] = frozenset()


def hydrate(
    found: tuple[Twit, ...],
    reader: str | None,
    *,
    counted: bool = False,
    suspended: frozenset[str] | None = None,
    muting: bool = False,
    shields: str | None = None,
) -> tuple[Twit, ...]:
    """``found`` in its order, as ``reader`` (a userid; None: nobody signed
    in, and ``liked``/``reposted`` stay None) sees it: without the twits of
    suspended authors or reposters and those deleted, with each twit's
    counts and the reader's ``liked`` and ``reposted``. A twit listed twice
    (a stream's twit and its repost) is looked up once.

    ``counted``: the twits were read from their own twits rows, counts and
    all (a user's timeline, a user's likes, one twit), so the counts are not
    read again. ``suspended``: the answer for the page's authors when the
    caller has it already (lower-cased userids, as
    :func:`accounts.suspended` gives it), so it is not looked up.
    ``muting``: hide what the reader mutes too (their home stream); blocks
    are applied to every list a signed-in reader reads. ``shields``: the
    reader's marks (User.shields) when the caller has them, so a reader who
    never blocked, was blocked or muted costs no lookup for it.
    """
    if not found:
        return found
    ids = sorted({t.id for t in found})
    calls: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = []
    people = {t.userid for t in found} | {t.reposted_by for t in found if t.reposted_by}
    if suspended is None:
        calls.append(("suspended", _suspended, (people,)))
    if not counted:
        calls.append(("counts", _counts, (ids,)))
    if reader is not None:
        calls.append(("liked", reactions.liked, (reader, ids)))
        calls.append(("reposted", reactions.reposted, (reader, ids)))
        if blocks.needs_shield(shields, muting=muting):
            calls.append(("shield", _shield, (reader, people, muting, shields)))
    got = _look_up(calls)
    shield: blocks.Shield = got.get("shield", blocks.NOTHING_HIDDEN)
    hidden: frozenset[str] = got["suspended"] if suspended is None else suspended
    counts: dict[str, twits.Counts] | None = got.get("counts")
    liked: set[str] | None = got.get("liked")
    mine: set[str] | None = got.get("reposted")
    shown = []
    for t in found:
        if t.userid.lower() in hidden or (t.reposted_by and t.reposted_by.lower() in hidden):
            continue
        if shield.hides(t.userid) or shield.hides(t.reposted_by):
            continue
        if t.userid.lower() != (reader or "").lower() and shield.hides_text(t.text):
            continue  # a muted word hides others' twits, never one's own
        if counts is None:
            replies, likes_n, reposts_n, images = t.replies, t.likes, t.reposts, t.images
        else:
            now = counts.get(t.id)
            if now is None:
                continue  # deleted since its list row was read
            replies, likes_n, reposts_n = now.replies, now.likes, now.reposts
            images = now.images  # the twit row's: a list's own rows carry none
        fields = dict(t.__dict__)
        fields.update(
            replies=replies,
            likes=likes_n,
            reposts=reposts_n,
            images=images,
            liked=None if liked is None else t.id in liked,
            reposted=None if mine is None else t.id in mine,
        )
        shown.append(_twit(fields))
    return tuple(shown)


def _twit(fields: dict[str, Any]) -> Twit:
    """The Twit with these fields, made as types.new_twit makes one: its
    ``__dict__`` set whole, without the frozen ``__init__`` that
    dataclasses.replace would run, as a page makes one per twit."""
    twit = object.__new__(Twit)
    object.__setattr__(twit, "__dict__", fields)
    return twit


def _suspended(userids: Iterable[str]) -> frozenset[str]:
    with connection() as conn:
        return accounts.suspended(conn, userids)


def _shield(reader: str, people: set[str], muting: bool, marks: str | None) -> blocks.Shield:
    return blocks.shield(reader, people, muting=muting, marks=marks)


def _counts(ids: list[str]) -> dict[str, twits.Counts]:
    with connection() as conn:
        return twits.counts(conn, ids)


def _look_up(calls: list[tuple[str, Callable[..., Any], tuple[Any, ...]]]) -> dict[str, Any]:
    """Each call's answer by its name: all but the last on the lookup
    threads, the last on this one."""
    if not calls:
        return {}
    pool = _lookup_threads()
    *elsewhere, (last_name, last, last_args) = calls
    futures = {name: pool.submit(fn, *args) for name, fn, args in elsewhere}
    answers = {last_name: last(*last_args)}
    answers.update({name: future.result() for name, future in futures.items()})
    return answers


_lookups: tuple[int, int, ThreadPoolExecutor] | None = None
_lookups_lock = threading.Lock()


class _OnThisThread(Executor):
    """Runs each call at once, on the caller's thread: the page's lookups
    one after another. (concurrent.futures has no such executor.)"""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        future: Future[T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:
            future.set_exception(exc)
        return future


_ON_THIS_THREAD = _OnThisThread()


def _lookup_threads() -> Executor:
    global _lookups
    threads = settings.TWITBASE_PAGE_LOOKUP_THREADS
    if not threads:
        return _ON_THIS_THREAD
    with _lookups_lock:
        if _lookups is None or _lookups[:2] != (os.getpid(), threads):
            if _lookups is not None and _lookups[0] == os.getpid():
                _lookups[2].shutdown(wait=False)  # the setting changed (tests)
            pool = ThreadPoolExecutor(threads, thread_name_prefix="page-lookups")
            _lookups = (os.getpid(), threads, pool)
        return _lookups[2]
