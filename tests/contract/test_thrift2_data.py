"""The data half of HBase's Thrift2 API (THBaseService): reads, writes,
deletes, conditional writes, counters and scanners give the same answers
from the local server and from HBase 2.6.1's own thrift2 server.

Tables are made through happybase (the Thrift1 port); the Thrift2 calls name
them by their full name (``<prefix>_<name>``), as HBase's thrift2 handler
takes a plain table-name string.
"""

from __future__ import annotations

import re
import struct
import time
from collections.abc import Callable
from typing import Any

import happybase
import pytest
from thriftpy2.thrift import TApplicationException

from hbasethrift.thrift2 import T2

CV = T2.TColumnValue
Col = T2.TColumn
CI = T2.TColumnIncrement
DT = T2.TDeleteType
OP = T2.TCompareOp

NO_SUCH_FAMILY = "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException"


@pytest.fixture
def table(conn: happybase.Connection) -> bytes:
    """A table with a 3-version family ``a`` and a 1-version family ``b``."""
    conn.create_table("t", {"a": dict(max_versions=3), "b": dict(max_versions=1)})
    name: bytes = conn._table_name("t")
    return name


def cells(t2: Any, table: bytes, row: bytes, **get: Any) -> list[tuple[bytes, bytes, int, bytes]]:
    result = t2.get(table, T2.TGet(row=row, maxVersions=get.pop("maxVersions", 10), **get))
    return [(c.family, c.qualifier, c.timestamp, c.value) for c in result.columnValues]


def put_versions(t2: Any, table: bytes, row: bytes) -> None:
    """a:q and a:p at timestamps 1, 2, 3; a: at 2; b:q at 2."""
    t2.put(
        table,
        T2.TPut(
            row=row,
            columnValues=[CV(b"a", b"q", b"v%d" % i, timestamp=i) for i in (1, 2, 3)]
            + [CV(b"a", b"p", b"p%d" % i, timestamp=i) for i in (1, 2, 3)]
            + [CV(b"a", b"", b"e", timestamp=2), CV(b"b", b"q", b"b", timestamp=2)],
        ),
    )


# -- reads -----------------------------------------------------------------------


def test_get_returns_the_latest_cells_in_hbase_order(t2: Any, table: bytes) -> None:
    t2.put(table, T2.TPut(row=b"r", columnValues=[CV(b"b", b"x", b"2"), CV(b"a", b"y", b"1")]))
    result = t2.get(table, T2.TGet(row=b"r"))
    assert result.row == b"r"
    assert [(c.family, c.qualifier, c.value, c.type) for c in result.columnValues] == [
        (b"a", b"y", b"1", 4),
        (b"b", b"x", b"2", 4),
    ]
    assert (result.stale, result.partial) == (False, False)


def test_get_of_a_missing_row_is_an_empty_result_without_a_row(t2: Any, table: bytes) -> None:
    assert t2.get(table, T2.TGet(row=b"nobody")) == T2.TResult(
        row=None, columnValues=[], stale=False, partial=False
    )


def test_versions_time_range_and_timestamp(t2: Any, table: bytes) -> None:
    put_versions(t2, table, b"r")
    q = [Col(b"a", b"q")]
    assert [c[2] for c in cells(t2, table, b"r", columns=q)] == [3, 2, 1]
    assert [c[2] for c in cells(t2, table, b"r", columns=q, maxVersions=2)] == [3, 2]
    assert [c[2] for c in cells(t2, table, b"r", columns=q, maxVersions=None)] == [3]
    # min inclusive, max exclusive
    tr = T2.TTimeRange(minStamp=2, maxStamp=3)
    assert [c[2] for c in cells(t2, table, b"r", columns=q, timeRange=tr)] == [2]
    # a timestamp wins over a time range
    got = cells(t2, table, b"r", columns=q, timestamp=1, timeRange=tr)
    assert [c[2] for c in got] == [1]
    # family b keeps one version
    assert cells(t2, table, b"r", columns=[Col(b"b")]) == [(b"b", b"q", 2, b"b")]


def test_columns_narrow_and_widen_in_order(t2: Any, table: bytes) -> None:
    t2.put(table, T2.TPut(row=b"r", columnValues=[CV(b"a", b"x", b"1"), CV(b"a", b"y", b"2")]))
    narrowed = cells(t2, table, b"r", columns=[Col(b"a"), Col(b"a", b"y")])
    widened = cells(t2, table, b"r", columns=[Col(b"a", b"y"), Col(b"a")])
    # a TColumn's timestamp is ignored on reads
    stamped = cells(t2, table, b"r", columns=[Col(b"a", b"x", 12345)])
    assert [c[1] for c in narrowed] == [b"y"]
    assert [c[1] for c in widened] == [b"x", b"y"]
    assert [c[1] for c in stamped] == [b"x"]


def test_get_with_a_filter_string(t2: Any, table: bytes) -> None:
    t2.put(table, T2.TPut(row=b"r", columnValues=[CV(b"a", b"x", b"1"), CV(b"a", b"y", b"2")]))
    result = t2.get(table, T2.TGet(row=b"r", filterString=b"QualifierFilter(=, 'binary:y')"))
    assert [c.value for c in result.columnValues] == [b"2"]
    flt = b"ValueFilter(=, 'binary:none')"
    assert t2.exists(table, T2.TGet(row=b"r", filterString=flt)) is False


def test_get_store_limit_and_offset_per_family(t2: Any, table: bytes) -> None:
    t2.put(
        table,
        T2.TPut(
            row=b"r",
            columnValues=[CV(b"a", b"q%d" % i, b"%d" % i) for i in range(4)]
            + [CV(b"b", b"q%d" % i, b"%d" % i) for i in range(3)],
        ),
    )

    def got(**get: Any) -> list[tuple[bytes, bytes]]:
        return [(c[0], c[1]) for c in cells(t2, table, b"r", **get)]

    assert got(storeLimit=2) == [(b"a", b"q0"), (b"a", b"q1"), (b"b", b"q0"), (b"b", b"q1")]
    assert got(storeLimit=1, storeOffset=2) == [(b"a", b"q2"), (b"b", b"q2")]
    assert got(storeOffset=3) == [(b"a", b"q3")]
    assert got(storeLimit=0) == [(b"a", b"q0"), (b"b", b"q0")]  # HBase's, odd as it is
    flt = b"QualifierFilter(>=, 'binary:q1')"
    assert got(storeLimit=1, filterString=flt) == [(b"a", b"q1"), (b"b", b"q1")]


def test_exists_exists_all_and_get_multiple(t2: Any, table: bytes) -> None:
    t2.put(table, T2.TPut(row=b"r1", columnValues=[CV(b"a", b"x", b"1"), CV(b"b", b"x", b"b")]))
    t2.put(table, T2.TPut(row=b"r2", columnValues=[CV(b"b", b"x", b"2")]))
    assert t2.exists(table, T2.TGet(row=b"r1")) is True
    assert t2.exists(table, T2.TGet(row=b"zz")) is False
    gets = [T2.TGet(row=b"r1"), T2.TGet(row=b"zz"), T2.TGet(row=b"r2", columns=[Col(b"a")])]
    assert t2.existsAll(table, gets) == [True, False, False]
    results = t2.getMultiple(
        table,
        [T2.TGet(row=b"r1", columns=[Col(b"b")]), T2.TGet(row=b"zz"), T2.TGet(row=b"r2")],
    )
    assert [(r.row, [c.value for c in r.columnValues]) for r in results] == [
        (b"r1", [b"b"]),
        (None, []),
        (b"r2", [b"2"]),
    ]
    assert t2.getMultiple(table, []) == []


# -- writes ----------------------------------------------------------------------


def test_put_timestamps_per_column_and_per_put(t2: Any, table: bytes) -> None:
    before = int(time.time() * 1000)
    t2.put(
        table,
        T2.TPut(
            row=b"r",
            timestamp=10,
            columnValues=[CV(b"a", b"x", b"1"), CV(b"a", b"y", b"2", timestamp=20)],
        ),
    )
    t2.put(table, T2.TPut(row=b"r", columnValues=[CV(b"a", b"z", b"3")]))
    got = cells(t2, table, b"r")
    assert got[:2] == [(b"a", b"x", 10, b"1"), (b"a", b"y", 20, b"2")]
    assert got[2][1] == b"z" and before - 1000 <= got[2][2] <= time.time() * 1000 + 1000


def test_put_multiple_and_durability_is_accepted(t2: Any, table: bytes) -> None:
    t2.putMultiple(
        table,
        [
            T2.TPut(row=b"r%d" % i, columnValues=[CV(b"a", b"q", b"%d" % i)], durability=d)
            for i, d in enumerate(T2.TDurability._VALUES_TO_NAMES)
        ],
    )
    rows = t2.getScannerResults(table, T2.TScan(), 10)
    assert [r.row for r in rows] == [b"r%d" % i for i in range(5)]
    t2.putMultiple(table, [])


@pytest.mark.parametrize(
    ("delete_type", "column", "left"),
    [
        # DELETE_COLUMN: the latest version only, or the version at the timestamp
        (DT.DELETE_COLUMN, Col(b"a", b"q"), {(b"q", 2), (b"q", 1)}),
        (DT.DELETE_COLUMN, Col(b"a", b"q", 2), {(b"q", 3), (b"q", 1)}),
        (DT.DELETE_COLUMN, Col(b"a", b"q", 9), {(b"q", 3), (b"q", 2), (b"q", 1)}),
        # DELETE_COLUMNS: every version up to the timestamp
        (DT.DELETE_COLUMNS, Col(b"a", b"q"), set()),
        (DT.DELETE_COLUMNS, Col(b"a", b"q", 2), {(b"q", 3)}),
        # DELETE_FAMILY: every column; a qualifier given is ignored
        (DT.DELETE_FAMILY, Col(b"a", b"q", 2), {(b"q", 3), (b"p", 3)}),
        # DELETE_FAMILY_VERSION: every column's version at exactly the timestamp
        (
            DT.DELETE_FAMILY_VERSION,
            Col(b"a", None, 2),
            {(b"q", 3), (b"q", 1), (b"p", 3), (b"p", 1)},
        ),
    ],
)
def test_each_delete_type(
    t2: Any, table: bytes, delete_type: int, column: Any, left: set[tuple[bytes, int]]
) -> None:
    put_versions(t2, table, b"r")
    t2.deleteSingle(table, T2.TDelete(row=b"r", columns=[column], deleteType=delete_type))
    got = cells(t2, table, b"r", columns=[Col(b"a", b"q"), Col(b"a", b"p")])
    p_untouched = {(b"p", 3), (b"p", 2), (b"p", 1)}
    expected = left if delete_type >= DT.DELETE_FAMILY else left | p_untouched
    assert {(q, ts) for _, q, ts, _ in got} == expected
    assert cells(t2, table, b"r", columns=[Col(b"b")]) == [(b"b", b"q", 2, b"b")]


def test_odd_deletes_hbase_has(t2: Any, table: bytes) -> None:
    """A column type with no qualifier means the column ``a:`` (not the
    family); two latest-version deletes of one column in one call delete two
    versions; a version delete also masks a later put at its timestamp; a
    row-level timestamp is ignored once columns are named."""
    put_versions(t2, table, b"r")
    t2.deleteSingle(table, T2.TDelete(row=b"r", columns=[Col(b"a")]))
    assert (b"a", b"", 2, b"e") not in cells(t2, table, b"r")
    assert len(cells(t2, table, b"r", columns=[Col(b"a")])) == 6
    twice = [Col(b"a", b"q"), Col(b"a", b"q")]
    t2.deleteSingle(table, T2.TDelete(row=b"r", columns=twice, deleteType=DT.DELETE_COLUMN))
    assert cells(t2, table, b"r", columns=[Col(b"a", b"q")]) == [(b"a", b"q", 1, b"v1")]
    t2.put(table, T2.TPut(row=b"r", columnValues=[CV(b"a", b"q", b"again", timestamp=3)]))
    assert cells(t2, table, b"r", columns=[Col(b"a", b"q")]) == [(b"a", b"q", 1, b"v1")]
    t2.deleteSingle(table, T2.TDelete(row=b"r", columns=[Col(b"a", b"p")], timestamp=1))
    assert cells(t2, table, b"r", columns=[Col(b"a", b"p")]) == []


def test_row_deletes_and_delete_multiple(t2: Any, table: bytes) -> None:
    put_versions(t2, table, b"r1")
    put_versions(t2, table, b"r2")
    put_versions(t2, table, b"r3")
    t2.deleteSingle(table, T2.TDelete(row=b"r1", timestamp=2))
    assert [(q, ts) for _, q, ts, _ in cells(t2, table, b"r1")] == [(b"p", 3), (b"q", 3)]
    assert t2.deleteMultiple(table, [T2.TDelete(row=b"r2"), T2.TDelete(row=b"r3")]) == []
    assert cells(t2, table, b"r2") == cells(t2, table, b"r3") == []
    # an empty column list is a whole-row delete whose timestamp is ignored
    put_versions(t2, table, b"r4")
    t2.deleteSingle(table, T2.TDelete(row=b"r4", columns=[], timestamp=1))
    assert cells(t2, table, b"r4") == []


def test_increment_and_append(t2: Any, table: bytes) -> None:

    first = t2.increment(
        table,
        T2.TIncrement(row=b"r", columns=[CI(b"a", b"n", 5), CI(b"b", b"m"), CI(b"a", b"c", -2)]),
    )
    assert [
        (c.family, c.qualifier, struct.unpack(">q", c.value)[0]) for c in first.columnValues
    ] == [
        (b"a", b"c", -2),
        (b"a", b"n", 5),
        (b"b", b"m", 1),
    ]
    again = t2.increment(table, T2.TIncrement(row=b"r", columns=[CI(b"a", b"n", 5)]))
    assert struct.unpack(">q", again.columnValues[0].value)[0] == 10
    assert again.columnValues[0].timestamp > first.columnValues[1].timestamp
    quiet = T2.TIncrement(row=b"r", columns=[CI(b"a", b"n")], returnResults=False)
    assert t2.increment(table, quiet) == T2.TResult(
        row=None, columnValues=[], stale=False, partial=False
    )
    assert cells(t2, table, b"r", columns=[Col(b"a", b"n")], maxVersions=1)[0][3] == struct.pack(
        ">q", 11
    )
    # a long overflows as Java's does
    t2.increment(table, T2.TIncrement(row=b"o", columns=[CI(b"a", b"n", 2**63 - 1)]))
    wrapped = t2.increment(table, T2.TIncrement(row=b"o", columns=[CI(b"a", b"n", 1)]))
    assert struct.unpack(">q", wrapped.columnValues[0].value)[0] == -(2**63)

    made = t2.append(
        table, T2.TAppend(row=b"p", columns=[CV(b"a", b"x", b"ab"), CV(b"b", b"y", b"cd")])
    )
    assert [c.value for c in made.columnValues] == [b"ab", b"cd"]
    # a TColumnValue's timestamp is ignored by append
    more = t2.append(table, T2.TAppend(row=b"p", columns=[CV(b"a", b"x", b"ef", timestamp=5)]))
    assert [c.value for c in more.columnValues] == [b"abef"] and more.columnValues[0].timestamp > 5
    quiet_append = T2.TAppend(row=b"p", columns=[CV(b"a", b"x", b"g")], returnResults=False)
    assert t2.append(table, quiet_append).columnValues == []
    assert cells(t2, table, b"p", columns=[Col(b"a")], maxVersions=1)[0][3] == b"abefg"


def test_increment_and_append_after_a_future_cell_step_its_timestamp(t2: Any, table: bytes) -> None:
    future = int(time.time() * 1000) + 10**9
    t2.put(
        table,
        T2.TPut(
            row=b"f",
            timestamp=future,
            columnValues=[CV(b"a", b"n", struct.pack(">q", 1)), CV(b"a", b"x", b"o")],
        ),
    )
    inc = t2.increment(table, T2.TIncrement(row=b"f", columns=[T2.TColumnIncrement(b"a", b"n")]))
    app = t2.append(table, T2.TAppend(row=b"f", columns=[CV(b"a", b"x", b"k")]))
    assert inc.columnValues[0].timestamp == app.columnValues[0].timestamp == future + 1


def test_mutate_row_is_one_atomic_write(t2: Any, table: bytes) -> None:
    t2.put(table, T2.TPut(row=b"r", columnValues=[CV(b"a", b"x", b"old")]))
    t2.mutateRow(
        table,
        T2.TRowMutations(
            row=b"r",
            mutations=[
                T2.TMutation(put=T2.TPut(row=b"r", columnValues=[CV(b"a", b"q", b"v")])),
                T2.TMutation(deleteSingle=T2.TDelete(row=b"r", columns=[Col(b"a", b"x")])),
            ],
        ),
    )
    assert [(c[1], c[3]) for c in cells(t2, table, b"r")] == [(b"q", b"v")]
    # a put and a delete of one cell in one call share "now": the delete wins
    t2.mutateRow(
        table,
        T2.TRowMutations(
            row=b"s",
            mutations=[
                T2.TMutation(put=T2.TPut(row=b"s", columnValues=[CV(b"a", b"q", b"v")])),
                T2.TMutation(deleteSingle=T2.TDelete(row=b"s", columns=[Col(b"a", b"q")])),
            ],
        ),
    )
    assert cells(t2, table, b"s") == []
    bad = T2.TRowMutations(
        row=b"u",
        mutations=[
            T2.TMutation(put=T2.TPut(row=b"u", columnValues=[CV(b"a", b"q", b"v")])),
            T2.TMutation(put=T2.TPut(row=b"u", columnValues=[CV(b"zz", b"q", b"v")])),
        ],
    )
    with pytest.raises(T2.TIOError) as err:
        t2.mutateRow(table, bad)
    assert err.value.message.startswith(f"Failed 2 actions: {NO_SUCH_FAMILY}: ")
    assert err.value.canRetry is True
    assert cells(t2, table, b"u") == []


# -- conditional writes --------------------------------------------------------


def test_check_and_put_and_check_and_delete(t2: Any, table: bytes) -> None:
    t2.put(table, T2.TPut(row=b"c", columnValues=[CV(b"a", b"q", b"m"), CV(b"a", b"e", b"")]))

    def put() -> Any:
        return T2.TPut(row=b"c", columnValues=[CV(b"b", b"x", b"w")])

    assert t2.checkAndPut(table, b"c", b"a", b"q", b"m", put()) is True
    assert t2.checkAndPut(table, b"c", b"a", b"q", b"z", put()) is False
    # None: only if absent (an empty cell counts as absent, as in HBase)
    assert t2.checkAndPut(table, b"c", b"a", b"gone", None, put()) is True
    assert t2.checkAndPut(table, b"c", b"a", b"q", None, put()) is False
    assert t2.checkAndPut(table, b"c", b"a", b"e", None, put()) is True
    assert t2.checkAndPut(table, b"c", b"a", b"gone", b"", put()) is True
    delete = T2.TDelete(row=b"c", columns=[Col(b"b", b"x")])
    assert t2.checkAndDelete(table, b"c", b"a", b"q", b"nope", delete) is False
    assert cells(t2, table, b"c", columns=[Col(b"b")])[0][3] == b"w"
    assert t2.checkAndDelete(table, b"c", b"a", b"q", b"m", delete) is True
    assert cells(t2, table, b"c", columns=[Col(b"b")]) == []


def test_a_checked_put_is_not_eclipsed_by_a_future_cell(t2: Any, table: bytes) -> None:
    """HBase writes the put at max(now, the checked cell's timestamp)."""
    future = int(time.time() * 1000) + 10**9
    t2.put(table, T2.TPut(row=b"f", columnValues=[CV(b"a", b"q", b"old", timestamp=future)]))
    put = T2.TPut(row=b"f", columnValues=[CV(b"a", b"q", b"new")])
    assert t2.checkAndPut(table, b"f", b"a", b"q", b"old", put) is True
    assert cells(t2, table, b"f", columns=[Col(b"a", b"q")]) == [(b"a", b"q", future, b"new")]


# HBase compares "value OP cell value"; an empty value means "absent or empty".
CHECKS = [
    ("LESS", [(b"a", True), (b"m", False), (b"z", False), (b"", False)], True),
    ("LESS_OR_EQUAL", [(b"a", True), (b"m", True), (b"z", False), (b"", False)], True),
    ("EQUAL", [(b"a", False), (b"m", True), (b"z", False), (b"", False)], True),
    ("NOT_EQUAL", [(b"a", True), (b"m", False), (b"z", True), (b"", True)], False),
    ("GREATER_OR_EQUAL", [(b"a", False), (b"m", True), (b"z", True), (b"", False)], True),
    ("GREATER", [(b"a", False), (b"m", False), (b"z", True), (b"", False)], True),
]


@pytest.mark.parametrize(("op", "against_m", "empty_on_absent"), CHECKS)
def test_check_and_mutate_with_each_compare_op(
    t2: Any,
    table: bytes,
    op: str,
    against_m: list[tuple[bytes, bool]],
    empty_on_absent: bool,
) -> None:
    t2.put(table, T2.TPut(row=b"k", columnValues=[CV(b"a", b"q", b"m")]))
    compare = getattr(OP, op)

    def mutations() -> Any:
        put = T2.TPut(row=b"k", columnValues=[CV(b"b", b"n", b"x")])
        return T2.TRowMutations(row=b"k", mutations=[T2.TMutation(put=put)])

    got = [
        (v, t2.checkAndMutate(table, b"k", b"a", b"q", compare, v, mutations()))
        for v, _ in against_m
    ]
    assert got == against_m
    assert (
        t2.checkAndMutate(table, b"k", b"a", b"gone", compare, b"", mutations()) is empty_on_absent
    )
    assert t2.checkAndMutate(table, b"k", b"a", b"gone", compare, b"m", mutations()) is False
    wrote = any(ok for _, ok in against_m) or empty_on_absent
    assert (cells(t2, table, b"k", columns=[Col(b"b")]) != []) is wrote


def test_check_and_mutate_no_op_on_an_absent_cell(t2: Any, table: bytes) -> None:
    rm = T2.TRowMutations(
        row=b"k",
        mutations=[T2.TMutation(put=T2.TPut(row=b"k", columnValues=[CV(b"b", b"n", b"x")]))],
    )
    assert t2.checkAndMutate(table, b"k", b"a", b"gone", OP.NO_OP, b"m", rm) is False
    assert t2.checkAndMutate(table, b"k", b"a", b"gone", OP.NO_OP, b"", rm) is True


# -- scanners ------------------------------------------------------------------


@pytest.fixture
def five_rows(t2: Any, table: bytes) -> bytes:
    for i in range(5):
        t2.put(
            table,
            T2.TPut(
                row=b"r%d" % i,
                columnValues=[
                    CV(b"a", b"q1", b"x%d" % i, timestamp=10 + i),
                    CV(b"a", b"q2", b"y%d" % i, timestamp=10 + i),
                    CV(b"b", b"q", b"z%d" % i, timestamp=10 + i),
                ],
            ),
        )
    return table


def rows_of(results: list[Any]) -> list[bytes]:
    return [r.row for r in results]


def test_scanner_pages_and_ends(t2: Any, five_rows: bytes) -> None:
    sid = t2.openScanner(five_rows, T2.TScan(startRow=b"r1", stopRow=b"r4", caching=1))
    assert rows_of(t2.getScannerRows(sid, 2)) == [b"r1", b"r2"]
    assert t2.getScannerRows(sid, 0) == []
    assert rows_of(t2.getScannerRows(sid, 2)) == [b"r3"]
    assert t2.getScannerRows(sid, 2) == []
    t2.closeScanner(sid)
    with pytest.raises(T2.TIllegalArgument) as err:
        t2.getScannerRows(sid, 1)
    assert err.value.message == "Invalid scanner Id"
    t2.closeScanner(sid)  # closing an unknown scanner is no error in HBase 2.6


def test_scan_batch_limit_and_partial_results(t2: Any, five_rows: bytes) -> None:
    batched = t2.getScannerResults(five_rows, T2.TScan(batchSize=2), 3)
    assert [(r.row, len(r.columnValues), r.partial) for r in batched] == [
        (b"r0", 2, True),
        (b"r0", 1, False),
        (b"r1", 2, True),
    ]
    limited = t2.getScannerResults(five_rows, T2.TScan(limit=2), 10)
    assert rows_of(limited) == [b"r0", b"r1"]
    both = t2.getScannerResults(five_rows, T2.TScan(limit=2, batchSize=2), 10)
    assert [(r.row, r.partial) for r in both] == [
        (b"r0", True),
        (b"r0", False),
        (b"r1", True),
        (b"r1", False),
    ]


def test_reversed_scans_with_filters(t2: Any, five_rows: bytes) -> None:
    scan = T2.TScan(reversed=True, startRow=b"r3", stopRow=b"r0")
    assert rows_of(t2.getScannerResults(five_rows, scan, 10)) == [b"r3", b"r2", b"r1"]
    flt = b"ValueFilter(=, 'binary:y2') OR RowFilter(>=, 'binary:r3')"
    results = t2.getScannerResults(five_rows, T2.TScan(reversed=True, filterString=flt), 10)
    assert [(r.row, len(r.columnValues)) for r in results] == [(b"r4", 3), (b"r3", 3), (b"r2", 1)]
    page = T2.TScan(reversed=True, filterString=b"PageFilter(2)")
    assert rows_of(t2.getScannerResults(five_rows, page, 10)) == [b"r4", b"r3"]


def test_key_only_first_key_scans(t2: Any, five_rows: bytes) -> None:
    """The local server reads only a row's first visible cell for these
    filters (filters.push_down); what comes back is what HBase gives."""
    flt = b"KeyOnlyFilter() AND FirstKeyOnlyFilter()"
    t2.deleteSingle(five_rows, T2.TDelete(row=b"r1", columns=[Col(b"a", b"q1")]))
    results = t2.getScannerResults(five_rows, T2.TScan(filterString=flt, limit=3), 10)
    assert [(r.row, [(c.qualifier, c.value) for c in r.columnValues]) for r in results] == [
        (b"r0", [(b"q1", b"")]),
        (b"r1", [(b"q2", b"")]),
        (b"r2", [(b"q1", b"")]),
    ]
    scan = T2.TScan(filterString=b"FirstKeyOnlyFilter()", reversed=True, columns=[Col(b"b")])
    results = t2.getScannerResults(five_rows, scan, 2)
    assert [(r.row, [c.value for c in r.columnValues]) for r in results] == [
        (b"r4", [b"z4"]),
        (b"r3", [b"z3"]),
    ]


def test_scan_columns_time_range_and_versions(t2: Any, five_rows: bytes) -> None:
    scan = T2.TScan(columns=[Col(b"a", b"q2")], timeRange=T2.TTimeRange(11, 13))
    results = t2.getScannerResults(five_rows, scan, 10)
    assert [(r.row, [c.value for c in r.columnValues]) for r in results] == [
        (b"r1", [b"y1"]),
        (b"r2", [b"y2"]),
    ]
    t2.put(five_rows, T2.TPut(row=b"r0", columnValues=[CV(b"a", b"q1", b"new", timestamp=50)]))
    two = T2.TScan(columns=[Col(b"a", b"q1")], maxVersions=2, stopRow=b"r1")
    assert [c.value for c in t2.getScannerResults(five_rows, two, 1)[0].columnValues] == [
        b"new",
        b"x0",
    ]
    assert t2.getScannerResults(five_rows, T2.TScan(maxVersions=0), 10) == []


def test_scan_family_time_ranges_override_the_scans(t2: Any, five_rows: bytes) -> None:
    scan = T2.TScan(
        timeRange=T2.TTimeRange(10, 11),
        colFamTimeRangeMap={b"a": T2.TTimeRange(11, 13)},
        stopRow=b"r3",
    )
    results = t2.getScannerResults(five_rows, scan, 10)
    assert [(r.row, [(c.family, c.timestamp) for c in r.columnValues]) for r in results] == [
        (b"r0", [(b"b", 10)]),
        (b"r1", [(b"a", 11), (b"a", 11)]),
        (b"r2", [(b"a", 12), (b"a", 12)]),
    ]


# -- errors ----------------------------------------------------------------------


def test_a_missing_table(t2: Any, conn: happybase.Connection) -> None:
    missing = conn._table_name("missing")
    name = missing.decode()
    put = T2.TPut(row=b"r", columnValues=[CV(b"a", b"q", b"v")])
    calls: list[Callable[[], object]] = [
        lambda: t2.get(missing, T2.TGet(row=b"r")),
        lambda: t2.exists(missing, T2.TGet(row=b"r")),
        lambda: t2.getMultiple(missing, [T2.TGet(row=b"r")]),
        lambda: t2.put(missing, put),
        lambda: t2.deleteSingle(missing, T2.TDelete(row=b"r")),
        lambda: t2.checkAndPut(missing, b"r", b"a", b"q", None, put),
        lambda: t2.increment(
            missing, T2.TIncrement(row=b"r", columns=[T2.TColumnIncrement(b"a", b"q")])
        ),
        lambda: t2.getScannerResults(missing, T2.TScan(), 1),
    ]
    for call in calls:
        with pytest.raises(T2.TIOError) as err:
            call()
        assert (err.value.message, err.value.canRetry) == (name, False)
    # batched calls fail in HBase's batch machinery
    with pytest.raises(T2.TIOError) as err:
        t2.putMultiple(missing, [put, put])
    assert err.value.message == f"Failed 2 actions: {name}: 2 times, servers with issues: null"
    assert err.value.canRetry is True
    # HBase opens the scanner; its reads fail, every time
    sid = t2.openScanner(missing, T2.TScan())
    for _ in range(2):
        with pytest.raises(T2.TIOError) as err:
            t2.getScannerRows(sid, 1)
        assert err.value.message == name


def test_an_unknown_family(t2: Any, table: bytes) -> None:
    calls: list[Callable[[], object]] = [
        lambda: t2.get(table, T2.TGet(row=b"r", columns=[Col(b"zz")])),
        lambda: t2.put(table, T2.TPut(row=b"r", columnValues=[CV(b"zz", b"q", b"v")])),
        lambda: t2.deleteSingle(table, T2.TDelete(row=b"r", columns=[Col(b"zz", b"q")])),
        lambda: t2.append(table, T2.TAppend(row=b"r", columns=[CV(b"zz", b"q", b"v")])),
    ]
    for call in calls:
        with pytest.raises(T2.TIOError) as err:
            call()
        assert err.value.message.startswith(f"{NO_SUCH_FAMILY}: Column family zz does not exist")
        assert err.value.canRetry is False
    # a batch writes the good rows and reports the bad ones
    puts = [
        T2.TPut(row=b"good", columnValues=[CV(b"a", b"q", b"v")]),
        T2.TPut(row=b"bad", columnValues=[CV(b"zz", b"q", b"v")]),
    ]
    with pytest.raises(T2.TIOError) as err:
        t2.putMultiple(table, puts)
    assert err.value.message.startswith(f"Failed 1 action: {NO_SUCH_FAMILY}: ")
    assert cells(t2, table, b"good") != []
    sid = t2.openScanner(table, T2.TScan(columns=[Col(b"zz")]))
    with pytest.raises(T2.TIOError) as err:
        t2.getScannerRows(sid, 1)
    assert err.value.message.startswith(NO_SUCH_FAMILY)


def test_a_disabled_table(t2: Any, conn: happybase.Connection, table: bytes) -> None:
    conn.disable_table("t")
    name = table.decode()
    put = T2.TPut(row=b"r", columnValues=[CV(b"a", b"q", b"v")])
    # HBase's client finds the table disabled before asking a region: its words.
    alone: list[Callable[[], object]] = [
        lambda: t2.put(table, put),
        lambda: t2.get(table, T2.TGet(row=b"r")),
        lambda: t2.exists(table, T2.TGet(row=b"r")),
        lambda: t2.getMultiple(table, [T2.TGet(row=b"r")]),
        lambda: t2.deleteSingle(table, T2.TDelete(row=b"r")),
        lambda: t2.checkAndPut(table, b"r", b"a", b"q", None, put),
        lambda: t2.increment(
            table, T2.TIncrement(row=b"r", columns=[T2.TColumnIncrement(b"a", b"q")])
        ),
        lambda: t2.append(table, T2.TAppend(row=b"r", columns=[CV(b"a", b"q", b"v")])),
        lambda: t2.getScannerResults(table, T2.TScan(), 1),
    ]
    for call in alone:
        with pytest.raises(T2.TIOError) as err:
            call()
        assert (err.value.message, err.value.canRetry) == (f"{name} is disabled.", False)
    # A batch asks the table's (closed) region and names the server it asked.
    # HBase's client retries that for 15 s, so one batch call stands for all
    # (putMultiple, deleteMultiple, mutateRow and checkAndMutate say the same).
    with pytest.raises(T2.TIOError) as err:
        t2.putMultiple(table, [put, put])
    assert re.fullmatch(
        "Failed 2 actions: NotServingRegionException: 2 times, "
        r"servers with issues: localhost,\d+,\d+",
        err.value.message,
    ), err.value.message
    assert err.value.canRetry is True


def test_a_region_servers_refusal_in_a_batch_ends_the_first_line(t2: Any, table: bytes) -> None:
    """HBase's batch error carries the region server's stack trace inside its
    cause, so its first line ends with the cause's message."""
    mismatch = T2.TRowMutations(
        row=b"o",
        mutations=[T2.TMutation(put=T2.TPut(row=b"o", columnValues=[CV(b"a", b"q", b"v")]))],
    )
    with pytest.raises(T2.TIOError) as err:
        t2.checkAndMutate(table, b"k", b"a", b"q", OP.EQUAL, b"x", mismatch)
    assert (err.value.message.split("\n")[0], err.value.canRetry) == (
        "Failed 1 action: org.apache.hadoop.hbase.DoNotRetryIOException: "
        "The row of the action <o> doesn't match the original one <k>",
        True,
    )
    unknown = T2.TRowMutations(
        row=b"r",
        mutations=[T2.TMutation(put=T2.TPut(row=b"r", columnValues=[CV(b"zz", b"q", b"v")]))],
    )
    with pytest.raises(T2.TIOError) as err:
        t2.mutateRow(table, unknown)
    first = err.value.message.split("\n")[0]
    assert first.startswith(f"Failed 1 action: {NO_SUCH_FAMILY}: Column family zz does not exist")
    assert "servers with issues" not in first


def test_what_hbases_client_refuses_is_an_internal_error(t2: Any, table: bytes) -> None:
    empty_row = T2.TPut(row=b"", columnValues=[CV(b"a", b"q", b"v")])
    named_calls: list[tuple[str, Callable[[], object]]] = [
        ("put", lambda: t2.put(table, empty_row)),
        ("put", lambda: t2.put(table, T2.TPut(row=b"r", columnValues=[]))),
        ("get", lambda: t2.get(table, T2.TGet(row=b""))),
        ("get", lambda: t2.get(table, T2.TGet(row=b"r", timeRange=T2.TTimeRange(7, 5)))),
        ("get", lambda: t2.get(table, T2.TGet(row=b"r", filterString=b"Nope("))),
        ("openScanner", lambda: t2.openScanner(table, T2.TScan(filterString=b"Broken("))),
        (
            "deleteSingle",
            lambda: t2.deleteSingle(
                table,
                T2.TDelete(row=b"r", columns=[Col(b"a")], deleteType=DT.DELETE_FAMILY_VERSION),
            ),
        ),
        ("getScannerRows", lambda: t2.getScannerRows(t2.openScanner(table, T2.TScan()), -1)),
        ("increment", lambda: t2.increment(table, T2.TIncrement(row=b"r", columns=[]))),
        ("get", lambda: t2.get(table, T2.TGet(row=b"r", existence_only=True))),
        ("getSlowLogResponses", lambda: t2.getSlowLogResponses(None, None)),
    ]
    for name, call in named_calls:
        with pytest.raises(TApplicationException) as err:
            call()
        assert err.value.type == TApplicationException.INTERNAL_ERROR
        assert str(err.value.message).startswith(f"Internal error processing {name}")
    with pytest.raises(T2.TIOError) as versions:
        t2.get(table, T2.TGet(row=b"r", maxVersions=0))
    assert (versions.value.message, versions.value.canRetry) == ("versions must be positive", True)


def test_rows_that_do_not_match(t2: Any, table: bytes) -> None:
    t2.put(table, T2.TPut(row=b"k", columnValues=[CV(b"a", b"q", b"m")]))
    with pytest.raises(T2.TIOError) as err:
        t2.checkAndPut(
            table,
            b"k",
            b"a",
            b"q",
            b"m",
            T2.TPut(row=b"o\x00", columnValues=[CV(b"a", b"q", b"v")]),
        )
    assert err.value.message.startswith(
        "org.apache.hadoop.hbase.DoNotRetryIOException: The row of the action <o\\x00> "
        "doesn't match the original one <k>"
    )
    mixed = T2.TRowMutations(
        row=b"k",
        mutations=[T2.TMutation(put=T2.TPut(row=b"o", columnValues=[CV(b"a", b"q", b"v")]))],
    )
    with pytest.raises(T2.TIOError) as err:
        t2.mutateRow(table, mixed)
    assert (err.value.message, err.value.canRetry) == (
        "The row in the recently added Mutation <o> doesn't match the original one <k>",
        True,
    )


def test_increment_of_a_value_that_is_not_a_long(t2: Any, table: bytes) -> None:
    t2.put(table, T2.TPut(row=b"r", columnValues=[CV(b"a", b"s", b"abc")]))
    with pytest.raises(T2.TIOError) as err:
        t2.increment(table, T2.TIncrement(row=b"r", columns=[T2.TColumnIncrement(b"a", b"s")]))
    assert err.value.message.startswith(
        "org.apache.hadoop.hbase.DoNotRetryIOException: Field is not a long, it's 3 bytes wide"
    )
    assert err.value.canRetry is False


def test_slow_log_is_empty(t2: Any) -> None:
    assert t2.getSlowLogResponses(set(), T2.TLogQueryFilter()) == []
    assert t2.clearSlowLogResponses(set()) == []
