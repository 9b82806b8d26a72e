"""One happybase connection pool per process, created on first use; and what
an unreachable HBase looks like to the rest of the app.

Celery's prefork workers fork after Django starts; a socket opened before the
fork would be shared by parent and children and interleave their requests.
The pool is therefore keyed by process id and built lazily in the process that
uses it.

When the Thrift server cannot be reached (refused, reset, timed out, a host
name that does not resolve), :func:`connection` raises
:class:`StorageUnavailable`, which the web UI and the API answer with a 503
and ``Retry-After``. After the server comes back, a pooled connection opened
before the outage is replaced before it is used (its peer closed it, which a
zero-timeout poll sees without a round trip), and a service marked
:func:`read_only` is run once more on a fresh connection if a connection
breaks under it anyway (a half-open socket that the poll cannot see).

happybase's own pool already replaces a connection that failed mid-call, but
only after failing that call; the checks here are the few lines it lacks.

Every storage call goes through :func:`connection`, so its failures are
counted here, by kind, in the Prometheus counter :data:`ERRORS`
(``twitbase_hbase_errors_total``, served by ``/metrics``).
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

import happybase
from django.conf import settings
from prometheus_client import Counter
from thriftpy2.thrift import TException
from thriftpy2.transport import TTransportException

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

_lock = threading.Lock()
_pool: happybase.ConnectionPool | None = None
_pool_pid: int | None = None

# Seconds a client is asked to wait (Retry-After) when HBase is unreachable:
# a local server restarts in about a second, a real HBase in under a minute.
RETRY_AFTER_S = 5

# errno values of a network that does not reach the server. Other OSErrors
# (a file not found, ...) are bugs, not outages.
_NETWORK_ERRNOS = {
    errno.ECONNREFUSED,
    errno.ECONNRESET,
    errno.ECONNABORTED,
    errno.EPIPE,
    errno.ETIMEDOUT,
    errno.EHOSTUNREACH,
    errno.ENETUNREACH,
    errno.ENETDOWN,
    errno.EHOSTDOWN,
}


# Failed storage calls, by kind: "refused" (no connection could be opened),
# "timeout" (the server did not answer in time), "broken" (an open connection
# broke), "rejected" (HBase answered with an error: an IOError,
# IllegalArgument or an internal error). An error of the code inside the
# ``with connection()`` block (a NotFound, a KeyError) is no storage failure.
ERRORS = Counter(
    "twitbase_hbase_errors",
    "Storage (HBase Thrift) calls that failed, by kind: refused, timeout, broken, rejected",
    ["kind"],
)
ERROR_KINDS = ("refused", "timeout", "broken", "rejected")
for _kind in ERROR_KINDS:
    # Every kind is a series from the start, so that rate() sees the first error.
    ERRORS.labels(_kind)


class StorageUnavailable(Exception):
    """HBase's Thrift server cannot be reached: the request may succeed later.

    ``timed_out`` says the server did not answer in time; ``refused`` that
    no connection could be opened (the server is down). In either case
    retrying at once would not help. Otherwise an open connection broke, and
    a read may be retried on the fresh one that replaced it.
    """

    retry_after = RETRY_AFTER_S

    def __init__(self, message: str, timed_out: bool = False, refused: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out
        self.refused = refused

    @property
    def retryable(self) -> bool:
        return not (self.timed_out or self.refused)


def is_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says the server could not be reached, rather than
    that it refused the request (an HBase IOError) or the code is wrong."""
    if isinstance(exc, StorageUnavailable | TTransportException | socket.gaierror):
        return True
    if isinstance(exc, ConnectionError | TimeoutError):
        return True
    return isinstance(exc, OSError) and exc.errno in _NETWORK_ERRNOS


def _timed_out(exc: BaseException) -> bool:
    if isinstance(exc, TimeoutError):
        return True
    return isinstance(exc, TTransportException) and exc.type == TTransportException.TIMED_OUT


def _refused(exc: BaseException) -> bool:
    # thriftpy2 reports any failure to connect as NOT_OPEN. (After a call
    # fails, happybase's pool reopens the connection at once; if that fails
    # too, its NOT_OPEN is what arrives here.)
    if isinstance(exc, ConnectionRefusedError | socket.gaierror):
        return True
    return isinstance(exc, TTransportException) and exc.type == TTransportException.NOT_OPEN


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


def dropped(conn: happybase.Connection) -> bool:
    """Whether the server has closed ``conn`` (or sent what nobody asked for).

    Between calls a Thrift connection has nothing to read, so a socket that
    polls readable is at end of file (the server closed or crashed: its
    kernel sent FIN or RST) and is of no further use.
    """
    sock = getattr(conn.transport, "sock", None)
    if sock is None:
        return False  # not open: happybase opens it before use
    try:
        poller = select.poll()
        poller.register(sock, select.POLLIN | select.POLLERR | select.POLLHUP)
        return bool(poller.poll(0))
    except (OSError, ValueError):  # a closed socket has no file descriptor
        return True


def _reopen_if_stale(conn: happybase.Connection) -> None:
    key = id(conn)
    now = time.monotonic()
    idle = now - _last_used.get(key, now) > REOPEN_IDLE_SECONDS
    if idle or dropped(conn):
        conn.close()
        conn.open()


@contextmanager
def connection() -> Iterator[happybase.Connection]:
    """A pooled connection, reopened first if idle too long or closed by the
    server. A failure to reach the server raises :class:`StorageUnavailable`
    (and happybase's pool replaces the connection that failed)."""
    try:
        with get_pool().connection() as conn:
            _reopen_if_stale(conn)
            try:
                yield conn
            finally:
                _last_used[id(conn)] = time.monotonic()
    except StorageUnavailable:
        # Raised by a connection() nested in this one's block: counted there.
        raise
    except Exception as exc:
        if not is_unreachable(exc):
            if isinstance(exc, TException):
                ERRORS.labels("rejected").inc()
            raise
        where = f"{settings.TWITBASE_HBASE_HOST}:{settings.TWITBASE_HBASE_PORT}"
        unavailable = StorageUnavailable(
            f"HBase at {where} is unreachable: {type(exc).__name__}: {exc}",
            timed_out=_timed_out(exc),
            refused=_refused(exc),
        )
        ERRORS.labels(
            "timeout" if unavailable.timed_out else "refused" if unavailable.refused else "broken"
        ).inc()
        raise unavailable from exc


def read_only(service: Callable[P, R]) -> Callable[P, R]:
    """Mark a service that only reads: if a connection breaks under it, it
    runs once more, on the fresh connection the pool put in its place.

    Only services that make no change at all are marked (no put, delete,
    counter or queued task, not even a throttle count): running one twice
    returns what one run would. A write is never retried here, as the server
    may have applied it before the connection broke; its caller gets the 503
    and decides. Nor is a call that timed out or could not connect: the
    server is slow or down, and a second try at once helps no one.
    """

    @functools.wraps(service)
    def retried(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return service(*args, **kwargs)
        except StorageUnavailable as exc:
            if not exc.retryable:
                raise
            log.info("retrying %s once on a fresh connection: %s", service.__name__, exc)
            return service(*args, **kwargs)

    return retried
