"""The local HBase server: HBase's Thrift1 API over :class:`Store`.

It serves ``hbasethrift/idl/hbase1.thrift``, the wire interface of HBase 2.6.1's own
``Hbase.thrift`` (every method, struct and field id), with the binary
protocol and buffered transport happybase uses by default, so
``happybase.Connection(host, port)`` and any client generated from HBase's
IDL talk to it unchanged. One thread serves every client connection of a
port (:mod:`localhbase.loop`); sockets use TCP_NODELAY.

Errors are what real HBase's Thrift server sends: an ``IOError`` whose message
starts with the Java exception's class name (``...TableNotFoundException``,
``...NoSuchColumnFamilyException``, ...), ``IllegalArgument`` for a bad scanner
id, ``AlreadyExists`` for a table that exists. An error never stops the server.
"""

from __future__ import annotations

import argparse
import faulthandler
import hashlib
import importlib
import logging
import signal
import socket
import struct
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import thriftpy2
from thriftpy2.thrift import TApplicationException, TProcessor

from hbasethrift import HBASE1_IDL

from . import store as store_module
from .calls import (
    SafeCalls,
    Scanner,
    Scanners,
    java_names,
    plural,
    region_of,
    scan_rows,
    selected_columns,
    table_state,
)
from .encoding import MAX_TS
from .filters import ALL_VERSIONS, FilterError, parse_filter, push_down, versions_kept
from .launch import Address, write_ready
from .loop import WAIT, FastPath, LoopServer, Wait, write_reply
from .store import (
    REGION_SERVER,
    REGION_SERVER_PORT,
    BadArgument,
    Cell,
    FamilyDescriptor,
    Mutation,
    NoSuchFamily,
    ReadSpec,
    RefusedArgument,
    Store,
    StoreError,
    TableExists,
    TableNotDisabled,
    TableNotEnabled,
    TableNotFound,
    parse_column,
)

try:
    # By name: import-linter sees no compiled module, and would take
    # `from . import _wire` for an import of the package, whose __init__
    # imports this module: a cycle that is not there. (So mypy checks no
    # call of it against _wire.pyi.)
    _wire = importlib.import_module("localhbase._wire")
except ImportError:  # not built where it was installed (no C compiler): see setup.py
    _wire = None  # type: ignore[assignment]
# Whether the compiled wire paths (localhbase/_wire.pyx) are in use.
COMPILED = _wire is not None

log = logging.getLogger("localhbase")

IDL = HBASE1_IDL
T: Any = thriftpy2.load(str(IDL), module_name="localhbase_hbase1_thrift")

# The refusals this server names; any other is a plain java.io.IOException.
_JAVA_NAMES = java_names(
    TableNotFound, TableNotEnabled, TableNotDisabled, NoSuchFamily, BadArgument
)

SCANNER_IDLE_SECONDS = 600
DEFAULT_IDLE_TIMEOUT = 60.0


# Refusals that reach the client wrapped in themselves (a remote exception
# around the region server's or master's own), so HBase names the class twice.
_NAMED_TWICE = (NoSuchFamily, BadArgument)


def _io_error(exc: StoreError) -> Exception:
    name = _JAVA_NAMES.get(type(exc), "java.io.IOException")
    if isinstance(exc, _NAMED_TWICE):
        name = f"{name}: {name}"
    # HBase sets canRetry unless the Java exception is a DoNotRetryIOException,
    # which every named one here is.
    error: Exception = T.IOError(message=f"{name}: {exc}", canRetry=type(exc) not in _JAVA_NAMES)
    return error


def _refused(kind: type[StoreError], detail: str) -> Exception:
    """An IOError for ``kind`` (a DoNotRetryIOException in HBase) saying ``detail``."""
    error: Exception = T.IOError(message=f"{_JAVA_NAMES[kind]}: {detail}", canRetry=False)
    return error


def region_name(table: bytes, start: bytes, region_id: int) -> bytes:
    """HBase's shape, ``table,startKey,id.encoded.``: the encoded part is the
    MD5 of what precedes it, in hex."""
    plain = table + b"," + start + b",%d" % region_id
    return plain + b"." + hashlib.md5(plain).hexdigest().encode() + b"."


def _row_given(row: bytes) -> None:
    """HBase's Get, Increment and Append refuse an empty row when made, a Java
    runtime exception that its Thrift1 server sends as an internal error."""
    if not row:
        raise RefusedArgument("Row length is 0")


def _columns(columns: Sequence[bytes] | None) -> dict[bytes, frozenset[bytes] | None] | None:
    """Thrift column list (``cf`` or ``cf:q``) -> :class:`ReadSpec` columns
    (:func:`localhbase.calls.selected_columns`: ``[cf, cf:q]`` reads only
    ``cf:q``, ``[cf:q, cf]`` the whole family)."""
    return selected_columns(map(parse_column, columns or ()))


def _max_ts(timestamp: int | None) -> int | None:
    return None if timestamp is None or timestamp == MAX_TS else timestamp


def _row_result(row: bytes, cells: Sequence[Cell], sort_columns: bool) -> Any:
    if sort_columns:
        return T.TRowResult(
            row=row,
            sortedColumns=[
                T.TColumn(columnName=f + b":" + q, cell=T.TCell(value=v, timestamp=ts))
                for f, q, ts, v in cells
            ],
        )
    return T.TRowResult(
        row=row,
        columns={f + b":" + q: T.TCell(value=v, timestamp=ts) for f, q, ts, v in cells},
    )


class Rows(list[tuple[bytes, Sequence[Cell]]]):
    """The value of a call that answers ``list<TRowResult>``: each row as
    ``(row, cells)``, its columns to go in a map, or in a list with
    ``sort_columns``. The reply is written from these by the compiled
    encoder (``_wire.encode_rows``, see :func:`encode_reply`), or, where it is
    not built, by thriftpy2 from the TRowResults :meth:`results` makes."""

    def __init__(
        self, rows: Iterable[tuple[bytes, Sequence[Cell]]] = (), sort_columns: bool = False
    ) -> None:
        super().__init__(rows)
        self.sort_columns = sort_columns

    def results(self) -> list[Any]:
        return [_row_result(row, cells, self.sort_columns) for row, cells in self]


def encode_reply(api: str, seqid: int, result: Any) -> bytes | None:
    """The Thrift1 loop's reply of rows (:class:`Rows`), written by the
    compiled encoder; None leaves the reply to thriftpy2, the rows made
    TRowResults where the encoder is not built."""
    rows = result.success
    if not isinstance(rows, Rows):
        return None
    if _wire is not None:
        reply: bytes = _wire.encode_rows(api.encode(), seqid, rows, rows.sort_columns)
        return reply
    result.success = rows.results()
    return None


@dataclass
class _Scanner(Scanner):
    """A Thrift1 scanner: its rows go out as :class:`Rows`, their columns
    sorted if asked."""

    sort_columns: bool = False


class Handler:
    """Implements every call of the ``Hbase`` Thrift1 service."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._scanners: Scanners[_Scanner] = Scanners(1, SCANNER_IDLE_SECONDS)

    # -- tables ---------------------------------------------------------------

    # HBase words the DDL refusals differently call by call (its master
    # procedures wrap some exceptions in themselves); these are its words.

    def enableTable(self, tableName: bytes) -> None:
        try:
            self.store.set_enabled(tableName, True)
        except TableNotDisabled:
            raise _refused(TableNotDisabled, table_state(tableName, "ENABLED")) from None

    def disableTable(self, tableName: bytes) -> None:
        try:
            self.store.set_enabled(tableName, False)
        except (TableNotFound, TableNotEnabled) as exc:
            raise _refused(type(exc), f"{_JAVA_NAMES[type(exc)]}: {exc}") from None

    def isTableEnabled(self, tableName: bytes) -> bool:
        return self.store.table(tableName).enabled

    def compact(self, tableNameOrRegionName: bytes) -> None:
        self.store.compact(tableNameOrRegionName, major=False)

    def majorCompact(self, tableNameOrRegionName: bytes) -> None:
        self.store.compact(tableNameOrRegionName, major=True)

    def getTableNames(self) -> list[bytes]:
        return self.store.table_names()

    def getTableNamesWithIsTableEnabled(self) -> dict[bytes, bool]:
        return {name: self.store.table(name).enabled for name in self.store.table_names()}

    def getThriftServerType(self) -> int:
        # This is the Thrift1 server; HBase's Thrift2 server answers TWO.
        return int(T.TThriftServerType.ONE)

    def getClusterId(self) -> str:
        return self.store.cluster_id()

    def getColumnDescriptors(self, tableName: bytes) -> dict[bytes, Any]:
        info = self.store.table(tableName)
        out = {}
        for fd in info.families.values():
            name = fd.name + b":"
            out[name] = T.ColumnDescriptor(
                name=name,
                maxVersions=fd.max_versions,
                compression=fd.compression,
                inMemory=fd.in_memory,
                bloomFilterType=fd.bloom_filter_type,
                bloomFilterVectorSize=fd.bloom_filter_vector_size,
                bloomFilterNbHashes=fd.bloom_filter_nb_hashes,
                blockCacheEnabled=fd.block_cache_enabled,
                timeToLive=fd.time_to_live if fd.time_to_live > 0 else 2**31 - 1,
            )
        return out

    def _region_info(self, info: Any, start: bytes, end: bytes) -> Any:
        return T.TRegionInfo(
            startKey=start,
            endKey=end,
            id=info.region_id,
            name=region_name(info.name, start, info.region_id),
            version=1,
            serverName=REGION_SERVER,
            port=REGION_SERVER_PORT,
        )

    def getTableRegions(self, tableName: bytes) -> list[Any]:
        try:
            info = self.store.table(tableName)
        except TableNotFound:
            return []  # HBase lists the regions hbase:meta has for it: none
        return [self._region_info(info, start, end) for start, end in info.regions()]

    def createTable(self, tableName: bytes, columnFamilies: list[Any]) -> None:
        if not columnFamilies:
            name = _JAVA_NAMES[BadArgument]
            raise _refused(
                BadArgument,
                f"{name}: Table should have at least one column family. Set "
                "hbase.table.sanity.checks to false at conf or table descriptor if you want to "
                "bypass sanity checks",
            )
        families = []
        for cd in columnFamilies:
            if cd.maxVersions is not None and cd.maxVersions < 1:
                # HBase's descriptor builder refuses it before the master sees it.
                raise T.IllegalArgument(
                    message="java.lang.IllegalArgumentException: Maximum versions must be positive"
                )
            ttl = cd.timeToLive if cd.timeToLive is not None else -1
            families.append(
                FamilyDescriptor(
                    name=cd.name.rstrip(b":"),
                    max_versions=cd.maxVersions if cd.maxVersions is not None else 3,
                    time_to_live=-1 if ttl < 0 or ttl >= 2**31 - 1 else ttl,
                    compression=cd.compression or "NONE",
                    in_memory=bool(cd.inMemory),
                    bloom_filter_type=cd.bloomFilterType or "NONE",
                    bloom_filter_vector_size=cd.bloomFilterVectorSize or 0,
                    bloom_filter_nb_hashes=cd.bloomFilterNbHashes or 0,
                    block_cache_enabled=bool(cd.blockCacheEnabled),
                )
            )
        try:
            self.store.create_table(tableName, families)
        except TableExists:
            # HBase words it so, without the name.
            raise T.AlreadyExists(message="table name already in use") from None

    def deleteTable(self, tableName: bytes) -> None:
        try:
            self.store.delete_table(tableName)
        except TableNotFound:
            raise T.IOError(
                message="java.io.IOException: table does not exist", canRetry=True
            ) from None
        except TableNotDisabled:
            name = _JAVA_NAMES[TableNotDisabled]
            state = table_state(tableName, "ENABLED")
            raise _refused(TableNotDisabled, f"{name}: Not DISABLED; {state}") from None

    # -- reads ----------------------------------------------------------------

    def _cells(
        self, table: bytes, row: bytes, column: bytes, versions: int, max_ts: int | None
    ) -> list[Any]:
        _row_given(row)
        if versions < 1:
            raise T.IOError(message="java.io.IOException: versions must be positive", canRetry=True)
        spec = ReadSpec(columns=_columns([column]), max_ts=max_ts, versions=versions)
        rows = self.store.get_rows(table, [row], spec)
        if not rows:
            return []
        return [T.TCell(value=v, timestamp=ts) for _, _, ts, v in rows[0][1]]

    def get(self, tableName: bytes, row: bytes, column: bytes, attributes: Any) -> list[Any]:
        return self._cells(tableName, row, column, 1, None)

    def getVer(
        self, tableName: bytes, row: bytes, column: bytes, numVersions: int, attributes: Any
    ) -> list[Any]:
        return self._cells(tableName, row, column, numVersions, None)

    def getVerTs(
        self,
        tableName: bytes,
        row: bytes,
        column: bytes,
        timestamp: int,
        numVersions: int,
        attributes: Any,
    ) -> list[Any]:
        return self._cells(tableName, row, column, numVersions, _max_ts(timestamp))

    def _rows(
        self,
        table: bytes,
        rows: Sequence[bytes],
        columns: Sequence[bytes] | None,
        timestamp: int | None,
    ) -> list[Any]:
        for row in rows:
            _row_given(row)
        spec = ReadSpec(columns=_columns(columns), max_ts=_max_ts(timestamp))
        return Rows(self.store.get_rows(table, rows, spec))

    def getRow(self, tableName: bytes, row: bytes, attributes: Any) -> list[Any]:
        return self._rows(tableName, [row], None, None)

    def getRowWithColumns(
        self, tableName: bytes, row: bytes, columns: list[bytes], attributes: Any
    ) -> list[Any]:
        return self._rows(tableName, [row], columns, None)

    def getRowTs(self, tableName: bytes, row: bytes, timestamp: int, attributes: Any) -> list[Any]:
        return self._rows(tableName, [row], None, timestamp)

    def getRowWithColumnsTs(
        self, tableName: bytes, row: bytes, columns: list[bytes], timestamp: int, attributes: Any
    ) -> list[Any]:
        return self._rows(tableName, [row], columns, timestamp)

    def getRows(self, tableName: bytes, rows: list[bytes], attributes: Any) -> list[Any]:
        return self._rows(tableName, rows, None, None)

    def getRowsWithColumns(
        self, tableName: bytes, rows: list[bytes], columns: list[bytes], attributes: Any
    ) -> list[Any]:
        return self._rows(tableName, rows, columns, None)

    def getRowsTs(
        self, tableName: bytes, rows: list[bytes], timestamp: int, attributes: Any
    ) -> list[Any]:
        return self._rows(tableName, rows, None, timestamp)

    def getRowsWithColumnsTs(
        self,
        tableName: bytes,
        rows: list[bytes],
        columns: list[bytes],
        timestamp: int,
        attributes: Any,
    ) -> list[Any]:
        return self._rows(tableName, rows, columns, timestamp)

    def getRegionInfo(self, row: bytes) -> Any:
        """The region holding a row of ``hbase:meta``: ``table,row,id`` (HBase
        looks it up with getRowOrBefore, so any id after the region's, such as
        99999999999999, finds it)."""
        table, sep, rest = row.partition(b",")
        key = rest.rpartition(b",")[0] if sep else b""
        try:
            info = self.store.table(table)
        except TableNotFound:
            raise T.IOError(
                message=f"java.io.IOException: Row not found for {row.decode('utf-8', 'replace')}",
                canRetry=True,
            ) from None
        return self._region_info(info, *region_of(info, key))

    # -- writes ---------------------------------------------------------------

    @staticmethod
    def _mutations(mutations: Sequence[Any]) -> Sequence[Any]:
        # Thrift's Mutation already has what the store reads (column, value,
        # isDelete); converting each cell would cost more than storing it.
        return mutations

    @staticmethod
    def _check_row(row: bytes) -> None:
        # mutateRow, mutateRowTs and checkAndPut refuse an empty row as
        # IllegalArgument; mutateRows lets the Java exception through (an
        # internal error), as do gets, increments and appends (_row_given).
        if not row:
            raise T.IllegalArgument(message="java.lang.IllegalArgumentException: Row length is 0")

    def mutateRow(
        self, tableName: bytes, row: bytes, mutations: list[Any], attributes: Any
    ) -> None:
        self._check_row(row)
        self.store.mutate_rows(tableName, [(row, self._mutations(mutations))])

    def mutateRowTs(
        self,
        tableName: bytes,
        row: bytes,
        mutations: list[Any],
        timestamp: int,
        attributes: Any,
    ) -> None:
        self._check_row(row)
        self.store.mutate_rows(tableName, [(row, self._mutations(mutations))], timestamp)

    def _batch(self, table: bytes, batches: list[Any], timestamp: int | None = None) -> None:
        """mutateRows as HBase runs it: one action per row, through its client's
        retrying batch machinery. Rows naming an unknown family fail alone
        (the others are written), and the failures come back together in a
        RetriesExhaustedWithDetailsException, which says a retry may help."""
        retries = "org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException"
        try:
            families = self.store.table(table).families
        except TableNotFound:
            n = len(batches)
            raise T.IOError(
                message=f"{retries}: Failed {plural(n, 'action')}: "
                f"{table.decode('utf-8', 'replace')}: {plural(n, 'time')}, "
                "servers with issues: null",
                canRetry=True,
            ) from None
        try:
            # Nearly every batch is good: written whole at once. The store
            # checks every row before it writes any, so a batch it refuses
            # has written nothing, and is sorted row by row below.
            self.store.mutate_rows(table, [(b.row, b.mutations) for b in batches], timestamp)
            return
        except (NoSuchFamily, RefusedArgument):
            pass
        good: list[tuple[bytes, Sequence[Any]]] = []
        bad: list[tuple[bytes, Sequence[Any]]] = []
        for b in batches:
            known = all(parse_column(m.column)[0] in families for m in b.mutations)
            (good if known else bad).append((b.row, self._mutations(b.mutations)))
        self.store.mutate_rows(table, good, timestamp)
        if bad:
            try:
                self.store.mutate_rows(table, bad[:1])
            except NoSuchFamily as exc:
                raise T.IOError(
                    message=f"{retries}: Failed {plural(len(bad), 'action')}: "
                    f"{_JAVA_NAMES[NoSuchFamily]}: {exc}",
                    canRetry=True,
                ) from None

    def mutateRows(self, tableName: bytes, rowBatches: list[Any], attributes: Any) -> None:
        self._batch(tableName, rowBatches)

    def mutateRowsTs(
        self, tableName: bytes, rowBatches: list[Any], timestamp: int, attributes: Any
    ) -> None:
        self._batch(tableName, rowBatches, timestamp)

    def atomicIncrement(self, tableName: bytes, row: bytes, column: bytes, value: int) -> int:
        if not row:
            # HBase's region server refuses it with a plain IOException, which
            # its client retries until it gives up (13 s on the test HBase).
            raise T.IOError(
                message="org.apache.hadoop.hbase.client.RetriesExhaustedException: Failed "
                "after attempts=16, exceptions:\njava.io.IOException: java.io.IOException: "
                "Row length is 0",
                canRetry=True,
            )
        return self.store.increment(tableName, row, column, value)

    def increment(self, increment: Any) -> None:
        _row_given(increment.row)
        self.store.increment(increment.table, increment.row, increment.column, increment.ammount)

    def incrementRows(self, increments: list[Any]) -> None:
        for inc in increments:
            self.increment(inc)

    def deleteAll(self, tableName: bytes, row: bytes, column: bytes, attributes: Any) -> None:
        self.store.mutate_rows(tableName, [(row, [Mutation(column, isDelete=True)])])

    def deleteAllTs(
        self, tableName: bytes, row: bytes, column: bytes, timestamp: int, attributes: Any
    ) -> None:
        self.store.mutate_rows(tableName, [(row, [Mutation(column, isDelete=True)])], timestamp)

    def deleteAllRow(self, tableName: bytes, row: bytes, attributes: Any) -> None:
        self.store.delete_row(tableName, row)

    def deleteAllRowTs(self, tableName: bytes, row: bytes, timestamp: int, attributes: Any) -> None:
        self.store.delete_row(tableName, row, timestamp)

    def checkAndPut(
        self,
        tableName: bytes,
        row: bytes,
        column: bytes,
        value: bytes | None,
        mput: Any,
        attributes: Any,
    ) -> bool:
        self._check_row(row)
        return self.store.check_and_put(tableName, row, column, value, self._mutations([mput])[0])

    def append(self, append: Any) -> list[Any]:
        _row_given(append.row)
        cells = self.store.append(append.table, append.row, append.columns, append.values)
        return [T.TCell(value=v, timestamp=ts) for v, ts in cells]

    # -- scanners -------------------------------------------------------------

    def _open(
        self,
        table: bytes,
        start: bytes | None,
        stop: bytes | None,
        columns: Sequence[bytes] | None,
        timestamp: int | None = None,
        filter_string: bytes | None = None,
        batch_size: int | None = None,
        sort_columns: bool = False,
        reverse: bool = False,
    ) -> int:
        # An empty filter string is an error in HBase too; only None means none.
        flt = parse_filter(filter_string) if filter_string is not None else None
        pushed = push_down(flt)
        # Its filter sees every version a family keeps, as HBase's does; the
        # scan returns the newest it keeps of each column.
        rest, versions = pushed.rest, 1
        kept = versions_kept(rest, 1) if rest is not None else None
        if kept is not None:
            rest, versions = kept, ALL_VERSIONS
        spec = ReadSpec(
            columns=_columns(columns),
            max_ts=_max_ts(timestamp),
            versions=versions,
            first_cell_only=pushed.first_cell_only,
            keys_only=pushed.keys_only,
        )
        # A missing table fails the first scannerGet; any other refusal, now.
        rows = scan_rows(self.store, table, start, stop, spec, reverse, (TableNotFound,))
        batch = batch_size if batch_size and batch_size > 0 else 0
        return self._scanners.add(_Scanner(rows, rest, batch, sort_columns=sort_columns))

    def scannerOpenWithScan(self, tableName: bytes, scan: Any, attributes: Any) -> int:
        return self._open(
            tableName,
            scan.startRow,
            scan.stopRow,
            scan.columns,
            scan.timestamp,
            scan.filterString,
            scan.batchSize,
            bool(scan.sortColumns),
            bool(scan.reversed),
        )

    def scannerOpen(
        self, tableName: bytes, startRow: bytes, columns: list[bytes], attributes: Any
    ) -> int:
        return self._open(tableName, startRow, None, columns)

    def scannerOpenWithStop(
        self,
        tableName: bytes,
        startRow: bytes,
        stopRow: bytes,
        columns: list[bytes],
        attributes: Any,
    ) -> int:
        return self._open(tableName, startRow, stopRow, columns)

    def scannerOpenWithPrefix(
        self, tableName: bytes, startAndPrefix: bytes, columns: list[bytes], attributes: Any
    ) -> int:
        return self._open(
            tableName,
            startAndPrefix,
            None,
            columns,
            filter_string=b"PrefixFilter('" + startAndPrefix.replace(b"'", b"''") + b"')",
        )

    def scannerOpenTs(
        self,
        tableName: bytes,
        startRow: bytes,
        columns: list[bytes],
        timestamp: int,
        attributes: Any,
    ) -> int:
        return self._open(tableName, startRow, None, columns, timestamp)

    def scannerOpenWithStopTs(
        self,
        tableName: bytes,
        startRow: bytes,
        stopRow: bytes,
        columns: list[bytes],
        timestamp: int,
        attributes: Any,
    ) -> int:
        return self._open(tableName, startRow, stopRow, columns, timestamp)

    def _scanner(self, scanner_id: int) -> _Scanner:
        scanner = self._scanners.get(scanner_id)
        if scanner is None:
            raise T.IllegalArgument(message="scanner ID is invalid")
        return scanner

    def scannerGet(self, id: int) -> list[Any]:
        return self.scannerGetList(id, 1)

    def scannerGetList(self, id: int, nbRows: int) -> list[Any]:
        scanner = self._scanner(id)
        with scanner.lock:
            return Rows(scanner.fetch(max(nbRows, 1)), scanner.sort_columns)

    def scannerClose(self, id: int) -> None:
        if self._scanners.pop(id) is None:
            raise T.IllegalArgument(message="scanner ID is invalid")


class _SafeHandler(SafeCalls):
    """Turns every failure of a Thrift1 call into the Thrift error HBase would send."""

    declared = (T.IOError, T.IllegalArgument, T.AlreadyExists, TApplicationException)
    internal = (FilterError, RefusedArgument)
    log = log
    io_error = staticmethod(_io_error)
    io_error_struct = T.IOError


class _Processor(TProcessor):
    """thriftpy2's processor, with a call of a method the IDL does not have
    (``getRowOrBefore``, gone in HBase 2.6) answered as Java's
    ``TBaseProcessor`` answers it: UNKNOWN_METHOD, "Invalid method name: 'x'"."""

    def process_in(self, iprot: Any) -> Any:
        api, seqid, result, call = super().process_in(iprot)
        if call is None and isinstance(result, TApplicationException):
            result = TApplicationException(
                TApplicationException.UNKNOWN_METHOD, f"Invalid method name: '{api}'"
            )
        return api, seqid, result, call


# A reply with no value and no error, as TBinaryProtocol (strict) writes
# it: the header (version 1, REPLY), then a result struct with no field set.
_REPLY_HEAD = struct.Struct(">Ii")
_REPLY = 0x80010002
_T_I32 = 8


class _FastCalls:
    """A connection's compiled paths (``localhbase._wire``), asked about
    every request before thriftpy2 decodes it:

    - ``mutateRows`` and ``mutateRowsTs`` calls of puts and deletes: the
      cells and delete markers go from the request's bytes to RocksDB keys
      without a Thrift object per cell. Only a call the handler would write
      whole is taken; any other (an unknown table or family, an empty row)
      goes on to thriftpy2 and the handler, which answer it as before.
    - ``getRow``, ``getRowWithColumns``, ``getRows`` and ``getRowsWithColumns``:
      read from the request's bytes and answered by the handler's own read
      and the compiled encoder, without thriftpy2's call machinery, which
      was most of a get's cost to the server. A read that fails has changed
      nothing, so it goes on to thriftpy2 and the handler, which read again
      and answer the failure as before.
    - ``scannerOpenWithScan``, ``scannerGetList``, ``scannerGet`` and
      ``scannerClose``: read from the request's bytes and run by the
      handler as thriftpy2 runs them; a failure is answered by thriftpy2's
      processor, as any call's. A page of a stream is three such calls,
      each spared thriftpy2's decoding and dispatch.
    """

    __slots__ = ("handler", "processor", "safe", "scanner", "store")

    def __init__(self, store: Store, handler: Handler) -> None:
        self.store = store
        self.handler = handler
        self.safe = _SafeHandler(handler)
        self.processor = _Processor(T.Hbase, self.safe)
        self.scanner = _wire.RowsScanner()

    def __call__(self, data: bytearray) -> tuple[int, bytes] | Wait | None:
        found = self.scanner.scan(data)
        if found == _wire.INCOMPLETE:
            return WAIT
        if found == _wire.READY:
            return self._put(data)
        call = _wire.parse_get(data)
        if call == _wire.INCOMPLETE:
            return WAIT
        if not isinstance(call, tuple):
            return self._scanner_call(data)
        used, seqid, name, table, rows, columns = call
        try:
            found_rows = self.handler._rows(table, rows, columns, None)
        except Exception:
            return None
        return used, _wire.encode_rows(name, seqid, found_rows, False)

    def _scanner_call(self, data: bytearray) -> tuple[int, bytes] | Wait | None:
        call = _wire.parse_scanner_call(data)
        if call == _wire.INCOMPLETE:
            return WAIT
        if not isinstance(call, tuple):
            return None
        used, seqid, name, kind, args = call
        api = name.decode()
        safe = self.safe
        run: Callable[[], Any]
        if kind == _wire.SCAN_OPEN:
            table, start, stop, ts, columns, filter_string, batch, sort, rev = args
            scan = T.TScan(
                startRow=start,
                stopRow=stop,
                timestamp=ts,
                columns=columns,
                filterString=filter_string,
                batchSize=batch,
                sortColumns=sort,
                reversed=rev,
            )
            run = lambda: safe.scannerOpenWithScan(table, scan, None)  # noqa: E731
        elif api == "scannerGet":
            run = lambda: safe.scannerGet(args[0])  # noqa: E731
        elif kind == _wire.SCAN_FETCH:
            run = lambda: safe.scannerGetList(*args)  # noqa: E731
        else:
            run = lambda: safe.scannerClose(*args)  # noqa: E731
        result = getattr(T.Hbase, api + "_result")()
        reply = write_reply(self.processor, api, seqid, result, run, _encode_scanner_reply)
        if reply is None:
            # Not a failure the IDL declares (the handler's wrapper declares
            # every one): thriftpy2's path takes the request again, and,
            # failing so too, drops the connection.
            return None
        return used, reply

    def _put(self, data: bytearray) -> tuple[int, bytes] | None:
        scanner = self.scanner
        rows_at = scanner.rows_at

        def fill(prefix: bytes, families: tuple[bytes, ...], tail: bytes, put: Any) -> int:
            written: int = _wire.put_rows(data, rows_at, prefix, families, tail, put)
            return written

        try:
            written = self.store.put_cells(scanner.table, scanner.timestamp, fill)
        except StoreError:
            written = False
        used, name, seqid = scanner.end, scanner.name, scanner.seqid
        scanner.reset()
        if not written:
            return None
        return used, _REPLY_HEAD.pack(_REPLY, len(name)) + name + struct.pack(">ib", seqid, 0)


def _encode_scanner_reply(api: str, seqid: int, result: Any) -> bytes | None:
    """A scanner call's reply, as thriftpy2 writes it: rows by the compiled
    encoder, a scanner id (i32, field 0) or nothing by hand."""
    if api == "scannerClose":
        return _REPLY_HEAD.pack(_REPLY, len(api)) + api.encode() + struct.pack(">ib", seqid, 0)
    if api == "scannerOpenWithScan":
        value = struct.pack(">ibhib", seqid, _T_I32, 0, result.success, 0)
        return _REPLY_HEAD.pack(_REPLY, len(api)) + api.encode() + value
    return encode_reply(api, seqid, result)


def fast_calls(store: Store, handler: Handler) -> Callable[[], FastPath] | None:
    """The Thrift1 port's compiled paths for ``store``; None where
    ``localhbase._wire`` is not built."""
    if _wire is None:
        return None
    return lambda: _FastCalls(store, handler)


class LocalHBaseServer:
    """A Thrift server for one :class:`Store`: Thrift1 (``Hbase``) by
    default, or the processor given (the Thrift2 port's), every connection
    served by one thread (:mod:`localhbase.loop`)."""

    def __init__(
        self,
        store: Store,
        host: str = "127.0.0.1",
        port: int = 9090,
        idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
        processor: TProcessor | None = None,
    ) -> None:
        self.store = store
        self.sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, port))
        self.sock.listen(128)
        self.host, self.port = self.sock.getsockname()[:2]
        # As HBase's Thrift server (hbase.thrift.server.socket.read.timeout),
        # a connection idle this long is closed: clients must cope.
        handler = Handler(store)
        self._loop = LoopServer(
            self.sock,
            processor or _Processor(T.Hbase, _SafeHandler(handler)),
            idle_timeout,
            fast_calls(store, handler) if processor is None else None,
            encode_reply if processor is None else None,
        )

    def serve_forever(self) -> None:
        self._loop.serve_forever()

    def shutdown(self) -> None:
        self._loop.shutdown()


class LocalHBase:
    """One store served on its ports: HBase's Thrift1 API on ``port`` and,
    unless ``thrift2_port`` is None, its Thrift2 API on ``thrift2_port``
    (0: a free port, for either; :attr:`port` and :attr:`thrift2_port` say
    which). The ports listen once this is made.

    Inside a process (a test, a benchmark), use it as a context manager: it
    serves from threads of its own until the block ends, then stops and
    closes the store. :func:`serve` runs one in the foreground instead.
    """

    def __init__(
        self,
        data: Path,
        host: str = "127.0.0.1",
        port: int = 0,
        thrift2_port: int | None = 0,
        idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
    ) -> None:
        from .thrift2 import thrift2_processor  # the Thrift2 IDL loads only when served

        self.store = Store(data)
        try:
            self.thrift1 = LocalHBaseServer(self.store, host, port, idle_timeout or None)
            self.thrift2 = None
            if thrift2_port is not None:
                self.thrift2 = LocalHBaseServer(
                    self.store,
                    host,
                    thrift2_port,
                    idle_timeout or None,
                    thrift2_processor(self.store),
                )
        except BaseException:
            self.store.close()
            raise
        self.host, self.port = self.thrift1.host, self.thrift1.port
        self.thrift2_port = self.thrift2.port if self.thrift2 is not None else None
        self._threads: list[threading.Thread] = []

    @property
    def address(self) -> Address:
        return Address(self.host, self.port, self.thrift2_port)

    def serve_forever(self) -> None:
        """Serve until :meth:`shutdown`: Thrift2 from a thread, Thrift1 from this one."""
        if self.thrift2 is not None:
            thread = threading.Thread(
                target=self.thrift2.serve_forever, name="thrift2", daemon=True
            )
            self._threads.append(thread)
            thread.start()
        self.thrift1.serve_forever()

    def shutdown(self) -> None:
        """Stop serving both ports; the store stays open."""
        if self.thrift2 is not None:
            self.thrift2.shutdown()
        self.thrift1.shutdown()

    def __enter__(self) -> LocalHBase:
        thread = threading.Thread(target=self.serve_forever, name="localhbase", daemon=True)
        self._threads.append(thread)
        thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        for thread in self._threads:
            thread.join()
        self.store.close()


def serve(
    data: Path,
    host: str,
    port: int,
    ready_file: Path | None = None,
    idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
    thrift2_port: int | None = None,
) -> None:
    """Run a server until SIGINT/SIGTERM; print one ready line when listening.

    With ``thrift2_port`` (0: a free one) the Thrift2 API is served there too.
    The ready file gets the address (:func:`localhbase.launch.write_ready`)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    hbase = LocalHBase(data, host, port, thrift2_port, idle_timeout)

    def stop(signum: int, frame: object) -> None:
        hbase.shutdown()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    thrift2 = f" thrift2={hbase.thrift2_port}" if hbase.thrift2_port is not None else ""
    log.info(
        "bulk puts, gets and replies of rows: %s; row reads: %s",
        "compiled paths" if _wire is not None else "thriftpy2 (localhbase._wire not built)",
        "compiled" if store_module.COMPILED else "Python (localhbase._rows not built)",
    )
    print(
        f"localhbase ready on {hbase.host}:{hbase.port}{thrift2} data={data} "
        f"tables={len(hbase.store.table_names())}",
        flush=True,
    )
    if ready_file is not None:
        write_ready(ready_file, hbase.address)
    try:
        hbase.serve_forever()
    finally:
        hbase.store.close()
        print("localhbase stopped", flush=True)


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    parser = parser or argparse.ArgumentParser(
        prog="localhbase",
        description="Serve a RocksDB directory over HBase's Thrift1 (and Thrift2) APIs.",
    )
    parser.add_argument(
        "--data", type=Path, required=True, help="RocksDB directory (created if missing)"
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=int, default=9090, help="port; 0 picks a free one (default 9090)"
    )
    parser.add_argument(
        "--thrift2-port",
        type=int,
        default=None,
        help="also serve HBase's Thrift2 API (THBaseService) on this port; 0 picks a free "
        "one (default: not served)",
    )
    parser.add_argument("--ready-file", type=Path, help="write host:port here once listening")
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=DEFAULT_IDLE_TIMEOUT,
        help="close client connections idle this many seconds, as HBase's Thrift "
        "server does (default 60; 0 never)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    # A crash in native code (RocksDB, Thrift's Cython) leaves every
    # thread's Python stack in the log instead of nothing.
    faulthandler.enable()
    serve(args.data, args.host, args.port, args.ready_file, args.idle_timeout, args.thrift2_port)


if __name__ == "__main__":
    main(sys.argv[1:])
