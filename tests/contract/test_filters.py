"""HBase filter strings, evaluated by the server."""

from __future__ import annotations

import happybase
import pytest
from thriftpy2.thrift import TApplicationException


@pytest.fixture
def table(conn: happybase.Connection) -> happybase.Table:
    conn.create_table("t", {"info": dict(), "s": dict()})
    t = conn.table("t")
    t.put(b"alice", {b"info:name": b"Alice Smith", b"info:city": b"Berlin", b"s:n": b"3"})
    t.put(b"alfred", {b"info:name": b"Alfred", b"info:city": b"Paris"})
    t.put(b"bob", {b"info:name": b"Bob", b"info:city": b"berlin", b"s:n": b"5"})
    t.put(b"carol", {b"info:name": b"Carol", b"s:n": b"7"})
    return t


def rows(table: happybase.Table, flt: str, **kwargs: object) -> dict[bytes, dict[bytes, bytes]]:
    return dict(table.scan(filter=flt, **kwargs))


def test_prefix_filter(table: happybase.Table) -> None:
    assert list(rows(table, "PrefixFilter('al')")) == [b"alfred", b"alice"]


def test_key_only_filter_strips_values(table: happybase.Table) -> None:
    result = rows(table, "KeyOnlyFilter()")
    assert result[b"bob"] == {b"info:city": b"", b"info:name": b"", b"s:n": b""}


def test_first_key_only_filter_returns_first_cell(table: happybase.Table) -> None:
    result = rows(table, "FirstKeyOnlyFilter()")
    assert result == {
        b"alfred": {b"info:city": b"Paris"},
        b"alice": {b"info:city": b"Berlin"},
        b"bob": {b"info:city": b"berlin"},
        b"carol": {b"info:name": b"Carol"},
    }


def test_first_key_only_filter_gives_the_first_cell_a_read_would_see(
    table: happybase.Table,
) -> None:
    """The local server stops reading a row at its first visible cell (as
    HBase's FirstKeyOnlyFilter answers NEXT_ROW): deleted cells, versions
    past the time range and families not asked for are not that cell."""
    table.delete(b"alice", columns=[b"info:city"])  # the first cell, deleted
    table.delete(b"carol")  # a row with no cell left
    table.put(b"dave", {b"info:city": b"Old"}, timestamp=10)
    table.put(b"dave", {b"info:city": b"New"}, timestamp=20)
    table.put(b"dave", {b"info:name": b"Dave"}, timestamp=15)
    assert rows(table, "FirstKeyOnlyFilter()") == {
        b"alfred": {b"info:city": b"Paris"},
        b"alice": {b"info:name": b"Alice Smith"},
        b"bob": {b"info:city": b"berlin"},
        b"dave": {b"info:city": b"New"},
    }
    assert rows(table, "FirstKeyOnlyFilter()", row_start=b"dave", timestamp=12) == {
        b"dave": {b"info:city": b"Old"}
    }
    assert rows(table, "FirstKeyOnlyFilter()", columns=[b"s"]) == {
        b"alice": {b"s:n": b"3"},
        b"bob": {b"s:n": b"5"},
    }
    both = "KeyOnlyFilter() AND FirstKeyOnlyFilter()"
    # One row per call of the scanner, and reversed: the same rows.
    assert list(table.scan(filter=both, batch_size=1)) == [
        (b"alfred", {b"info:city": b""}),
        (b"alice", {b"info:name": b""}),
        (b"bob", {b"info:city": b""}),
        (b"dave", {b"info:city": b""}),
    ]
    assert [key for key, _ in table.scan(filter=both, reverse=True)] == [
        b"dave",
        b"bob",
        b"alice",
        b"alfred",
    ]


def test_column_prefix_filter(table: happybase.Table) -> None:
    result = rows(table, "ColumnPrefixFilter('na')")
    assert result[b"alice"] == {b"info:name": b"Alice Smith"}
    assert len(result) == 4


def test_page_filter(table: happybase.Table) -> None:
    assert list(rows(table, "PageFilter(2)")) == [b"alfred", b"alice"]
    assert list(rows(table, "PageFilter(2)", row_start=b"b")) == [b"bob", b"carol"]


def test_single_column_value_filter(table: happybase.Table) -> None:
    flt = "SingleColumnValueFilter('info', 'city', =, 'binary:Berlin')"
    # Rows without the column pass unless filterIfMissing is true.
    assert list(rows(table, flt)) == [b"alice", b"carol"]
    flt = "SingleColumnValueFilter('info', 'city', =, 'binary:Berlin', true, true)"
    assert list(rows(table, flt)) == [b"alice"]
    assert rows(table, flt)[b"alice"][b"s:n"] == b"3"


def test_value_filter_comparators(table: happybase.Table) -> None:
    assert rows(table, "ValueFilter(=, 'binary:Bob')") == {b"bob": {b"info:name": b"Bob"}}
    assert list(rows(table, "ValueFilter(=, 'binaryprefix:Al')")) == [b"alfred", b"alice"]
    # HBase's substring comparator ignores case.
    assert rows(table, "ValueFilter(=, 'substring:BERLIN')") == {
        b"alice": {b"info:city": b"Berlin"},
        b"bob": {b"info:city": b"berlin"},
    }
    flt = "ValueFilter(>, 'binary:6') AND QualifierFilter(=, 'binary:n')"
    assert rows(table, flt) == {b"carol": {b"s:n": b"7"}}
    assert rows(table, "ValueFilter(<=, 'binary:5')") == {
        b"alice": {b"s:n": b"3"},
        b"bob": {b"s:n": b"5"},
    }


def test_qualifier_and_row_filters(table: happybase.Table) -> None:
    assert rows(table, "QualifierFilter(=, 'binary:n')") == {
        b"alice": {b"s:n": b"3"},
        b"bob": {b"s:n": b"5"},
        b"carol": {b"s:n": b"7"},
    }
    assert list(rows(table, "RowFilter(>=, 'binary:bob')")) == [b"bob", b"carol"]
    assert list(rows(table, "RowFilter(!=, 'binary:bob')")) == [b"alfred", b"alice", b"carol"]
    assert list(rows(table, "RowFilter(=, 'substring:LI')")) == [b"alice"]


def test_and_or_combinations(table: happybase.Table) -> None:
    flt = "PrefixFilter('al') AND ColumnPrefixFilter('ci')"
    assert rows(table, flt) == {
        b"alfred": {b"info:city": b"Paris"},
        b"alice": {b"info:city": b"Berlin"},
    }
    flt = "RowFilter(=, 'binary:bob') OR RowFilter(=, 'binary:carol')"
    assert list(rows(table, flt)) == [b"bob", b"carol"]
    flt = "(PrefixFilter('al') OR PrefixFilter('c')) AND KeyOnlyFilter()"
    assert rows(table, flt)[b"carol"] == {b"info:name": b"", b"s:n": b""}
    assert list(rows(table, flt)) == [b"alfred", b"alice", b"carol"]


def test_quoted_quotes_in_filter_arguments(table: happybase.Table) -> None:
    table.put(b"o'neil", {b"info:name": b"O'Neil"})
    assert list(rows(table, "PrefixFilter('o''n')")) == [b"o'neil"]


@pytest.mark.parametrize(
    "flt",
    [
        "NoSuchFilter('x')",
        "PrefixFilter('unclosed'",
        "PrefixFilter('a') AND",
        "ValueFilter(=, 'nosuchcomparator:x')",
        "ValueFilter(<, 'substring:x')",
    ],
)
def test_a_bad_filter_is_an_error_and_the_server_goes_on(table: happybase.Table, flt: str) -> None:
    # HBase's parser throws a Java runtime exception, which its Thrift server
    # sends as TApplicationException (INTERNAL_ERROR), not as IOError.
    with pytest.raises(TApplicationException) as err:
        list(table.scan(filter=flt))
    assert err.value.type == TApplicationException.INTERNAL_ERROR
    assert table.row(b"bob")[b"info:name"] == b"Bob"


def test_a_filter_sees_the_older_versions_a_family_keeps(conn: happybase.Connection) -> None:
    """A scan returns one version of each column, but HBase's filter sees
    every version the family keeps: the newest it lets through is returned."""
    conn.create_table("v", {"a": dict(max_versions=3)})
    t = conn.table("v")
    for ts, value in ((10, b"old"), (20, b"new"), (30, b"newest")):
        t.put(b"r", {b"a:q": value, b"a:other": value + b"!"}, timestamp=ts)
    assert rows(t, "ValueFilter(=, 'binary:old')") == {b"r": {b"a:q": b"old"}}
    assert rows(t, "ValueFilter(!=, 'binary:newest')") == {
        b"r": {b"a:other": b"newest!", b"a:q": b"new"}
    }
    assert rows(t, "QualifierFilter(=, 'binary:q') AND ValueFilter(=, 'substring:ew')") == {
        b"r": {b"a:q": b"newest"}
    }
    # A timestamp caps what the filter sees: nothing from 20 on.
    assert rows(t, "ValueFilter(=, 'substring:new')", timestamp=20) == {}
    assert rows(t, "ValueFilter(=, 'binary:old')", timestamp=20) == {b"r": {b"a:q": b"old"}}
