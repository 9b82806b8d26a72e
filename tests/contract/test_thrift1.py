"""The calls of HBase 2.6's Thrift1 IDL that happybase's older IDL lacks, made
by a client built from our copy of HBase's IDL (tests/localhbase/test_idl.py
holds it to the jar's): the same answers from both servers."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from typing import Any

import happybase
import pytest
import thriftpy2
from thriftpy2.protocol import TBinaryProtocolFactory
from thriftpy2.rpc import make_client
from thriftpy2.thrift import TApplicationException
from thriftpy2.transport import TBufferedTransportFactory

from hbasethrift import HBASE1_IDL as IDL
from tests.helpers import ServerAddr

H = thriftpy2.load(str(IDL), module_name="contract_hbase1_thrift")


def _client(server: ServerAddr) -> Any:
    return make_client(
        H.Hbase,
        server.host,
        server.port,
        trans_factory=TBufferedTransportFactory(),
        proto_factory=TBinaryProtocolFactory(),
        timeout=60_000,
    )


@pytest.fixture
def client(server: ServerAddr) -> Iterator[Any]:
    c = _client(server)
    try:
        yield c
    finally:
        c.close()


def _prefixed(conn: happybase.Connection, name: str) -> bytes:
    return conn.table_prefix + b"_" + name.encode()


def test_table_names_with_is_table_enabled(conn: happybase.Connection, client: Any) -> None:
    conn.create_table("on", {"cf": dict()})
    conn.create_table("off", {"cf": dict()})
    conn.disable_table("off")

    mine = {
        name: enabled
        for name, enabled in client.getTableNamesWithIsTableEnabled().items()
        if name.startswith(conn.table_prefix + b"_")
    }
    assert mine == {_prefixed(conn, "on"): True, _prefixed(conn, "off"): False}


def test_thrift_server_type_is_one(client: Any) -> None:
    assert client.getThriftServerType() == H.TThriftServerType.ONE


def test_cluster_id_is_a_stable_uuid(server: ServerAddr, client: Any) -> None:
    cluster_id = client.getClusterId()
    assert str(uuid.UUID(cluster_id)) == cluster_id
    assert client.getClusterId() == cluster_id
    other = _client(server)
    try:
        assert other.getClusterId() == cluster_id
    finally:
        other.close()


def test_get_row_or_before_is_an_unknown_method(conn: happybase.Connection) -> None:
    """HBase 2.6 dropped it from its IDL; happybase's older IDL still has it."""
    conn.create_table("t", {"cf": dict()})
    with pytest.raises(TApplicationException) as err:
        conn.client.getRowOrBefore(_prefixed(conn, "t"), b"r", b"cf")
    assert err.value.type == TApplicationException.UNKNOWN_METHOD
    assert err.value.message == b"Invalid method name: 'getRowOrBefore'"
    # The connection goes on serving.
    assert conn.tables() == [b"t"]


def test_io_error_says_whether_a_retry_may_help(conn: happybase.Connection, client: Any) -> None:
    conn.create_table("t", {"cf": dict()})
    table = _prefixed(conn, "t")
    with pytest.raises(H.IOError) as err:
        client.getRow(_prefixed(conn, "missing"), b"r", {})
    assert err.value.message.startswith("org.apache.hadoop.hbase.TableNotFoundException")
    assert err.value.canRetry is False
    with pytest.raises(H.IOError) as err:
        client.getRowWithColumns(table, b"r", [b"nope:q"], {})
    assert "NoSuchColumnFamilyException" in err.value.message
    assert err.value.canRetry is False


def test_scan_with_cache_blocks_is_accepted(conn: happybase.Connection, client: Any) -> None:
    conn.create_table("t", {"cf": dict()})
    conn.table("t").put(b"r1", {b"cf:q": b"v"})
    scan = H.TScan(startRow=b"", cacheBlocks=False)
    sid = client.scannerOpenWithScan(_prefixed(conn, "t"), scan, {})
    rows = client.scannerGetList(sid, 10)
    client.scannerClose(sid)
    assert [(r.row, {c: cell.value for c, cell in r.columns.items()}) for r in rows] == [
        (b"r1", {b"cf:q": b"v"})
    ]


def _refusal(call: Any) -> tuple[str, bool | None]:
    with pytest.raises(H.IOError) as err:
        call()
    return err.value.message.splitlines()[0], err.value.canRetry


def test_table_ddl_refusals_in_hbases_words(conn: happybase.Connection, client: Any) -> None:
    conn.create_table("t", {"cf": dict()})
    t = _prefixed(conn, "t")
    name = t.decode()
    missing = _prefixed(conn, "missing")
    hb = "org.apache.hadoop.hbase."

    assert _refusal(lambda: client.enableTable(t)) == (
        f"{hb}TableNotDisabledException: tableName={name}, state=ENABLED",
        False,
    )
    assert _refusal(lambda: client.deleteTable(t)) == (
        f"{hb}TableNotDisabledException: {hb}TableNotDisabledException: "
        f"Not DISABLED; tableName={name}, state=ENABLED",
        False,
    )
    client.disableTable(t)
    assert _refusal(lambda: client.disableTable(t)) == (
        f"{hb}TableNotEnabledException: {hb}TableNotEnabledException: {name}",
        False,
    )
    assert _refusal(lambda: client.disableTable(missing)) == (
        f"{hb}TableNotFoundException: {hb}TableNotFoundException: {missing.decode()}",
        False,
    )
    client.deleteTable(t)
    assert _refusal(lambda: client.deleteTable(t)) == (
        "java.io.IOException: table does not exist",
        True,
    )


def test_a_missing_table_has_no_regions(conn: happybase.Connection, client: Any) -> None:
    assert client.getTableRegions(_prefixed(conn, "missing")) == []


def test_versions_must_be_positive(conn: happybase.Connection, client: Any) -> None:
    conn.create_table("t", {"cf": dict()})
    t = _prefixed(conn, "t")
    assert _refusal(lambda: client.getVer(t, b"r", b"cf:a", 0, {})) == (
        "java.io.IOException: versions must be positive",
        True,
    )
    assert _refusal(lambda: client.getVerTs(t, b"r", b"cf:a", 5, -1, {})) == (
        "java.io.IOException: versions must be positive",
        True,
    )


def test_mutate_row_refuses_an_empty_row_as_illegal_argument(
    conn: happybase.Connection, client: Any
) -> None:
    conn.create_table("t", {"cf": dict()})
    t = _prefixed(conn, "t")
    put = [H.Mutation(column=b"cf:a", value=b"1")]
    for call in (
        lambda: client.mutateRow(t, b"", put, {}),
        lambda: client.mutateRowTs(t, b"", put, 5, {}),
    ):
        with pytest.raises(H.IllegalArgument) as err:
            call()
        # HBase's message goes on with the Java stack trace.
        first_line = err.value.message.splitlines()[0]
        assert first_line == "java.lang.IllegalArgumentException: Row length is 0"
    # mutateRows lets the Java exception through instead.
    with pytest.raises(TApplicationException) as app_err:
        client.mutateRows(t, [H.BatchMutation(row=b"", mutations=put)], {})
    assert app_err.value.type == TApplicationException.INTERNAL_ERROR
    scanner = client.scannerOpenWithScan(t, H.TScan(), {})
    assert client.scannerGetList(scanner, 10) == []


def test_reads_increments_and_appends_refuse_an_empty_row_and_write_nothing(
    conn: happybase.Connection, client: Any
) -> None:
    """HBase makes a Get, Increment or Append of the row first, and its
    constructor throws: an internal error, where the local server answered
    a get with no row and wrote an increment's or an append's empty row.
    (atomicIncrement is refused too, after the HBase client's 13 s of
    retries: tests/localhbase/test_empty_row.py.)"""
    conn.create_table("t", {"cf": dict()})
    t = _prefixed(conn, "t")
    refused = {
        "getRow": lambda: client.getRow(t, b"", {}),
        "getRowWithColumns": lambda: client.getRowWithColumns(t, b"", [b"cf:a"], {}),
        "getRowsWithColumnsTs": lambda: client.getRowsWithColumnsTs(t, [b"r", b""], [b"cf"], 5, {}),
        "getVer": lambda: client.getVer(t, b"", b"cf:a", 0, {}),
        "increment": lambda: client.increment(
            H.TIncrement(table=t, row=b"", column=b"cf:n", ammount=1)
        ),
        "append": lambda: client.append(
            H.TAppend(table=t, row=b"", columns=[b"cf:a"], values=[b"z"])
        ),
    }
    for call, refuse in refused.items():
        with pytest.raises(TApplicationException) as err:
            refuse()
        assert err.value.type == TApplicationException.INTERNAL_ERROR
        assert err.value.message.startswith(f"Internal error processing {call}")
    with pytest.raises(H.IllegalArgument) as illegal:
        put = H.Mutation(column=b"cf:a", value=b"1")
        client.checkAndPut(t, b"", b"cf:a", None, put, {})
    assert illegal.value.message.splitlines()[0] == (
        "java.lang.IllegalArgumentException: Row length is 0"
    )
    assert list(conn.table("t").scan()) == []


def test_a_region_is_named_as_hbase_names_it(conn: happybase.Connection, client: Any) -> None:
    conn.create_table("t", {"cf": dict()})
    t = _prefixed(conn, "t")
    (region,) = client.getTableRegions(t)
    plain = t + b",,%d" % region.id
    assert region.name == plain + b"." + hashlib.md5(plain).hexdigest().encode() + b"."
    assert (region.startKey, region.endKey, region.version) == (b"", b"", 1)


def test_create_table_refusals_in_hbases_words(conn: happybase.Connection, client: Any) -> None:
    with pytest.raises(H.IllegalArgument) as err:
        client.createTable(_prefixed(conn, "t"), [H.ColumnDescriptor(name=b"cf:", maxVersions=0)])
    assert err.value.message.splitlines()[0] == (
        "java.lang.IllegalArgumentException: Maximum versions must be positive"
    )
    dnr = "org.apache.hadoop.hbase.DoNotRetryIOException"
    assert _refusal(lambda: client.createTable(_prefixed(conn, "t"), [])) == (
        f"{dnr}: {dnr}: Table should have at least one column family. "
        "Set hbase.table.sanity.checks to false at conf or table descriptor "
        "if you want to bypass sanity checks",
        False,
    )
    assert conn.tables() == []


def test_mutate_rows_writes_the_good_rows_and_reports_the_rest(
    conn: happybase.Connection, client: Any
) -> None:
    conn.create_table("t", {"cf": dict()})
    t = _prefixed(conn, "t")
    bad = [H.Mutation(column=b"nope:a", value=b"1")]
    good = [H.Mutation(column=b"cf:a", value=b"1")]
    batches = [
        H.BatchMutation(row=b"r1", mutations=bad),
        H.BatchMutation(row=b"r2", mutations=good + bad),
        H.BatchMutation(row=b"r3", mutations=good),
    ]
    message, can_retry = _refusal(lambda: client.mutateRows(t, batches, {}))
    assert message.startswith(
        "org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException: Failed 2 actions: "
        "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: "
        "Column family nope does not exist in region "
    )
    assert can_retry is True
    assert dict(conn.table("t").scan()) == {b"r3": {b"cf:a": b"1"}}

    missing = _prefixed(conn, "missing")
    assert _refusal(lambda: client.mutateRows(missing, batches[2:], {})) == (
        "org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException: Failed 1 action: "
        f"{missing.decode()}: 1 time, servers with issues: null",
        True,
    )


def test_region_server_refusals_name_their_class_twice(
    conn: happybase.Connection, client: Any
) -> None:
    conn.create_table("t", {"cf": dict()})
    t = _prefixed(conn, "t")
    client.mutateRow(t, b"r", [H.Mutation(column=b"cf:a", value=b"xy")], {})
    dnr = "org.apache.hadoop.hbase.DoNotRetryIOException"
    assert _refusal(lambda: client.atomicIncrement(t, b"r", b"cf:a", 1)) == (
        f"{dnr}: {dnr}: Field is not a long, it's 2 bytes wide",
        False,
    )
    nsf = "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException"
    message, can_retry = _refusal(
        lambda: client.mutateRow(t, b"r", [H.Mutation(column=b"nope:a", value=b"1")], {})
    )
    assert message.startswith(f"{nsf}: {nsf}: Column family nope does not exist in region ")
    assert can_retry is False


def test_a_scanner_on_a_missing_table_opens_and_fails_on_each_read(
    conn: happybase.Connection, client: Any
) -> None:
    missing = _prefixed(conn, "missing")
    scanner = client.scannerOpenWithScan(missing, H.TScan(), {})
    expected = (f"org.apache.hadoop.hbase.TableNotFoundException: {missing.decode()}", False)
    assert _refusal(lambda: client.scannerGet(scanner)) == expected
    assert _refusal(lambda: client.scannerGetList(scanner, 5)) == expected
    client.scannerClose(scanner)
    with pytest.raises(H.IllegalArgument):
        client.scannerClose(scanner)
