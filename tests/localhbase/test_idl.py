"""Our IDLs have the wire facts of HBase 2.6.1's own, read from the
hbase-thrift jar Maven fetches: hbasethrift/idl/hbase1.thrift those of the
Thrift1 ``Hbase.thrift``, hbasethrift/idl/hbase2.thrift those of the Thrift2
``thrift2/hbase.thrift``. Every method (argument ids, types and names; return
type; exceptions), struct, exception and enum is compared. Comments and
wording may differ; any drift on the wire fails here with one line per
difference."""

from __future__ import annotations

import uuid
import zipfile
from pathlib import Path
from typing import Any

import pytest
import thriftpy2

from localhbase.server import IDL
from localhbase.thrift2 import IDL as IDL2
from tests.ci import REQUIRE_REAL_HBASE

JAR_IDL = "org/apache/hadoop/hbase/thrift/Hbase.thrift"
JAR_IDL2 = "org/apache/hadoop/hbase/thrift2/hbase.thrift"

# (our IDL, the jar's, a line of ours to move to another field id, and the
# drift report that move must produce)
PAIRS = {
    "thrift1": (
        IDL,
        JAR_IDL,
        ("2:bool canRetry", "3:bool canRetry"),
        [
            "exception IOError field 2: HBase has bool canRetry, ours has None",
            "exception IOError field 3: HBase has None, ours has bool canRetry",
        ],
    ),
    "thrift2": (
        IDL2,
        JAR_IDL2,
        ("2: optional bool canRetry", "3: optional bool canRetry"),
        [
            "exception TIOError field 2: HBase has bool canRetry, ours has None",
            "exception TIOError field 3: HBase has None, ours has bool canRetry",
        ],
    ),
}

TYPE_NAMES = {
    2: "bool",
    3: "byte",
    4: "double",
    6: "i16",
    8: "i32",
    10: "i64",
    11: "string",
    12: "struct",
    13: "map",
    14: "set",
    15: "list",
    16: "enum",
    18: "binary",
}


def _jar() -> Path:
    from devtools.realhbase import LIB_DIR

    jars = sorted(LIB_DIR.glob("hbase-thrift-*.jar"))
    if not jars:
        reason = f"no hbase-thrift jar in {LIB_DIR}: run python -m devtools.realhbase fetch"
        if REQUIRE_REAL_HBASE:
            pytest.fail(reason + " (CI requires real HBase)")
        pytest.skip(reason)
    return jars[-1]


def _load(text: str, tmp_path: Path) -> Any:
    path = tmp_path / f"idl{uuid.uuid4().hex[:8]}.thrift"
    path.write_text(text)
    return thriftpy2.load(str(path), module_name=path.stem + "_thrift")


def _type(ttype: int, spec: Any) -> str:
    """A field's wire type as text: ``list<struct TCell>``, ``map<binary,bool>``."""
    name = TYPE_NAMES.get(ttype, str(ttype))
    if spec is None:
        return name
    if ttype == 12:
        return f"struct {spec.__name__}"
    if ttype in (15, 14):
        inner = spec if isinstance(spec, tuple) else (spec, None)
        return f"{name}<{_type(*inner)}>"
    if ttype == 13:
        key, value = (s if isinstance(s, tuple) else (s, None) for s in spec)
        return f"map<{_type(*key)},{_type(*value)}>"
    if isinstance(spec, type):  # an enum: i32 on the wire, named for the reader
        return f"i32 {spec.__name__}"
    return name


def _fields(cls: Any) -> dict[int, str]:
    defaults = dict(getattr(cls, "default_spec", []))
    out = {}
    for fid, entry in cls.thrift_spec.items():
        ttype, name = entry[0], entry[1]
        spec = entry[2] if len(entry) == 4 else None
        text = f"{_type(ttype, spec)} {name}"
        if defaults.get(name) is not None:
            text += f" = {defaults[name]!r}"
        out[fid] = text
    return out


def _describe(module: Any) -> dict[str, dict[Any, str]]:
    """Every wire fact of ``module``, keyed by where it lives."""
    facts: dict[str, dict[Any, str]] = {}
    meta = module.__thrift_meta__
    for kind in ("structs", "exceptions"):
        for cls in meta[kind]:
            facts[f"{kind[:-1]} {cls.__name__}"] = _fields(cls)
    for enum in meta["enums"]:
        facts[f"enum {enum.__name__}"] = {v: k for k, v in enum._VALUES_TO_NAMES.items()}
    (service,) = meta["services"]
    for method in service.thrift_services:
        facts[f"{method}(args)"] = _fields(getattr(service, method + "_args"))
        facts[f"{method}(result)"] = _fields(getattr(service, method + "_result"))
    return facts


def _diff(theirs: dict[str, dict[Any, str]], ours: dict[str, dict[Any, str]]) -> list[str]:
    lines = []
    for where in sorted(theirs.keys() | ours.keys()):
        if where not in ours:
            lines.append(f"{where}: in HBase's IDL, missing from ours")
            continue
        if where not in theirs:
            lines.append(f"{where}: in ours, not in HBase's IDL")
            continue
        for fid in sorted(theirs[where].keys() | ours[where].keys()):
            a, b = theirs[where].get(fid), ours[where].get(fid)
            if a != b:
                lines.append(f"{where} field {fid}: HBase has {a}, ours has {b}")
    return lines


def _idls(tmp: Path, which: str) -> tuple[Any, Any]:
    ours_path, jar_path, _, _ = PAIRS[which]
    with zipfile.ZipFile(_jar()) as jar:
        theirs = _load(jar.read(jar_path).decode(), tmp)
    return theirs, _load(ours_path.read_text(), tmp)


@pytest.fixture(scope="module")
def idls(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    return _idls(tmp_path_factory.mktemp("idl"), "thrift1")


@pytest.mark.parametrize("which", sorted(PAIRS))
def test_our_idl_has_the_wire_facts_of_hbases_idl(which: str, tmp_path: Path) -> None:
    theirs, ours = _idls(tmp_path, which)
    diff = _diff(_describe(theirs), _describe(ours))
    assert not diff, f"our {which} IDL drifted from HBase 2.6.1's:\n" + "\n".join(diff)


def test_the_methods_are_hbases_in_hbases_order(idls: tuple[Any, Any]) -> None:
    theirs, ours = idls
    assert list(ours.Hbase.thrift_services) == list(theirs.Hbase.thrift_services)
    assert "getRowOrBefore" not in ours.Hbase.thrift_services
    assert {"getTableNamesWithIsTableEnabled", "getThriftServerType", "getClusterId"} <= set(
        ours.Hbase.thrift_services
    )


@pytest.mark.parametrize("which", sorted(PAIRS))
def test_the_comparison_sees_a_changed_field_id(which: str, tmp_path: Path) -> None:
    """The check itself: a drifted IDL is reported, naming the place."""
    ours_path, _, (line, moved), report = PAIRS[which]
    theirs, _ = _idls(tmp_path, which)
    text = ours_path.read_text()
    assert text.count(line) == 1
    drifted = _load(text.replace(line, moved), tmp_path)
    assert _diff(_describe(theirs), _describe(drifted)) == report


def test_the_thrift2_methods_are_hbases_in_hbases_order(tmp_path: Path) -> None:
    theirs, ours = _idls(tmp_path, "thrift2")
    assert list(ours.THBaseService.thrift_services) == list(theirs.THBaseService.thrift_services)


def test_the_server_serves_exactly_our_idl() -> None:
    from localhbase import server

    handler = server.Handler
    missing = [m for m in server.T.Hbase.thrift_services if not hasattr(handler, m)]
    assert missing == []
    assert Path(server.T.__thrift_file__) == IDL


def test_the_thrift2_port_serves_every_call_of_our_idl() -> None:
    """THBaseService in full: the data calls, and the admin half AdminCalls has."""
    from localhbase import thrift2

    handler = thrift2.Thrift2Handler
    missing = [m for m in thrift2.T2.THBaseService.thrift_services if not hasattr(handler, m)]
    assert missing == []
    assert Path(thrift2.T2.__thrift_file__) == IDL2
