"""HBase's Thrift2 API (THBaseService, ``hbasethrift/idl/hbase2.thrift``) over :class:`Store`.

The local server serves it on a second port (``--thrift2-port``), as HBase
serves it from its own ``thrift2.ThriftServer``: same binary protocol and
buffered transport as the Thrift1 port. The data calls live here; the admin
calls (tables, namespaces, regions) in :mod:`localhbase.thrift2_admin`.

Each data call does what HBase 2.6's ``ThriftHBaseServiceHandler`` does: it
turns the Thrift struct into the HBase client operation (``ThriftUtilities``)
and runs it; here the operation is a :class:`ReadSpec` read or a list of
:data:`localhbase.store.Edit` written in one store call, the same paths the
Thrift1 port uses, so a call costs what its Thrift1 twin costs.

Errors are HBase's, found by running each call against HBase 2.6.1's own
thrift2 server:

* a ``TIOError`` carrying the Java exception's ``getMessage()``: just the
  table name for a missing table (``TableNotFoundException``), the class
  name first where the region server's exception comes back wrapped
  (``org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: ...``);
  ``canRetry`` unless the exception is a ``DoNotRetryIOException``;
* calls HBase runs through its client's batch machinery (putMultiple,
  deleteMultiple, getMultiple's family errors, mutateRow, checkAndMutate)
  fail with its ``RetriesExhaustedWithDetailsException`` text,
  ``Failed N actions: <cause>: N times, servers with issues: ...``, whose
  first line ends with the cause where the cause is a region server's;
* what the Java client refuses before sending (an empty row, a put without
  columns, a bad time range or filter string) dies as a Java runtime
  exception, which Thrift answers with ``TApplicationException``
  INTERNAL_ERROR "Internal error processing <call>"; we add the reason;
* ``TIllegalArgument("Invalid scanner Id")`` for an unknown scanner.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
from collections.abc import Sequence
from typing import Any

from thriftpy2.thrift import TApplicationException, TProcessor

from hbasethrift import HBASE2_IDL as IDL
from hbasethrift.thrift2 import T2

from .calls import (
    JAVA_NAMES,
    SafeCalls,
    Scanner,
    Scanners,
    java_names,
    plural,
    scan_rows,
    selected_columns,
)
from .encoding import (
    MAX_TS,
    TYPE_DELETE,
    TYPE_DELETE_COLUMN,
    TYPE_DELETE_FAMILY,
    TYPE_DELETE_FAMILY_VERSION,
    TYPE_PUT,
)
from .filter_protos import BadFilterBytes, FilterRefused
from .filter_protos import decode as decode_filter
from .filters import (
    ALL_VERSIONS,
    Filter,
    FilterError,
    apply_filter,
    parse_filter,
    push_down,
    reverse,
    versions_kept,
)
from .store import (
    COMPARE_OPS,
    REGION_SERVER,
    REGION_SERVER_PORT,
    BadArgument,
    Cell,
    Edit,
    NoSuchFamily,
    ReadSpec,
    RefusedArgument,
    Store,
    StoreError,
    TableNotEnabled,
    TableNotFound,
)
from .thrift2_admin import START_CODE, AdminCalls

__all__ = ["IDL", "T2", "Thrift2Handler", "thrift2_processor"]

log = logging.getLogger("localhbase.thrift2")

# HBase's thrift2 handler drops a scanner idle this long
# (hbase.client.scanner.timeout.period, default 60 s).
SCANNER_IDLE_SECONDS = 60.0
MAX_ROW_LENGTH = 32767  # Short.MAX_VALUE, HBase's limit on a row key

# The refusals this server names; any other is a plain java.io.IOException.
_JAVA = java_names(TableNotEnabled, NoSuchFamily, BadArgument)
_DO_NOT_RETRY = JAVA_NAMES[BadArgument]

_DELETE_KINDS = {
    T2.TDeleteType.DELETE_COLUMN: TYPE_DELETE,
    T2.TDeleteType.DELETE_COLUMNS: TYPE_DELETE_COLUMN,
    T2.TDeleteType.DELETE_FAMILY: TYPE_DELETE_FAMILY,
    T2.TDeleteType.DELETE_FAMILY_VERSION: TYPE_DELETE_FAMILY_VERSION,
}
_OPS = {getattr(T2.TCompareOp, name): name for name in COMPARE_OPS}


class _Internal(Exception):
    """What HBase's Java client refuses with a runtime exception: the Thrift
    server answers INTERNAL_ERROR."""


def string_binary(data: bytes) -> str:
    """Java's ``Bytes.toStringBinary``, as HBase prints a row in a message."""
    keep = b" `~!@#$%^&*()-_=+[]{}|;:'\",.<>/?"
    return "".join(
        chr(b) if (chr(b).isalnum() and b < 128) or b in keep else f"\\x{b:02X}" for b in data
    )


def _io_error(exc: StoreError) -> Exception:
    """The TIOError of a call HBase runs on its own (not batched)."""
    if isinstance(exc, (TableNotFound, TableNotEnabled)):
        # HBase's client raises these itself, before asking a region server:
        # the message is its own, unprefixed ("t", "t is disabled.").
        error: Exception = T2.TIOError(message=str(exc), canRetry=False)
        return error
    name = _JAVA.get(type(exc))
    if name is None:
        error = T2.TIOError(message=f"java.io.IOException: {exc}", canRetry=True)
    else:
        error = T2.TIOError(message=f"{name}: {exc}", canRetry=False)
    return error


def _batch_error(exc: StoreError, n: int) -> Exception:
    """HBase's RetriesExhaustedWithDetailsException for ``n`` failed actions:
    ``Failed N actions: <cause>: N times, servers with issues: <servers>``.

    A region server's refusal comes back with its Java stack trace inside the
    cause, so the first line, all we send, ends with the cause's message.
    """
    failed = f"Failed {plural(n, 'action')}"
    if isinstance(exc, TableNotFound):
        # No region server was ever asked.
        message = f"{failed}: {exc}: {plural(n, 'time')}, servers with issues: null"
    elif isinstance(exc, TableNotEnabled):
        # A disabled table's regions are closed; HBase names the server asked.
        message = (
            f"{failed}: NotServingRegionException: {plural(n, 'time')}, "
            f"servers with issues: {REGION_SERVER.decode()},{REGION_SERVER_PORT},{START_CODE}"
        )
    else:
        message = f"{failed}: {_JAVA.get(type(exc), 'java.io.IOException')}: {exc}"
    error: Exception = T2.TIOError(message=message, canRetry=True)
    return error


# -- Thrift structs -> store operations ----------------------------------------


def _check_row(row: bytes | None) -> bytes:
    if not row:
        raise _Internal("Row length is 0")
    if len(row) > MAX_ROW_LENGTH:
        raise _Internal(f"Row length {len(row)} is > {MAX_ROW_LENGTH}")
    return row


def _check_ts(ts: int) -> int:
    if ts < 0:
        raise _Internal(f"Timestamp cannot be negative. ts={ts}")
    return ts


def _write_ts(ts: int | None) -> int | None:
    """A mutation's timestamp as the store takes it: None ("now") for none and
    for HConstants.LATEST_TIMESTAMP, which HBase's Java client sends for every
    cell its caller gave no timestamp and HBase's region replaces with its own
    time (a Delete of one version: with the latest version's)."""
    if ts is None:
        return None
    return None if _check_ts(ts) == MAX_TS else ts


def _columns(columns: Sequence[Any] | None) -> dict[bytes, frozenset[bytes] | None] | None:
    """TColumns -> :class:`ReadSpec` columns
    (:func:`localhbase.calls.selected_columns`). A TColumn's timestamp is
    ignored, as HBase ignores it."""
    return selected_columns((c.family, c.qualifier) for c in columns or ())


def _time_range(tr: Any) -> tuple[int, int | None]:
    lo, hi = tr.minStamp, tr.maxStamp
    if lo < 0 or hi < 0:
        raise _Internal(f"Timestamp cannot be negative. minStamp:{lo}, maxStamp:{hi}")
    if hi < lo:
        raise _Internal("maxStamp is smaller than minStamp")
    return lo, (None if hi == MAX_TS else hi)


def _get_spec(tget: Any) -> ReadSpec:
    _check_row(tget.row)
    lo, hi = 0, None
    # As HBase: a timestamp wins over a time range.
    if tget.timestamp is not None:
        lo = _check_ts(tget.timestamp)
        hi = lo + 1 if lo < MAX_TS else None
    elif tget.timeRange is not None:
        lo, hi = _time_range(tget.timeRange)
    versions = 1
    if tget.maxVersions is not None:
        if tget.maxVersions <= 0:
            # Get.readVersions(n <= 0): a plain IOException in HBase.
            raise T2.TIOError(message="versions must be positive", canRetry=True)
        versions = tget.maxVersions
    return ReadSpec(columns=_columns(tget.columns), max_ts=hi, versions=versions, min_ts=lo)


def _filtered_read(spec: ReadSpec, flt: Filter | None) -> tuple[ReadSpec, Filter | None]:
    """A read with a filter reads every version the family keeps, and keeps
    the read's number of versions of what the filter lets through, as HBase's
    region does (filters.versions_kept says for which filters)."""
    kept = versions_kept(flt, spec.versions) if flt is not None else None
    if kept is None:
        return spec, flt
    return dataclasses.replace(spec, versions=ALL_VERSIONS), kept


def _filter(source: bytes | None, filter_bytes: bytes | None) -> Filter | None:
    if filter_bytes is not None:
        # A serialized Java filter wins over a filter string, as in HBase's
        # handler, which sets the string's filter and then the bytes'.
        try:
            return decode_filter(filter_bytes)
        except FilterRefused as exc:
            # HBase wraps the failure in a DoNotRetryIOException: no retry.
            raise T2.TIOError(message=str(exc), canRetry=False) from None
        except BadFilterBytes as exc:
            # protobuf's InvalidProtocolBufferException, a plain IOException.
            raise T2.TIOError(message=str(exc), canRetry=True) from None
    # An empty filter string is an error in HBase too; only None means none.
    return parse_filter(source) if source is not None else None


def _per_family(tget: Any, cells: list[Cell]) -> list[Cell]:
    """TGet's storeOffset and storeLimit: the cells of each family (after the
    filter) from the offset on, at most the limit. As observed on HBase 2.6.1,
    a limit of 0 still returns one cell per family."""
    limit, offset = tget.storeLimit, tget.storeOffset or 0
    if (limit is None or limit < 0) and offset <= 0:
        return cells
    room = max(limit, 1) if limit is not None and limit >= 0 else len(cells)
    out: list[Cell] = []
    for _, group in itertools.groupby(cells, key=lambda c: c[0]):
        out.extend(list(group)[max(offset, 0) :][:room])
    return out


def _result(row: bytes, cells: Sequence[Cell], partial: bool = False) -> Any:
    cv = T2.TColumnValue
    return T2.TResult(
        row=row,
        columnValues=[
            cv(family=f, qualifier=q, value=v, timestamp=ts, type=TYPE_PUT) for f, q, ts, v in cells
        ],
        stale=False,
        partial=partial,
    )


def _empty_result() -> Any:
    return T2.TResult(row=None, columnValues=[], stale=False, partial=False)


def _put_edits(tput: Any) -> tuple[bytes, list[Edit]]:
    row = _check_row(tput.row)
    if not tput.columnValues:
        raise _Internal("No columns to insert")
    put_ts = tput.timestamp
    if put_ts is not None:
        _check_ts(put_ts)
    edits: list[Edit] = []
    for cv in tput.columnValues:
        ts = _write_ts(cv.timestamp if cv.timestamp is not None else put_ts)
        edits.append((TYPE_PUT, cv.family, cv.qualifier or b"", ts, cv.value or b""))
    return row, edits


def _delete_edits(tdelete: Any, families: Sequence[bytes]) -> tuple[bytes, list[Edit]]:
    row = _check_row(tdelete.row)
    if not tdelete.columns:
        # The whole row: a family marker per family, at the delete's
        # timestamp; but an empty column list (set, so HBase builds its Delete
        # without the timestamp) deletes everything up to now.
        ts = _write_ts(tdelete.timestamp if tdelete.columns is None else None)
        return row, [(TYPE_DELETE_FAMILY, f, b"", ts, b"") for f in families]
    # A missing deleteType is DELETE_COLUMNS: Java's TDelete defaults it. Odd
    # but HBase's: a column without a qualifier is the column "family:" for
    # the column types (DELETE_COLUMNS of TColumn(b"cf") spares the rest of cf),
    # and the row-level timestamp is ignored once columns are given.
    kind = _DELETE_KINDS[
        tdelete.deleteType if tdelete.deleteType is not None else T2.TDeleteType.DELETE_COLUMNS
    ]
    edits: list[Edit] = []
    for c in tdelete.columns:
        if kind == TYPE_DELETE_FAMILY_VERSION and c.timestamp is None:
            raise _Internal("Timestamp is required for TDelete with DeleteFamilyVersion type")
        ts = _write_ts(c.timestamp)
        qualifier = (c.qualifier or b"") if kind in (TYPE_DELETE, TYPE_DELETE_COLUMN) else b""
        edits.append((kind, c.family, qualifier, ts, b""))
    return row, edits


# -- scanners --------------------------------------------------------------------


class Thrift2Handler(AdminCalls):
    """Implements the calls of the ``THBaseService`` Thrift2 service."""

    def __init__(self, store: Store) -> None:
        self.store = store
        # HBase numbers its thrift2 scanners from 0, and drops one idle too
        # long whenever a scanner is opened or used.
        self._scanners: Scanners[Scanner] = Scanners(0, SCANNER_IDLE_SECONDS, expire_on_use=True)

    def getThriftServerType(self) -> int:
        # HBase's Thrift1 server answers ONE.
        return int(T2.TThriftServerType.TWO)

    def getClusterId(self) -> str:
        return self.store.cluster_id()

    # -- reads ----------------------------------------------------------------

    def _read(self, table: bytes, tget: Any) -> list[Cell]:
        spec, flt = _filtered_read(_get_spec(tget), _filter(tget.filterString, tget.filterBytes))
        rows = self.store.get_rows(table, [tget.row], spec)
        if not rows:
            return []
        cells = rows[0][1]
        if flt is not None:
            cells = apply_filter(flt, tget.row, cells) or []
        return _per_family(tget, cells)

    def exists(self, table: bytes, tget: Any) -> bool:
        return bool(self._read(table, tget))

    def existsAll(self, table: bytes, tgets: list[Any]) -> list[bool]:
        return [bool(self._read(table, g)) for g in tgets]

    def get(self, table: bytes, tget: Any) -> Any:
        cells = self._read(table, tget)
        if tget.existence_only:
            # HBase's get answers such a Get with a Result holding no cell
            # array, which its TResult conversion dies on: odd, but HBase's.
            raise _Internal("a Get with existence_only has no cells to return")
        return _result(tget.row, cells) if cells else _empty_result()

    def getMultiple(self, table: bytes, tgets: list[Any]) -> list[Any]:
        specs = [
            _filtered_read(_get_spec(g), _filter(g.filterString, g.filterBytes)) for g in tgets
        ]
        info = self.store.table(table)
        bad = [
            g
            for g, (spec, _) in zip(tgets, specs, strict=True)
            if spec.columns is not None and not spec.columns.keys() <= info.families.keys()
        ]
        if bad:
            try:
                self.store.get_rows(table, [bad[0].row], _get_spec(bad[0]))
            except NoSuchFamily as exc:
                raise _batch_error(exc, len(bad)) from None
        out = []
        for g, (spec, flt) in zip(tgets, specs, strict=True):
            rows = self.store.get_rows(table, [g.row], spec)
            cells = rows[0][1] if rows else []
            if cells and flt is not None:
                cells = apply_filter(flt, g.row, cells) or []
            cells = _per_family(g, cells)
            out.append(_result(g.row, cells) if cells else _empty_result())
        return out

    # -- writes ---------------------------------------------------------------

    def put(self, table: bytes, tput: Any) -> None:
        self.store.write_edits(table, [_put_edits(tput)])

    def _batch(self, table: bytes, rows: list[tuple[bytes, list[Edit]]]) -> None:
        """Rows as HBase's client batch runs them: one action each; rows
        naming an unknown family fail alone and the others are written."""
        if not rows:
            return
        try:
            families = self.store.table(table).families
        except TableNotFound as exc:
            raise _batch_error(exc, len(rows)) from None
        good = [r for r in rows if all(e[1] in families for e in r[1])]
        try:
            self.store.write_edits(table, good)
            if len(good) < len(rows):
                bad = [r for r in rows if not all(e[1] in families for e in r[1])]
                self.store.check_row_families(table, bad)
        except StoreError as exc:
            raise _batch_error(exc, len(rows) - len(good) or len(rows)) from None

    def putMultiple(self, table: bytes, tputs: list[Any]) -> None:
        self._batch(table, [_put_edits(p) for p in tputs])

    def _families(self, table: bytes) -> Sequence[bytes]:
        try:
            return list(self.store.table(table).families)
        except TableNotFound:
            return []  # the write that follows reports the missing table

    def deleteSingle(self, table: bytes, tdelete: Any) -> None:
        self.store.write_edits(table, [_delete_edits(tdelete, self._families(table))])

    def deleteMultiple(self, table: bytes, tdeletes: list[Any]) -> list[Any]:
        families = self._families(table)
        self._batch(table, [_delete_edits(d, families) for d in tdeletes])
        # HBase answers an empty list whatever happened (failures raise).
        return []

    def _check_and(
        self,
        table: bytes,
        row: bytes,
        family: bytes,
        qualifier: bytes,
        value: bytes | None,
        edits: tuple[bytes, list[Edit]],
    ) -> bool:
        _check_row(row)
        if edits[0] != row:
            raise T2.TIOError(
                message=f"{_DO_NOT_RETRY}: The row of the action <{string_binary(edits[0])}> "
                f"doesn't match the original one <{string_binary(row)}>",
                canRetry=False,
            )
        return self.store.check_and_mutate(table, row, family, qualifier, "EQUAL", value, edits[1])

    def checkAndPut(
        self,
        table: bytes,
        row: bytes,
        family: bytes,
        qualifier: bytes,
        value: bytes | None,
        tput: Any,
    ) -> bool:
        # value None: "only if the column has no value" (HBase's ifNotExists).
        return self._check_and(table, row, family, qualifier, value, _put_edits(tput))

    def checkAndDelete(
        self,
        table: bytes,
        row: bytes,
        family: bytes,
        qualifier: bytes,
        value: bytes | None,
        tdelete: Any,
    ) -> bool:
        edits = _delete_edits(tdelete, self._families(table))
        return self._check_and(table, row, family, qualifier, value, edits)

    def _row_mutations(self, table: bytes, trm: Any) -> tuple[bytes, list[Edit]]:
        row = _check_row(trm.row)
        if not trm.mutations:
            raise _Internal("RowMutations needs at least one mutation")
        families = None
        edits: list[Edit] = []
        for m in trm.mutations:
            if m.put is not None:
                mrow, more = _put_edits(m.put)
            elif m.deleteSingle is not None:
                if families is None:
                    families = self._families(table)
                mrow, more = _delete_edits(m.deleteSingle, families)
            else:
                continue
            if mrow != row:
                # RowMutations.add refuses it in HBase's client: a plain IOException.
                raise T2.TIOError(
                    message=f"The row in the recently added Mutation <{string_binary(mrow)}> "
                    f"doesn't match the original one <{string_binary(row)}>",
                    canRetry=True,
                )
            edits.extend(more)
        return row, edits

    def mutateRow(self, table: bytes, trowMutations: Any) -> None:
        row, edits = self._row_mutations(table, trowMutations)
        try:
            self.store.write_edits(table, [(row, edits)])
        except StoreError as exc:
            # One action per mutation in HBase's batch, all failing together.
            raise _batch_error(exc, len(trowMutations.mutations)) from None

    def checkAndMutate(
        self,
        table: bytes,
        row: bytes,
        family: bytes,
        qualifier: bytes,
        compareOp: int,
        value: bytes | None,
        rowMutations: Any,
    ) -> bool:
        if value is None:
            raise _Internal("value is null")  # a NullPointerException in HBase
        op = _OPS.get(compareOp)
        if op is None:
            raise _Internal(f"Unknown compare op {compareOp}")
        mrow, edits = self._row_mutations(table, rowMutations)
        try:
            _check_row(row)
            if mrow != row:
                raise BadArgument(
                    f"The row of the action <{string_binary(mrow)}> doesn't match the "
                    f"original one <{string_binary(row)}>"
                )
            return self.store.check_and_mutate(table, row, family, qualifier, op, value, edits)
        except StoreError as exc:
            # HBase sends a RowMutations check through its batch machinery.
            raise _batch_error(exc, 1) from None

    def increment(self, table: bytes, tincrement: Any) -> Any:
        row = _check_row(tincrement.row)
        if not tincrement.columns:
            raise _Internal("No columns to increment")
        deltas = [
            (c.family, c.qualifier, c.amount if c.amount is not None else 1)
            for c in tincrement.columns
        ]
        cells = self.store.increment_columns(table, row, deltas)
        if tincrement.returnResults is False:
            return _empty_result()
        return _result(row, cells)

    def append(self, table: bytes, tappend: Any) -> Any:
        row = _check_row(tappend.row)
        if not tappend.columns:
            raise _Internal("No columns to append")
        # A TColumnValue's timestamp is ignored, as HBase ignores it.
        deltas = [(c.family, c.qualifier, c.value or b"") for c in tappend.columns]
        cells = self.store.append_columns(table, row, deltas)
        if tappend.returnResults is False:
            return _empty_result()
        return _result(row, cells)

    # -- scanners -------------------------------------------------------------

    def _scanner_of(self, table: bytes, tscan: Any) -> Scanner:
        flt = _filter(tscan.filterString, tscan.filterBytes)
        if tscan.reversed:
            reverse(flt)
        pushed = push_down(flt)
        lo, hi = _time_range(tscan.timeRange) if tscan.timeRange is not None else (0, None)
        versions = tscan.maxVersions if tscan.maxVersions is not None else 1
        rest, read_versions = pushed.rest, versions
        kept = versions_kept(rest, versions) if rest is not None else None
        if kept is not None:
            rest, read_versions = kept, ALL_VERSIONS
        ranges = None
        if tscan.colFamTimeRangeMap:
            ranges = {f: _time_range(tr) for f, tr in tscan.colFamTimeRangeMap.items()}
        spec = ReadSpec(
            columns=_columns(tscan.columns),
            max_ts=hi,
            versions=read_versions,
            min_ts=lo,
            family_ranges=ranges,
            first_cell_only=pushed.first_cell_only,
            keys_only=pushed.keys_only,
        )
        # HBase opens the scanner without asking a region; reads fail.
        rows = scan_rows(
            self.store,
            table,
            tscan.startRow,
            tscan.stopRow,
            spec,
            bool(tscan.reversed),
            (StoreError,),
        )
        if versions <= 0:
            rows = iter(())  # a scan of no versions finds nothing, without an error
        batch = tscan.batchSize if tscan.batchSize and tscan.batchSize > 0 else 0
        limit = tscan.limit if tscan.limit and tscan.limit > 0 else 0
        return Scanner(rows, rest, batch, limit, _result)

    def openScanner(self, table: bytes, tscan: Any) -> int:
        return self._scanners.add(self._scanner_of(table, tscan))

    def getScannerRows(self, scannerId: int, numRows: int) -> list[Any]:
        if numRows is not None and numRows < 0:
            # new ArrayList<>(numRows) in HBase's ResultScanner.next(int)
            raise _Internal(f"Illegal Capacity: {numRows}")
        scanner = self._scanners.get(scannerId)
        if scanner is None:
            raise T2.TIllegalArgument(message="Invalid scanner Id")
        with scanner.lock:
            return scanner.fetch(numRows if numRows is not None else 1)

    def getScannerResults(self, table: bytes, tscan: Any, numRows: int) -> list[Any]:
        if numRows is not None and numRows < 0:
            raise _Internal(f"Illegal Capacity: {numRows}")
        return self._scanner_of(table, tscan).fetch(numRows if numRows is not None else 1)

    def closeScanner(self, scannerId: int) -> None:
        # HBase 2.6 only logs an unknown (perhaps expired) scanner id.
        self._scanners.pop(scannerId)

    # -- slow log -------------------------------------------------------------

    def getSlowLogResponses(self, serverNames: Any, logQueryFilter: Any) -> list[Any]:
        if serverNames is None or logQueryFilter is None:
            raise _Internal("serverNames and logQueryFilter are required")
        # HBase keeps no slow-log records unless asked to
        # (hbase.regionserver.slowlog.buffer.enabled); nor does this server.
        return []

    def clearSlowLogResponses(self, serverNames: Any) -> list[bool]:
        return []


class _SafeHandler(SafeCalls):
    """Turns every failure of a Thrift2 call into the error HBase would send."""

    declared = (T2.TIOError, T2.TIllegalArgument, TApplicationException)
    internal = (_Internal, FilterError, RefusedArgument)
    log = log
    io_error = staticmethod(_io_error)
    io_error_struct = T2.TIOError


def thrift2_processor(store: Store) -> TProcessor:
    """The processor of the Thrift2 port, over ``store``."""
    return TProcessor(T2.THBaseService, _SafeHandler(Thrift2Handler(store)))
