"""A call's arguments read as HBase's Thrift servers read them, to find the
ones they refuse before thriftpy2 decodes them.

thriftpy2 skips a field of a type it does not know without reading anything,
and reads on: a call cut short by the next one on the socket (a client that
failed half way through writing it and sent the next) then decodes, its last
field from the next call's header, and runs with whatever came of that. HBase
(libthrift 0.14.1's generated readers, ``TProtocolUtil.skip`` and
``TBinaryProtocol``) refuses it at the first field type it does not know:
``ProcessFunction`` answers the call with a ``TApplicationException``
(PROTOCOL_ERROR, ``Unrecognized type -128``, the next header's first byte)
and reads on from after that field's header, which leaves the stream inside
the next call: it answers nothing more on that connection.

:func:`refusal` reads the request at the start of the bytes received as
libthrift does: a field the IDL declares, with its declared type, by that
type (a list's elements by the IDL's element type), any other field by
``skip``. It only looks for what libthrift's reader refuses; the values are
thriftpy2's to decode.
"""

from __future__ import annotations

import struct
from typing import Any

# TApplicationException.PROTOCOL_ERROR
PROTOCOL_ERROR = 7

_I32 = struct.Struct(">i")
# Bytes of each fixed-size type: BOOL, BYTE, DOUBLE, I16, I32, I64.
_FIXED = {2: 1, 3: 1, 4: 8, 6: 2, 8: 4, 10: 8}
_STRING, _STRUCT, _MAP, _SET, _LIST = 11, 12, 13, 14, 15
# thriftpy2's spec says BINARY for a binary field; on the wire it is a STRING.
_BINARY = 18
# The element types TBinaryProtocol.getMinSerializedSize knows: a list, set
# or map header naming another is a TTransportException, not a protocol error.
_SIZED = frozenset({0, 1, 2, 3, 4, 6, 8, 10, 11, 12, 13, 14, 15})


class Short(Exception):
    """The bytes received end inside the request."""


class Refused(Exception):
    """What libthrift's reader throws: a ``TProtocolException`` (answered with
    ``message``, ``used`` bytes of the request read) or, ``message`` None, a
    ``TTransportException``, after which HBase's server drops the connection."""

    def __init__(self, message: str | None, used: int) -> None:
        super().__init__(message)
        self.message = message
        self.used = used


def refusal(data: bytes | bytearray, service: Any) -> tuple[str, int, Refused] | None:
    """``(method, seqid, why)`` if HBase's Thrift server would refuse the
    call at the start of ``data`` as it reads its arguments, else None (also
    for a call the IDL does not have, or bytes that are no strict call
    header: those are thriftpy2's). Raises :class:`Short` if ``data`` ends
    before the reading does."""
    end = len(data)
    if end < 8:
        raise Short
    if data[0] != 0x80 or data[1] != 0x01:
        return None
    (n,) = _I32.unpack_from(data, 4)
    pos = 8 + n
    if n < 0 or pos + 4 > end:
        if n < 0:
            return None
        raise Short
    api = bytes(data[8:pos]).decode("utf-8", "replace")
    (seqid,) = _I32.unpack_from(data, pos)
    args = getattr(service, api + "_args", None)
    if api not in getattr(service, "thrift_services", ()) or args is None:
        return None
    try:
        _struct(data, pos + 4, end, args.thrift_spec)
    except Refused as why:
        return api, seqid, why
    return None


def _struct(data: bytes | bytearray, pos: int, end: int, spec: dict[int, Any] | None) -> int:
    while True:
        if pos >= end:
            raise Short
        ftype = data[pos]
        if ftype == 0:
            return pos + 1
        if pos + 3 > end:
            raise Short
        fid = (data[pos + 1] << 8) | data[pos + 2]
        pos += 3
        field = spec.get(fid) if spec else None
        if field is not None and (field[0] == ftype or (field[0] == _BINARY and ftype == _STRING)):
            pos = _value(data, pos, end, ftype, field[2] if len(field) > 3 else None)
        else:
            pos = _skip(data, pos, end, ftype)


def _value(data: bytes | bytearray, pos: int, end: int, ttype: int, spec: Any) -> int:
    """A value of a type the IDL gives (``spec``: a struct's class, a
    container's element type or types, as thriftpy2's thrift_spec has them)."""
    if ttype == _BINARY:
        ttype = _STRING
    if ttype == _STRUCT:
        return _struct(data, pos, end, spec.thrift_spec)
    if ttype in (_LIST, _SET):
        pos, size = _container(data, pos, end, 1)
        etype, espec = _elem(spec)
        for _ in range(size):
            pos = _value(data, pos, end, etype, espec)
        return pos
    if ttype == _MAP:
        pos, size = _container(data, pos, end, 2)
        ktype, kspec = _elem(spec[0])
        vtype, vspec = _elem(spec[1])
        for _ in range(size):
            pos = _value(data, pos, end, ktype, kspec)
            pos = _value(data, pos, end, vtype, vspec)
        return pos
    return _skip(data, pos, end, ttype)


def _elem(spec: Any) -> tuple[int, Any]:
    if isinstance(spec, tuple):
        return spec[0], spec[1]
    return spec, None


def _skip(data: bytes | bytearray, pos: int, end: int, ttype: int) -> int:
    """``TProtocolUtil.skip``: a value read by the type its bytes name."""
    size = _FIXED.get(ttype)
    if size is not None:
        if pos + size > end:
            raise Short
        return pos + size
    if ttype == _STRING:
        if pos + 4 > end:
            raise Short
        n: int = _I32.unpack_from(data, pos)[0]
        if n < 0:
            raise Refused(f"Negative length: {n}", pos + 4)
        if pos + 4 + n > end:
            raise Short
        return pos + 4 + n
    if ttype == _STRUCT:
        return _struct(data, pos, end, None)
    if ttype in (_LIST, _SET):
        etype = data[pos] if pos < end else None
        pos, size = _container(data, pos, end, 1)
        for _ in range(size):
            pos = _skip(data, pos, end, etype)  # type: ignore[arg-type]
        return pos
    if ttype == _MAP:
        ktype = data[pos] if pos < end else None
        vtype = data[pos + 1] if pos + 1 < end else None
        pos, size = _container(data, pos, end, 2)
        for _ in range(size):
            pos = _skip(data, pos, end, ktype)  # type: ignore[arg-type]
            pos = _skip(data, pos, end, vtype)  # type: ignore[arg-type]
        return pos
    signed = ttype - 256 if ttype > 127 else ttype
    raise Refused(f"Unrecognized type {signed}", pos)


def _container(data: bytes | bytearray, pos: int, end: int, types: int) -> tuple[int, int]:
    """A list, set or map header (``types`` element type bytes, then the
    size), checked as ``TBinaryProtocol.read*Begin`` checks it."""
    head = pos + types
    if head + 4 > end:
        raise Short
    if any(data[i] not in _SIZED for i in range(pos, head)):
        raise Refused(None, head + 4)
    (size,) = _I32.unpack_from(data, head)
    if size < 0:
        raise Refused(f"Negative length: {size}", head + 4)
    return head + 4, size
