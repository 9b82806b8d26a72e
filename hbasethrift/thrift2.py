"""The Thrift2 IDL loaded once, as the module ``T2`` that both a Thrift2
client (``storage.admin``) and the local server's Thrift2 handler build
their structs from."""

from __future__ import annotations

from typing import Any

import thriftpy2

from . import HBASE2_IDL

T2: Any = thriftpy2.load(str(HBASE2_IDL), module_name="hbase2_thrift")
