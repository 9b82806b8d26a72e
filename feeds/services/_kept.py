"""Answers a process keeps under what they depend on: each under a key that
names it (a reader, and a change counter read with their profile in the same
request), for at most a number of seconds, at most so many of them, the
oldest dropped first.

Three caches keep answers so: which large accounts a reader follows
(streams.FollowedCache, under FOLLOWING_CHANGED) and the reader's likes and
reposts of the twits their pages showed (reactions.FlagsCache, under
REACTIONS_CHANGED), both read with the reader's profile; and who is
suspended (accounts.SuspendedCache, under the one counter of the
suspensions table, read in the page's own round trip). The counter makes
them exact: it is raised after every change it covers, so an answer kept
under the value a request read was asked after every change finished
before that request. The seconds bound what a crash between a change and
its raise leaves stale.

Written by hand: a dict with expiry times behind a lock. Django's cache
backends pickle every value and may live in another process (Redis), which
costs more than the multi-get an answer saves; cachetools' TTLCache has one
TTL fixed when it is made, where these read theirs from the settings (the
tests change them).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")
V = TypeVar("V")


def merged(
    kept: dict[K, T] | None, got: dict[K, T], wanted: Iterable[K], most: int
) -> tuple[dict[K, T], bool]:
    """Answers ``got`` for a page added to the answers ``kept`` (None: none
    kept), and whether the result is a new dict, to be kept from now.

    Added in place while ``kept`` holds fewer than ``most``: that keeps its
    time, as what it held is no fresher for being added to (only ever added
    to, each addition whole under the GIL, so a page reading it at once in
    another thread finds each answer or not). Past ``most``, a new dict of
    the kept answers among ``wanted`` and ``got``."""
    if kept is not None and len(kept) < most:
        kept.update(got)
        return kept, False
    fresh = {k: kept[k] for k in wanted if k in kept} if kept else {}
    fresh.update(got)
    return fresh, True


class Kept(Generic[V]):
    """At most ``most`` answers, each for ``seconds()`` after it was kept."""

    def __init__(self, most: int, seconds: Callable[[], float]) -> None:
        self._most = most
        self._seconds = seconds
        self._lock = threading.Lock()
        self._answers: dict[Hashable, tuple[float, V]] = {}

    def get(self, key: Hashable) -> V | None:
        """The answer kept under ``key``, while it is fresh; else None."""
        with self._lock:
            kept = self._answers.get(key)
        if kept is None or time.monotonic() >= kept[0]:
            return None
        return kept[1]

    def keep(self, key: Hashable, answer: V) -> None:
        """Keep ``answer`` under ``key`` (replacing one there) from now. A
        caller may add to an answer it kept (a dict) in place: the addition
        runs out with it."""
        until = time.monotonic() + self._seconds()
        with self._lock:
            self._answers.pop(key, None)
            while len(self._answers) >= self._most:
                del self._answers[next(iter(self._answers))]
            self._answers[key] = (until, answer)

    def clear(self) -> None:
        with self._lock:
            self._answers.clear()
