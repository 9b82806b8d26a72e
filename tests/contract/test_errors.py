"""Bad input gets HBase's Thrift errors; the server keeps serving, nothing is lost."""

from __future__ import annotations

import happybase
import pytest
from Hbase_thrift import IllegalArgument, IOError  # type: ignore[import-not-found]
from thriftpy2.thrift import TApplicationException


@pytest.fixture
def table(conn: happybase.Connection) -> happybase.Table:
    conn.create_table("t", {"cf": dict()})
    t = conn.table("t")
    t.put(b"keep", {b"cf:q": b"safe"})
    return t


def test_unknown_table(conn: happybase.Connection, table: happybase.Table) -> None:
    missing = conn.table("missing")
    for call in (
        lambda: missing.row(b"r"),
        lambda: list(missing.scan()),
        lambda: missing.families(),
    ):
        with pytest.raises(IOError) as err:
            call()
        assert b"TableNotFoundException" in err.value.message
    # HBase reports a write to a missing table through its batch machinery
    # (RetriesExhaustedWithDetailsException); an IOError naming the table.
    with pytest.raises(IOError) as err:
        missing.put(b"r", {b"cf:q": b"v"})
    assert b"missing" in err.value.message
    assert table.row(b"keep") == {b"cf:q": b"safe"}


def test_unknown_family_on_write_writes_nothing(table: happybase.Table) -> None:
    with pytest.raises(IOError) as err:
        table.put(b"new", {b"cf:q": b"v", b"nope:q": b"v"})
    assert b"NoSuchColumnFamilyException" in err.value.message
    assert table.row(b"new") == {}
    with pytest.raises(IOError) as err, table.batch() as batch:
        batch.put(b"a", {b"cf:q": b"v"})
        batch.put(b"b", {b"nope:q": b"v"})
    assert b"NoSuchColumnFamilyException" in err.value.message
    assert table.row(b"keep") == {b"cf:q": b"safe"}


def test_unknown_family_on_read(table: happybase.Table) -> None:
    with pytest.raises(IOError) as err:
        table.row(b"keep", columns=[b"nope:q"])
    assert b"NoSuchColumnFamilyException" in err.value.message
    with pytest.raises(IOError):
        list(table.scan(columns=[b"nope"]))


def test_unknown_scanner_id_is_illegal_argument(conn: happybase.Connection) -> None:
    with pytest.raises(IllegalArgument):
        conn.client.scannerGetList(987654, 10)


def test_the_server_keeps_serving_after_errors(
    conn: happybase.Connection, table: happybase.Table
) -> None:
    for _ in range(3):
        with pytest.raises(TApplicationException):
            list(table.scan(filter="Broken("))
        with pytest.raises(IOError):
            conn.table("missing").row(b"r")
    table.put(b"after", {b"cf:q": b"ok"})
    assert dict(table.scan()) == {b"after": {b"cf:q": b"ok"}, b"keep": {b"cf:q": b"safe"}}


def test_an_empty_row_key_is_refused(table: happybase.Table) -> None:
    with pytest.raises(TApplicationException):
        table.put(b"", {b"cf:q": b"v"})
    assert dict(table.scan()) == {b"keep": {b"cf:q": b"safe"}}


def test_a_table_needs_a_column_family(conn: happybase.Connection) -> None:
    with pytest.raises(IOError) as err:
        conn.client.createTable(conn._table_name("empty"), [])
    assert b"at least one column family" in err.value.message
    assert conn.tables() == []


def test_calls_hbase_2_removed_are_unknown_methods(conn: happybase.Connection) -> None:
    conn.create_table("t", {"cf": dict()})
    with pytest.raises(TApplicationException) as err:
        conn.client.getRowOrBefore(conn._table_name("t"), b"r", b"cf")
    assert err.value.type == TApplicationException.UNKNOWN_METHOD
    assert conn.tables() == [b"t"]


def test_disabling_twice_and_enabling_twice(conn: happybase.Connection) -> None:
    conn.create_table("t", {"cf": dict()})
    with pytest.raises(IOError) as err:
        conn.enable_table("t")
    assert b"TableNotDisabledException" in err.value.message
    conn.disable_table("t")
    with pytest.raises(IOError) as err:
        conn.disable_table("t")
    assert b"TableNotEnabledException" in err.value.message
