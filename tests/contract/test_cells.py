"""Cell order, timestamps, versions and deletes."""

from __future__ import annotations

import time

import happybase
import pytest


@pytest.fixture
def table(conn: happybase.Connection) -> happybase.Table:
    conn.create_table("t", {"a": dict(max_versions=3), "b": dict(max_versions=1)})
    return conn.table("t")


def test_rows_come_back_in_byte_order(table: happybase.Table) -> None:
    keys = [b"\xff", b"\x00", b"a", b"a\x00", b"ab", b"B", b"\x00\x00", b"a\xff", b"\x01"]
    for key in keys:
        table.put(key, {b"a:q": b"1"})
    assert [row for row, _ in table.scan()] == sorted(keys)


def test_columns_sort_by_family_then_qualifier(table: happybase.Table) -> None:
    table.put(b"r", {b"b:z": b"1", b"a:y": b"2", b"a:x\x00": b"3", b"a:x": b"4", b"b:": b"5"})
    ((_, row),) = list(table.scan(sorted_columns=True))
    assert list(row) == [b"a:x", b"a:x\x00", b"a:y", b"b:", b"b:z"]


def test_explicit_timestamps_are_kept(table: happybase.Table) -> None:
    table.put(b"r", {b"a:q": b"old"}, timestamp=1000)
    assert table.row(b"r", include_timestamp=True) == {b"a:q": (b"old", 1000)}


def test_server_assigns_current_time_when_no_timestamp(table: happybase.Table) -> None:
    before = int(time.time() * 1000)
    table.put(b"r", {b"a:q": b"v"})
    after = int(time.time() * 1000)
    _, ts = table.row(b"r", include_timestamp=True)[b"a:q"]
    assert before - 1000 <= ts <= after + 1000


def test_versions_are_kept_up_to_max_versions_newest_first(table: happybase.Table) -> None:
    for ts in range(1, 6):
        table.put(b"r", {b"a:q": b"v%d" % ts, b"b:q": b"w%d" % ts}, timestamp=ts)
    assert table.cells(b"r", b"a:q", versions=10, include_timestamp=True) == [
        (b"v5", 5),
        (b"v4", 4),
        (b"v3", 3),
    ]
    assert table.cells(b"r", b"a:q", versions=2) == [b"v5", b"v4"]
    assert table.cells(b"r", b"b:q", versions=10) == [b"w5"]
    assert table.row(b"r") == {b"a:q": b"v5", b"b:q": b"w5"}


def test_a_put_at_the_same_timestamp_overwrites(table: happybase.Table) -> None:
    table.put(b"r", {b"a:q": b"first"}, timestamp=7)
    table.put(b"r", {b"a:q": b"second"}, timestamp=7)
    assert table.cells(b"r", b"a:q", versions=3, include_timestamp=True) == [(b"second", 7)]


def test_an_older_timestamp_does_not_hide_a_newer_one(table: happybase.Table) -> None:
    table.put(b"r", {b"a:q": b"new"}, timestamp=20)
    table.put(b"r", {b"a:q": b"old"}, timestamp=10)
    assert table.row(b"r") == {b"a:q": b"new"}


def test_deleting_a_column_removes_all_its_versions(table: happybase.Table) -> None:
    for ts in (1, 2, 3):
        table.put(b"r", {b"a:q": b"v", b"a:other": b"o"}, timestamp=ts)
    table.delete(b"r", columns=[b"a:q"])
    assert table.cells(b"r", b"a:q", versions=5) == []
    assert table.row(b"r") == {b"a:other": b"o"}


def test_deleting_a_column_at_a_timestamp_removes_versions_up_to_it(table: happybase.Table) -> None:
    for ts in (10, 20, 30):
        table.put(b"r", {b"a:q": b"v%d" % ts}, timestamp=ts)
    table.delete(b"r", columns=[b"a:q"], timestamp=20)
    assert table.cells(b"r", b"a:q", versions=5, include_timestamp=True) == [(b"v30", 30)]


def test_deleting_a_family_leaves_other_families(table: happybase.Table) -> None:
    table.put(b"r", {b"a:x": b"1", b"a:y": b"2", b"b:z": b"3"})
    table.delete(b"r", columns=[b"a"])
    assert table.row(b"r") == {b"b:z": b"3"}


def test_deleting_a_row_removes_every_cell(table: happybase.Table) -> None:
    table.put(b"r", {b"a:x": b"1", b"b:z": b"3"})
    table.put(b"other", {b"a:x": b"1"})
    table.delete(b"r")
    assert table.row(b"r") == {}
    assert table.row(b"other") == {b"a:x": b"1"}


def test_deleting_a_row_at_a_timestamp_keeps_newer_cells(table: happybase.Table) -> None:
    table.put(b"r", {b"a:x": b"old"}, timestamp=10)
    table.put(b"r", {b"a:y": b"new"}, timestamp=30)
    table.delete(b"r", timestamp=20)
    assert table.row(b"r") == {b"a:y": b"new"}


def test_a_delete_masks_a_later_put_with_an_older_timestamp(table: happybase.Table) -> None:
    # HBase's delete markers hide every cell at or below their timestamp,
    # including cells written afterwards with such a timestamp.
    table.put(b"r", {b"a:q": b"v"}, timestamp=10)
    table.delete(b"r", columns=[b"a:q"], timestamp=50)
    table.put(b"r", {b"a:q": b"late"}, timestamp=40)
    table.put(b"r", {b"a:q": b"newer"}, timestamp=60)
    assert table.cells(b"r", b"a:q", versions=5, include_timestamp=True) == [(b"newer", 60)]


def test_batch_mixes_puts_and_deletes_across_rows(table: happybase.Table) -> None:
    table.put(b"r2", {b"a:x": b"1", b"a:y": b"2"})
    with table.batch() as batch:
        batch.put(b"r1", {b"a:x": b"1"})
        batch.put(b"r3", {b"a:x": b"3"})
        batch.delete(b"r2", columns=[b"a:x"])
    assert dict(table.scan()) == {
        b"r1": {b"a:x": b"1"},
        b"r2": {b"a:y": b"2"},
        b"r3": {b"a:x": b"3"},
    }


def test_batch_with_timestamp_applies_it_to_every_put(table: happybase.Table) -> None:
    with table.batch(timestamp=123) as batch:
        batch.put(b"r1", {b"a:x": b"1"})
        batch.put(b"r2", {b"a:x": b"2"})
    assert table.row(b"r1", include_timestamp=True) == {b"a:x": (b"1", 123)}
    assert table.row(b"r2", include_timestamp=True) == {b"a:x": (b"2", 123)}


def test_a_batch_with_timestamp_deletes_up_to_it_and_hides_later_older_puts(
    table: happybase.Table,
) -> None:
    """What an edit's move of a twit's words rows relies on
    (feeds/services/tagindex.py, move_tag_rows): Thrift1's mutateRowsTs
    deletes a row's cells at or below its timestamp, keeps newer ones, and
    its markers hide a put that arrives later with an older timestamp."""
    table.put(b"old", {b"a:x": b"1"}, timestamp=10)
    table.put(b"newer", {b"a:x": b"2"}, timestamp=30)
    with table.batch(timestamp=20) as batch:
        batch.delete(b"old")
        batch.delete(b"newer")
        batch.delete(b"late")
    table.put(b"late", {b"a:x": b"3"}, timestamp=15)
    assert dict(table.scan(include_timestamp=True)) == {b"newer": {b"a:x": (b"2", 30)}}


def test_empty_and_binary_values_round_trip(table: happybase.Table) -> None:
    value = bytes(range(256))
    table.put(b"r", {b"a:empty": b"", b"a:bin": value})
    assert table.row(b"r") == {b"a:empty": b"", b"a:bin": value}


def test_time_to_live_hides_expired_cells(conn: happybase.Connection) -> None:
    conn.create_table("ttl", {"c": dict(time_to_live=2)})
    table = conn.table("ttl")
    now = int(time.time() * 1000)
    table.put(b"old", {b"c:q": b"x"}, timestamp=now - 60_000)
    table.put(b"fresh", {b"c:q": b"y"})
    assert table.row(b"old") == {}
    assert [row for row, _ in table.scan()] == [b"fresh"]


def test_append_extends_the_latest_value(table: happybase.Table) -> None:
    from Hbase_thrift import TAppend  # type: ignore[import-not-found]

    table.put(b"r", {b"a:q": b"hello"})
    client = table.connection.client
    cells = client.append(
        TAppend(table=table.name, row=b"r", columns=[b"a:q", b"a:new"], values=[b" world", b"x"])
    )
    assert sorted(c.value for c in cells) == [b"hello world", b"x"]
    assert table.row(b"r") == {b"a:q": b"hello world", b"a:new": b"x"}
