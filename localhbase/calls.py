"""What the Thrift1 handler (:mod:`localhbase.server`) and the Thrift2 handler
(:mod:`localhbase.thrift2`) share: the Java exception each store refusal
stands for, the wrapper that turns a call's failure into the error HBase's
Thrift server sends, the columns a read selects, and open scanners (their
rows, filter, batches and limit, and the table of them by id).

Each API keeps what is its own: its IDL's structs, the words of its errors,
and how it numbers and forgets scanners.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from thriftpy2.thrift import TApplicationException

from .filters import Filter, next_row
from .store import (
    BadArgument,
    Cell,
    Constraint,
    FailingRows,
    InvalidFamilyOperation,
    NamespaceExists,
    NamespaceNotFound,
    NoSuchFamily,
    ReadSpec,
    Store,
    StoreError,
    TableExists,
    TableInfo,
    TableNotDisabled,
    TableNotEnabled,
    TableNotFound,
)

# The Java exception HBase raises where the store refuses; each API names
# those of them its server puts in a message.
JAVA_NAMES: dict[type[StoreError], str] = {
    TableExists: "org.apache.hadoop.hbase.TableExistsException",
    TableNotFound: "org.apache.hadoop.hbase.TableNotFoundException",
    TableNotDisabled: "org.apache.hadoop.hbase.TableNotDisabledException",
    TableNotEnabled: "org.apache.hadoop.hbase.TableNotEnabledException",
    NamespaceNotFound: "org.apache.hadoop.hbase.NamespaceNotFoundException",
    NamespaceExists: "org.apache.hadoop.hbase.NamespaceExistException",
    Constraint: "org.apache.hadoop.hbase.constraint.ConstraintException",
    InvalidFamilyOperation: "org.apache.hadoop.hbase.InvalidFamilyOperationException",
    NoSuchFamily: "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException",
    BadArgument: "org.apache.hadoop.hbase.DoNotRetryIOException",
}


def java_names(*kinds: type[StoreError]) -> dict[type[StoreError], str]:
    """:data:`JAVA_NAMES` of ``kinds`` alone."""
    return {kind: JAVA_NAMES[kind] for kind in kinds}


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def table_state(table: bytes, state: str) -> str:
    """How HBase's master states a table's state in a refusal."""
    return f"tableName={table.decode('utf-8', 'replace')}, state={state}"


def internal_error(call: str, reason: str) -> TApplicationException:
    """What HBase's Thrift servers send when a call dies of a Java runtime
    exception (a bad filter string, an empty row key): the generic message
    HBase gives, with the reason added so the caller can fix the request."""
    return TApplicationException(
        TApplicationException.INTERNAL_ERROR, f"Internal error processing {call}: {reason}"
    )


class SafeCalls:
    """A handler whose calls fail only as HBase's Thrift server fails them:

    * an error the IDL declares (:attr:`declared`) goes out as it is;
    * what HBase's Java client refuses with a runtime exception
      (:attr:`internal`) is :func:`internal_error`;
    * any other refusal of the store is what :attr:`io_error` makes of it;
    * anything else, a bug here, is logged and sent as a retryable
      ``java.io.IOException`` in the IDL's IOError (:attr:`io_error_struct`):
      it never kills the connection or the server.
    """

    declared: tuple[type[Exception], ...]
    internal: tuple[type[Exception], ...]
    io_error: Callable[[StoreError], Exception]
    io_error_struct: Any
    log: logging.Logger

    def __init__(self, handler: object) -> None:
        self._handler = handler

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._handler, name)

        def call(*args: Any) -> Any:
            try:
                return method(*args)
            except self.declared:
                raise
            except self.internal as exc:
                raise internal_error(name, str(exc)) from None
            except StoreError as exc:
                raise self.io_error(exc) from None
            except Exception as exc:
                self.log.exception("%s failed", name)
                raise self.io_error_struct(
                    message=f"java.io.IOException: {type(exc).__name__}: {exc}", canRetry=True
                ) from None

        return call


def selected_columns(
    columns: Iterable[tuple[bytes, bytes | None]],
) -> dict[bytes, frozenset[bytes] | None] | None:
    """``(family, qualifier or None)`` pairs -> :class:`ReadSpec` columns
    (None: every column), as HBase's Get/Scan addFamily and addColumn, in
    order: a family alone selects the whole family, a column after it
    narrows the family to the columns named from then on, a family after a
    column widens it again."""
    out: dict[bytes, set[bytes] | None] = {}
    for family, qualifier in columns:
        if qualifier is None:
            out[family] = None
        else:
            chosen = out.get(family)
            if chosen is None:
                chosen = out[family] = set()
            chosen.add(qualifier)
    if not out:
        return None
    return {f: (frozenset(q) if q is not None else None) for f, q in out.items()}


def region_of(info: TableInfo, key: bytes) -> tuple[bytes, bytes]:
    """The ``(start, end)`` of the region of ``info`` that holds ``key``."""
    for start, end in info.regions():
        if start <= key and (not end or key < end):
            return start, end
    raise AssertionError("regions cover the key space")  # pragma: no cover


def scan_rows(
    store: Store,
    table: bytes,
    start: bytes | None,
    stop: bytes | None,
    spec: ReadSpec,
    reverse: bool,
    fails_later: tuple[type[StoreError], ...],
) -> Iterator[tuple[bytes, list[Cell]]]:
    """A new scanner's rows. HBase opens a scanner without looking the table
    up, so a refusal of ``fails_later`` comes with the first read instead."""
    try:
        return store.scan(table, start or b"", stop or b"", spec, reverse)
    except fails_later as exc:
        return FailingRows(exc)


@dataclass
class Scanner:
    """One open scanner: rows from the store, then HBase's filter, batch (a
    row in chunks of ``batch`` cells; 0: whole rows) and limit (at most
    ``limit`` rows, however many chunks; 0: no limit).

    What a fetch returns of each row or chunk is ``result(row, cells,
    partial)``, partial for every chunk of a row but its last; without
    ``result``, the ``(row, cells)`` pair itself.
    """

    rows: Iterator[tuple[bytes, list[Cell]]]
    flt: Filter | None
    batch: int = 0
    limit: int = 0
    result: Callable[[bytes, list[Cell], bool], Any] | None = None
    pending: list[Any] = field(default_factory=list)
    rows_done: int = 0
    last_used: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def fetch(self, n: int) -> list[Any]:
        """Up to ``n`` rows or chunks: fewer only where the rows end."""
        out = self.pending[:n]
        del self.pending[:n]
        if self.flt is None and not self.batch and not self.limit and self.result is None:
            # Every row whole, as it comes: no filter to ask, no row to cut
            # or count, nothing to make of it.
            out += itertools.islice(self.rows, n - len(out))
            return out
        make = self.result or _pair
        while len(out) < n:
            if self.limit and self.rows_done >= self.limit:
                break
            found = next_row(self.rows, self.flt)
            if found is None:
                break
            row, cells = found
            self.rows_done += 1
            b = self.batch
            if b and len(cells) > b:
                chunks = [
                    make(row, cells[i : i + b], i + b < len(cells)) for i in range(0, len(cells), b)
                ]
                room = n - len(out)
                out.extend(chunks[:room])
                self.pending.extend(chunks[room:])
            else:
                out.append(make(row, cells, False))
        return out


def _pair(row: bytes, cells: list[Cell], partial: bool) -> tuple[bytes, list[Cell]]:
    return row, cells


S = TypeVar("S", bound=Scanner)


class Scanners(Generic[S]):
    """A handler's open scanners by id. Ids count up from ``first_id``,
    within a Java int; a scanner unused ``idle_seconds`` is dropped when
    another is opened, and, with ``expire_on_use``, when one is used."""

    def __init__(self, first_id: int, idle_seconds: float, expire_on_use: bool = False) -> None:
        self.idle_seconds = idle_seconds
        self.expire_on_use = expire_on_use
        self._open: dict[int, S] = {}
        self._ids = itertools.count(first_id)
        self._lock = threading.Lock()

    def add(self, scanner: S) -> int:
        with self._lock:
            self._expire_idle()
            scanner_id = next(self._ids) & 0x7FFFFFFF
            self._open[scanner_id] = scanner
        return scanner_id

    def get(self, scanner_id: int) -> S | None:
        """The scanner, marked used now; None for an id not (or no longer) open."""
        with self._lock:
            if self.expire_on_use:
                self._expire_idle()
            scanner = self._open.get(scanner_id)
        if scanner is not None:
            scanner.last_used = time.monotonic()
        return scanner

    def pop(self, scanner_id: int) -> S | None:
        with self._lock:
            return self._open.pop(scanner_id, None)

    def _expire_idle(self) -> None:
        deadline = time.monotonic() - self.idle_seconds
        for sid in [s for s, sc in self._open.items() if sc.last_used < deadline]:
            del self._open[sid]
