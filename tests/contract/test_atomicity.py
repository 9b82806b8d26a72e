"""Counters and row atomicity under concurrent clients."""

from __future__ import annotations

import itertools
import struct
import threading
import time

import happybase
import pytest
from Hbase_thrift import IOError, TAppend, TIncrement  # type: ignore[import-not-found]

from tests.helpers import ServerAddr


@pytest.fixture
def table(conn: happybase.Connection) -> happybase.Table:
    conn.create_table("t", {"c": dict(max_versions=1), "d": dict()})
    return conn.table("t")


def test_counters_are_8_byte_big_endian(table: happybase.Table) -> None:
    assert table.counter_get(b"r", b"c:n") == 0
    assert table.counter_inc(b"r", b"c:n") == 1
    assert table.counter_inc(b"r", b"c:n", 41) == 42
    assert table.counter_dec(b"r", b"c:n", 50) == -8
    assert table.row(b"r") == {b"c:n": struct.pack(">q", -8)}
    # On a row of its own: a put stamped "now" right after increments can be
    # hidden behind them (test_an_increment_is_stamped_after_the_cell_it_replaces).
    table.counter_set(b"s", b"c:n", 2**40)
    assert table.counter_inc(b"s", b"c:n") == 2**40 + 1


def test_counters_wrap_round_as_javas_long_does(table: happybase.Table) -> None:
    table.counter_set(b"r", b"c:n", 2**63 - 1)
    assert table.counter_inc(b"r", b"c:n") == -(2**63)
    assert table.counter_dec(b"r", b"c:n") == 2**63 - 1


def test_an_increment_is_stamped_after_the_cell_it_replaces(table: happybase.Table) -> None:
    """HBase stamps an Increment's or an Append's cell max(now, the old
    cell's timestamp + 1), Thrift1's as Thrift2's. So a counter bumped
    three times in one millisecond is ahead of the clock, and a put stamped
    "now" just after it is hidden: the CI run that found this failed the
    test above on HBase, 166 times in 300 in a loop."""
    ahead = 2**50  # far ahead of the clock, as a busy counter's cell can be
    table.put(b"r", {b"c:n": struct.pack(">q", 5), b"d:s": b"x"}, timestamp=ahead)
    client = table.connection.client
    assert table.counter_inc(b"r", b"c:n") == 6
    client.increment(TIncrement(table=table.name, row=b"r", column=b"c:n", ammount=1))
    cells = client.append(TAppend(table=table.name, row=b"r", columns=[b"d:s"], values=[b"y"]))
    assert [(c.value, c.timestamp) for c in cells] == [(b"xy", ahead + 1)]
    assert table.row(b"r", include_timestamp=True) == {
        b"c:n": (struct.pack(">q", 7), ahead + 2),
        b"d:s": (b"xy", ahead + 1),
    }
    table.put(b"r", {b"c:n": struct.pack(">q", 100)})  # stamped now: behind
    assert table.counter_inc(b"r", b"c:n") == 8

    stamps = []
    for _ in range(20):  # many in one millisecond
        table.counter_inc(b"q", b"c:n")
        stamps.append(table.row(b"q", include_timestamp=True)[b"c:n"][1])
    assert all(later > earlier for earlier, later in itertools.pairwise(stamps)), stamps


def test_incrementing_a_value_that_is_not_8_bytes_is_an_error(table: happybase.Table) -> None:
    table.put(b"r", {b"c:n": b"12"})
    with pytest.raises(IOError):
        table.counter_inc(b"r", b"c:n")
    assert table.row(b"r") == {b"c:n": b"12"}


def test_counters_are_exact_under_concurrent_clients(
    server: ServerAddr, conn: happybase.Connection, table: happybase.Table
) -> None:
    prefix = conn.table_prefix.decode()
    threads, per_thread = 4, 250
    errors: list[BaseException] = []

    def work() -> None:
        try:
            c = server.connect(table_prefix=prefix)
            t = c.table("t")
            for _ in range(per_thread):
                t.counter_inc(b"hot", b"c:n")
            c.close()
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert errors == []
    assert table.counter_get(b"hot", b"c:n") == threads * per_thread


def test_a_row_mutation_is_seen_whole_or_not_at_all(
    server: ServerAddr, conn: happybase.Connection, table: happybase.Table
) -> None:
    prefix = conn.table_prefix.decode()
    columns = [b"d:%d" % i for i in range(20)]
    stop = threading.Event()
    torn: list[dict[bytes, bytes]] = []

    def read() -> None:
        c = server.connect(table_prefix=prefix)
        t = c.table("t")
        while not stop.is_set():
            row = t.row(b"r")
            if row and len(set(row.values())) != 1:
                torn.append(row)
        c.close()

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for i in range(200):
            table.put(b"r", {col: b"%d" % i for col in columns})
    finally:
        stop.set()
        reader.join()
    assert torn == []
    assert table.row(b"r") == {col: b"199" for col in columns}


def test_check_and_put(conn: happybase.Connection, table: happybase.Table) -> None:
    from Hbase_thrift import Mutation  # type: ignore[import-not-found]

    name = conn._table_name("t")

    def cas(expected: bytes | None, value: bytes) -> bool:
        m = Mutation(column=b"d:v", value=value, isDelete=False)
        return bool(conn.client.checkAndPut(name, b"r", b"d:v", expected, m, {}))

    assert cas(None, b"one") is True  # absent: created
    assert cas(None, b"two") is False  # present now
    assert cas(b"wrong", b"two") is False
    assert cas(b"one", b"two") is True
    assert table.row(b"r") == {b"d:v": b"two"}
    table.delete(b"r")
    time.sleep(0.01)  # a put in the delete's own millisecond would be masked by it
    assert cas(b"", b"three") is True  # an empty expected value matches an absent cell
    assert table.row(b"r") == {b"d:v": b"three"}
