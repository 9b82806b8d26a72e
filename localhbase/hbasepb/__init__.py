"""HBase's protobuf messages for filters and comparators, as classes.

``filter.proto`` is our text of the messages (HBase 2.6.1's Filter.proto,
Comparator.proto and the parts of HBase.proto they use); ``filter.desc`` is
it compiled by protoc into a FileDescriptorSet, loaded here into a pool of
its own with the protobuf runtime, so the server needs no protoc and no
generated code. ``tests/localhbase/test_hbasepb.py`` rebuilds the set from
the .proto and compares both with the jar's .proto files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

HERE = Path(__file__).parent
PROTO = HERE / "filter.proto"
DESCRIPTORS = HERE / "filter.desc"
PACKAGE = "hbase.pb"

_pool = descriptor_pool.DescriptorPool()
for _file in descriptor_pb2.FileDescriptorSet.FromString(DESCRIPTORS.read_bytes()).file:
    _pool.Add(_file)


def message(name: str) -> Any:
    """The class of ``hbase.pb.<name>`` (``message("Filter")``)."""
    return message_factory.GetMessageClass(_pool.FindMessageTypeByName(f"{PACKAGE}.{name}"))


def enum_value(enum: str, name: str) -> int:
    """The number of ``name`` in the enum ``hbase.pb.<enum>``."""
    number: int = _pool.FindEnumTypeByName(f"{PACKAGE}.{enum}").values_by_name[name].number
    return number
