"""The real-HBase table pool (tests/tablepool.py): a set a test gives back
comes again empty and as made, and only when no marker it leaves could hide
what the next test writes."""

from __future__ import annotations

import time
from collections.abc import Iterator

import happybase
import pytest

from tests.helpers import ServerAddr
from tests.tablepool import BackdatedCells, TablePool

pytestmark = pytest.mark.hbase

SCHEMA = {"users": {"info": {"max_versions": 1}}, "notifications": {"n": {"max_versions": 1}}}


@pytest.fixture
def pool(real_hbase: ServerAddr) -> Iterator[TablePool]:
    """A pool of its own (the session's serves the other tests), of two
    tables a set, whose sets are all dropped after the test."""
    own = TablePool(real_hbase.host, real_hbase.port, tag="tp", schema=SCHEMA)
    yield own
    own.close()
    conn = real_hbase.connect()
    try:
        for name in conn.tables():
            if name.startswith(b"tp"):
                conn.delete_table(name, disable=True)
    finally:
        conn.close()


def use(pool: TablePool, fresh: bool = False) -> tuple[str, happybase.Connection, int]:
    prefix = pool.take(fresh)
    return prefix, pool._connect(prefix), time.time_ns()


def contents(conn: happybase.Connection) -> dict[str, list[bytes]]:
    return {name: [row for row, _ in conn.table(name).scan()] for name in SCHEMA}


def test_a_set_given_back_comes_again_empty_and_takes_writes(pool: TablePool) -> None:
    prefix, conn, since = use(pool)
    conn.table("users").put(b"alice", {b"info:name": b"Alice"})
    # Notification rows are written at their group's generation.
    conn.table("notifications").put(b"alice-1", {b"n:actors": b"[]"}, timestamp=3)
    conn.close()
    pool.give_back(prefix, since)

    again, conn, since = use(pool)
    assert again == prefix
    assert all(rows == [] for rows in contents(conn).values())
    # The markers left behind hide nothing written now, at the same keys.
    conn.table("users").put(b"alice", {b"info:name": b"Alice again"})
    assert conn.table("users").row(b"alice") == {b"info:name": b"Alice again"}
    conn.close()
    pool.give_back(prefix, since)


def test_a_cell_from_before_the_test_fails_it_and_the_set_is_dropped(pool: TablePool) -> None:
    prefix, conn, since = use(pool)
    conn.table("users").put(b"alice", {b"info:name": b"Alice"}, timestamp=since // 10**6 - 60_000)
    conn.close()
    with pytest.raises(BackdatedCells, match=r"users b'alice' b'info:name'.*fresh_tables"):
        pool.give_back(prefix, since)
    assert pool.take() != prefix


def test_versions_as_timestamps_drop_the_set(pool: TablePool) -> None:
    prefix, conn, since = use(pool)
    conn.table("users").put(b"alice", {b"info:name": b"Alice"}, timestamp=1)
    conn.close()
    pool.give_back(prefix, since)
    assert pool.take() != prefix


def test_a_set_not_as_made_is_dropped(pool: TablePool) -> None:
    prefix, conn, since = use(pool)
    conn.delete_table("notifications", disable=True)
    conn.close()
    pool.give_back(prefix, since)
    assert pool.take() != prefix


def test_a_fresh_set_is_one_never_used(pool: TablePool) -> None:
    prefix, conn, since = use(pool)
    conn.close()
    pool.give_back(prefix, since)
    assert pool.take(fresh=True) != prefix
    assert pool.take() == prefix
