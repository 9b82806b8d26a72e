"""HBase's Thrift2 admin calls (tables, namespaces, regions), and regions
through Thrift1: the same answers from the local server and from HBase
2.6.1's own thrift2 server.

Error messages are compared on their first line: HBase appends the master's
Java stack trace, which the local server leaves out (a known deviation).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from thriftpy2.rpc import make_client
from thriftpy2.thrift import TApplicationException

from hbasethrift.thrift2 import T2
from localhbase.server import T
from tests.helpers import ServerAddr

F = T2.TColumnFamilyDescriptor


@pytest.fixture
def t1(server: ServerAddr) -> Iterator[Any]:
    client = make_client(T.Hbase, server.host, server.port, timeout=60_000)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def made(t2: Any) -> Iterator[Callable[..., Any]]:
    """Create a table (a unique name, family ``f`` unless given), split at
    ``splits``; every table made is dropped after the test."""
    names: list[Any] = []

    def make(splits: list[bytes] | None = None, ns: bytes | None = None, **family: Any) -> Any:
        name = T2.TTableName(ns=ns, qualifier=b"t" + uuid.uuid4().hex[:10].encode())
        desc = T2.TTableDescriptor(tableName=name, columns=[F(name=b"f", **family)])
        t2.createTable(desc, splits)
        names.append(name)
        return name

    yield make
    for name in names:
        if t2.tableExists(name):
            if t2.isTableEnabled(name):
                t2.disableTable(name)
            t2.deleteTable(name)


def _full(name: Any) -> bytes:
    qualifier: bytes = name.qualifier
    return qualifier if not name.ns or name.ns == b"default" else name.ns + b":" + qualifier


def _error(call: Callable[[], object]) -> tuple[str, bool | None]:
    with pytest.raises(T2.TIOError) as caught:
        call()
    return caught.value.message.split("\n")[0], caught.value.canRetry


def _internal(call: Callable[[], object], name: str) -> None:
    with pytest.raises(TApplicationException) as caught:
        call()
    assert caught.value.type == TApplicationException.INTERNAL_ERROR
    assert caught.value.message.startswith(f"Internal error processing {name}")


def _spans(locations: list[Any]) -> list[tuple[bytes, bytes]]:
    return [(r.regionInfo.startKey, r.regionInfo.endKey) for r in locations]


SPLITS = [b"\x80", b"\x40", b"\xc0"]  # given out of order: HBase sorts them
SPANS = [(b"", b"\x40"), (b"\x40", b"\x80"), (b"\x80", b"\xc0"), (b"\xc0", b"")]


def test_a_pre_split_table_reports_its_regions_through_both_apis(
    t2: Any, t1: Any, made: Callable[..., Any]
) -> None:
    name = made(SPLITS)
    full = _full(name)
    locations = t2.getAllRegionLocations(full)
    assert _spans(locations) == SPANS
    assert {loc.regionInfo.tableName for loc in locations} == {full}
    assert all(loc.serverName.hostName == "localhost" for loc in locations)

    regions = t1.getTableRegions(full)
    assert [(r.startKey, r.endKey) for r in regions] == SPANS
    assert len({r.id for r in regions}) == 1  # one creation, one region id
    for r in regions:
        # HBase's region name: table,startKey,id.md5-of-that.
        prefix = full + b"," + r.startKey + b",%d." % r.id
        assert r.name.startswith(prefix) and len(r.name) == len(prefix) + 33
        assert r.name.endswith(b".")

    # The region holding a row, as both APIs look it up.
    assert _spans([t2.getRegionLocation(full, b"\x50\x01", False)]) == [SPANS[1]]
    assert _spans([t2.getRegionLocation(full, b"\xc0", False)]) == [SPANS[3]]
    assert _spans([t2.getRegionLocation(full, b"\x00", False)]) == [SPANS[0]]
    info = t1.getRegionInfo(full + b",\x50,99999999999999")
    assert (info.startKey, info.endKey) == SPANS[1]
    info = t1.getRegionInfo(full + b",,99999999999999")
    assert (info.startKey, info.endKey) == SPANS[0]


def test_an_unsplit_table_is_one_region_and_a_missing_one_none(
    t2: Any, t1: Any, made: Callable[..., Any]
) -> None:
    full = _full(made())
    assert _spans(t2.getAllRegionLocations(full)) == [(b"", b"")]
    assert [(r.startKey, r.endKey) for r in t1.getTableRegions(full)] == [(b"", b"")]
    assert t2.getAllRegionLocations(b"no_such_table") == []
    assert t1.getTableRegions(b"no_such_table") == []
    assert _error(lambda: t2.getRegionLocation(b"no_such_table", b"r", False)) == (
        "no_such_table",
        False,
    )


def test_split_keys_hbase_refuses(t2: Any) -> None:
    def create(splits: list[bytes]) -> None:
        name = T2.TTableName(qualifier=b"t" + uuid.uuid4().hex[:10].encode())
        t2.createTable(T2.TTableDescriptor(tableName=name, columns=[F(name=b"f")]), splits)

    _internal(lambda: create([b"a", b"a"]), "createTable")
    _internal(lambda: create([b"", b"a"]), "createTable")
    _internal(
        lambda: t2.createTable(T2.TTableDescriptor(tableName=T2.TTableName(qualifier=b"x")), None),
        "createTable",
    )


def test_table_lifecycle_and_its_refusals(t2: Any, made: Callable[..., Any]) -> None:
    name = made()
    q = name.qualifier.decode()
    assert t2.tableExists(name) is True
    assert t2.tableExists(T2.TTableName(qualifier=b"no_such_table")) is False
    assert t2.isTableAvailable(name) is True
    assert t2.isTableEnabled(name) is True
    assert t2.isTableDisabled(name) is False

    again = T2.TTableDescriptor(tableName=name, columns=[F(name=b"f")])
    assert _error(lambda: t2.createTable(again, None)) == (
        f"org.apache.hadoop.hbase.TableExistsException: {q}",
        False,
    )
    assert _error(lambda: t2.deleteTable(name)) == (
        "org.apache.hadoop.hbase.TableNotDisabledException: Not DISABLED; "
        f"tableName={q}, state=ENABLED",
        False,
    )
    assert _error(lambda: t2.enableTable(name)) == (f"tableName={q}, state=ENABLED", False)
    assert _error(lambda: t2.truncateTable(name, True)) == (
        f"org.apache.hadoop.hbase.TableNotDisabledException: {q}",
        False,
    )
    t2.disableTable(name)
    assert (t2.isTableEnabled(name), t2.isTableDisabled(name)) == (False, True)
    assert _error(lambda: t2.disableTable(name)) == (
        f"org.apache.hadoop.hbase.TableNotEnabledException: {q}",
        False,
    )
    t2.enableTable(name)
    t2.disableTable(name)
    t2.deleteTable(name)
    assert t2.tableExists(name) is False

    missing = T2.TTableName(qualifier=b"no_such_table")
    for call in (t2.deleteTable, t2.disableTable):
        assert _error(lambda call=call: call(missing)) == (  # type: ignore[misc]
            "org.apache.hadoop.hbase.TableNotFoundException: no_such_table",
            False,
        )
    for call in (t2.isTableEnabled, t2.isTableDisabled, t2.getTableDescriptor):
        assert _error(lambda call=call: call(missing)) == ("no_such_table", False)  # type: ignore[misc]


def test_truncate_empties_a_table_and_keeps_its_splits_if_asked(
    t2: Any, made: Callable[..., Any]
) -> None:
    name = made(SPLITS)
    full = _full(name)
    put = T2.TPut(row=b"\x90row", columnValues=[T2.TColumnValue(b"f", b"q", b"v")])
    for keep, spans in ((True, SPANS), (False, [(b"", b"")])):
        t2.put(full, put)
        t2.disableTable(name)
        t2.truncateTable(name, keep)
        assert t2.isTableEnabled(name) is True  # truncate enables it again
        assert _spans(t2.getAllRegionLocations(full)) == spans
        assert t2.get(full, T2.TGet(row=b"\x90row")).columnValues == []


def test_descriptors_with_hbase_defaults(t2: Any, made: Callable[..., Any]) -> None:
    name = made(maxVersions=2, timeToLive=3600)
    desc = t2.getTableDescriptor(name)
    assert (desc.tableName.ns, desc.tableName.qualifier) == (b"default", name.qualifier)
    (family,) = desc.columns
    assert family.name == b"f"
    assert (family.maxVersions, family.timeToLive) == (2, 3600)
    # What a family made through Thrift2 gets by default (not Thrift1's defaults).
    assert family.bloomnFilterType == T2.TBloomFilterType.ROW
    assert family.compressionType == T2.TCompressionAlgorithm.NONE
    assert family.blockCacheEnabled is True
    assert family.attributes[b"VERSIONS"] == b"2"
    assert family.attributes[b"TTL"] == b"3600"
    plain = t2.getTableDescriptor(made())
    assert plain.columns[0].maxVersions == 1
    assert plain.columns[0].timeToLive == 2**31 - 1

    listed = t2.getTableDescriptors([name, T2.TTableName(qualifier=b"no_such_table")])
    assert [d.tableName.qualifier for d in listed] == [name.qualifier]
    names = t2.getTableNamesByPattern(name.qualifier.decode(), False)
    assert [(n.ns, n.qualifier) for n in names] == [(b"default", name.qualifier)]
    by_pattern = t2.getTableDescriptorsByPattern(name.qualifier.decode() + ".*", False)
    assert [d.tableName.qualifier for d in by_pattern] == [name.qualifier]
    system = t2.getTableNamesByPattern("hbase:.*", True)
    assert [(n.ns, n.qualifier) for n in system] == [
        (b"hbase", b"meta"),
        (b"hbase", b"namespace"),
    ]


def test_column_families_added_changed_and_dropped(t2: Any, made: Callable[..., Any]) -> None:
    name = made()
    full = _full(name)
    q = full.decode()
    t2.put(full, T2.TPut(row=b"r", columnValues=[T2.TColumnValue(b"f", b"q", b"v")]))
    t2.addColumnFamily(name, F(name=b"g", maxVersions=5))
    assert _error(lambda: t2.addColumnFamily(name, F(name=b"g"))) == (
        "org.apache.hadoop.hbase.InvalidFamilyOperationException: "
        f"Column family 'g' in table '{q}' already exists so cannot be added",
        False,
    )
    t2.put(full, T2.TPut(row=b"r", columnValues=[T2.TColumnValue(b"g", b"q", b"w")]))
    t2.modifyColumnFamily(name, F(name=b"g", maxVersions=2))
    assert {c.name: c.maxVersions for c in t2.getTableDescriptor(name).columns} == {
        b"f": 1,
        b"g": 2,
    }
    assert _error(lambda: t2.modifyColumnFamily(name, F(name=b"zz"))) == (
        "org.apache.hadoop.hbase.InvalidFamilyOperationException: "
        "Family 'zz' does not exist, so it cannot be modified",
        False,
    )
    t2.deleteColumnFamily(name, b"g")
    got = t2.get(full, T2.TGet(row=b"r")).columnValues
    assert [(c.family, c.qualifier, c.value) for c in got] == [(b"f", b"q", b"v")]
    # A family added again starts empty: the old one's cells went with it.
    t2.addColumnFamily(name, F(name=b"g"))
    assert [c.family for c in t2.get(full, T2.TGet(row=b"r")).columnValues] == [b"f"]
    t2.deleteColumnFamily(name, b"g")
    assert _error(lambda: t2.deleteColumnFamily(name, b"f")) == (
        "org.apache.hadoop.hbase.InvalidFamilyOperationException: "
        "Family 'f' is the only column family in the table, so it cannot be deleted",
        False,
    )
    t2.modifyTable(T2.TTableDescriptor(tableName=name, columns=[F(name=b"h")]))
    assert [c.name for c in t2.getTableDescriptor(name).columns] == [b"h"]


def test_namespaces(t2: Any, t1: Any, made: Callable[..., Any]) -> None:
    assert {"default", "hbase"} <= set(t2.listNamespaces())
    ns = "n" + uuid.uuid4().hex[:8]
    t2.createNamespace(T2.TNamespaceDescriptor(name=ns, configuration={"a": "b"}))
    try:
        assert t2.getNamespaceDescriptor(ns) == T2.TNamespaceDescriptor(
            name=ns, configuration={"a": "b"}
        )
        assert _error(lambda: t2.createNamespace(T2.TNamespaceDescriptor(name=ns))) == (
            f"org.apache.hadoop.hbase.NamespaceExistException: Namespace {ns} already exists",
            False,
        )
        t2.modifyNamespace(T2.TNamespaceDescriptor(name=ns, configuration={"c": "d"}))
        assert t2.getNamespaceDescriptor(ns).configuration == {"c": "d"}
        assert ns in [d.name for d in t2.listNamespaceDescriptors()]

        name = made(ns=ns.encode())
        full = ns.encode() + b":" + name.qualifier
        assert full in t1.getTableNames()  # Thrift1 names it ns:qualifier
        assert [(n.ns, n.qualifier) for n in t2.getTableNamesByNamespace(ns)] == [
            (ns.encode(), name.qualifier)
        ]
        assert [d.tableName.qualifier for d in t2.getTableDescriptorsByNamespace(ns)] == [
            name.qualifier
        ]
        assert _error(lambda: t2.deleteNamespace(ns)) == (
            "org.apache.hadoop.hbase.constraint.ConstraintException: Only empty namespaces "
            f"can be removed. Namespace {ns} has 1 tables",
            False,
        )
        t2.disableTable(name)
        t2.deleteTable(name)
    finally:
        t2.deleteNamespace(ns)
    assert ns not in t2.listNamespaces()
    for call in (t2.getNamespaceDescriptor, t2.deleteNamespace, t2.getTableNamesByNamespace):
        assert _error(lambda call=call: call(ns)) == (  # type: ignore[misc]
            f"org.apache.hadoop.hbase.NamespaceNotFoundException: {ns}",
            False,
        )
    assert _error(lambda: t2.deleteNamespace("default")) == (
        "org.apache.hadoop.hbase.constraint.ConstraintException: "
        "Reserved namespace default cannot be removed.",
        False,
    )
    missing = T2.TTableDescriptor(
        tableName=T2.TTableName(ns=ns.encode(), qualifier=b"t"), columns=[F(name=b"f")]
    )
    assert _error(lambda: t2.createTable(missing, None)) == (
        f"org.apache.hadoop.hbase.NamespaceNotFoundException: {ns}",
        False,
    )


def test_a_family_added_to_a_table_keeps_its_versions(
    t2: Any, t1: Any, made: Callable[..., Any]
) -> None:
    """What createtables relies on to give an existing twits table its
    history family (storage/upgrade.py, feeds/services/twits.py): a family
    added through Thrift2 keeps as many versions as it was given, read
    back newest first with TGet's maxVersions and Thrift1's getVer, while
    the table's first family still keeps one."""
    name = made()
    full = _full(name)
    t2.addColumnFamily(name, F(name=b"h", maxVersions=3))
    for ts in (10, 20, 30, 40):
        cells = [
            T2.TColumnValue(b"h", b"q", b"v%d" % ts, ts),
            T2.TColumnValue(b"f", b"q", b"w", ts),
        ]
        t2.put(full, T2.TPut(row=b"r", columnValues=cells))
    got = t2.get(full, T2.TGet(row=b"r", columns=[T2.TColumn(b"h", b"q")], maxVersions=10))
    assert [(c.value, c.timestamp) for c in got.columnValues] == [
        (b"v40", 40),
        (b"v30", 30),
        (b"v20", 20),
    ]
    assert [c.value for c in t1.getVer(full, b"r", b"h:q", 10, {})] == [b"v40", b"v30", b"v20"]
    assert [c.timestamp for c in t1.getVer(full, b"r", b"f:q", 10, {})] == [40]
