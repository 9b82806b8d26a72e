"""Helpers the test suites share: server addresses, fresh tables on a server,
and the named users' registration. Fixtures live in conftest.py; test files
import these from here."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, TypeVar

import happybase
import pytest
from pytest_django.fixtures import Settings
from thriftpy2.transport.socket import TSocket

from feeds import services
from feeds.services import follows, ratelimit, streams
from feeds.types import User
from storage.connection import connection, reset_pool
from storage.schema import create_tables
from tests.ci import REQUIRE_REAL_HBASE as REQUIRE_REAL_HBASE
from tests.tablepool import pool_for
from twitbase.celery import app as celery_app


@dataclass(frozen=True)
class ServerAddr:
    kind: str  # "local" or "hbase"
    host: str
    port: int  # HBase's Thrift1 API (happybase)
    thrift2_port: int = 0  # HBase's Thrift2 API (THBaseService); 0: not served

    def connect(self, **kwargs: object) -> happybase.Connection:
        return happybase.Connection(self.host, self.port, **kwargs)

    def thrift2(self, timeout_ms: int = 60_000) -> Any:
        """A Thrift2 (THBaseService) client of this server, built from our copy
        of HBase's IDL (binary protocol, buffered transport); close it after."""
        from thriftpy2.rpc import make_client

        from localhbase.thrift2 import T2

        assert self.thrift2_port, f"{self.kind} serves no Thrift2 API"
        return make_client(T2.THBaseService, self.host, self.thrift2_port, timeout=timeout_ms)


@contextmanager
def tables_on(server: ServerAddr, settings: Settings, fresh: bool = False) -> Iterator[ServerAddr]:
    """Empty tables for one test on ``server``: a set emptied after an earlier
    test, or one never used if ``fresh`` (the test writes cells older than
    its start: tests/tablepool.py says why)."""
    settings.TWITBASE_HBASE_HOST = server.host
    settings.TWITBASE_HBASE_PORT = server.port
    # The local server's tables are made pre-split through Thrift2, here;
    # real HBase's come from the pool, as one region.
    settings.TWITBASE_HBASE_THRIFT2_PORT = server.thrift2_port
    # The pool (tests/tablepool.py) makes real HBase's sets ahead, since it is
    # slow at DDL; on both servers a set emptied after an earlier test comes first.
    pool = pool_for(server.host, server.port)
    emptied = pool.take(fresh) if server.kind == "hbase" else pool.take_emptied(fresh)
    settings.TWITBASE_TABLE_PREFIX = emptied or "tb" + uuid.uuid4().hex[:10]
    since_ns = time.time_ns()
    # A process's list of large accounts, and which of them each reader
    # follows, are kept by table name, and an emptied set's names come again.
    streams.CELEBRITIES.clear()
    streams.FOLLOWED.clear()
    follows.SUGGESTIONS_HELD.clear()  # who-to-follow's rankings, by table prefix too
    # A fast hasher: the tests are about storage, not key stretching.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    reset_pool()
    if emptied is None:
        with connection() as conn:
            create_tables(conn)
        pool.made(settings.TWITBASE_TABLE_PREFIX)
    # Background work runs in the caller here (Celery's eager mode): these
    # suites test services and pages. tests/worker runs real workers.
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    try:
        yield server
    finally:
        celery_app.conf.task_always_eager = eager
        pool.give_back(settings.TWITBASE_TABLE_PREFIX, None if fresh else since_ns)
        reset_pool()


PASSWORD = "password-123"


def register(userid: str) -> User:
    """A user named after ``userid`` ("alice" is "Alice"), with PASSWORD."""
    return services.register(userid, userid.title(), f"{userid}@example.com", PASSWORD)


def hold_rate_clock(monkeypatch: pytest.MonkeyPatch) -> float:
    """Stop the rate limits' clock one second into the current minute, so a
    test's actions fall in one window however slow the machine, instead of
    waiting out a minute's end. Only feeds.services.ratelimit reads this
    clock: nothing else's time stands still. Returns the clock's time."""
    held = time.time() // 60 * 60 + 1
    monkeypatch.setattr(ratelimit, "time", SimpleNamespace(time=lambda: held))
    return held


T = TypeVar("T")


def socket_turns(call: Callable[[], T]) -> tuple[T, list[str]]:
    """What ``call`` returns, and its turns on the sockets to the server:
    "write", then "read" for each time it waited on it (a round trip)."""
    events: list[str] = []
    write, read = TSocket.write, TSocket.read

    def writing(sock: TSocket, buf: bytes) -> None:
        events.append("write")
        write(sock, buf)

    def reading(sock: TSocket, size: int) -> bytes:
        events.append("read")
        return bytes(read(sock, size))

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(TSocket, "write", writing)
        patched.setattr(TSocket, "read", reading)
        got = call()
    return got, [e for i, e in enumerate(events) if i == 0 or events[i - 1] != e]
