"""How the local HBase server lays HBase cells out in one RocksDB keyspace.

A cell's RocksDB key sorts exactly as HBase sorts its KeyValues: by row bytes,
then family, then qualifier, then newest timestamp first, then delete markers
before puts of the same timestamp::

    b"D" | table id (4 bytes) | esc(row) | esc(family) | esc(qualifier)
         | Long.MAX - timestamp (8 bytes) | 255 - type (1 byte)

``esc`` is an order-preserving escape: every 0x00 becomes 0x00 0xFF and the
part ends with 0x00 0x01. A shorter part therefore sorts before any longer part
it prefixes, which is what makes plain byte order in RocksDB equal to HBase's
row/family/qualifier order, and it lets a reader split a key without lengths.

Table descriptors live under ``b"M" + table name``; the table-id counter under
``b"N"``. The value of a cell key is the cell value, unchanged.
"""

from __future__ import annotations

import struct

MAX_TS = (1 << 63) - 1

# HBase KeyValue.Type codes. Thrift1 can only express "all versions up to T"
# deletes (DeleteColumn, DeleteFamily); Thrift2 also writes Delete (one
# version of a column) and DeleteFamilyVersion (one timestamp of a family).
TYPE_PUT = 4
TYPE_DELETE = 8
TYPE_DELETE_FAMILY_VERSION = 10
TYPE_DELETE_COLUMN = 12
TYPE_DELETE_FAMILY = 14

DATA = b"D"
META = b"M"
COUNTER = b"N"
# The one key holding the server's cluster id (a UUID, as HBase's hbase.id).
CLUSTER_ID = b"C"
NAMESPACE = b"S"  # + name -> the namespace's configuration (JSON)

_TERM = b"\x00\x01"
_TS = struct.Struct(">QB")
# A cell key ends with its column's versions' part: timestamp and type.
STAMP_LEN = _TS.size
# After a column's key prefix, sorts past every version of that column and
# before the next column's (no escaped part holds its terminator within).
PAST_STAMPS = b"\xff" * (STAMP_LEN + 1)


def esc(part: bytes) -> bytes:
    """Escape ``part`` so that byte order of escaped parts equals that of parts."""
    return part.replace(b"\x00", b"\x00\xff") + _TERM


def unesc(escaped: bytes) -> bytes:
    """Inverse of :func:`esc` without the terminator."""
    return escaped.replace(b"\x00\xff", b"\x00")


def table_prefix(table_id: int) -> bytes:
    return DATA + table_id.to_bytes(4, "big")


def row_prefix(table_id: int, row: bytes) -> bytes:
    """Every cell key of ``row`` starts with this, and no other row's does."""
    return DATA + table_id.to_bytes(4, "big") + esc(row)


def row_upper(prefix: bytes) -> bytes:
    """The least key greater than every key starting with a row prefix.

    A row prefix ends in 0x00 0x01, so its successor is 0x00 0x02; any longer
    row continues either with a byte > 0x00 or with 0x00 0xFF, both greater.
    """
    return prefix[:-1] + b"\x02"


def column_start(row_pre: bytes, family: bytes, qualifier: bytes) -> bytes:
    """Sorts at or before every cell key of the column in the row, and past
    every key of the family's lesser columns."""
    return row_pre + esc(family) + esc(qualifier)


def family_upper(row_pre: bytes, family: bytes) -> bytes:
    """The least key greater than every cell key of ``family`` in the row:
    its escaped name's terminator 0x00 0x01 made 0x00 0x02, as :func:`row_upper`."""
    return row_pre + esc(family)[:-1] + b"\x02"


def cell_key(row_pre: bytes, family: bytes, qualifier: bytes, ts: int, kind: int) -> bytes:
    return row_pre + esc(family) + esc(qualifier) + _TS.pack(MAX_TS - ts, 255 - kind)


def split_column(key: bytes, start: int) -> tuple[bytes, bytes, int, int]:
    """Parse family, qualifier, timestamp and type from ``key[start:]``."""
    fam_end = key.find(_TERM, start)
    qual_end = key.find(_TERM, fam_end + 2)
    inv_ts, inv_kind = _TS.unpack_from(key, qual_end + 2)
    return (
        unesc(key[start:fam_end]),
        unesc(key[fam_end + 2 : qual_end]),
        MAX_TS - inv_ts,
        255 - inv_kind,
    )


def row_end(key: bytes) -> int:
    """Offset just past the row part of a cell key (its terminator included)."""
    return key.find(_TERM, 5) + 2
