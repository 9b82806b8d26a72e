"""A write whose timestamp is HConstants.LATEST_TIMESTAMP (Long.MAX_VALUE) is
stamped with the server's time, as HBase's region does.

HBase's own Java client sends that value for every cell its caller gave no
timestamp (``Put.addColumn(f, q, v)`` over Thrift2), and Thrift1's ``*Ts``
calls may send it too. A cell left at Long.MAX_VALUE would outlive every
delete, hide every later put and fail every increment; each test here writes
such a cell one way and then checks what HBase's stamp implies.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable
from typing import Any

import happybase
import pytest

from hbasethrift.thrift2 import T2

LATEST = (1 << 63) - 1
HOUR_MS = 3_600_000
CV = T2.TColumnValue
Col = T2.TColumn
TRM = T2.TRowMutations
TM = T2.TMutation


@pytest.fixture
def table(conn: happybase.Connection) -> bytes:
    conn.create_table("t", {"a": dict(max_versions=3)})
    name: bytes = conn._table_name("t")
    return name


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _put_t2(t2: Any, t1: happybase.Connection, table: bytes, value: bytes) -> None:
    t2.put(table, T2.TPut(row=b"r", columnValues=[CV(b"a", b"q", value, timestamp=LATEST)]))


def _put_t2_put_timestamp(t2: Any, t1: happybase.Connection, table: bytes, value: bytes) -> None:
    t2.put(table, T2.TPut(row=b"r", columnValues=[CV(b"a", b"q", value)], timestamp=LATEST))


def _put_multiple(t2: Any, t1: happybase.Connection, table: bytes, value: bytes) -> None:
    put = T2.TPut(row=b"r", columnValues=[CV(b"a", b"q", value, timestamp=LATEST)])
    t2.putMultiple(table, [put])


def _mutate_row(t2: Any, t1: happybase.Connection, table: bytes, value: bytes) -> None:
    put = T2.TPut(row=b"r", columnValues=[CV(b"a", b"q", value, timestamp=LATEST)])
    t2.mutateRow(table, TRM(row=b"r", mutations=[TM(put=put)]))


def _check_and_mutate(t2: Any, t1: happybase.Connection, table: bytes, value: bytes) -> None:
    put = T2.TPut(row=b"r", columnValues=[CV(b"a", b"q", value, timestamp=LATEST)])
    rm = TRM(row=b"r", mutations=[TM(put=put)])
    # "a:absent is not there" holds, so the put is written.
    assert t2.checkAndMutate(table, b"r", b"a", b"absent", T2.TCompareOp.EQUAL, b"", rm)


def _check_and_put(t2: Any, t1: happybase.Connection, table: bytes, value: bytes) -> None:
    put = T2.TPut(row=b"r", columnValues=[CV(b"a", b"q", value, timestamp=LATEST)])
    assert t2.checkAndPut(table, b"r", b"a", b"absent", None, put)


def _thrift1_put(t2: Any, t1: happybase.Connection, table: bytes, value: bytes) -> None:
    t1.table("t").put(b"r", {b"a:q": value}, timestamp=LATEST)  # mutateRowTs


def _thrift1_batch(t2: Any, t1: happybase.Connection, table: bytes, value: bytes) -> None:
    with t1.table("t").batch(timestamp=LATEST) as batch:  # mutateRowsTs
        batch.put(b"r", {b"a:q": value})


WRITES: dict[str, Callable[[Any, happybase.Connection, bytes, bytes], None]] = {
    "thrift2_put_cell": _put_t2,
    "thrift2_put": _put_t2_put_timestamp,
    "thrift2_put_multiple": _put_multiple,
    "thrift2_mutate_row": _mutate_row,
    "thrift2_check_and_mutate": _check_and_mutate,
    "thrift2_check_and_put": _check_and_put,
    "thrift1_mutate_row_ts": _thrift1_put,
    "thrift1_mutate_rows_ts": _thrift1_batch,
}


def _cells(t2: Any, table: bytes, **get: Any) -> list[tuple[int, bytes]]:
    result = t2.get(table, T2.TGet(row=b"r", columns=[Col(b"a", b"q")], maxVersions=3, **get))
    return [(c.timestamp, c.value) for c in result.columnValues]


@pytest.mark.parametrize("write", WRITES.values(), ids=list(WRITES))
def test_a_latest_timestamp_write_is_stamped_with_the_servers_time(
    write: Callable[[Any, happybase.Connection, bytes, bytes], None],
    t2: Any,
    conn: happybase.Connection,
    table: bytes,
) -> None:
    before = _now_ms()
    write(t2, conn, table, b"1")
    after = _now_ms()
    [(stamp, value)] = _cells(t2, table)
    assert value == b"1"
    # The servers run on this machine: their clock is ours, give or take.
    assert before - 1000 <= stamp <= after + 1000
    # A time range up to an hour from now holds it.
    hour = T2.TTimeRange(minStamp=0, maxStamp=after + HOUR_MS)
    assert [v for _, v in _cells(t2, table, timeRange=hour)] == [b"1"]
    # A later put at an explicit timestamp is the newest version.
    t2.put(table, T2.TPut(row=b"r", columnValues=[CV(b"a", b"q", b"2", timestamp=stamp + 1)]))
    assert [v for _, v in _cells(t2, table)] == [b"2", b"1"]


@pytest.mark.parametrize("write", WRITES.values(), ids=list(WRITES))
def test_deletes_and_increments_reach_a_latest_timestamp_write(
    write: Callable[[Any, happybase.Connection, bytes, bytes], None],
    t2: Any,
    conn: happybase.Connection,
    table: bytes,
) -> None:
    write(t2, conn, table, struct.pack(">q", 5))
    result = t2.increment(
        table, T2.TIncrement(row=b"r", columns=[T2.TColumnIncrement(b"a", b"q", 2)])
    )
    assert [c.value for c in result.columnValues] == [struct.pack(">q", 7)]
    # An increment may stamp its cell a millisecond ahead of the clock.
    time.sleep(0.005)
    # A row delete, as the Java client sends it (its timestamp LATEST_TIMESTAMP).
    t2.deleteSingle(table, T2.TDelete(row=b"r", timestamp=LATEST))
    assert _cells(t2, table) == []
    write(t2, conn, table, b"again")
    time.sleep(0.005)  # past the put's millisecond
    t2.deleteSingle(
        table,
        T2.TDelete(
            row=b"r",
            columns=[Col(b"a", b"q", LATEST)],
            deleteType=T2.TDeleteType.DELETE_COLUMNS,
        ),
    )
    assert _cells(t2, table) == []


def test_deletes_at_latest_timestamp_of_each_kind(
    t2: Any, conn: happybase.Connection, table: bytes
) -> None:
    def put(*values: bytes) -> None:
        for i, value in enumerate(values):
            cell = CV(b"a", b"q", value, timestamp=100 + i)
            t2.put(table, T2.TPut(row=b"r", columnValues=[cell]))

    def delete(kind: int, column: Any) -> None:
        t2.deleteSingle(table, T2.TDelete(row=b"r", columns=[column], deleteType=kind))

    # A Delete of one version at LATEST_TIMESTAMP removes the newest version.
    put(b"old", b"new")
    delete(T2.TDeleteType.DELETE_COLUMN, Col(b"a", b"q", LATEST))
    assert _cells(t2, table) == [(100, b"old")]
    # A family's delete and a family version's delete at LATEST_TIMESTAMP
    # land at "now": every older cell goes.
    delete(T2.TDeleteType.DELETE_FAMILY, Col(b"a", None, LATEST))
    assert _cells(t2, table) == []
    t2.deleteSingle(table, T2.TDelete(row=b"r"))
    hour = T2.TTimeRange(minStamp=0, maxStamp=_now_ms() + HOUR_MS)
    assert _cells(t2, table, timeRange=hour) == []
