"""row/rows/cells and scans: bounds, prefixes, columns, time, reverse, batching."""

from __future__ import annotations

import happybase
import pytest


@pytest.fixture
def table(conn: happybase.Connection) -> happybase.Table:
    conn.create_table("t", {"a": dict(max_versions=3), "b": dict()})
    t = conn.table("t")
    with t.batch(timestamp=100) as batch:
        for i in range(10):
            batch.put(b"row%02d" % i, {b"a:x": b"x%d" % i, b"a:y": b"y%d" % i, b"b:z": b"z%d" % i})
    return t


def test_row_with_families_and_columns(table: happybase.Table) -> None:
    assert table.row(b"row01", columns=[b"a"]) == {b"a:x": b"x1", b"a:y": b"y1"}
    assert table.row(b"row01", columns=[b"a:x", b"b:z"]) == {b"a:x": b"x1", b"b:z": b"z1"}
    # As HBase's addFamily/addColumn: a later column narrows the family...
    assert table.row(b"row01", columns=[b"a", b"a:x"]) == {b"a:x": b"x1"}
    # ... and a later family widens it again.
    assert table.row(b"row01", columns=[b"a:x", b"a"]) == {b"a:x": b"x1", b"a:y": b"y1"}
    assert table.row(b"missing") == {}


def test_row_at_a_timestamp_sees_only_older_cells(table: happybase.Table) -> None:
    table.put(b"row01", {b"a:x": b"newer"}, timestamp=200)
    assert table.row(b"row01", columns=[b"a:x"]) == {b"a:x": b"newer"}
    # The timestamp is an exclusive upper bound, as in HBase's setTimeRange(0, ts).
    assert table.row(b"row01", columns=[b"a:x"], timestamp=200) == {b"a:x": b"x1"}
    assert table.row(b"row01", columns=[b"a:x"], timestamp=201) == {b"a:x": b"newer"}
    assert table.row(b"row01", timestamp=100) == {}


def test_rows_returns_found_rows_in_request_order(table: happybase.Table) -> None:
    result = table.rows([b"row05", b"missing", b"row02"], columns=[b"a:x"])
    assert result == [(b"row05", {b"a:x": b"x5"}), (b"row02", {b"a:x": b"x2"})]


def test_cells_at_a_timestamp(table: happybase.Table) -> None:
    table.put(b"row01", {b"a:x": b"v200"}, timestamp=200)
    table.put(b"row01", {b"a:x": b"v300"}, timestamp=300)
    assert table.cells(b"row01", b"a:x", versions=3, timestamp=300) == [b"v200", b"x1"]
    assert table.cells(b"row01", b"a:x", versions=1, timestamp=300) == [b"v200"]


def test_scan_start_is_inclusive_and_stop_exclusive(table: happybase.Table) -> None:
    rows = [r for r, _ in table.scan(row_start=b"row03", row_stop=b"row06")]
    assert rows == [b"row03", b"row04", b"row05"]


def test_scan_between_existing_keys(table: happybase.Table) -> None:
    rows = [r for r, _ in table.scan(row_start=b"row03a", row_stop=b"row05a")]
    assert rows == [b"row04", b"row05"]


def test_scan_by_row_prefix(table: happybase.Table) -> None:
    table.put(b"row1", {b"a:x": b"short"})
    rows = [r for r, _ in table.scan(row_prefix=b"row0")]
    assert rows == [b"row%02d" % i for i in range(10)]


def test_scan_prefix_ending_in_0xff(conn: happybase.Connection) -> None:
    conn.create_table("ff", {"c": dict()})
    t = conn.table("ff")
    keys = [b"a\xfe\xff", b"a\xff", b"a\xff\x00", b"a\xff\xff", b"a\xff\xff\x01", b"b"]
    for key in keys:
        t.put(key, {b"c:q": b"1"})
    assert [r for r, _ in t.scan(row_prefix=b"a\xff")] == [
        b"a\xff",
        b"a\xff\x00",
        b"a\xff\xff",
        b"a\xff\xff\x01",
    ]
    assert [r for r, _ in t.scan(row_prefix=b"a\xff\xff")] == [b"a\xff\xff", b"a\xff\xff\x01"]


def test_scan_columns(table: happybase.Table) -> None:
    first = next(table.scan(columns=[b"b"]))
    assert first == (b"row00", {b"b:z": b"z0"})
    first = next(table.scan(columns=[b"a:y", b"b:z"]))
    assert first == (b"row00", {b"a:y": b"y0", b"b:z": b"z0"})


def test_scan_at_a_timestamp(table: happybase.Table) -> None:
    table.put(b"row03", {b"a:x": b"later"}, timestamp=500)
    table.put(b"row11", {b"a:x": b"only-later"}, timestamp=500)
    rows = dict(table.scan(columns=[b"a:x"], timestamp=500))
    assert rows[b"row03"] == {b"a:x": b"x3"}
    assert b"row11" not in rows


def test_reverse_scan(table: happybase.Table) -> None:
    rows = [r for r, _ in table.scan(reverse=True)]
    assert rows == [b"row%02d" % i for i in reversed(range(10))]
    # Reversed: start is the high bound (inclusive), stop the low one (exclusive).
    rows = [r for r, _ in table.scan(row_start=b"row06", row_stop=b"row03", reverse=True)]
    assert rows == [b"row06", b"row05", b"row04"]
    rows = [r for r, _ in table.scan(row_start=b"row06a", row_stop=b"row03a", reverse=True)]
    assert rows == [b"row06", b"row05", b"row04"]


def test_reverse_scan_returns_whole_rows(table: happybase.Table) -> None:
    row, data = next(table.scan(reverse=True))
    assert row == b"row09"
    assert data == {b"a:x": b"x9", b"a:y": b"y9", b"b:z": b"z9"}


def test_scan_limit_and_small_batches(table: happybase.Table) -> None:
    assert [r for r, _ in table.scan(limit=3)] == [b"row00", b"row01", b"row02"]
    assert len(list(table.scan(batch_size=1))) == 10
    assert len(list(table.scan(batch_size=3, limit=7))) == 7


def test_scan_batching_splits_wide_rows(table: happybase.Table) -> None:
    parts = list(table.scan(row_prefix=b"row01", scan_batching=2))
    assert parts == [
        (b"row01", {b"a:x": b"x1", b"a:y": b"y1"}),
        (b"row01", {b"b:z": b"z1"}),
    ]


def test_scan_include_timestamp(table: happybase.Table) -> None:
    _, data = next(table.scan(columns=[b"a:x"], include_timestamp=True))
    assert data == {b"a:x": (b"x0", 100)}


def test_scan_skips_rows_with_no_selected_cells(table: happybase.Table) -> None:
    table.put(b"row05x", {b"b:z": b"only-b"})
    rows = [r for r, _ in table.scan(columns=[b"a"])]
    assert b"row05x" not in rows
    assert len(rows) == 10


def test_scan_of_an_empty_range(table: happybase.Table) -> None:
    assert list(table.scan(row_start=b"zzz")) == []
    assert list(table.scan(row_prefix=b"nothing")) == []
