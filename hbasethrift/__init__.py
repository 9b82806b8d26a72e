"""HBase 2.6.1's two Thrift interfaces, as IDL files: the wire both TwitBase
and the local HBase server speak.

``idl/hbase1.thrift`` is HBase's Thrift1 ``Hbase.thrift`` (what happybase
and the local server's first port speak), ``idl/hbase2.thrift`` its Thrift2
``thrift2/hbase.thrift`` (THBaseService: split keys and the other admin calls
Thrift1 lacks). Both are our own copies, held to the hbase-thrift jar's by
``tests/localhbase/test_idl.py``.

A package of its own because two sides load them that must not import each
other: the app (``storage.admin``, a Thrift2 client) and the local server
(``localhbase``, the Thrift1 and Thrift2 servers). It imports nothing of
either.
"""

from __future__ import annotations

from pathlib import Path

IDL_DIR = Path(__file__).with_name("idl")
HBASE1_IDL = IDL_DIR / "hbase1.thrift"
HBASE2_IDL = IDL_DIR / "hbase2.thrift"
