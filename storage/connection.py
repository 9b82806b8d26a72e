"""One happybase connection pool per process, created on first use.

Celery's prefork workers fork after Django starts; a socket opened before the
fork would be shared by parent and children and interleave their requests.
The pool is therefore keyed by process id and built lazily in the process that
uses it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import happybase
from django.conf import settings

_lock = threading.Lock()
_pool: happybase.ConnectionPool | None = None
_pool_pid: int | None = None


def table_name(name: str) -> str:
    """The full HBase name of one of our tables, with the environment's prefix."""
    return f"{settings.TWITBASE_TABLE_PREFIX}_{name}"


def connection_kwargs() -> dict[str, object]:
    return {
        "host": settings.TWITBASE_HBASE_HOST,
        "port": settings.TWITBASE_HBASE_PORT,
        "transport": settings.TWITBASE_HBASE_TRANSPORT,
        "protocol": settings.TWITBASE_HBASE_PROTOCOL,
        "timeout": settings.TWITBASE_HBASE_TIMEOUT_MS,
        "autoconnect": False,
    }


def get_pool() -> happybase.ConnectionPool:
    global _pool, _pool_pid
    pid = os.getpid()
    if _pool is None or _pool_pid != pid:
        with _lock:
            if _pool is None or _pool_pid != pid:
                _pool = happybase.ConnectionPool(
                    size=settings.TWITBASE_HBASE_POOL_SIZE, **connection_kwargs()
                )
                _pool_pid = pid
    return _pool


def reset_pool() -> None:
    """Forget the pool (tests that point settings at another server call this)."""
    global _pool, _pool_pid
    with _lock:
        _pool = None
        _pool_pid = None


# HBase's Thrift server closes a connection idle for 60 s (its
# hbase.thrift.server.socket.read.timeout), and the local server does the
# same. A pooled connection idle for longer than this is reopened before use,
# so the first request after a quiet spell does not fail on a dead socket.
REOPEN_IDLE_SECONDS = 30.0
_last_used: dict[int, float] = {}


@contextmanager
def connection() -> Iterator[happybase.Connection]:
    """A pooled connection; a connection that failed mid-call is replaced."""
    with get_pool().connection() as conn:
        key = id(conn)
        now = time.monotonic()
        if now - _last_used.get(key, now) > REOPEN_IDLE_SECONDS:
            conn.close()
            conn.open()
        try:
            yield conn
        finally:
            _last_used[key] = time.monotonic()
