"""A clock of milliseconds that never repeats one within a process.

Lists that run newest first by a key's reversed time (a user's twits, so
their stream rows; the staff console's audit log) order two rows of one
millisecond by their random suffixes: a twit posted right after another,
or an enable right after a disable, could be listed first half the time.
Keys made from :func:`now_millis` are strictly later, within a process,
than any made before them. In a burst a time is at most a few
milliseconds later than the true one. Rows made in different processes in
one millisecond are concurrent, and their order is the suffixes'.

Written by hand: it is a lock and a ``max``; no library is smaller.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable


class MonotonicMillis:
    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self._now = now
        self._last = 0
        self._lock = threading.Lock()
        # A child forked while another thread held the lock (a Celery or
        # gunicorn worker) would wait on it forever: it gets a lock of its own.
        os.register_at_fork(after_in_child=self._new_lock)

    def _new_lock(self) -> None:
        self._lock = threading.Lock()

    def __call__(self) -> int:
        with self._lock:
            self._last = max(int(self._now() * 1000), self._last + 1)
            return self._last


now_millis = MonotonicMillis()
