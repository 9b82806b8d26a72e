"""A call cut short by the next one on the socket, as a client leaves it that
failed half way through writing a call and sent the next: HBase's Thrift
servers read the next call's header as the cut call's next field, refuse it
with ``TApplicationException: Unrecognized type -128`` (PROTOCOL_ERROR, the
cut call's name and sequence id), run neither call, and answer nothing more
on that connection, as they are left reading inside the next call.

The bytes are built by hand here (thriftpy2 encodes each call whole, then cut
where a client's encoder would have failed), and sent on a raw socket.
"""

from __future__ import annotations

import socket
from typing import Any

import happybase
import Hbase_thrift as hb
import pytest
from thriftpy2.protocol import TCyBinaryProtocolFactory
from thriftpy2.thrift import TApplicationException, TMessageType
from thriftpy2.transport import TCyMemoryBuffer

from hbasethrift.thrift2 import T2
from tests.helpers import ServerAddr

_PROTOCOL = TCyBinaryProtocolFactory()
QUIET_S = 1.0  # how long a server that answers nothing more is given


def _call(service: Any, name: str, seqid: int, **args: Any) -> bytes:
    """The call's bytes, whole, as thriftpy2's client writes them."""
    out = TCyMemoryBuffer()
    proto = _PROTOCOL.get_protocol(out)
    proto.write_message_begin(name, TMessageType.CALL, seqid)
    proto.write_struct(getattr(service, name + "_args")(**args))
    proto.write_message_end()
    return bytes(out.getvalue())


def _exchange(port: int, host: str, cut: bytes, after: bytes) -> bytes:
    """Send ``cut`` then ``after`` on a new connection, then ``after`` again;
    return every byte the server sent until it had been quiet ``QUIET_S``."""
    received = bytearray()
    with socket.create_connection((host, port)) as sock:
        sock.settimeout(QUIET_S)
        for data in (cut + after, after):
            sock.sendall(data)
            try:
                while chunk := sock.recv(65536):
                    received += chunk
            except TimeoutError:
                continue
            break  # the server closed the connection
    return bytes(received)


def _refusal(reply: bytes) -> tuple[str, int, int, str | None, int]:
    """The one message in ``reply``: (name, type, seqid, message, error type)."""
    buf = TCyMemoryBuffer(reply)
    proto = _PROTOCOL.get_protocol(buf)
    name, mtype, seqid = proto.read_message_begin()
    error = TApplicationException()
    proto.read_struct(error)
    assert buf.read(1) == b"", "one message only"
    return name, mtype, seqid, error.message, error.type


def test_thrift1_call_cut_before_its_end_is_refused_and_not_run(
    server: ServerAddr, conn: happybase.Connection
) -> None:
    conn.create_table("t", {"a": dict()})
    mutation = hb.Mutation(column=b"a:q", value=b"v", isDelete=False, writeToWAL=True)
    whole = _call(
        hb.Hbase,
        "mutateRow",
        41,
        tableName=conn._table_name("t"),
        row=b"r",
        mutations=[mutation],
        attributes={},
    )
    # Every field written, the call's end (its STOP byte) not.
    cut = whole[:-1]
    after = _call(hb.Hbase, "getTableNames", 42)
    reply = _exchange(server.port, server.host, cut, after)
    assert _refusal(reply) == (
        "mutateRow",
        TMessageType.EXCEPTION,
        41,
        "Unrecognized type -128",
        TApplicationException.PROTOCOL_ERROR,
    )
    assert conn.table("t").row(b"r") == {}


def test_thrift1_batch_cut_before_its_end_is_refused_and_not_run(
    server: ServerAddr, conn: happybase.Connection
) -> None:
    conn.create_table("t", {"a": dict()})
    batch = hb.BatchMutation(
        row=b"r", mutations=[hb.Mutation(column=b"a:q", value=b"v", isDelete=False)]
    )
    whole = _call(
        hb.Hbase,
        "mutateRows",
        7,
        tableName=conn._table_name("t"),
        rowBatches=[batch],
        attributes={},
    )
    reply = _exchange(server.port, server.host, whole[:-1], _call(hb.Hbase, "getTableNames", 8))
    assert _refusal(reply)[2:] == (7, "Unrecognized type -128", 7)
    assert conn.table("t").row(b"r") == {}


def test_thrift2_put_cut_inside_its_cells_is_refused_and_not_run(
    server: ServerAddr, conn: happybase.Connection, t2: Any
) -> None:
    conn.create_table("t", {"a": dict()})
    table = conn._table_name("t")
    cell = T2.TColumnValue(b"a", b"q", b"v")
    whole = _call(
        T2.THBaseService,
        "put",
        3,
        table=table,
        tput=T2.TPut(row=b"r", columnValues=[cell]),
    )
    # A client whose encoder failed at the second of two cells: the list says
    # two, the first is written whole, and the put and the call not ended.
    one = b"\x0f\x00\x02\x0c\x00\x00\x00\x01"
    assert whole.count(one) == 1
    cut = whole.replace(one, one[:-1] + b"\x02")[:-2]
    after = _call(T2.THBaseService, "tableExists", 4, tableName=T2.TTableName(b"default", table))
    reply = _exchange(server.thrift2_port, server.host, cut, after)
    assert _refusal(reply) == (
        "put",
        TMessageType.EXCEPTION,
        3,
        "Unrecognized type -128",
        TApplicationException.PROTOCOL_ERROR,
    )
    assert t2.get(table, T2.TGet(row=b"r")).columnValues == []


def test_a_whole_call_sent_with_the_next_is_answered_as_usual(
    server: ServerAddr, conn: happybase.Connection
) -> None:
    """A client that sends two whole calls without waiting gets both answers:
    the look for a cut call refuses only what HBase refuses."""
    conn.create_table("t", {"a": dict()})
    mutation = hb.Mutation(column=b"a:q", value=b"v", isDelete=False, writeToWAL=True)
    first = _call(
        hb.Hbase,
        "mutateRow",
        1,
        tableName=conn._table_name("t"),
        row=b"r",
        mutations=[mutation],
        attributes={},
    )
    received = bytearray()
    with socket.create_connection((server.host, server.port)) as sock:
        sock.settimeout(QUIET_S)
        sock.sendall(first + _call(hb.Hbase, "getTableNames", 2))
        with pytest.raises(TimeoutError):
            while chunk := sock.recv(65536):
                received += chunk
    buf = TCyMemoryBuffer(bytes(received))
    proto = _PROTOCOL.get_protocol(buf)
    replies = []
    for service_result in (hb.Hbase.mutateRow_result, hb.Hbase.getTableNames_result):
        name, mtype, seqid = proto.read_message_begin()
        proto.read_struct(service_result())
        replies.append((name, mtype, seqid))
    assert replies == [
        ("mutateRow", TMessageType.REPLY, 1),
        ("getTableNames", TMessageType.REPLY, 2),
    ]
    assert conn.table("t").row(b"r") == {b"a:q": b"v"}


# Calls the local server answers from their bytes (its compiled paths), cut
# the same way: refused alike, before anything looks for their table.
FAST_CALLS = {
    "getRow": dict(tableName=b"t", row=b"r", attributes={}),
    "scannerOpenWithScan": dict(tableName=b"t", scan=hb.TScan(startRow=b"a"), attributes={}),
    "mutateRowsTs": dict(
        tableName=b"t",
        rowBatches=[hb.BatchMutation(row=b"r", mutations=[hb.Mutation(column=b"a:q", value=b"v")])],
        timestamp=5,
        attributes={},
    ),
}


@pytest.mark.parametrize("name", list(FAST_CALLS))
def test_calls_read_from_their_bytes_are_refused_alike(server: ServerAddr, name: str) -> None:
    cut = _call(hb.Hbase, name, 5, **FAST_CALLS[name])[:-1]
    reply = _exchange(server.port, server.host, cut, _call(hb.Hbase, "getTableNames", 6))
    assert _refusal(reply) == (
        name,
        TMessageType.EXCEPTION,
        5,
        "Unrecognized type -128",
        TApplicationException.PROTOCOL_ERROR,
    )
