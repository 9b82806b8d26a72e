"""Java filters over Thrift2 (``TGet``/``TScan.filterBytes``), as HBase's own
Java client sends them, give the same rows and cells on both servers.

The bytes are built as the Java client builds them (``javafilters``); each
assertion is what HBase 2.6.1 answered.
"""

from __future__ import annotations

from typing import Any

import happybase
import pytest

from hbasethrift.thrift2 import T2
from tests.contract import javafilters as J  # noqa: N812

CV = T2.TColumnValue


@pytest.fixture
def rows(t2: Any, conn: happybase.Connection) -> bytes:
    """r0..r4: a:q1=x<i>, a:q2=y<i>, b:q=z<i>, all at timestamp 10+i; a:n=<i>
    as an 8-byte long at 10+i on r0..r2."""
    conn.create_table("t", {"a": dict(max_versions=3), "b": dict(max_versions=1)})
    table: bytes = conn._table_name("t")
    for i in range(5):
        values = [
            CV(b"a", b"q1", b"x%d" % i, timestamp=10 + i),
            CV(b"a", b"q2", b"y%d" % i, timestamp=10 + i),
            CV(b"b", b"q", b"z%d" % i, timestamp=10 + i),
        ]
        if i < 3:
            values.append(CV(b"a", b"n", i.to_bytes(8, "big"), timestamp=10 + i))
        t2.put(table, T2.TPut(row=b"r%d" % i, columnValues=values))
    return table


def scan(t2: Any, table: bytes, flt: bytes, **kw: Any) -> list[tuple[bytes, list[bytes]]]:
    """Each row and its cells as ``family:qualifier=value``."""
    results = t2.getScannerResults(table, T2.TScan(filterBytes=flt, **kw), 100)
    return [
        (r.row, [b"%s:%s=%s" % (c.family, c.qualifier, c.value) for c in r.columnValues])
        for r in results
    ]


def row_keys(t2: Any, table: bytes, flt: bytes, **kw: Any) -> list[bytes]:
    return [r for r, _ in scan(t2, table, flt, **kw)]


def columns(t2: Any, table: bytes, flt: bytes, row: bytes = b"r1") -> list[bytes]:
    result = t2.get(table, T2.TGet(row=row, filterBytes=flt))
    return [b"%s:%s" % (c.family, c.qualifier) for c in result.columnValues]


def test_row_filters(t2: Any, rows: bytes) -> None:
    assert row_keys(t2, rows, J.prefix(b"r1")) == [b"r1"]
    assert row_keys(t2, rows, J.compare_filter("RowFilter", "LESS", J.binary(b"r2"))) == [
        b"r0",
        b"r1",
    ]
    assert row_keys(t2, rows, J.compare_filter("RowFilter", "EQUAL", J.regex("r[13]"))) == [
        b"r1",
        b"r3",
    ]
    assert row_keys(t2, rows, J.inclusive_stop(b"r2")) == [b"r0", b"r1", b"r2"]
    assert row_keys(t2, rows, J.inclusive_stop(b"r2"), reversed=True) == [b"r4", b"r3", b"r2"]
    assert row_keys(t2, rows, J.page(2)) == [b"r0", b"r1"]
    ranges = J.row_ranges((b"r0", False, b"r1", True), (b"r3", True, b"r4", False))
    assert row_keys(t2, rows, ranges) == [b"r1", b"r3"]
    assert row_keys(t2, rows, J.fuzzy((b"r?", b"\x00\x01"))) == [b"r0", b"r1", b"r2", b"r3", b"r4"]
    assert row_keys(t2, rows, J.fuzzy((b"?3", b"\x01\x00"))) == [b"r3"]


def test_column_filters(t2: Any, rows: bytes) -> None:
    assert columns(t2, rows, J.compare_filter("FamilyFilter", "EQUAL", J.binary(b"b"))) == [b"b:q"]
    assert columns(t2, rows, J.compare_filter("QualifierFilter", "GREATER", J.binary(b"q1"))) == [
        b"a:q2"
    ]
    assert columns(t2, rows, J.column_prefix(b"q")) == [b"a:q1", b"a:q2", b"b:q"]
    assert columns(t2, rows, J.multiple_column_prefix(b"n", b"q2")) == [b"a:n", b"a:q2"]
    # past max_column, a family's part of the row ends; the next family's is read
    assert columns(t2, rows, J.column_range(b"n", False, b"q1", True)) == [b"a:q1", b"b:q"]
    assert columns(t2, rows, J.column_range(None, False, b"q", True)) == [b"a:n", b"b:q"]
    assert columns(t2, rows, J.column_pagination(2, 1)) == [b"a:q1", b"a:q2"]
    assert columns(t2, rows, J.column_pagination_from(2, b"q2")) == [b"a:q2", b"b:q"]
    assert columns(t2, rows, J.column_count_get(2)) == [b"a:n", b"a:q1"]
    assert columns(t2, rows, J.first_key_only()) == [b"a:n"]
    assert columns(t2, rows, J.timestamps(11, 99)) == [b"a:n", b"a:q1", b"a:q2", b"b:q"]
    assert columns(t2, rows, J.timestamps(12)) == []


def test_value_filters_with_each_comparator(t2: Any, rows: bytes) -> None:
    def values(flt: bytes) -> list[bytes]:
        return columns(t2, rows, flt)

    vf = "ValueFilter"
    assert values(J.compare_filter(vf, "EQUAL", J.binary(b"y1"))) == [b"a:q2"]
    assert values(J.compare_filter(vf, "GREATER_OR_EQUAL", J.binary(b"y"))) == [b"a:q2", b"b:q"]
    assert values(J.compare_filter(vf, "EQUAL", J.binary_prefix(b"z"))) == [b"b:q"]
    assert values(J.compare_filter(vf, "EQUAL", J.substring("X1"))) == [b"a:q1"]
    assert values(J.compare_filter(vf, "NOT_EQUAL", J.regex("^[xy]"))) == [b"a:n", b"b:q"]
    assert values(J.compare_filter(vf, "EQUAL", J.regex("^Z", flags=2 | 32))) == [b"b:q"]
    assert values(J.compare_filter(vf, "NOT_EQUAL", J.null())) == [
        b"a:n",
        b"a:q1",
        b"a:q2",
        b"b:q",
    ]
    assert values(J.compare_filter(vf, "EQUAL", J.null())) == []
    assert values(J.compare_filter(vf, "NO_OP", J.binary(b"y1"))) == []
    # 'x' is 0x78, 'y' 0x79, 'z' 0x7A: bit 0x02 is set in 'z' only, among
    # two-byte values; the long a:n (eight bytes) never compares.
    assert values(J.compare_filter(vf, "EQUAL", J.bits(b"\x02\x00", "AND"))) == [b"b:q"]
    assert values(J.compare_filter(vf, "NOT_EQUAL", J.bits(b"\x02\x00", "AND"))) == [
        b"a:n",
        b"a:q1",
        b"a:q2",
    ]


def test_long_comparator(t2: Any, rows: bytes) -> None:
    flt = J.scvf(b"a", b"n", "GREATER_OR_EQUAL", J.long(1), True)
    assert row_keys(t2, rows, flt) == [b"r1", b"r2"]


def test_single_column_value_filters(t2: Any, rows: bytes) -> None:
    eq_y2 = (b"a", b"q2", "EQUAL", J.binary(b"y2"))
    assert scan(t2, rows, J.scvf(*eq_y2)) == [
        (b"r2", [b"a:n=" + (2).to_bytes(8, "big"), b"a:q1=x2", b"a:q2=y2", b"b:q=z2"])
    ]
    assert row_keys(t2, rows, J.scv_exclude(*eq_y2), columns=[T2.TColumn(b"a", b"q2")]) == []
    assert scan(t2, rows, J.scv_exclude(*eq_y2), columns=[T2.TColumn(b"a")]) == [
        (b"r2", [b"a:n=" + (2).to_bytes(8, "big"), b"a:q1=x2"])
    ]
    # a row without a:n passes unless filter_if_missing
    missing = (b"a", b"n", "EQUAL", J.long(0))
    assert row_keys(t2, rows, J.scvf(*missing)) == [b"r0", b"r3", b"r4"]
    assert row_keys(t2, rows, J.scvf(*missing, if_missing=True)) == [b"r0"]


def test_dependent_column_filter(t2: Any, rows: bytes, conn: happybase.Connection) -> None:
    t2.put(rows, T2.TPut(row=b"d", columnValues=[CV(b"a", b"q1", b"k", timestamp=5)]))
    t2.put(rows, T2.TPut(row=b"d", columnValues=[CV(b"a", b"q2", b"v", timestamp=5)]))
    t2.put(rows, T2.TPut(row=b"d", columnValues=[CV(b"b", b"q", b"w", timestamp=6)]))
    keep = J.dependent(b"a", b"q1", False, "EQUAL", J.binary(b"k"))
    drop = J.dependent(b"a", b"q1", True, "EQUAL", J.binary(b"k"))
    assert columns(t2, rows, keep, row=b"d") == [b"a:q1", b"a:q2"]
    assert columns(t2, rows, drop, row=b"d") == [b"a:q2"]
    assert columns(t2, rows, J.dependent(b"a", b"q1", False, "EQUAL", J.binary(b"no")), b"d") == []


def test_key_only_and_lists(t2: Any, rows: bytes) -> None:
    assert scan(t2, rows, J.key_only(), startRow=b"r3") == [
        (b"r3", [b"a:q1=", b"a:q2=", b"b:q="]),
        (b"r4", [b"a:q1=", b"a:q2=", b"b:q="]),
    ]
    assert scan(t2, rows, J.key_only(len_as_val=True), startRow=b"r4") == [
        (b"r4", [b"a:q1=\x00\x00\x00\x02", b"a:q2=\x00\x00\x00\x02", b"b:q=\x00\x00\x00\x02"])
    ]
    both = J.filter_list("MUST_PASS_ALL", J.first_key_only(), J.key_only())
    assert scan(t2, rows, both, startRow=b"r4") == [(b"r4", [b"a:q1="])]
    either = J.filter_list("MUST_PASS_ONE", J.prefix(b"r1"), J.prefix(b"r3"))
    assert row_keys(t2, rows, either) == [b"r1", b"r3"]
    nested = J.filter_list(
        "MUST_PASS_ALL", either, J.compare_filter("FamilyFilter", "EQUAL", J.binary(b"b"))
    )
    assert scan(t2, rows, nested) == [(b"r1", [b"b:q=z1"]), (b"r3", [b"b:q=z3"])]
    assert row_keys(t2, rows, J.filter_list("MUST_PASS_ONE")) == [b"r0", b"r1", b"r2", b"r3", b"r4"]


def test_skip_and_while(t2: Any, rows: bytes) -> None:
    not_z2 = J.compare_filter("ValueFilter", "NOT_EQUAL", J.binary(b"z2"))
    assert row_keys(t2, rows, J.skip(not_z2)) == [b"r0", b"r1", b"r3", b"r4"]
    # the row where the filter first drops a cell keeps the cells before it
    assert scan(t2, rows, J.while_match(not_z2), startRow=b"r1") == [
        (b"r1", [b"a:n=" + (1).to_bytes(8, "big"), b"a:q1=x1", b"a:q2=y1", b"b:q=z1"]),
        (b"r2", [b"a:n=" + (2).to_bytes(8, "big"), b"a:q1=x2", b"a:q2=y2"]),
    ]


def test_filter_bytes_win_over_a_filter_string(t2: Any, rows: bytes) -> None:
    got = t2.getScannerResults(
        rows, T2.TScan(filterString=b"PrefixFilter('r2')", filterBytes=J.prefix(b"r3")), 10
    )
    assert [r.row for r in got] == [b"r3"]


def test_filters_hbase_cannot_load(t2: Any, rows: bytes) -> None:
    for flt in (
        J.raw("com.example.NoSuchFilter"),
        J.raw("org.apache.hadoop.hbase.filter.NoSuchFilter"),
    ):
        name = flt[2 : 2 + flt[1]].decode()
        with pytest.raises(T2.TIOError) as err:
            t2.get(rows, T2.TGet(row=b"r1", filterBytes=flt))
        assert (err.value.message, err.value.canRetry) == (
            f"java.lang.ClassNotFoundException: {name}",
            False,
        )
        with pytest.raises(T2.TIOError) as err:
            t2.openScanner(rows, T2.TScan(filterBytes=flt))
        assert err.value.message == f"java.lang.ClassNotFoundException: {name}"


def test_a_filter_sees_the_older_versions_a_family_keeps(t2: Any, rows: bytes) -> None:
    """HBase's filter sees every version its family keeps, and the read's
    number of versions counts what it lets through: a filter that matches
    only an older version finds it, in a get and a scan alike."""
    for ts, value in ((20, b"new"), (30, b"newest")):
        t2.put(rows, T2.TPut(row=b"r1", columnValues=[CV(b"a", b"q1", value, timestamp=ts)]))
    old = J.compare_filter("ValueFilter", "EQUAL", J.binary(b"x1"))
    got = t2.get(rows, T2.TGet(row=b"r1", columns=[T2.TColumn(b"a", b"q1")], filterBytes=old))
    assert [(c.value, c.timestamp) for c in got.columnValues] == [(b"x1", 11)]
    assert scan(t2, rows, old) == [(b"r1", [b"a:q1=x1"])]
    # One version after the filter: the newest it keeps, of each column.
    not_newest = J.compare_filter("ValueFilter", "NOT_EQUAL", J.binary(b"newest"))
    assert scan(t2, rows, not_newest, startRow=b"r1", stopRow=b"r2") == [
        (b"r1", [b"a:n=\x00\x00\x00\x00\x00\x00\x00\x01", b"a:q1=new", b"a:q2=y1", b"b:q=z1"])
    ]
    # Two versions asked: two of what it keeps.
    got = t2.get(
        rows,
        T2.TGet(
            row=b"r1", columns=[T2.TColumn(b"a", b"q1")], maxVersions=2, filterBytes=not_newest
        ),
    )
    assert [c.value for c in got.columnValues] == [b"new", b"x1"]
    # A TimestampsFilter of an older version finds it.
    stamps = t2.get(rows, T2.TGet(row=b"r1", filterBytes=J.timestamps(11)))
    assert [(c.qualifier, c.value) for c in stamps.columnValues] == [
        (b"n", b"\x00\x00\x00\x00\x00\x00\x00\x01"),
        (b"q1", b"x1"),
        (b"q2", b"y1"),
        (b"q", b"z1"),
    ]
    # In a list too.
    either = J.filter_list(
        "MUST_PASS_ONE", old, J.compare_filter("ValueFilter", "EQUAL", J.binary(b"y1"))
    )
    assert scan(t2, rows, either, startRow=b"r1", stopRow=b"r2") == [
        (b"r1", [b"a:q1=x1", b"a:q2=y1"])
    ]
