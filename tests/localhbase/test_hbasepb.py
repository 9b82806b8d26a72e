"""localhbase/hbasepb's messages are HBase 2.6.1's, and filter.desc is its
filter.proto compiled.

HBase's own .proto files come from the hbase-protocol-shaded jar Maven
fetched (``python -m devtools.realhbase fetch``); protoc (grpcio-tools)
compiles theirs and ours, and every message and enum of ours must have the
same fields (name, number, label, type, message or enum type, packing) and
values as HBase's of the same name."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import descriptor_pb2

from localhbase.hbasepb import DESCRIPTORS, PROTO
from tests.ci import REQUIRE_REAL_HBASE

HBASE_PROTOS = ("Filter.proto", "Comparator.proto", "HBase.proto")


def _compile(include: Path, *files: str, out: Path) -> descriptor_pb2.FileDescriptorSet:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"-I{include}",
            f"--descriptor_set_out={out}",
            *files,
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def test_the_checked_in_descriptors_are_the_proto_compiled(tmp_path: Path) -> None:
    out = tmp_path / "filter.desc"
    _compile(PROTO.parent, PROTO.name, out=out)
    assert out.read_bytes() == DESCRIPTORS.read_bytes(), (
        "localhbase/hbasepb/filter.desc is stale: regenerate it as filter.proto says"
    )


def _shapes(fds: descriptor_pb2.FileDescriptorSet) -> dict[str, Any]:
    """Each message and enum by full name: its fields or values, as tuples."""
    out: dict[str, Any] = {}

    def enum(prefix: str, e: Any) -> None:
        out[f"{prefix}.{e.name}"] = sorted((v.name, v.number) for v in e.value)

    def msg(prefix: str, m: Any) -> None:
        name = f"{prefix}.{m.name}"
        out[name] = sorted(
            (f.number, f.name, f.label, f.type, f.type_name, f.options.packed) for f in m.field
        )
        for nested in m.nested_type:
            msg(name, nested)
        for e in m.enum_type:
            enum(name, e)

    for f in fds.file:
        for m in f.message_type:
            msg(f".{f.package}", m)
        for e in f.enum_type:
            enum(f".{f.package}", e)
    return out


def test_the_messages_are_hbases(tmp_path: Path) -> None:
    from devtools.realhbase import LIB_DIR

    jars = list(LIB_DIR.glob("hbase-protocol-shaded-*.jar"))
    if not jars:
        reason = "the hbase-protocol-shaded jar is missing (python -m devtools.realhbase fetch)"
        if REQUIRE_REAL_HBASE:
            pytest.fail(reason)
        pytest.skip(reason)
    with zipfile.ZipFile(jars[0]) as jar:
        for name in HBASE_PROTOS:
            (tmp_path / name).write_bytes(jar.read(name))
    hbase = _shapes(_compile(tmp_path, *HBASE_PROTOS, out=tmp_path / "hbase.desc"))
    ours = _shapes(descriptor_pb2.FileDescriptorSet.FromString(DESCRIPTORS.read_bytes()))
    drift = {
        name: {"ours": shape, "hbase": hbase.get(name)}
        for name, shape in ours.items()
        if hbase.get(name) != shape
    }
    assert not drift, drift
    # Every message of HBase's Filter.proto and Comparator.proto is here.
    mine = _compile(tmp_path, "Filter.proto", "Comparator.proto", out=tmp_path / "fc.desc")
    wanted = {n for f in mine.file for n in _shapes_of(f)}
    assert wanted <= ours.keys(), sorted(wanted - ours.keys())


def _shapes_of(file: Any) -> set[str]:
    one = descriptor_pb2.FileDescriptorSet()
    one.file.append(file)
    return set(_shapes(one))
