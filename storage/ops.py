"""Storage operations happybase does not wrap: conditional writes and counters
that a retried operation cannot apply twice, batches of puts sent as one
request (of rows that share their cells, or of any rows), a scan for
row keys in as few round trips as it takes, and a page's rows in two.

A batch's request is written by compiled code (``storage._bulk``) where
it is built and the connection speaks the binary protocol, and sent on
happybase's own connection, whose client reads the reply; elsewhere it is
made of happybase's Thrift objects, as ``Table.batch`` makes it.

Thrift1's checkAndPut compares one cell and puts one cell, atomically. On it
rest the counts that a retried or racing change cannot apply twice. A
counter cell carries the ids of the operations applied to it
(storage.rows.Counted):

- :func:`apply_once` remembers the last ``WINDOW`` ids, so a retry of an
  operation (same id) that comes within the next ``WINDOW`` operations on
  that counter is not counted again: a retried request or task.
- :class:`MarkedChange` is exact without that bound, for a change whose
  state lives in another row and is marked done there once counted (a like,
  a follow, a post's count). It holds the change's id pending in the cell
  from the count until its mark is written, and counts only while the
  state reads undone after the cell was read, with the cell unchanged
  since: a late twin of the change, however late, counts nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import happybase
from Hbase_thrift import BatchMutation, Mutation, TScan
from thriftpy2.protocol import TCyBinaryProtocol
from thriftpy2.thrift import TApplicationException, TMessageType
from thriftpy2.transport import TCyMemoryBuffer
from thriftpy2.transport.cybase import CyTransportBase

from .keys import prefix_stop
from .rows import OP_LEN, Counted, decode_count, decode_counted, encode_counted, without

try:
    from . import _bulk
except (ImportError, ValueError):
    # Not built where it was installed (no C compiler: see setup.py), or
    # built against another thriftpy2, whose transport (cimported for the
    # reads of row keys) Cython then refuses with a ValueError.
    _bulk = None  # type: ignore[assignment]
# Whether batches' requests may be written by the compiled encoder.
COMPILED = _bulk is not None

WINDOW = 64

# A scan that returns each row's key alone: one cell a row, its value
# dropped. Spelled once, so every such scan sends the same string (the
# local server parses a filter string once: localhbase/filters.py).
KEYS_ONLY = "KeyOnlyFilter() AND FirstKeyOnlyFilter()"


def op_id(*parts: bytes) -> bytes:
    """A 16-byte operation id, the same every time the same operation is retried."""
    return hashlib.md5(b"\x00".join(parts)).digest()


def check_and_put(
    conn: happybase.Connection,
    table: str,
    row: bytes,
    column: bytes,
    expected: bytes | None,
    put_column: bytes,
    value: bytes,
) -> bool:
    """Put ``value`` in ``put_column`` if ``column`` holds ``expected`` (None: is absent)."""
    return bool(
        conn.client.checkAndPut(
            table.encode(),
            row,
            column,
            expected,
            Mutation(column=put_column, value=value, isDelete=False),
            {},
        )
    )


def apply_once(
    conn: happybase.Connection, table: str, row: bytes, column: bytes, delta: int, op: bytes
) -> int:
    """Add ``delta`` to the counter unless operation ``op`` was already applied.

    ``op`` is a 16-byte id, the same on every retry of one operation. Returns
    the count after the call. Compare-and-set: concurrent callers retry. The
    cell remembers the last ``WINDOW`` operations: a retry after more than
    that many others counts again (:class:`MarkedChange` has no such bound).
    """
    _check_op(op)
    t = conn.table(table)
    while True:
        cell = t.row(row, columns=[column]).get(column)
        now = decode_counted(cell)
        if any(now.holds(op)):
            return now.count
        new = Counted(now.count + delta, _remember(now.done, op), now.pending)
        if check_and_put(conn, table, row, column, cell, column, encode_counted(new)):
            return new.count


class MarkedChange:
    """The counts of one change whose state lives in another row, each
    applied exactly once however many twins (retries, racing requests)
    finish the same change, and however late.

    ``undone`` reads the change's state and says whether it still waits to
    be counted; it must turn false once the caller writes the change's mark
    (counted=1, an edge's record, a row's delete) and never turn true again
    for this change. The caller counts with :meth:`count` (each counter,
    under the change's operation id), then writes the mark, then calls
    :meth:`settle`::

        change = MarkedChange(conn, lambda: state_row_says_pending())
        change.count("twits", twit, COUNT_LIKES, +1, op)
        check_and_put(...)  # the mark
        change.settle()

    Why it is exact: :meth:`count` reads the counter cell, then the state,
    and puts only if the cell is still what it read. An id leaves the cell's
    pending ids only at a settle, after its mark; so if the cell read lacks
    the id and the state read after it is undone, the change was never
    counted, and the compare-and-set fails if anyone counted it since. (A
    settle moves the id among the done ids, which never return to an earlier
    value once new ids pass through, so the compare cannot be fooled by a
    cell that changed and changed back.)

    A twin that dies between its mark and its settle leaves the id pending
    for good: 16 bytes in the cell, and no wrong count.
    """

    def __init__(self, conn: happybase.Connection, undone: Callable[[], bool]) -> None:
        self._conn = conn
        self._undone = undone
        self._held: list[tuple[str, bytes, bytes, bytes, bytes | None]] = []

    def count(self, table: str, row: bytes, column: bytes, delta: int, op: bytes) -> bool:
        """Add ``delta`` to the counter for this change, unless it is counted
        there already. Returns whether this caller is to go on finishing the
        change: False when a twin has finished it (its id settled here, or
        its state no longer undone), and the rest of it is the twin's too."""
        _check_op(op)
        t = self._conn.table(table)
        while True:
            cell = t.row(row, columns=[column]).get(column)
            now = decode_counted(cell)
            done, pending = now.holds(op)
            if done:
                return False
            if pending:
                # Counted by a twin not yet settled (running, or dead before
                # its mark): this caller's mark and settle finish it.
                break
            if not self._undone():
                return False
            new = encode_counted(Counted(now.count + delta, now.done, now.pending + op))
            if check_and_put(self._conn, table, row, column, cell, column, new):
                cell = new
                break
        self._held.append((table, row, column, op, cell))
        return True

    def settle(self) -> None:
        """After the change's mark: move its ids from pending to done. The
        first try expects the cell as this caller last saw it, which saves
        a read when nobody has counted there since."""
        for table, row, column, op, cell in self._held:
            t = self._conn.table(table)
            while True:
                now = decode_counted(cell)
                if not now.holds(op)[1]:
                    break
                new = Counted(now.count, _remember(now.done, op), without(now.pending, op))
                if check_and_put(self._conn, table, row, column, cell, column, encode_counted(new)):
                    break
                cell = t.row(row, columns=[column]).get(column)
        self._held.clear()


def _remember(done: bytes, op: bytes) -> bytes:
    """The done ids with ``op`` added, the oldest dropped past ``WINDOW``."""
    return (done + op)[-WINDOW * OP_LEN :]


def _check_op(op: bytes) -> None:
    if len(op) != OP_LEN:
        raise ValueError(f"op must be {OP_LEN} bytes, got {len(op)}")


def put_rows_alike(
    conn: happybase.Connection,
    table: str,
    row_keys: list[bytes],
    cells: dict[bytes, bytes],
    timestamp: int,
) -> None:
    """Put the same ``cells`` in every row of ``row_keys``, at ``timestamp``, in
    one mutateRowsTs: what ``Table.batch`` sends, with the cells encoded
    once for every row (a fan-out chunk puts one twit's cells in 2,000
    streams)."""
    if not row_keys:
        return
    if _compiled(conn):
        request = _bulk.mutate_rows_alike(
            conn.client._seqid, table.encode(), row_keys, list(cells.items()), timestamp
        )
        _call(conn, "mutateRowsTs", request)
        return
    mutations = [Mutation(isDelete=False, column=c, value=v) for c, v in cells.items()]
    conn.client.mutateRowsTs(
        table.encode(), [BatchMutation(row, mutations) for row in row_keys], timestamp, {}
    )


def put_tailed_rows_alike(
    conn: happybase.Connection,
    table: str,
    heads: bytes,
    width: int,
    tail: bytes,
    cells: dict[bytes, bytes],
    timestamp: int,
) -> None:
    """:func:`put_rows_alike` for the rows ``head + tail``, a head for each
    ``width`` bytes of ``heads``: a fan-out chunk's stream rows, from its
    readers' md5s run together (compiled, no key is made in Python)."""
    if len(heads) % width:
        raise ValueError(f"{len(heads)} bytes of heads are not whole heads of {width}")
    if not heads:
        return
    if _compiled(conn):
        request = _bulk.mutate_tailed_rows_alike(
            conn.client._seqid, table.encode(), heads, width, tail, list(cells.items()), timestamp
        )
        _call(conn, "mutateRowsTs", request)
        return
    row_keys = [heads[i : i + width] + tail for i in range(0, len(heads), width)]
    put_rows_alike(conn, table, row_keys, cells, timestamp)


def spread_pick(heads: bytes, width: int, salt: int, modulus: int) -> list[bytes]:
    """The ``width``-byte heads of ``heads`` (run together) whose first four
    bytes, read big-endian, plus ``salt`` are a multiple of ``modulus``, in
    order: which of a fan-out chunk's readers it trims
    (``feeds.services.fanout._trims_due``). Here because it is a loop over
    a chunk's rows, compiled where ``storage._bulk`` is."""
    if _bulk is not None:
        return _bulk.spread_pick(heads, width, salt, modulus)
    if width < 4 or len(heads) % width or modulus == 0:
        raise ValueError("heads of at least 4 bytes, whole, and a modulus")
    return [
        heads[i : i + width]
        for i in range(0, len(heads), width)
        if (int.from_bytes(heads[i : i + 4], "big") + salt) % modulus == 0
    ]


class Pipeline:
    """Calls on one connection that do not wait on each other's answers,
    written together and sent in one flush, their replies then read in
    order: one round trip for them all. A Thrift server answers a
    connection's requests in the order they came (as :func:`scan_rows`
    relies on), so each call sees what the calls before it wrote.

    Each call takes its arguments as happybase's Table method of that name
    does, and :meth:`send` returns the results in order, as those methods
    return them. Every reply is read, whatever the others held, so the
    connection stays in step; then the first error raises. A fan-out chunk
    records its progress, counts its rows and reads the progress back so:
    one round trip where three waited on each other.

    The calls are written into the pipeline's own buffer, in the
    connection's protocol, and reach the connection only in :meth:`send`: a
    pipeline dropped half-made (an error while making it) leaves the
    connection as it was."""

    def __init__(self, conn: happybase.Connection) -> None:
        self._conn = conn
        self._empty()

    def _empty(self) -> None:
        """No calls made yet: a fresh buffer, in the connection's protocol."""
        self._buf = TCyMemoryBuffer()
        self._proto = type(self._conn.client._oprot)(self._buf, decode_response=False)
        # What to do with each reply: the call's name, how to make its
        # result, and (for a call made by rows()) where to leave it.
        self._calls: list[tuple[str, Callable[[Any], Any]]] = []
        self._replies: dict[int, Reply] = {}
        # The table each call names, in order: what the tests count per call
        # (one request carries them all, so the request alone cannot say).
        self.tables: list[str] = []

    def _add(self, api: str, result: Callable[[Any], Any], **args: Any) -> None:
        client = self._conn.client
        self._proto.write_message_begin(api, TMessageType.CALL, client._seqid)
        getattr(client._service, api + "_args")(**args).write(self._proto)
        self._proto.write_message_end()
        self._calls.append((api, result))
        self.tables.append(args["tableName"].decode())

    def put(
        self, table: str, row: bytes, data: dict[bytes, bytes], timestamp: int | None = None
    ) -> None:
        mutations = [Mutation(isDelete=False, column=c, value=v) for c, v in data.items()]
        args = dict(tableName=table.encode(), row=row, mutations=mutations, attributes={})
        if timestamp is None:
            self._add("mutateRow", _none, **args)
        else:
            self._add("mutateRowTs", _none, timestamp=timestamp, **args)

    def put_rows(
        self,
        table: str,
        rows: list[tuple[bytes, dict[bytes, bytes]]],
        timestamp: int | None = None,
    ) -> None:
        """:func:`put_rows`, in the pipeline: many timestamps' batches in
        one round trip (an import puts each cell at its own timestamp)."""
        if not rows:
            return
        call = "mutateRows" if timestamp is None else "mutateRowsTs"
        if _compiled(self._conn):
            seqid = self._conn.client._seqid
            self._buf.write(_bulk.mutate_rows(seqid, table.encode(), rows, timestamp))
            self._calls.append((call, _none))
            self.tables.append(table)
            return
        batches = _put_batches(rows)
        args: dict[str, Any] = dict(tableName=table.encode(), rowBatches=batches, attributes={})
        if timestamp is not None:
            args["timestamp"] = timestamp
        self._add(call, _none, **args)

    def delete(self, table: str, row: bytes, columns: list[bytes] | None = None) -> None:
        """``Table.delete``: the whole row (deleteAllRow), or ``columns`` of it."""
        if columns is None:
            self._add("deleteAllRow", _none, tableName=table.encode(), row=row, attributes={})
            return
        deletes = [Mutation(isDelete=True, column=c) for c in columns]
        self._add(
            "mutateRow", _none, tableName=table.encode(), row=row, mutations=deletes, attributes={}
        )

    def delete_rows(self, table: str, row_keys: list[bytes], columns: list[bytes]) -> None:
        """:func:`delete_rows`, in the pipeline."""
        if _compiled(self._conn):
            seqid = self._conn.client._seqid
            self._buf.write(_bulk.delete_rows_alike(seqid, table.encode(), row_keys, columns, None))
            self._calls.append(("mutateRows", _none))
            self.tables.append(table)
            return
        deletes = [Mutation(isDelete=True, column=c) for c in columns]
        batches = [BatchMutation(row, deletes) for row in row_keys]
        self._add("mutateRows", _none, tableName=table.encode(), rowBatches=batches, attributes={})

    def counter_inc(self, table: str, row: bytes, column: bytes, value: int = 1) -> None:
        self._add(
            "atomicIncrement", int, tableName=table.encode(), row=row, column=column, value=value
        )

    def row(self, table: str, row: bytes, columns: list[bytes] | None = None) -> None:
        self._add(
            "getRowWithColumns",
            _first_row,
            tableName=table.encode(),
            row=row,
            columns=columns,
            attributes={},
        )

    def rows(self, table: str, row_keys: list[bytes], columns: list[bytes] | None = None) -> Reply:
        """``Table.rows``: the rows of ``row_keys`` that are there (of
        ``columns``; None: all), as (key, {column: value}), in the returned
        :class:`Reply` once the pipeline is sent. Several such multi-gets,
        of any tables, cost one round trip: a page's lookups are made so
        (feeds.services.hydration). Compiled, the reply is read straight
        into those pairs, as a scan's rows are (:func:`read_rows_reply`)."""
        reply = Reply()
        self._replies[len(self._calls)] = reply
        self._add(
            "getRowsWithColumns",
            _rows_of,
            tableName=table.encode(),
            rows=row_keys,
            columns=columns,
            attributes={},
        )
        return reply

    def count(self, table: str, row: bytes, column: bytes) -> Callable[[], int]:
        """The count the counter cell ``column`` of ``row`` holds (0 when
        absent, never below 0), in the returned call once the pipeline is
        sent: one row of a multi-get, as :meth:`rows` asks it."""
        reply = self.rows(table, [row], [column])

        def answer() -> int:
            return max(0, decode_count(reply.row.get(column)))

        return answer

    def send(self) -> list[Any]:
        client = self._conn.client
        if not self._calls:
            return []
        _send(self._conn, bytes(self._buf.getvalue()))
        calls, replies = self._calls, self._replies
        self._empty()
        compiled = _compiled_reads(self._conn)
        results: list[Any] = []
        failed: Exception | None = None
        for n, (api, result) in enumerate(calls):
            try:
                if api == "getRowsWithColumns" and compiled:
                    found = read_rows_reply(client, api)
                else:
                    found = result(client._recv(api))
                results.append(found)
                if n in replies:
                    replies[n].value = found
            except Exception as exc:
                results.append(None)
                failed = failed or exc
        if failed is not None:
            raise failed
        return results


class Reply:
    """A pipelined multi-get's rows (:meth:`Pipeline.rows`), there once
    its pipeline is sent; reading them before raises."""

    __slots__ = ("_rows",)

    def __init__(self) -> None:
        self._rows: Rows | None = None

    @property
    def value(self) -> Rows:
        if self._rows is None:
            raise RuntimeError("the pipeline holding this call has not been sent")
        return self._rows

    @value.setter
    def value(self, found: Rows) -> None:
        self._rows = found

    @property
    def row(self) -> dict[bytes, bytes]:
        """The one row of a one-row multi-get ({} when it is not there): a
        reader that asked for a single key, as ``Table.row`` answers."""
        return next((cells for _, cells in self.value), {})


@contextmanager
def pipelined(out: happybase.Connection | Pipeline) -> Iterator[Pipeline]:
    """``out`` itself if it is a pipeline (its owner sends it), else a
    pipeline on the connection, sent on the way out: so a helper that makes
    a few calls makes them in one round trip, or in its caller's."""
    if isinstance(out, Pipeline):
        yield out
        return
    pipe = Pipeline(out)
    yield pipe
    pipe.send()


def _none(_: Any) -> None:
    return None


def _first_row(found: Any) -> dict[bytes, bytes]:
    """A getRowWithColumns reply as happybase's ``Table.row`` returns it."""
    return _cells(found[0]) if found else {}


def _rows_of(found: Any) -> Rows:
    """A getRowsWithColumns reply as happybase's ``Table.rows`` returns it."""
    return [(r.row, _cells(r)) for r in found]


def _cells(result: Any) -> dict[bytes, bytes]:
    """A TRowResult's cells as happybase gives a row: column -> value."""
    return {column: cell.value for column, cell in (result.columns or {}).items()}


def put_rows(
    conn: happybase.Connection,
    table: str,
    rows: list[tuple[bytes, dict[bytes, bytes]]],
    timestamp: int | None = None,
) -> None:
    """Put each row's cells, in one mutateRows (mutateRowsTs with a
    ``timestamp``): what ``Table.batch`` sends for the same puts."""
    if not rows:
        return
    name = table.encode()
    if _compiled(conn):
        request = _bulk.mutate_rows(conn.client._seqid, name, rows, timestamp)
        _call(conn, "mutateRows" if timestamp is None else "mutateRowsTs", request)
        return
    batches = _put_batches(rows)
    if timestamp is None:
        conn.client.mutateRows(name, batches, {})
    else:
        conn.client.mutateRowsTs(name, batches, timestamp, {})


def _put_batches(rows: list[tuple[bytes, dict[bytes, bytes]]]) -> list[BatchMutation]:
    """The puts of ``rows`` as happybase's Thrift objects (no compiled encoder)."""
    return [
        BatchMutation(row, [Mutation(isDelete=False, column=c, value=v) for c, v in cells.items()])
        for row, cells in rows
    ]


def delete_rows(
    conn: happybase.Connection, table: str, row_keys: list[bytes], families: list[bytes]
) -> None:
    """Delete the rows ``row_keys`` whole, in one mutateRows: a delete of each
    of the table's ``families`` in each row, what ``Table.batch``'s
    ``delete(row)`` sends, without the round trip in which it asks the
    server for the families (a trim deletes a thousand rows of the streams,
    whose families are the schema's)."""
    if not row_keys:
        return
    with pipelined(conn) as pipe:
        pipe.delete_rows(table, row_keys, families)


def _compiled(conn: happybase.Connection) -> bool:
    """Whether this connection's requests may be written by ``storage._bulk``:
    it is built, and the connection speaks the (strict) binary protocol."""
    return _bulk is not None and type(conn.client._oprot) is TCyBinaryProtocol


def _send(conn: happybase.Connection, request: bytes) -> None:
    """Send a request written whole on the connection's own transport."""
    _write(conn, request)
    conn.client._oprot.trans.flush()


def _write(conn: happybase.Connection, request: bytes) -> None:
    """Put a request written whole in the connection's buffer, to go with
    the next flush. Every such request passes here (the tests count them)."""
    conn.client._oprot.trans.write(request)


def _call(conn: happybase.Connection, api: str, request: bytes) -> Any:
    """Send a request written whole, and read its reply as the client would."""
    _send(conn, request)
    return conn.client._recv(api)


def row_keys_with_prefix(
    conn: happybase.Connection, table: str, prefix: bytes, expected: int
) -> list[bytes]:
    """The keys of the rows of ``table`` that start with ``prefix``, in order.

    ``Table.scan`` fetches ``batch_size`` rows a round trip and then one more
    to learn that the scan is over. Asking for ``expected`` rows at once
    (more than the scan should find) makes it three round trips (open, one
    fetch, close): a fetch that comes back short is the last. The scan
    carries keys only, one per row (KeyOnlyFilter, FirstKeyOnlyFilter).
    """
    return row_keys_between(conn, table, prefix, prefix_stop(prefix), expected)


def row_keys_between(
    conn: happybase.Connection,
    table: str,
    start: bytes,
    stop: bytes | None,
    fetch: int,
    limit: int | None = None,
) -> list[bytes]:
    """The keys of the rows of ``table`` from ``start`` up to ``stop``
    (None: the table's end), at most ``limit`` of them (None: all), in
    order: :func:`row_keys_with_prefix` between two keys, ``fetch`` keys a
    round trip. Read by compiled code where it is built, without the
    TRowResult, dict and TCell that happybase's scan makes for each row."""
    scan = TScan(
        startRow=start,
        stopRow=stop,
        caching=fetch,
        filterString=KEYS_ONLY.encode(),
    )
    scanner = conn.client.scannerOpenWithScan(table.encode(), scan, {})
    try:
        found: list[bytes] = []
        while limit is None or len(found) < limit:
            asked = fetch if limit is None else min(fetch, limit - len(found))
            got = _scanner_keys(conn, scanner, asked)
            found += got
            if len(got) < asked:
                break
        return found
    finally:
        conn.client.scannerClose(scanner)


Rows = list[tuple[bytes, dict[bytes, bytes]]]
# A scan for scan_rows_many: the table, start row, stop row (None: the
# table's end), how many rows, and the columns (None: all).
Scan = tuple[happybase.Table, bytes, bytes | None, int, list[bytes] | None]


def scan_rows(
    table: happybase.Table,
    row_start: bytes,
    row_stop: bytes | None,
    count: int,
    columns: list[bytes] | None = None,
) -> Rows:
    """The first ``count`` rows from ``row_start`` up to ``row_stop`` (None:
    the table's end), as ``table.scan(row_start=, row_stop=, columns=,
    limit=count)`` yields them, in two round trips where happybase makes
    three (four when the rows run out first): the scanner is opened, then
    asked for ``count`` rows and closed in one write. A Thrift server
    answers a connection's requests in the order they came, so the rows'
    reply comes first, then the close's. Compiled, the rows are read
    straight from the reply into the (key, {column: value}) pairs
    (``storage._bulk.read_rows``), where thriftpy2 makes a TRowResult and a
    TCell per cell and happybase a dict from them. A page
    (:func:`feeds.services._paging.scan_page`) reads its rows this way."""
    return scan_rows_many(table.connection, [(table, row_start, row_stop, count, columns)])[0]


def scan_rows_many(conn: happybase.Connection, scans: list[Scan]) -> list[Rows]:
    """:func:`scan_rows` for each of ``scans``, all on ``conn``, in two round
    trips in all: every scanner is opened before the first reply is read,
    then each is asked for its rows and closed before the next reply is
    read. A home page that merges large accounts' twits scans the reader's
    stream and each account's twits and reposts so. A scan the server
    refuses raises as happybase's would, once every reply is read (the
    connection's next call reads its own) and every scanner opened is closed."""
    specs = [
        (table.name, TScan(startRow=start, stopRow=stop, columns=columns, caching=count), count)
        for table, start, stop, count, columns in scans
    ]
    found: list[Rows] = _scan_many(conn, specs, keys_only=False)
    return found


def row_keys_with_prefixes(
    conn: happybase.Connection, table: str, prefixes: list[bytes], expected: int
) -> list[list[bytes]]:
    """:func:`row_keys_with_prefix` for each of ``prefixes``, in two round
    trips in all as :func:`scan_rows_many` reads (opens, then each fetch
    with its close), where one prefix at a time takes three each: the
    streams a fan-out chunk trims. A prefix whose fetch comes back full
    (more rows than ``expected``, maybe) is read again, alone, to its end."""
    name = table.encode()
    specs = [
        (
            name,
            TScan(
                startRow=prefix,
                stopRow=prefix_stop(prefix),
                caching=expected,
                filterString=KEYS_ONLY.encode(),
            ),
            expected,
        )
        for prefix in prefixes
    ]
    found: list[list[bytes]] = _scan_many(conn, specs, keys_only=True)
    return [
        keys if len(keys) < expected else row_keys_with_prefix(conn, table, prefix, expected)
        for prefix, keys in zip(prefixes, found, strict=True)
    ]


def _scan_many(
    conn: happybase.Connection, specs: list[tuple[bytes, TScan, int]], keys_only: bool
) -> list[Any]:
    """Open a scanner for each (table, scan, count), all before the first
    reply is read; then ask each for ``count`` rows (their keys alone if
    ``keys_only``) and close it, all before the next reply is read."""
    client = conn.client
    scanners, failed = _open_scanners(client, specs)
    opened = [
        (scanner, count)
        for scanner, (_, _, count) in zip(scanners, specs, strict=True)
        if scanner is not None
    ]
    asked = failed is None  # the rows: none if an open failed
    compiled = _compiled_reads(conn)
    for scanner, count in opened:
        if asked:
            _ask_rows(conn, compiled, scanner, count)
        client._send("scannerClose", id=scanner)  # flushes both
    read = _rows_reader(compiled, keys_only)
    found: list[Any] = []
    for _ in opened:
        if asked:
            try:
                found.append(read(client))
            except Exception as exc:
                failed = failed or exc
        try:
            client._recv("scannerClose")
        except Exception as exc:
            failed = failed or exc
    if failed is not None:
        raise failed
    return found


def _open_scanners(
    client: Any, specs: list[tuple[bytes, TScan, int]]
) -> tuple[list[int | None], Exception | None]:
    """Send every ``scannerOpenWithScan``, then read every reply: the
    scanners' ids (None where the server refused) and the first refusal."""
    for name, spec, _ in specs:
        client._send("scannerOpenWithScan", tableName=name, scan=spec, attributes={})
    failed: Exception | None = None
    scanners: list[int | None] = []
    for _ in specs:
        try:
            scanners.append(client._recv("scannerOpenWithScan"))
        except Exception as exc:
            scanners.append(None)
            failed = failed or exc
    return scanners, failed


def _ask_rows(conn: happybase.Connection, compiled: bool, scanner: int, count: int) -> None:
    """Send a ``scannerGetList`` for ``count`` rows; compiled, it waits in
    the buffer for the scanner's close to flush it."""
    client = conn.client
    if compiled:
        _write(conn, _bulk.scanner_get_list(client._seqid, scanner, count))
    else:
        client._send("scannerGetList", id=scanner, nbRows=count)


def _rows_reader(compiled: bool, keys_only: bool) -> Callable[[Any], list[Any]]:
    """How to read one ``scannerGetList`` reply: its keys, or its rows as
    happybase's scan yields them; compiled when the transport allows."""
    if compiled:
        return read_keys_reply if keys_only else read_rows_reply
    if keys_only:
        return lambda client: [r.row for r in client._recv("scannerGetList")]
    return lambda client: [(r.row, _cells(r)) for r in client._recv("scannerGetList")]


def _compiled_reads(conn: happybase.Connection) -> bool:
    """Whether this connection's replies may be read by ``storage._bulk``:
    its requests may be written so, and its transport is thriftpy2's compiled one."""
    client = conn.client
    return (
        _compiled(conn)
        and type(client._iprot) is TCyBinaryProtocol
        and isinstance(client._iprot.trans, CyTransportBase)
    )


def _scanner_keys(conn: happybase.Connection, scanner: int, rows: int) -> list[bytes]:
    """The row keys of a ``scannerGetList``. Compiled, the reply's rows are
    read for their keys alone (``storage._bulk.read_row_keys``), without the
    TRowResult, dict and TCell thriftpy2 would make for each and throw away."""
    client = conn.client
    if not _compiled_reads(conn):
        return [r.row for r in client.scannerGetList(scanner, rows)]
    _send(conn, _bulk.scanner_get_list(client._seqid, scanner, rows))
    return read_keys_reply(client)


def read_keys_reply(client: Any) -> list[bytes]:
    """Read a ``scannerGetList`` reply's row keys from ``client``'s compiled
    transport, raising its errors as thriftpy2's client raises them."""
    keys: list[bytes] = _read_reply(client, _bulk.read_row_keys)
    return keys


def read_rows_reply(
    client: Any, api: str = "scannerGetList"
) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """Read a ``scannerGetList`` reply's rows from ``client``'s compiled
    transport, each as happybase's scan yields it, raising its errors as
    thriftpy2's client raises them. A ``getRowsWithColumns`` reply (``api``)
    is read so too: its result holds the same list of TRowResult, and its
    IOError at the same field."""
    found: list[tuple[bytes, dict[bytes, bytes]]] = _read_reply(client, _bulk.read_rows, api)
    return found


def _read_reply(client: Any, read: Callable[[Any], Any], api: str = "scannerGetList") -> Any:
    iprot = client._iprot
    found = read(iprot.trans)
    if isinstance(found, list):
        return found
    if found == 0:  # the server failed the call
        error = TApplicationException()
        error.read(iprot)
        raise error
    if found is None:
        raise TApplicationException(TApplicationException.MISSING_RESULT)
    error = getattr(client._service, api + "_result").thrift_spec[found][2]()
    error.read(iprot)
    _bulk.finish_result(iprot.trans)
    raise error


def delete_prefix(conn: happybase.Connection, table: str, prefix: bytes) -> int:
    """Delete every row of ``table`` (its full name) whose key starts with
    ``prefix``, a thousand a request; returns how many there were. A row
    written under the prefix meanwhile may stay: for prefixes nothing
    writes any more (an account being deleted)."""
    found = row_keys_with_prefix(conn, table, prefix, 1000)
    with conn.table(table).batch(batch_size=1000) as b:
        for key in found:
            b.delete(key)
    return len(found)
