"""The admin half of the local server's Thrift2 API: tables, namespaces and
regions (THBaseService's DDL and region calls), mixed into
:class:`localhbase.thrift2.Thrift2Handler`.

Each call answers as HBase 2.6.1's thrift2 server does, found by making the
same calls against it (``tests/contract/test_thrift2_admin.py`` holds both
to one expectation):

* the master's refusals come back as a ``TIOError`` whose message is the
  Java exception's class and message (``...TableExistsException: t``;
  HBase adds the master's stack trace, which we leave out), never
  retryable: every one of them is a ``DoNotRetryIOException``;
* calls the thrift2 handler answers from the client's own lookups
  (``getTableDescriptor``, ``isTableEnabled``, ``getRegionLocation`` on a
  missing table) give the bare table name, as its TableNotFoundException;
* what the Java client refuses before asking the master (no column family,
  an empty or repeated split key) is an internal error.

Regions: a table keeps the split points it was created with
(:class:`localhbase.store.TableInfo`), and reports one region per range, all
on one RegionServer (:data:`localhbase.store.REGION_SERVER`). Column family
settings the store has no use for (block size, encodings, replication
scope, ...) are reported as HBase's defaults.
"""

from __future__ import annotations

import re
import time
from typing import Any

from hbasethrift.thrift2 import T2

from .calls import java_names, region_of, table_state
from .store import (
    REGION_SERVER,
    REGION_SERVER_PORT,
    BadArgument,
    Constraint,
    FamilyDescriptor,
    InvalidFamilyOperation,
    NamespaceExists,
    NamespaceNotFound,
    RefusedArgument,
    Store,
    StoreError,
    TableExists,
    TableInfo,
    TableNotDisabled,
    TableNotEnabled,
    TableNotFound,
    namespace_order,
)

FOREVER = 2**31 - 1  # HBase's HConstants.FOREVER, a TTL of "never"
_MASTER_ERRORS = java_names(
    TableExists,
    TableNotFound,
    TableNotDisabled,
    TableNotEnabled,
    NamespaceNotFound,
    NamespaceExists,
    Constraint,
    InvalidFamilyOperation,
    BadArgument,
)
# HBase's defaults for a family made through Thrift2 (ColumnFamilyDescriptorBuilder),
# which differ from Thrift1's ColumnDescriptor defaults.
_BLOOM = ("NONE", "ROW", "ROWCOL", "ROWPREFIX_FIXED_LENGTH")
_COMPRESSION = ("LZO", "GZ", "NONE", "SNAPPY", "LZ4", "BZIP2", "ZSTD")
_SYSTEM_TABLES = (b"hbase:meta", b"hbase:namespace")
# A family's MOB settings: HBase 2.6's TColumnFamilyDescriptor has no fields
# for them, so a client sets them as attributes, which HBase's thrift2
# server copies into the family verbatim (ThriftUtilities'
# columnFamilyDescriptorFromThrift: builder.setValue) and reports back in
# the same map (columnFamilyDescriptorFromHBase: getValues).
_MOB_KEYS = (b"IS_MOB", b"MOB_THRESHOLD", b"MOB_COMPACT_PARTITION_POLICY")
# A RegionServer's start code is the time it started, in ms.
START_CODE = time.time_ns() // 1_000_000


class MasterError(Exception):
    """A refusal of HBase's master: answered as ``TIOError(class: message)``."""

    def __init__(self, exc: StoreError, message: str | None = None) -> None:
        super().__init__(f"{_MASTER_ERRORS[type(exc)]}: {message or exc}")


def _master(exc: StoreError) -> Exception:
    error: Exception = T2.TIOError(message=str(MasterError(exc)), canRetry=False)
    return error


def _name(ttable: Any) -> bytes:
    """A TTableName as HBase names the table: ``ns:qualifier``, or the
    qualifier alone in the ``default`` namespace."""
    ns: bytes = ttable.ns or b"default"
    qualifier: bytes = ttable.qualifier
    return qualifier if ns == b"default" else ns + b":" + qualifier


def _tname(name: bytes) -> Any:
    ns, sep, qualifier = name.partition(b":")
    return T2.TTableName(ns=ns if sep else b"default", qualifier=qualifier if sep else ns)


def _family(cd: Any) -> FamilyDescriptor:
    """A TColumnFamilyDescriptor with HBase's builder defaults for what it omits."""
    if cd.maxVersions is not None and cd.maxVersions < 1:
        raise RefusedArgument("Maximum versions must be positive")
    ttl = cd.timeToLive if cd.timeToLive is not None else FOREVER
    bloom = cd.bloomnFilterType if cd.bloomnFilterType is not None else 1
    compression = cd.compressionType if cd.compressionType is not None else 2
    sent = cd.attributes or {}
    return FamilyDescriptor(
        name=cd.name,
        mob={k.decode("latin-1"): sent[k].decode("latin-1") for k in _MOB_KEYS if k in sent},
        max_versions=cd.maxVersions if cd.maxVersions is not None else 1,
        time_to_live=-1 if ttl <= 0 or ttl >= FOREVER else ttl,
        compression=_COMPRESSION[compression],
        in_memory=bool(cd.inMemory),
        bloom_filter_type=_BLOOM[bloom],
        block_cache_enabled=cd.blockCacheEnabled if cd.blockCacheEnabled is not None else True,
    )


def _family_out(fd: FamilyDescriptor) -> Any:
    ttl = fd.time_to_live if fd.time_to_live > 0 else FOREVER
    bloom = fd.bloom_filter_type if fd.bloom_filter_type in _BLOOM else "NONE"
    compression = fd.compression if fd.compression in _COMPRESSION else "NONE"
    attributes = {
        b"INDEX_BLOCK_ENCODING": b"NONE",
        b"VERSIONS": str(fd.max_versions).encode(),
        b"KEEP_DELETED_CELLS": b"FALSE",
        b"BLOOMFILTER": bloom.encode(),
        b"BLOCKSIZE": b"65536",
        b"BLOCKCACHE": str(fd.block_cache_enabled).lower().encode(),
        b"DATA_BLOCK_ENCODING": b"NONE",
        b"MIN_VERSIONS": b"0",
        b"TTL": str(ttl).encode(),
        b"REPLICATION_SCOPE": b"0",
        b"IN_MEMORY": str(fd.in_memory).lower().encode(),
        b"COMPRESSION": compression.encode(),
        **{k.encode("latin-1"): v.encode("latin-1") for k, v in fd.mob.items()},
    }
    return T2.TColumnFamilyDescriptor(
        name=fd.name,
        attributes=attributes,
        blockSize=65536,
        bloomnFilterType=_BLOOM.index(bloom),
        compressionType=_COMPRESSION.index(compression),
        dfsReplication=0,
        dataBlockEncoding=0,
        keepDeletedCells=0,
        maxVersions=fd.max_versions,
        minVersions=0,
        scope=0,
        timeToLive=ttl,
        blockCacheEnabled=fd.block_cache_enabled,
        cacheBloomsOnWrite=False,
        cacheDataOnWrite=False,
        cacheIndexesOnWrite=False,
        compressTags=True,
        evictBlocksOnClose=False,
        inMemory=fd.in_memory,
    )


def _descriptor(info: TableInfo) -> Any:
    return T2.TTableDescriptor(
        tableName=_tname(info.name),
        columns=[_family_out(info.families[f]) for f in sorted(info.families)],
        attributes={b"IS_META": b"false", b"hbase.store.file-tracker.impl": b"DEFAULT"},
        durability=0,
    )


class AdminCalls:
    """THBaseService's admin calls over :attr:`store`."""

    store: Store

    # -- lookups the client answers itself (bare table name when missing) -------

    def _info(self, ttable: Any) -> TableInfo:
        return self.store.table(_name(ttable))

    def tableExists(self, tableName: Any) -> bool:
        return _name(tableName) in self.store.table_names()

    def getTableDescriptor(self, table: Any) -> Any:
        return _descriptor(self._info(table))

    def getTableDescriptors(self, tables: list[Any]) -> list[Any]:
        known = set(self.store.table_names())
        return [_descriptor(self.store.table(_name(t))) for t in tables if _name(t) in known]

    def isTableEnabled(self, tableName: Any) -> bool:
        return self._info(tableName).enabled

    def isTableDisabled(self, tableName: Any) -> bool:
        return not self._info(tableName).enabled

    def isTableAvailable(self, tableName: Any) -> bool:
        return self.tableExists(tableName)

    def isTableAvailableWithSplit(self, tableName: Any, splitKeys: list[bytes]) -> bool:
        # HBase 2.6 ignores the split keys here (the Admin call it makes has none).
        return self.tableExists(tableName)

    # -- listings ------------------------------------------------------------------

    def _names(self, pattern: str | None, include_sys: bool) -> list[bytes]:
        names = list(self.store.table_names())
        if include_sys:
            names = sorted([*names, *_SYSTEM_TABLES], key=namespace_order)
        if pattern is not None:
            regex = re.compile(pattern)
            names = [n for n in names if regex.fullmatch(n.decode("utf-8", "replace"))]
        return names

    def _in_namespace(self, name: str) -> list[bytes]:
        if name not in self.store.namespaces():
            raise _master(NamespaceNotFound(name))
        names = [*self.store.table_names(), *(_SYSTEM_TABLES if name == "hbase" else ())]
        return [n for n in names if _tname(n).ns == name.encode()]

    def getTableDescriptorsByPattern(self, regex: str | None, includeSysTables: bool) -> list[Any]:
        names = self._names(regex, False)
        return [_descriptor(self.store.table(n)) for n in names]

    def getTableNamesByPattern(self, regex: str | None, includeSysTables: bool) -> list[Any]:
        return [_tname(n) for n in self._names(regex, includeSysTables)]

    def getTableDescriptorsByNamespace(self, name: str) -> list[Any]:
        names = [n for n in self._in_namespace(name) if n not in _SYSTEM_TABLES]
        return [_descriptor(self.store.table(n)) for n in names]

    def getTableNamesByNamespace(self, name: str) -> list[Any]:
        return [_tname(n) for n in self._in_namespace(name)]

    # -- DDL (the master's refusals) -------------------------------------------------

    def createTable(self, desc: Any, splitKeys: list[bytes] | None) -> None:
        if not desc.columns:
            raise RefusedArgument("Table should have at least one column family.")
        families = [_family(cd) for cd in desc.columns]
        try:
            self.store.create_table(_name(desc.tableName), families, splitKeys or ())
        except (TableExists, NamespaceNotFound) as exc:
            raise _master(exc) from None

    def deleteTable(self, tableName: Any) -> None:
        name = _name(tableName)
        try:
            self.store.delete_table(name)
        except TableNotDisabled:
            state = table_state(name, "ENABLED")
            raise _master(TableNotDisabled(f"Not DISABLED; {state}")) from None
        except TableNotFound as exc:
            raise _master(exc) from None

    def truncateTable(self, tableName: Any, preserveSplits: bool) -> None:
        try:
            self.store.truncate_table(_name(tableName), bool(preserveSplits))
        except (TableNotFound, TableNotDisabled) as exc:
            raise _master(exc) from None

    def enableTable(self, tableName: Any) -> None:
        name = _name(tableName)
        try:
            self.store.set_enabled(name, True)
        except TableNotDisabled:
            # The client's own check: just the state, no class name.
            raise T2.TIOError(message=table_state(name, "ENABLED"), canRetry=False) from None
        except TableNotFound as exc:
            raise _master(exc) from None

    def disableTable(self, tableName: Any) -> None:
        try:
            self.store.set_enabled(_name(tableName), False)
        except (TableNotFound, TableNotEnabled) as exc:
            raise _master(exc) from None

    def _change_families(self, table: Any, change: Any) -> None:
        name = _name(table)
        try:
            info = self.store.table(name)
        except TableNotFound as exc:
            raise _master(exc) from None
        families = dict(info.families)
        change(name.decode("utf-8", "replace"), families)
        self.store.set_families(name, list(families.values()))

    def addColumnFamily(self, tableName: Any, column: Any) -> None:
        fd = _family(column)

        def add(table: str, families: dict[bytes, FamilyDescriptor]) -> None:
            if fd.name in families:
                raise _master(
                    InvalidFamilyOperation(
                        f"Column family '{fd.name.decode('utf-8', 'replace')}' in table "
                        f"'{table}' already exists so cannot be added"
                    )
                )
            families[fd.name] = fd

        self._change_families(tableName, add)

    def modifyColumnFamily(self, tableName: Any, column: Any) -> None:
        fd = _family(column)

        def modify(table: str, families: dict[bytes, FamilyDescriptor]) -> None:
            if fd.name not in families:
                raise _master(
                    InvalidFamilyOperation(
                        f"Family '{fd.name.decode('utf-8', 'replace')}' does not exist, "
                        "so it cannot be modified"
                    )
                )
            families[fd.name] = fd

        self._change_families(tableName, modify)

    def deleteColumnFamily(self, tableName: Any, column: bytes) -> None:
        def delete(table: str, families: dict[bytes, FamilyDescriptor]) -> None:
            shown = column.decode("utf-8", "replace")
            if column not in families:
                raise _master(
                    InvalidFamilyOperation(
                        f"Family '{shown}' does not exist, so it cannot be deleted"
                    )
                )
            if len(families) == 1:
                raise _master(
                    InvalidFamilyOperation(
                        f"Family '{shown}' is the only column family in the table, "
                        "so it cannot be deleted"
                    )
                )
            del families[column]

        self._change_families(tableName, delete)

    def modifyTable(self, desc: Any) -> None:
        if not desc.columns:
            raise RefusedArgument("Table should have at least one column family.")
        families = [_family(cd) for cd in desc.columns]

        def replace_all(table: str, current: dict[bytes, FamilyDescriptor]) -> None:
            current.clear()
            current.update({fd.name: fd for fd in families})

        self._change_families(desc.tableName, replace_all)

    # -- namespaces -------------------------------------------------------------------

    def createNamespace(self, namespaceDesc: Any) -> None:
        try:
            self.store.put_namespace(
                namespaceDesc.name, dict(namespaceDesc.configuration or {}), create=True
            )
        except NamespaceExists as exc:
            raise _master(exc) from None

    def modifyNamespace(self, namespaceDesc: Any) -> None:
        try:
            self.store.put_namespace(
                namespaceDesc.name, dict(namespaceDesc.configuration or {}), create=False
            )
        except NamespaceNotFound as exc:
            raise _master(exc) from None

    def deleteNamespace(self, name: str) -> None:
        try:
            self.store.delete_namespace(name)
        except (NamespaceNotFound, Constraint) as exc:
            raise _master(exc) from None

    def _namespace(self, name: str, config: dict[str, str]) -> Any:
        return T2.TNamespaceDescriptor(name=name, configuration=config or None)

    def getNamespaceDescriptor(self, name: str) -> Any:
        namespaces = self.store.namespaces()
        if name not in namespaces:
            raise _master(NamespaceNotFound(name))
        return self._namespace(name, namespaces[name])

    def listNamespaceDescriptors(self) -> list[Any]:
        return [self._namespace(n, c) for n, c in self.store.namespaces().items()]

    def listNamespaces(self) -> list[str]:
        return list(self.store.namespaces())

    # -- regions -------------------------------------------------------------------------

    def _locations(self, info: TableInfo) -> list[Any]:
        server = T2.TServerName(
            hostName=REGION_SERVER.decode(), port=REGION_SERVER_PORT, startCode=START_CODE
        )
        return [
            T2.THRegionLocation(
                serverName=server,
                regionInfo=T2.THRegionInfo(
                    regionId=0,  # HBase 2.6's thrift2 fills in no region id
                    tableName=info.name,
                    startKey=start,
                    endKey=end,
                    offline=False,
                    split=False,
                    replicaId=0,
                ),
            )
            for start, end in info.regions()
        ]

    def getAllRegionLocations(self, table: bytes) -> list[Any]:
        try:
            info = self.store.table(table)
        except TableNotFound:
            return []  # as HBase: no rows in hbase:meta
        return self._locations(info)

    def getRegionLocation(self, table: bytes, row: bytes, reload: bool) -> Any:
        info = self.store.table(table)  # missing: the bare name, as HBase's
        holding = region_of(info, row)
        return self._locations(info)[info.regions().index(holding)]
