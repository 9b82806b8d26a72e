"""The calls of HBase 2.6's Thrift1 IDL that happybase's older IDL lacks, made
by a client built from our copy of HBase's IDL (tests/localhbase/test_idl.py
holds it to the jar's): the same answers from both servers."""

from __future__ import annotations

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

from localhbase.server import IDL
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
