"""argcheck reads a call's arguments as libthrift does: what it refuses, with
the words HBase 2.6.1's Thrift1 server answered for the same bytes (each case
below was sent to it), and what it leaves to thriftpy2."""

from __future__ import annotations

import struct
from typing import Any

import pytest
from thriftpy2.protocol import TCyBinaryProtocolFactory
from thriftpy2.thrift import TMessageType
from thriftpy2.transport import TCyMemoryBuffer

from hbasethrift.thrift2 import T2
from localhbase.argcheck import Short, refusal
from localhbase.server import T

CALL_HEAD = b"\x80\x01\x00\x01"


def _head(name: bytes, seqid: int) -> bytes:
    return CALL_HEAD + struct.pack(">i", len(name)) + name + struct.pack(">i", seqid)


def _call(service: Any, name: str, seqid: int, **args: Any) -> bytes:
    out = TCyMemoryBuffer()
    proto = TCyBinaryProtocolFactory().get_protocol(out)
    proto.write_message_begin(name, TMessageType.CALL, seqid)
    proto.write_struct(getattr(service, name + "_args")(**args))
    proto.write_message_end()
    return bytes(out.getvalue())


def _why(data: bytes, service: Any = T.Hbase) -> tuple[str, int, str | None, int] | None:
    found = refusal(data, service)
    if found is None:
        return None
    api, seqid, why = found
    return api, seqid, why.message, why.used


def test_a_field_type_thrift_does_not_have_is_refused_after_its_header() -> None:
    head = _head(b"getTableNames", 6)
    # Type 1 (VOID) is no type a field can have: "Unrecognized type 1".
    assert _why(head + struct.pack(">bh", 1, 9) + b"\x00") == (
        "getTableNames",
        6,
        "Unrecognized type 1",
        len(head) + 3,
    )


def test_negative_lengths_are_refused() -> None:
    head = _head(b"getTableNames", 3)
    string = head + struct.pack(">bhi", 11, 9, -5)
    assert _why(string) == ("getTableNames", 3, "Negative length: -5", len(string))
    listed = head + struct.pack(">bhbi", 15, 9, 8, -2) + b"\x00"
    assert _why(listed)[2] == "Negative length: -2"  # type: ignore[index]


def test_a_container_of_a_type_thrift_does_not_have_drops_the_connection() -> None:
    # TBinaryProtocol throws a TTransportException here ("unrecognized type
    # code"), which no processor answers: HBase closed the connection.
    data = _head(b"getTableNames", 4) + struct.pack(">bhBi", 15, 9, 0x80, 1) + b"\x00"
    assert _why(data) == ("getTableNames", 4, None, len(data) - 1)


def test_a_call_cut_short_by_the_next_is_refused_inside_a_nested_struct() -> None:
    cell = T2.TColumnValue(b"a", b"q", b"v")
    whole = _call(T2.THBaseService, "put", 3, table=b"t", tput=T2.TPut(b"r", [cell]))
    one = b"\x0f\x00\x02\x0c\x00\x00\x00\x01"
    cut = whole.replace(one, one[:-1] + b"\x02")[:-2]
    after = _call(T2.THBaseService, "tableExists", 4, tableName=T2.TTableName(b"default", b"t"))
    assert _why(cut + after, T2.THBaseService) == (
        "put",
        3,
        "Unrecognized type -128",
        len(cut) + 3,
    )


def test_whole_calls_are_left_to_thriftpy2() -> None:
    # A value may hold what looks like the next call's header.
    mutation = T.Mutation(column=b"a:q", value=CALL_HEAD * 3, isDelete=False)
    whole = _call(T.Hbase, "mutateRow", 1, tableName=b"t", row=b"r", mutations=[mutation])
    assert refusal(whole, T.Hbase) is None
    assert refusal(whole + _call(T.Hbase, "getTableNames", 2), T.Hbase) is None
    # Fields the IDL does not have, of types Thrift does, are skipped.
    extra = whole[:-1] + struct.pack(">bhi", 8, 99, 7) + b"\x00"
    assert refusal(extra, T.Hbase) is None
    # So is a call the IDL does not have, and bytes that are no call header.
    assert refusal(_head(b"getRowOrBefore", 1) + b"\x01\x00\x09\x00", T.Hbase) is None
    assert refusal(b"\x00" * 16, T.Hbase) is None


@pytest.mark.parametrize("keep", [3, 9, 20, 40])
def test_a_call_not_all_here_is_short(keep: int) -> None:
    mutation = T.Mutation(column=b"a:q", value=b"v", isDelete=False)
    whole = _call(T.Hbase, "mutateRow", 1, tableName=b"t", row=b"r", mutations=[mutation])
    with pytest.raises(Short):
        refusal(whole[:keep], T.Hbase)
