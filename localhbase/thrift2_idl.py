"""The Thrift2 IDL (``idl/hbase2.thrift``) loaded once, as the module ``T2``
both halves of the Thrift2 handler build their structs from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import thriftpy2

IDL = Path(__file__).with_name("idl") / "hbase2.thrift"
T2: Any = thriftpy2.load(str(IDL), module_name="localhbase_hbase2_thrift")
