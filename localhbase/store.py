"""HBase's data model on one RocksDB directory.

This is the engine behind the local HBase server: tables with column families,
versioned cells ordered as HBase orders them, delete markers with HBase's
masking rules, TTL and max-versions on read, compaction, counters and scans.
It knows nothing about Thrift; :mod:`localhbase.server` maps the
Thrift1 API onto it, :mod:`localhbase.thrift2` the Thrift2 API (whose
one-version and family-version deletes, per-family time ranges and
compare-op checks live here as HBase's region has them).

Concurrency: every write takes one lock and lands as one RocksDB write batch,
so a row mutation (and a mutateRows call) is atomic and read-modify-write
operations (counters, checkAndPut) are exact. Reads take no lock: each read
works on a RocksDB iterator, which is a consistent snapshot.

Durability: RocksDB's write-ahead log is on and written before a call returns,
so an acknowledged write survives the server being killed (``kill -9``). As
with HBase's default WAL (hflush, not hsync), a power cut may lose the last
writes unless ``sync=True``.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from rocksdict import (
    DBCompressionType,
    Options,
    Rdict,
    RdictIter,
    WriteBatch,
    WriteOptions,
)

from . import encoding as enc
from .encoding import (
    MAX_TS,
    TYPE_DELETE,
    TYPE_DELETE_COLUMN,
    TYPE_DELETE_FAMILY,
    TYPE_DELETE_FAMILY_VERSION,
    TYPE_PUT,
)

try:
    # By name: import-linter sees no compiled module, and would take
    # `from . import _rows` for an import of the package, whose __init__
    # imports this module: a cycle that is not there. (So mypy checks no
    # call of it against _rows.pyi.)
    _rows = importlib.import_module("localhbase._rows")
except ImportError:  # not built (no C compiler at install): the reads below in Python
    _rows = None  # type: ignore[assignment]
# Whether rows are read by the compiled reader (localhbase/_rows.pyx).
COMPILED = _rows is not None

# A cell as the store hands it out: (family, qualifier, timestamp, value).
Cell = tuple[bytes, bytes, int, bytes]

# One cell-level change of a Thrift2 mutation: (type, family, qualifier,
# timestamp, value). ``type`` is an HBase KeyValue type (TYPE_PUT, or one of
# the four delete markers); timestamp None means "now", except for TYPE_DELETE,
# where it means "the latest version", as in HBase's Delete.addColumn(f, q).
Edit = tuple[int, bytes, bytes, int | None, bytes]

# Store.put_cells's ``fill(table_prefix, families, put_tail, put)``.
PutFill = Callable[[bytes, tuple[bytes, ...], bytes, Callable[[bytes, bytes], object]], int]

# HBase's CompareOperator names, for check_and_mutate.
COMPARE_OPS = (
    "LESS",
    "LESS_OR_EQUAL",
    "EQUAL",
    "NOT_EQUAL",
    "GREATER_OR_EQUAL",
    "GREATER",
    "NO_OP",
)


class StoreError(Exception):
    """Base of every error the store raises; the server maps each to Thrift."""


class TableNotFound(StoreError):
    pass


class TableExists(StoreError):
    pass


class TableNotEnabled(StoreError):
    pass


class TableNotDisabled(StoreError):
    pass


class NoSuchFamily(StoreError):
    pass


class BadArgument(StoreError):
    pass


class NamespaceNotFound(StoreError):
    pass


class NamespaceExists(StoreError):
    pass


class Constraint(StoreError):
    """What HBase's master refuses as a ConstraintException (removing a
    namespace that still has tables, or a reserved one)."""


class InvalidFamilyOperation(StoreError):
    pass


class RefusedArgument(StoreError):
    """An argument HBase refuses with a Java runtime exception (an empty row key,
    a negative timestamp), which its Thrift server reports as an internal error."""


@dataclass(frozen=True)
class FamilyDescriptor:
    """What HBase's Thrift1 ColumnDescriptor carries, minus the colon."""

    name: bytes
    max_versions: int = 3
    time_to_live: int = -1  # seconds; -1 (or HBase's FOREVER) means no TTL
    compression: str = "NONE"
    in_memory: bool = False
    bloom_filter_type: str = "NONE"
    bloom_filter_vector_size: int = 0
    bloom_filter_nb_hashes: int = 0
    block_cache_enabled: bool = False
    # HBase 2's MOB settings (Thrift2 attributes IS_MOB, MOB_THRESHOLD, ...),
    # kept as sent (latin-1 text) and reported back; the store keeps a MOB
    # family's cells as any other's: MOB changes where HBase files them, not
    # what a read returns.
    mob: dict[str, str] = field(default_factory=dict)

    @property
    def ttl_ms(self) -> int | None:
        if self.time_to_live <= 0 or self.time_to_live >= 2**31 - 1:
            return None
        return self.time_to_live * 1000


@dataclass
class TableInfo:
    """A table's descriptor, as the store keeps it under ``META + name``.

    ``splits`` are the start keys of its regions after the first, sorted, as
    given at creation (HBase's pre-split); ``region_id`` is the regions' id,
    the creation (or last truncation) time in ms, as HBase stamps a region.
    Regions are bookkeeping only: every table's rows live in one RocksDB key
    space, so a read or write costs the same whatever the splits.
    """

    name: bytes
    table_id: int
    families: dict[bytes, FamilyDescriptor]
    enabled: bool = True
    splits: list[bytes] = field(default_factory=list)
    region_id: int = 0

    def regions(self) -> list[tuple[bytes, bytes]]:
        """(start key, end key) of each region in key order; b"" is open."""
        bounds = [b"", *self.splits, b""]
        return list(itertools.pairwise(bounds))

    def to_json(self) -> bytes:
        return json.dumps(
            {
                "name": self.name.decode("latin-1"),
                "id": self.table_id,
                "enabled": self.enabled,
                "splits": [k.hex() for k in self.splits],
                "region_id": self.region_id,
                "families": [
                    {**asdict(f), "name": f.name.decode("latin-1")} for f in self.families.values()
                ],
            }
        ).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> TableInfo:
        data = json.loads(raw)
        families = {}
        for f in data["families"]:
            fd = FamilyDescriptor(**{**f, "name": f["name"].encode("latin-1")})
            families[fd.name] = fd
        return cls(
            name=data["name"].encode("latin-1"),
            table_id=data["id"],
            families=families,
            enabled=data["enabled"],
            # Tables stored before regions were kept: one region, id unknown.
            splits=[bytes.fromhex(k) for k in data.get("splits", [])],
            region_id=data.get("region_id", data["id"]),
        )


@dataclass(frozen=True)
class ReadSpec:
    """Which cells of a row a read returns.

    ``columns`` maps a family to the set of qualifiers wanted, or to None for
    the whole family; None means every family. ``min_ts`` (inclusive) and
    ``max_ts`` (exclusive; None: unbounded) are HBase's time range,
    ``setTimeRange(min_ts, max_ts)``.
    """

    columns: dict[bytes, frozenset[bytes] | None] | None = None
    max_ts: int | None = None
    versions: int = 1
    min_ts: int = 0
    # Per-family (min_ts, max_ts) overriding the above, as HBase's
    # Scan.setColumnFamilyTimeRange.
    family_ranges: dict[bytes, tuple[int, int | None]] | None = None
    # Pushed down from a scan's filter (filters.push_down): only the row's
    # first visible cell (FirstKeyOnlyFilter), with no value (KeyOnlyFilter).
    first_cell_only: bool = False
    keys_only: bool = False


@dataclass
class Mutation:
    """One Thrift1 Mutation: a put of ``value``, or a delete of a column/family.

    Named as in Thrift's ``Mutation`` so the server can pass those through.
    """

    column: bytes
    value: bytes | None = b""
    isDelete: bool = False  # noqa: N815


class FailingRows(Iterator[tuple[bytes, list[Cell]]]):
    """The rows of a scanner HBase opened but cannot read (a missing table or
    family): it opens the scanner without looking, and every read fails,
    again and again."""

    def __init__(self, exc: StoreError) -> None:
        self.exc = exc

    def __next__(self) -> tuple[bytes, list[Cell]]:
        raise type(self.exc)(*self.exc.args)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


# The local server is one RegionServer, and both APIs name it alike: as a
# standalone HBase names its own, on localhost, at HBase's default
# RegionServer port (it has no RegionServer RPC port of its own to name).
REGION_SERVER = b"localhost"
REGION_SERVER_PORT = 16020


def namespace_order(name: bytes) -> tuple[bytes, bytes]:
    """HBase's TableName order: (namespace, qualifier)."""
    ns, sep, qualifier = name.partition(b":")
    return (ns, qualifier) if sep else (b"default", name)


def parse_column(column: bytes) -> tuple[bytes, bytes | None]:
    """``b"cf:q"`` -> (b"cf", b"q"); ``b"cf"`` -> (b"cf", None)."""
    family, sep, qualifier = column.partition(b":")
    return family, (qualifier if sep else None)


@functools.lru_cache(maxsize=4096)
def _column_key(column: bytes) -> tuple[bytes, bytes]:
    """A ``family:qualifier`` column's family, and its part of a cell key.

    A batch repeats a handful of columns over many rows (a fan-out: one
    column, 500 rows), so each is parsed and escaped once, not per cell."""
    family, _, qualifier = column.partition(b":")
    return family, enc.esc(family) + enc.esc(qualifier)


def _first_put_families(info: TableInfo, spec: ReadSpec) -> frozenset[bytes]:
    """The families in which a scan for each row's first visible cell may
    take a row's first key as that cell when it is a put: those the spec
    reads whole, with no time range and no TTL.

    Every delete marker sorts before the cells it masks (a family's
    markers before its first qualifier, a column's before its older
    versions), so a row whose first key is a put has nothing masking it.
    Empty (no fast path) unless the spec asks for the first cell only.
    """
    if not (
        spec.first_cell_only
        and spec.columns is None
        and spec.max_ts is None
        and spec.min_ts == 0
        and spec.family_ranges is None
    ):
        return frozenset()
    return frozenset(f for f, fd in info.families.items() if fd.ttl_ms is None)


def _first_family(spec: ReadSpec) -> bytes:
    """Where a get starts after the row's prefix: at the first family it
    asks for (its delete markers included), past the families before it."""
    return enc.esc(min(spec.columns)) if spec.columns else b""


def _past_column(
    key: bytes, pre: bytes, family: bytes, qualifier: bytes, wanted: list[bytes] | None
) -> bytes | None:
    """Where a get seeks once done with the column of the put ``key``, as
    HBase's ExplicitColumnTracker hints: straight to the next column asked
    for in the family (past any not asked for, in one seek), or past the
    family when none is left (None); with the whole family asked for, to
    the next column. ``wanted`` is the family's asked-for qualifiers, sorted."""
    if wanted is None:
        return key[: -enc.STAMP_LEN] + enc.PAST_STAMPS
    for q in wanted:
        if q > qualifier:
            return enc.column_start(pre, family, q)
    return None


class Store:
    """The tables of one local HBase server, in one RocksDB directory."""

    def __init__(self, path: str | Path, *, sync: bool = False) -> None:
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        opts = Options(raw_mode=True)
        opts.create_if_missing(True)
        opts.set_compression_type(DBCompressionType.lz4())
        opts.increase_parallelism(2)
        self._db = Rdict(str(self.path), opts)
        self._write_opts = WriteOptions()
        self._write_opts.sync = sync
        self._write_lock = threading.Lock()
        self._ddl_lock = threading.Lock()
        self._tables: dict[bytes, TableInfo] = {}
        self._load_tables()
        self._cluster_id = self._load_cluster_id()

    def _load_cluster_id(self) -> str:
        """The id made when this directory was first opened, kept for good, as
        HBase keeps its cluster id in ``hbase.id`` under the root directory."""
        raw = self._db.get(enc.CLUSTER_ID)
        if raw is None:
            raw = str(uuid.uuid4()).encode()
            synced = WriteOptions()
            synced.sync = True  # an id that changed after a crash would be no id
            self._db.put(enc.CLUSTER_ID, raw, synced)
        return bytes(raw).decode()

    def cluster_id(self) -> str:
        return self._cluster_id

    # -- tables ---------------------------------------------------------------

    def _load_tables(self) -> None:
        it = self._db.iter()
        it.seek(enc.META)
        while it.valid():
            key = it.key()
            if not key.startswith(enc.META):
                break
            info = TableInfo.from_json(it.value())
            self._tables[info.name] = info
            it.next()

    def close(self) -> None:
        self._db.close()

    def table_names(self) -> list[bytes]:
        """Every table, in HBase's order: by namespace (``default`` for a bare
        name), then by name within it."""
        return sorted(self._tables, key=namespace_order)

    def table(self, name: bytes) -> TableInfo:
        try:
            return self._tables[name]
        except KeyError:
            raise TableNotFound(name.decode("utf-8", "replace")) from None

    def _enabled_table(self, name: bytes) -> TableInfo:
        info = self.table(name)
        if not info.enabled:
            raise TableNotEnabled(name.decode("utf-8", "replace") + " is disabled.")
        return info

    def create_table(
        self,
        name: bytes,
        families: Sequence[FamilyDescriptor],
        splits: Sequence[bytes] = (),
    ) -> None:
        """Create ``name`` with ``families``, pre-split at ``splits`` (any
        order; HBase sorts them, and refuses an empty or repeated one)."""
        if not name:
            raise BadArgument("Table name must not be empty")
        if not families:
            raise BadArgument("Table should have at least one column family.")
        for fd in families:
            if not fd.name:
                raise BadArgument("Column family name must not be empty")
            if fd.max_versions <= 0:
                raise BadArgument(f"Maximum versions must be positive (family {fd.name!r})")
        ordered = sorted(splits)
        if any(not k for k in ordered):
            raise RefusedArgument("Empty split key must not be passed in the split keys.")
        if len(set(ordered)) != len(ordered):
            raise RefusedArgument("All split keys must be unique, found duplicate")
        namespace, sep, _ = name.partition(b":")
        with self._ddl_lock:
            if sep and namespace.decode("utf-8", "replace") not in self.namespaces():
                raise NamespaceNotFound(namespace.decode("utf-8", "replace"))
            if name in self._tables:
                raise TableExists(name.decode("utf-8", "replace"))
            info = TableInfo(
                name,
                self._next_table_id(),
                {fd.name: fd for fd in families},
                splits=ordered,
                region_id=now_ms(),
            )
            self._save_table(info)

    def _next_table_id(self) -> int:
        raw = self._db.get(enc.COUNTER)
        table_id = (int(raw) if raw else 0) + 1
        with self._write_lock:
            self._db.put(enc.COUNTER, str(table_id).encode(), self._write_opts)
        return table_id

    def _save_table(self, info: TableInfo, drop_data_of: int | None = None) -> None:
        """Write ``info`` (and drop the rows kept under table id
        ``drop_data_of``, a truncated table's old key space) in one batch."""
        wb = WriteBatch(raw_mode=True)
        wb.put(enc.META + info.name, info.to_json())
        if drop_data_of is not None:
            wb.delete_range(enc.table_prefix(drop_data_of), enc.table_prefix(drop_data_of + 1))
        with self._write_lock:
            self._db.write(wb, self._write_opts)
        self._tables[info.name] = info
        if drop_data_of is not None:
            self._db.compact_range(
                enc.table_prefix(drop_data_of), enc.table_prefix(drop_data_of + 1)
            )

    def truncate_table(self, name: bytes, preserve_splits: bool) -> None:
        """Empty a disabled table, as HBase's truncate: new regions (a fresh
        key space here), the same families, enabled again afterwards."""
        with self._ddl_lock:
            info = self.table(name)
            if info.enabled:
                raise TableNotDisabled(name.decode("utf-8", "replace"))
            fresh = replace(
                info,
                table_id=self._next_table_id(),
                enabled=True,
                splits=info.splits if preserve_splits else [],
                region_id=now_ms(),
            )
            self._save_table(fresh, drop_data_of=info.table_id)

    def set_families(self, name: bytes, families: Sequence[FamilyDescriptor]) -> None:
        """Give ``name`` exactly ``families``; the cells of a family it loses
        go (HBase drops the family's store), those of the others stay."""
        if not families:
            raise BadArgument("Table should have at least one column family.")
        with self._ddl_lock:
            info = self.table(name)
            gone = set(info.families) - {fd.name for fd in families}
            updated = replace(info, families={fd.name: fd for fd in families})
            if gone:
                self._drop_families(info, gone)
            self._save_table(updated)

    def _drop_families(self, info: TableInfo, families: set[bytes]) -> None:
        table_pre = enc.table_prefix(info.table_id)
        with self._write_lock:
            it = self._db.iter()
            it.seek(table_pre)
            wb = WriteBatch(raw_mode=True)
            while it.valid():
                key = it.key()
                if not key.startswith(table_pre):
                    break
                family = enc.split_column(key, enc.row_end(key))[0]
                if family in families:
                    wb.delete(key)
                it.next()
            self._db.write(wb, self._write_opts)

    # -- namespaces -------------------------------------------------------------

    RESERVED_NAMESPACES = ("default", "hbase")

    def namespaces(self) -> dict[str, dict[str, str]]:
        """Every namespace with its configuration, ``default`` and ``hbase`` included."""
        out: dict[str, dict[str, str]] = {n: {} for n in self.RESERVED_NAMESPACES}
        it = self._db.iter()
        it.seek(enc.NAMESPACE)
        while it.valid():
            key = it.key()
            if not key.startswith(enc.NAMESPACE):
                break
            out[key[len(enc.NAMESPACE) :].decode()] = json.loads(it.value())
            it.next()
        return dict(sorted(out.items()))

    def put_namespace(self, name: str, config: dict[str, str], *, create: bool) -> None:
        with self._ddl_lock:
            known = self.namespaces()
            if create and name in known:
                raise NamespaceExists(f"Namespace {name} already exists")
            if not create and name not in known:
                raise NamespaceNotFound(name)
            with self._write_lock:
                self._db.put(
                    enc.NAMESPACE + name.encode(), json.dumps(config).encode(), self._write_opts
                )

    def delete_namespace(self, name: str) -> None:
        with self._ddl_lock:
            if name in self.RESERVED_NAMESPACES:
                raise Constraint(f"Reserved namespace {name} cannot be removed.")
            if name not in self.namespaces():
                raise NamespaceNotFound(name)
            tables = [t for t in self._tables if t.startswith(name.encode() + b":")]
            if tables:
                raise Constraint(
                    f"Only empty namespaces can be removed. Namespace {name} has "
                    f"{len(tables)} tables"
                )
            with self._write_lock:
                self._db.delete(enc.NAMESPACE + name.encode(), self._write_opts)

    def set_enabled(self, name: bytes, enabled: bool) -> None:
        with self._ddl_lock:
            info = self.table(name)
            if info.enabled == enabled:
                raise (TableNotDisabled if enabled else TableNotEnabled)(
                    name.decode("utf-8", "replace")
                )
            updated = replace(info, enabled=enabled)
            with self._write_lock:
                self._db.put(enc.META + name, updated.to_json(), self._write_opts)
            self._tables[name] = updated

    def delete_table(self, name: bytes) -> None:
        with self._ddl_lock:
            info = self.table(name)
            if info.enabled:
                raise TableNotDisabled(name.decode("utf-8", "replace"))
            start = enc.table_prefix(info.table_id)
            stop = enc.table_prefix(info.table_id + 1)
            wb = WriteBatch(raw_mode=True)
            wb.delete(enc.META + name)
            wb.delete_range(start, stop)
            with self._write_lock:
                self._db.write(wb, self._write_opts)
            del self._tables[name]
        self._db.compact_range(start, stop)

    # -- writes ---------------------------------------------------------------

    def _check_families(self, info: TableInfo, families: Iterable[bytes]) -> None:
        for family in families:
            if family not in info.families:
                raise NoSuchFamily(
                    f"Column family {family.decode('utf-8', 'replace')} does not "
                    f"exist in region {info.name.decode('utf-8', 'replace')} "
                    f"in table {info.name.decode('utf-8', 'replace')}"
                )

    def mutate_rows(
        self,
        table: bytes,
        rows: Sequence[tuple[bytes, Sequence[Mutation]]],
        ts: int | None = None,
    ) -> None:
        """Apply puts and deletes to rows, all of them in one atomic write.

        ``ts`` None means "now", as HBase's LATEST_TIMESTAMP does. A delete of
        ``cf:q`` removes every version of the column with timestamp <= ts, a
        delete of ``cf`` every cell of the family; puts with such timestamps
        stay masked until a major compaction, as in HBase.
        """
        info = self._enabled_table(table)
        fams = info.families
        tid = info.table_id
        wb = WriteBatch(raw_mode=True)
        families_seen: set[bytes] = set()
        stamp = now_ms() if ts is None or ts == MAX_TS else ts
        if stamp < 0:
            raise RefusedArgument(f"Timestamp cannot be negative. ts={stamp}")
        put_tail = enc._TS.pack(MAX_TS - stamp, 255 - TYPE_PUT)  # one stamp for the batch
        table_pre = enc.table_prefix(tid)
        esc = enc.esc
        for row, mutations in rows:
            if not row:
                raise RefusedArgument("Row length is 0")
            pre = table_pre + esc(row)  # enc.row_prefix, its table part made once
            for m in mutations:
                family, column_key = _column_key(m.column)
                families_seen.add(family)
                if not m.isDelete:
                    wb.put(pre + column_key + put_tail, m.value or b"")
                elif b":" in m.column:
                    _, _, qualifier = m.column.partition(b":")
                    wb.put(enc.cell_key(pre, family, qualifier, stamp, TYPE_DELETE_COLUMN), b"")
                else:
                    wb.put(enc.cell_key(pre, family, b"", stamp, TYPE_DELETE_FAMILY), b"")
        if not families_seen <= fams.keys():
            self._check_families(info, families_seen)
        with self._write_lock:
            self._db.write(wb, self._write_opts)

    def put_cells(self, table: bytes, ts: int | None, fill: PutFill) -> bool:
        """Write, in one atomic write, the puts ``fill`` makes: what
        :meth:`mutate_rows` writes for the same puts, for a caller that
        builds the cell keys itself (the compiled bulk put path,
        ``localhbase._wire``).

        ``fill(table_prefix, families, put_tail, put)`` calls ``put(key,
        value)`` for each cell, each key ``table_prefix`` + escaped row,
        family and qualifier + ``put_tail``, and returns the number of
        cells, or -1 for a family not in ``families``. Returns False,
        having written nothing, where that or a negative timestamp makes
        :meth:`mutate_rows` refuse the batch: it then says how.
        """
        info = self._enabled_table(table)
        stamp = now_ms() if ts is None or ts == MAX_TS else ts
        if stamp < 0:
            return False
        wb = WriteBatch(raw_mode=True)
        put_tail = enc._TS.pack(MAX_TS - stamp, 255 - TYPE_PUT)
        if fill(enc.table_prefix(info.table_id), tuple(info.families), put_tail, wb.put) < 0:
            return False
        with self._write_lock:
            self._db.write(wb, self._write_opts)
        return True

    def delete_row(self, table: bytes, row: bytes, ts: int | None = None) -> None:
        """Delete every cell of ``row`` with timestamp <= ts (default now)."""
        info = self._enabled_table(table)
        self.mutate_rows(table, [(row, [Mutation(f, isDelete=True) for f in info.families])], ts)

    def increment(self, table: bytes, row: bytes, column: bytes, amount: int) -> int:
        """Add ``amount`` to an 8-byte big-endian counter; return the new value.

        Thrift1's atomicIncrement: HBase's Increment, as Thrift2's (an
        overflow wraps round, and the cell is stamped after the one it
        replaces), which is what HBase's Thrift1 handler calls.
        """
        family, qualifier = parse_column(column)
        cells = self.increment_columns(table, row, [(family, qualifier or b"", amount)])
        return int.from_bytes(cells[0][3], "big", signed=True)

    def check_and_put(
        self,
        table: bytes,
        row: bytes,
        column: bytes,
        expected: bytes | None,
        mutation: Mutation,
    ) -> bool:
        """Put ``mutation`` if ``column``'s latest value equals ``expected``.

        ``expected`` None means "only if the column has no value".
        """
        info = self._enabled_table(table)
        family, qualifier = parse_column(column)
        self._check_families(info, [family, parse_column(mutation.column)[0]])
        spec = ReadSpec(columns={family: frozenset([qualifier or b""])})
        pre = enc.row_prefix(info.table_id, row)
        with self._write_lock:
            cells = self._read_row(info, pre, spec, self._db.iter())
            current = cells[0][3] if cells else None
            # As HBase: an empty expected value matches an absent or empty cell.
            matches = not current if not expected else current == expected
            if not matches:
                return False
            wf, wq = parse_column(mutation.column)
            wb = WriteBatch(raw_mode=True)
            wb.put(enc.cell_key(pre, wf, wq or b"", now_ms(), TYPE_PUT), mutation.value or b"")
            self._db.write(wb, self._write_opts)
        return True

    def append(
        self, table: bytes, row: bytes, columns: Sequence[bytes], values: Sequence[bytes]
    ) -> list[tuple[bytes, int]]:
        """Thrift1's append: HBase's Append, as Thrift2's; the new cells
        (value, timestamp) sorted by column, as HBase returns them."""
        if len(columns) != len(values):
            raise BadArgument("append needs as many values as columns")
        parsed = map(parse_column, columns)
        deltas = [(f, q or b"", v) for (f, q), v in zip(parsed, values, strict=True)]
        return [(v, ts) for _, _, ts, v in self.append_columns(table, row, deltas)]

    # -- Thrift2 writes ---------------------------------------------------------

    def check_row_families(
        self, table: bytes, rows: Sequence[tuple[bytes, Sequence[Edit]]]
    ) -> None:
        """Raise as :meth:`write_edits` would for an unknown table or family."""
        info = self._enabled_table(table)
        families = {e[1] for _, edits in rows for e in edits}
        if not families <= info.families.keys():
            self._check_families(info, families)

    def write_edits(self, table: bytes, rows: Sequence[tuple[bytes, Sequence[Edit]]]) -> None:
        """Apply Thrift2 edits (:data:`Edit`) to rows, all in one atomic write.

        Every edit without a timestamp gets the same "now"; a delete of the
        latest version (TYPE_DELETE, no timestamp) is resolved under the write
        lock to the timestamp of the version it deletes, as HBase's region
        does (the n-th such delete of one column in a call deletes the n-th
        newest version; with none there, its marker lands at "now").
        """
        info = self._enabled_table(table)
        families = {e[1] for _, edits in rows for e in edits}
        if not families <= info.families.keys():
            self._check_families(info, families)
        with self._write_lock:
            self._write_edits_locked(info, rows, now_ms())

    def _write_edits_locked(
        self,
        info: TableInfo,
        rows: Sequence[tuple[bytes, Sequence[Edit]]],
        stamp: int,
        put_stamp: int | None = None,
    ) -> None:
        tid = info.table_id
        wb = WriteBatch(raw_mode=True)
        for row, edits in rows:
            pre = enc.row_prefix(tid, row)
            latest: dict[tuple[bytes, bytes], int] = {}
            for kind, family, qualifier, ts, value in edits:
                if ts is None:
                    if kind == TYPE_DELETE:
                        n = latest[family, qualifier] = latest.get((family, qualifier), 0) + 1
                        spec = ReadSpec(columns={family: frozenset([qualifier])}, versions=n)
                        cells = self._read_row(info, pre, spec, self._db.iter())
                        ts = cells[n - 1][2] if len(cells) >= n else stamp
                    elif kind == TYPE_PUT and put_stamp is not None:
                        ts = put_stamp
                    else:
                        ts = stamp
                wb.put(enc.cell_key(pre, family, qualifier, ts, kind), value)
        self._db.write(wb, self._write_opts)

    def check_and_mutate(
        self,
        table: bytes,
        row: bytes,
        family: bytes,
        qualifier: bytes,
        op: str,
        value: bytes | None,
        edits: Sequence[Edit],
    ) -> bool:
        """Write ``edits`` to ``row`` if ``value OP latest value of the column``.

        HBase's region rules, odd parts included: the comparison reads
        ``value OP cell`` (LESS: value < cell value); an empty or None
        ``value`` matches an absent or empty cell (with NOT_EQUAL, the
        opposite); a non-empty ``value`` never matches an absent cell; NO_OP
        on a cell with a non-empty ``value`` is a failure (a Java
        RuntimeException in HBase's region). Puts without a timestamp get
        ``max(now, the checked cell's timestamp)``, deletes plain "now".
        """
        info = self._enabled_table(table)
        self._check_families(info, [family])
        self.check_row_families(table, [(row, edits)])
        pre = enc.row_prefix(info.table_id, row)
        spec = ReadSpec(columns={family: frozenset([qualifier])})
        with self._write_lock:
            cells = self._read_row(info, pre, spec, self._db.iter())
            if not value:
                if not cells:
                    matches = op != "NOT_EQUAL"
                else:
                    matches = (not cells[0][3]) == (op != "NOT_EQUAL")
            elif not cells:
                matches = False
            else:
                current = cells[0][3]
                c = (value > current) - (value < current)
                if op == "LESS":
                    matches = c < 0
                elif op == "LESS_OR_EQUAL":
                    matches = c <= 0
                elif op == "EQUAL":
                    matches = c == 0
                elif op == "NOT_EQUAL":
                    matches = c != 0
                elif op == "GREATER_OR_EQUAL":
                    matches = c >= 0
                elif op == "GREATER":
                    matches = c > 0
                else:
                    raise BadArgument(f"Unknown Compare op {op}")
            if matches:
                now = now_ms()
                put_stamp = max(now, cells[0][2]) if cells else now
                self._write_edits_locked(info, [(row, edits)], now, put_stamp)
        return matches

    def _reckon(
        self,
        table: bytes,
        row: bytes,
        deltas: Sequence[tuple[bytes, bytes, object]],
        combine: Callable[[bytes | None, object], bytes],
    ) -> list[Cell]:
        """HBase's increment/append: each delta against the column's latest
        value before the call, written at ``max(now, old timestamp + 1)``
        (``now`` for a new column) in one atomic write; the new cells sorted
        by family and qualifier.

        Versions a column keeps no longer once the new cell is written go
        in the same write, so a hot counter does not pile up versions (one
        a millisecond at least) until the next compaction.
        """
        info = self._enabled_table(table)
        self._check_families(info, {f for f, _, _ in deltas})
        pre = enc.row_prefix(info.table_id, row)
        out: list[Cell] = []
        with self._write_lock:
            now = now_ms()
            wanted: dict[bytes, set[bytes]] = {}
            for family, qualifier, _ in deltas:
                wanted.setdefault(family, set()).add(qualifier)
            spec = ReadSpec(
                columns={f: frozenset(q) for f, q in wanted.items()},
                versions=max(info.families[f].max_versions for f in wanted),
            )
            current: dict[tuple[bytes, bytes], list[Cell]] = {}
            for cell in self._read_row(info, pre, spec, self._db.iter()):
                current.setdefault((cell[0], cell[1]), []).append(cell)
            wb = WriteBatch(raw_mode=True)
            for family, qualifier, delta in deltas:
                versions = current.get((family, qualifier), [])
                old = versions[0] if versions else None
                new = combine(old[3] if old else None, delta)
                stamp = max(now, old[2] + 1) if old else now
                wb.put(enc.cell_key(pre, family, qualifier, stamp, TYPE_PUT), new)
                for _, _, old_ts, _ in versions[info.families[family].max_versions - 1 :]:
                    wb.delete(enc.cell_key(pre, family, qualifier, old_ts, TYPE_PUT))
                out.append((family, qualifier, stamp, new))
            self._db.write(wb, self._write_opts)
        out.sort(key=lambda c: (c[0], c[1]))
        return out

    def increment_columns(
        self, table: bytes, row: bytes, deltas: Sequence[tuple[bytes, bytes, int]]
    ) -> list[Cell]:
        """Add each amount to its column's 8-byte counter, as HBase's Increment
        (an overflow wraps round, as Java's long addition does)."""

        def add(old: bytes | None, amount: object) -> bytes:
            assert isinstance(amount, int)
            if old is not None and len(old) != 8:
                raise BadArgument(f"Field is not a long, it's {len(old)} bytes wide")
            base = int.from_bytes(old, "big", signed=True) if old is not None else 0
            new = (base + amount + 2**63) % 2**64 - 2**63
            return new.to_bytes(8, "big", signed=True)

        return self._reckon(table, row, deltas, add)

    def append_columns(
        self, table: bytes, row: bytes, deltas: Sequence[tuple[bytes, bytes, bytes]]
    ) -> list[Cell]:
        """Append each value to its column's latest value, as HBase's Append."""

        def join(old: bytes | None, more: object) -> bytes:
            assert isinstance(more, bytes)
            return (old or b"") + more

        return self._reckon(table, row, deltas, join)

    # -- reads ----------------------------------------------------------------

    def _read_row(self, info: TableInfo, pre: bytes, spec: ReadSpec, it: RdictIter) -> list[Cell]:
        it.seek(pre + _first_family(spec))
        return self._row_reader(info, spec, it, now_ms(), seek_columns=True)(pre)

    def _row_reader(
        self, info: TableInfo, spec: ReadSpec, it: RdictIter, now: int, seek_columns: bool = False
    ) -> Callable[[bytes], list[Cell]]:
        """Reads one row at a time as :meth:`_collect_row` does: compiled
        (``localhbase._rows``) where it is built."""
        if _rows is not None:
            collect: Callable[[bytes], list[Cell]]
            collect = _rows.RowReader(info.families, spec, now, it, seek_columns).collect
            return collect
        return lambda pre: self._collect_row(info, pre, spec, it, now, seek_columns)

    def _collect_row(  # noqa: C901  a hot loop kept flat, mirrored by _rows.pyx
        self,
        info: TableInfo,
        pre: bytes,
        spec: ReadSpec,
        it: RdictIter,
        now: int,
        seek_columns: bool = False,
    ) -> list[Cell]:
        """Visible cells of the row whose keys start with ``pre``.

        Leaves ``it`` on the first key past the row (with ``seek_columns``,
        maybe short of it: a get is done once past the last column it asks
        for). Cells come in HBase order:
        family, qualifier, newest first; at most ``versions`` per column and
        never more than the family keeps.

        ``seek_columns`` (gets and the reads of a read-modify-write): once a
        column has given all it may, or is not asked for, seek past the rest
        of it rather than stepping, as HBase's reads seek to the next column:
        to the next one asked for when the read names its columns
        (:func:`_past_column`), and past a family it does not ask for. A
        row's many columns then cost a get the few it asks for: a page asks
        one flag of each author's users row. A counter's increment deletes
        the version it replaces, and RocksDB steps over each such delete
        internally until a compaction drops it: stepping past a counter
        takes longer the more it has been incremented, while a seek skips
        the deletes. Scans step: a seek per row would cost them more than
        the versions they skip. The empty qualifier is never sought past: a
        family's delete markers sort among its cells.
        """
        out: list[Cell] = []
        start = len(pre)
        columns = spec.columns
        max_ts = spec.max_ts
        min_ts = spec.min_ts
        family_ranges = spec.family_ranges
        first_only = spec.first_cell_only
        keys_only = spec.keys_only
        cur_family: bytes | None = None
        fd: FamilyDescriptor | None = None
        family_deleted = -1
        cutoff = -1
        limit = 0
        cur_qualifier: bytes | None = None
        column_deleted = -1
        version_deleted = -1
        family_versions: set[int] = set()
        count = 0
        wanted: frozenset[bytes] | None = None
        in_order: list[bytes] | None = None  # wanted, sorted
        # Past its last column asked for, a get is done with the row.
        last_family = max(columns) if seek_columns and columns else None
        skip_family = False
        while it.valid():
            key = it.key()
            if not key.startswith(pre):
                break
            family, qualifier, ts, kind = enc.split_column(key, start)
            if family != cur_family:
                cur_family = family
                fd = info.families.get(family)
                skip_family = fd is None or (columns is not None and family not in columns)
                if not skip_family:
                    assert fd is not None
                    wanted = columns.get(family) if columns is not None else None
                    in_order = None if wanted is None else sorted(wanted)
                    limit = min(spec.versions, fd.max_versions)
                    if family_ranges is not None:
                        min_ts, max_ts = family_ranges.get(family, (spec.min_ts, spec.max_ts))
                    ttl = fd.ttl_ms
                    cutoff = now - ttl if ttl is not None else -1
                family_deleted = -1
                family_versions = set()
                cur_qualifier = None
            if skip_family:
                if not seek_columns:
                    it.next()
                elif last_family is not None and family > last_family:
                    return out  # past every family asked for
                else:
                    it.seek(enc.family_upper(pre, family))
                continue
            if kind == TYPE_DELETE_FAMILY:
                if ts > family_deleted:
                    family_deleted = ts
                it.next()
                continue
            if kind == TYPE_DELETE_FAMILY_VERSION:
                # Sorts (qualifier b"") before every cell of the family it masks.
                family_versions.add(ts)
                it.next()
                continue
            if qualifier != cur_qualifier:
                cur_qualifier = qualifier
                column_deleted = -1
                version_deleted = -1
                count = 0
            if kind == TYPE_DELETE_COLUMN:
                if ts > column_deleted:
                    column_deleted = ts
            elif kind == TYPE_DELETE:
                # Sorts right before the put of the same timestamp, its only victim.
                version_deleted = ts
            elif (
                ts > family_deleted
                and ts > column_deleted
                and ts > cutoff
                and (max_ts is None or ts < max_ts)
                and ts >= min_ts
                and ts != version_deleted
                and (not family_versions or ts not in family_versions)
                and (wanted is None or qualifier in wanted)
                and count < limit
            ):
                count += 1
                out.append((family, qualifier, ts, b"" if keys_only else it.value()))
                if first_only:
                    # Past the rest of the row without parsing it.
                    it.next()
                    while it.valid() and it.key().startswith(pre):
                        it.next()
                    return out
            if (
                seek_columns
                and kind == TYPE_PUT
                and qualifier
                and (count >= limit or (wanted is not None and qualifier not in wanted))
            ):
                target = _past_column(key, pre, family, qualifier, in_order)
                if target is None:  # past the family's last column asked for
                    if family == last_family:
                        return out
                    target = enc.family_upper(pre, family)
                it.seek(target)
                continue
            it.next()
        return out

    def _spec_families(self, info: TableInfo, spec: ReadSpec) -> None:
        if spec.columns is not None:
            self._check_families(info, spec.columns)

    def get_rows(
        self, table: bytes, rows: Sequence[bytes], spec: ReadSpec
    ) -> list[tuple[bytes, list[Cell]]]:
        """The visible cells of each row, skipping rows that have none."""
        info = self._enabled_table(table)
        self._spec_families(info, spec)
        it = self._db.iter()
        collect = self._row_reader(info, spec, it, now_ms(), seek_columns=True)
        first = _first_family(spec)
        out = []
        for row in rows:
            pre = enc.row_prefix(info.table_id, row)
            it.seek(pre + first)
            cells = collect(pre)
            if cells:
                out.append((row, cells))
        return out

    def scan(
        self,
        table: bytes,
        start: bytes = b"",
        stop: bytes = b"",
        spec: ReadSpec = ReadSpec(),
        reverse: bool = False,
    ) -> Iterator[tuple[bytes, list[Cell]]]:
        """Rows in ``[start, stop)`` (``(stop, start]`` reversed) with cells.

        An empty ``start``/``stop`` is unbounded. The iterator works on one
        RocksDB snapshot, so a scan never sees a row half-written.
        """
        info = self._enabled_table(table)
        self._spec_families(info, spec)
        if _rows is not None and not reverse:
            tid = info.table_id
            rows: Iterator[tuple[bytes, list[Cell]]] = _rows.scan_forward(
                self._db,
                info.families,
                enc.table_prefix(tid),
                enc.row_prefix(tid, start) if start else enc.table_prefix(tid),
                stop,
                spec,
                _first_put_families(info, spec),
                now_ms,
            )
            return rows
        return self._scan(info, start, stop, spec, reverse)

    def _scan(
        self,
        info: TableInfo,
        start: bytes,
        stop: bytes,
        spec: ReadSpec,
        reverse: bool,
    ) -> Iterator[tuple[bytes, list[Cell]]]:
        tid = info.table_id
        table_pre = enc.table_prefix(tid)
        it = self._db.iter()
        now = now_ms()
        first_puts = _first_put_families(info, spec)
        if not reverse:
            it.seek(enc.row_prefix(tid, start) if start else table_pre)
            while it.valid():
                key = it.key()
                if not key.startswith(table_pre):
                    return
                end = enc.row_end(key)
                row = enc.unesc(key[5 : end - 2])
                if stop and row >= stop:
                    return
                if first_puts:
                    family, qualifier, ts, kind = enc.split_column(key, end)
                    if kind == TYPE_PUT and family in first_puts:
                        # The row's first key is a put: no marker sorts
                        # before it, so it is the row's first visible cell.
                        cell = (family, qualifier, ts, b"" if spec.keys_only else it.value())
                        pre = key[:end]
                        it.next()
                        while it.valid() and it.key().startswith(pre):
                            it.next()
                        yield row, [cell]
                        continue
                cells = self._collect_row(info, key[:end], spec, it, now)
                if cells:
                    yield row, cells
        else:
            bound = (
                enc.row_upper(enc.row_prefix(tid, start)) if start else enc.table_prefix(tid + 1)
            )
            collect = self._row_reader(info, spec, it, now)
            while True:
                it.seek_for_prev(bound)
                if not it.valid():
                    return
                key = it.key()
                if not key.startswith(table_pre):
                    return
                end = enc.row_end(key)
                pre = key[:end]
                row = enc.unesc(key[5 : end - 2])
                if stop and row <= stop:
                    return
                it.seek(pre)
                cells = collect(pre)
                if cells:
                    yield row, cells
                # The row's first key is the least key of the row: step below it.
                bound = pre

    # -- maintenance ----------------------------------------------------------

    def compact(self, table: bytes, major: bool = True) -> int:
        """Reclaim the space of cells no read can return any more.

        Removes cells past TTL, versions beyond the family's maximum, cells
        masked by delete markers and, on a major compaction, the markers
        themselves. Returns the number of RocksDB keys removed.
        """
        info = self.table(table)
        table_pre = enc.table_prefix(info.table_id)
        removed = 0
        with self._write_lock:
            it = self._db.iter()
            it.seek(table_pre)
            now = now_ms()
            wb = WriteBatch(raw_mode=True)
            while it.valid():
                key = it.key()
                if not key.startswith(table_pre):
                    break
                end = enc.row_end(key)
                removed += self._compact_row(info, key[:end], it, now, wb, major)
                if wb.len() > 10_000:
                    self._db.write(wb, self._write_opts)
                    wb = WriteBatch(raw_mode=True)
            self._db.write(wb, self._write_opts)
        self._db.compact_range(table_pre, enc.table_prefix(info.table_id + 1))
        return removed

    def _compact_row(
        self,
        info: TableInfo,
        pre: bytes,
        it: RdictIter,
        now: int,
        wb: WriteBatch,
        major: bool,
    ) -> int:
        reader = self._db.iter()
        reader.seek(pre)
        everything = ReadSpec(versions=2**31 - 1)
        kept = {
            enc.cell_key(pre, f, q, ts, TYPE_PUT)
            for f, q, ts, _ in self._row_reader(info, everything, reader, now)(pre)
        }
        removed = 0
        while it.valid():
            key = it.key()
            if not key.startswith(pre):
                break
            kind = 255 - key[-1]
            drop = key not in kept if kind == TYPE_PUT else major
            if drop:
                wb.delete(key)
                removed += 1
            it.next()
        return removed

    def approximate_size(self) -> int:
        return int(self._db.property_int_value("rocksdb.estimate-live-data-size") or 0)
