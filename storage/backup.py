"""Backup and restore: every TwitBase table, every cell with its timestamp,
to files in a directory and back (``manage.py exportdata DIR`` and
``manage.py importdata DIR``).

What is copied
--------------
Every table of ``storage.schema.SCHEMA`` under the configured prefix, every
cell a read returns, at its own timestamp. The table names in the files
have no prefix, so an export of one prefix imports into another. Cells past
their family's time-to-live are gone already and are not exported; cells
imported older than their TTL allows expire again at once, as they would
have.

It is not a snapshot: each table is read row by row while the app may be
writing, so a copy of a live deployment can hold a twit without all of its
stream rows. Stop the web and worker processes first for a consistent copy,
or use HBase's snapshots on a cluster (docs/deploy.md, "Backup and restore").

How it reads and writes
-----------------------
Through Thrift1 (happybase), like the rest of the app: it is the one API
every deployment serves (``TWITBASE_HBASE_THRIFT2_PORT`` is optional).

- Reads: a Thrift1 scan returns each column's newest cell only. Every
  TwitBase family keeps one version (storage/schema.py), so there the scan
  is the whole table. For a family that keeps more (one altered in the
  HBase shell, say; the export reads the live table's families, not
  SCHEMA's) each column the scan found is read again with getVer, every
  version kept: a round trip per column and row, paid only where history
  is kept. Thrift2's scan takes ``maxVersions``, but would make every
  export need that second port for tables that today hold no history.
- Writes: a Thrift1 put carries one timestamp for all its cells
  (mutateRowsTs), so the cells of each slice of ``WRITE_ROWS`` rows are
  grouped by timestamp, one mutateRowsTs per timestamp, and the slice's
  calls sent in one round trip (:meth:`storage.ops.Pipeline.put_rows`). A
  put at a cell's own timestamp writes the same cell again: importing twice
  leaves the same tables.

An import merges into what is there. For an exact copy, import into tables
just made (``createtables --apply`` on a new prefix, or ``createtables
--reset --apply``), not into tables emptied by deleting rows: HBase's
delete markers hide every cell at or before their timestamp, imported ones
included, until a major compaction.

The directory
-------------
::

    DIR/manifest.json              what is exported, and how far (rewritten after each chunk)
    DIR/<table>.<n:06d>.twb.gz      the table's rows, in key order, CHUNK_ROWS at a time
    DIR/import-progress.json       the chunks imported so far, while an import is unfinished

A chunk file is gzip around records back to back, one per row, with no
header or trailer; every integer is big-endian::

    row  = u32 key length, key, u32 cell count, cell * count
    cell = u32 column length, column ("family:qualifier"),
           i64 timestamp (ms), u32 value length, value

Why binary and not JSON lines: keys and values are bytes (md5 keys,
counters, packed follower lists), which JSON would carry in base64, making
an export larger both before compression and gzipped. Length-prefixed
records need no escaping and are read with ``struct`` in a few lines
(:func:`decode_rows`). gzip because keys repeat their md5 prefixes and rows
their column names; at level 1 (GZIP_LEVEL), since higher levels shrink an
export only a little further but take much longer to compress,
a large part of the export's time. Chunks keep each file small enough to
be read and checked whole, and are the unit of resuming.

``manifest.json``::

    {"format": "twitbase-export", "version": 1, "prefix": "twitbase",
     "source": "127.0.0.1:9090", "started": "2026-12-01T10:00:00+00:00",
     "tables": {"users": {"families": {"info": {"max_versions": 1,
                                                 "time_to_live": 2147483647}, ...},
                          "done": true,
                          "chunks": [{"file": "users.000000.twb.gz", "rows": 10000,
                                      "cells": 81234, "bytes": 512345,
                                      "sha256": "...", "last_row": "<base64>"}, ...]},
                ...}}

Resuming
--------
Every file is written whole to ``NAME.tmp``, flushed to disk and renamed:
a file of the directory is complete or absent. The manifest is rewritten
after each chunk, so an export killed at any point restarts from the row
after the last chunk the manifest lists (a chunk written but not yet listed
is written again), and skips the tables marked done. An import
records each chunk it has put, per target (server and prefix), in
``import-progress.json``, and a rerun starts at the next; once it has put
every chunk it drops its record, so importing the same directory again
(into tables reset since, say) puts everything again, harmlessly.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import struct
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar

import happybase

from .ops import Pipeline
from .schema import SCHEMA

FORMAT = "twitbase-export"
VERSION = 1
MANIFEST = "manifest.json"
IMPORT_PROGRESS = "import-progress.json"
SUFFIX = ".twb.gz"
# Rows a chunk file holds: some MB of stream rows, a second or so of work.
CHUNK_ROWS = 10_000
# Rows an import puts in one round trip; rows a scan fetches in one.
WRITE_ROWS = 1_000
SCAN_ROWS = 1_000
GZIP_LEVEL = 1

Cell = tuple[bytes, int, bytes]  # column, timestamp, value
Row = tuple[bytes, list[Cell]]
Manifest = dict[str, Any]
T = TypeVar("T")

_U32 = struct.Struct(">I")
_TS = struct.Struct(">q")


class BackupError(Exception):
    """Input the command cannot use (the directory, its manifest, the
    target's tables), said in one line. Raised before anything is written,
    or, for a damaged chunk, before that chunk is."""


@dataclass(frozen=True)
class Progress:
    """Where one table's export or import stands."""

    table: str  # without the prefix
    rows: int  # done so far, by this run and earlier ones
    cells: int
    bytes: int  # of its chunk files, compressed
    run_rows: int  # of ``rows``, those done by this run
    seconds: float  # this run's time on the table
    done: bool  # the table is finished
    earlier: bool = False  # finished by an earlier run: nothing done now

    @property
    def rate(self) -> float:
        """Rows a second, of this run."""
        return self.run_rows / self.seconds if self.seconds > 0 else 0.0


# -- the records ----------------------------------------------------------------


def encode_rows(rows: Iterable[Row]) -> bytes:
    """The records of ``rows``, back to back (before compression)."""
    out = bytearray()
    for key, cells in rows:
        out += _U32.pack(len(key)) + key + _U32.pack(len(cells))
        for column, ts, value in cells:
            out += _U32.pack(len(column)) + column + _TS.pack(ts) + _U32.pack(len(value)) + value
    return bytes(out)


def decode_rows(data: bytes) -> Iterator[Row]:
    """The rows of :func:`encode_rows`'s records. Raises ValueError on a
    record cut short."""
    at, end = 0, len(data)
    try:
        while at < end:
            (n,) = _U32.unpack_from(data, at)
            key = data[at + 4 : at + 4 + n]
            at += 4 + n
            (count,) = _U32.unpack_from(data, at)
            at += 4
            cells: list[Cell] = []
            for _ in range(count):
                (n,) = _U32.unpack_from(data, at)
                column = data[at + 4 : at + 4 + n]
                at += 4 + n
                (ts,) = _TS.unpack_from(data, at)
                (n,) = _U32.unpack_from(data, at + 8)
                value = data[at + 12 : at + 12 + n]
                at += 12 + n
                cells.append((column, ts, value))
            if at > end:
                break
            yield key, cells
    except struct.error:
        at = end + 1
    if at > end:
        raise ValueError("a record is cut short")


# -- files ----------------------------------------------------------------------


def _write_atomically(path: Path, data: bytes) -> None:
    """``path`` holds ``data`` whole, or what it held before: written to a
    temporary file, flushed to disk, renamed over it."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)  # the rename itself
    finally:
        os.close(fd)


def _save_json(path: Path, doc: Any) -> None:
    _write_atomically(path, json.dumps(doc, indent=1).encode() + b"\n")


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise BackupError(f"{path} cannot be read: {exc}") from None


def _load_manifest(path: Path) -> Manifest:
    manifest = _load_json(path)
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError(f"{path} is not the manifest of a TwitBase export")
    if manifest.get("version") != VERSION:
        raise BackupError(
            f"{path} is of format version {manifest.get('version')!r}; "
            f"this TwitBase reads version {VERSION}"
        )
    return manifest


def _chunk_file(name: str, index: int) -> str:
    return f"{name}.{index:06d}{SUFFIX}"


def _totals(chunks: list[dict[str, Any]]) -> tuple[int, int, int]:
    """Rows, cells and bytes of ``chunks``."""
    return (
        sum(c["rows"] for c in chunks),
        sum(c["cells"] for c in chunks),
        sum(c["bytes"] for c in chunks),
    )


def _batched(items: Iterable[T], n: int) -> Iterator[list[T]]:
    it = iter(items)
    while batch := list(islice(it, n)):
        yield batch


def _missing(conn: happybase.Connection, prefix: str, names: Iterable[str]) -> list[str]:
    existing = {t.decode() for t in conn.tables()}
    return [f"{prefix}_{name}" for name in names if f"{prefix}_{name}" not in existing]


def _run_createtables(missing: list[str], where: str) -> str:
    shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
    return (
        f"{len(missing)} table(s) missing at {where}: {shown}; "
        "run `python manage.py createtables --apply` first"
    )


# -- export ---------------------------------------------------------------------


def export_tables(
    conn: happybase.Connection,
    directory: Path,
    prefix: str,
    *,
    source: str = "",
    chunk_rows: int = CHUNK_ROWS,
) -> Iterator[Progress]:
    """Export every table of ``prefix`` to ``directory``, yielding each
    table's progress after each chunk and once when it is done.

    ``directory`` is made if missing; one that holds an unfinished export of
    ``prefix`` is resumed (a finished one: every table reported done
    earlier, nothing written). Raises :class:`BackupError`, before writing
    anything, for a directory that holds anything else, or when a table is
    missing at ``source``. Closing the generator midway leaves a directory
    that a later call resumes.
    """
    if chunk_rows < 1:
        raise ValueError(f"chunk_rows must be at least 1, got {chunk_rows}")
    manifest = _export_manifest(directory, prefix, source)
    missing = _missing(conn, prefix, SCHEMA)
    if missing:
        raise BackupError(_run_createtables(missing, source or "the server"))
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("*.tmp"):  # a write cut short by a kill
        stale.unlink()
    for name in SCHEMA:
        manifest["tables"].setdefault(name, {"families": {}, "chunks": [], "done": False})
    _save_json(directory / MANIFEST, manifest)
    for name in SCHEMA:
        yield from _export_table(conn, directory, manifest, name, chunk_rows)


def _export_manifest(directory: Path, prefix: str, source: str) -> Manifest:
    """The manifest of the export to resume in ``directory``, or a new one."""
    if directory.exists() and not directory.is_dir():
        raise BackupError(f"{directory} is not a directory")
    path = directory / MANIFEST
    if path.exists():
        manifest = _load_manifest(path)
        if manifest.get("prefix") != prefix:
            raise BackupError(
                f"{directory} holds an export of prefix {manifest.get('prefix')!r}, not "
                f"{prefix!r} (TWITBASE_TABLE_PREFIX): export to a new directory"
            )
        return manifest
    if directory.exists() and any(directory.iterdir()):
        raise BackupError(
            f"{directory} is not empty and holds no TwitBase export (no {MANIFEST}): "
            "export to a new or empty directory"
        )
    return {
        "format": FORMAT,
        "version": VERSION,
        "prefix": prefix,
        "source": source,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "tables": {},
    }


def _export_table(
    conn: happybase.Connection, directory: Path, manifest: Manifest, name: str, chunk_rows: int
) -> Iterator[Progress]:
    entry = manifest["tables"][name]
    chunks: list[dict[str, Any]] = entry["chunks"]
    rows, cells, size = _totals(chunks)
    if entry["done"]:
        yield Progress(name, rows, cells, size, 0, 0.0, done=True, earlier=True)
        return
    started = time.monotonic()
    table = conn.table(f"{manifest['prefix']}_{name}")
    families = table.families()
    entry["families"] = {
        family.decode(): {k: desc[k] for k in ("max_versions", "time_to_live")}
        for family, desc in families.items()
    }
    versions = {
        family + b":": desc["max_versions"]
        for family, desc in families.items()
        if desc["max_versions"] > 1
    }
    # Resumed: from the first key after the last chunk's last row.
    start = base64.b64decode(chunks[-1]["last_row"]) + b"\0" if chunks else None
    scan = table.scan(row_start=start, include_timestamp=True, batch_size=SCAN_ROWS)
    run_rows = 0
    for batch in _batched(_all_versions(table, scan, versions), chunk_rows):
        data = gzip.compress(encode_rows(batch), compresslevel=GZIP_LEVEL, mtime=0)
        file = _chunk_file(name, len(chunks))
        _write_atomically(directory / file, data)
        n_cells = sum(len(c) for _, c in batch)
        chunks.append(
            {
                "file": file,
                "rows": len(batch),
                "cells": n_cells,
                "bytes": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
                "last_row": base64.b64encode(batch[-1][0]).decode(),
            }
        )
        _save_json(directory / MANIFEST, manifest)
        rows += len(batch)
        run_rows += len(batch)
        cells += n_cells
        size += len(data)
        yield Progress(name, rows, cells, size, run_rows, time.monotonic() - started, done=False)
    entry["done"] = True
    _save_json(directory / MANIFEST, manifest)
    yield Progress(name, rows, cells, size, run_rows, time.monotonic() - started, done=True)


def _all_versions(
    table: happybase.Table,
    scan: Iterable[tuple[bytes, dict[bytes, tuple[bytes, int]]]],
    versions: dict[bytes, int],
) -> Iterator[Row]:
    """The scan's rows as cells, with every version kept of the columns of
    the families in ``versions`` (family + ":" -> versions it keeps)."""
    for key, found in scan:
        cells: list[Cell] = []
        for column, (value, ts) in found.items():
            kept = versions.get(column[: column.index(b":") + 1]) if versions else None
            if kept is None:
                cells.append((column, ts, value))
            else:
                # Newest first, as the scan would list them.
                history = table.cells(key, column, versions=kept, include_timestamp=True)
                cells += [(column, t, v) for v, t in history]
        if cells:
            yield key, cells


# -- import ---------------------------------------------------------------------


def import_tables(
    conn: happybase.Connection, directory: Path, prefix: str, *, target: str = ""
) -> Iterator[Progress]:
    """Put every cell of the export in ``directory`` into the tables of
    ``prefix`` on ``conn``'s server (``target`` names it: host:port),
    yielding each table's progress after each chunk and once when it is done.

    Resumes an import of the same directory into the same target that was
    cut short, at the chunk after the last one it put. Raises
    :class:`BackupError`, before putting anything, for a directory without
    a finished export, a missing chunk file, or a table or family the
    target lacks; and for a chunk file whose checksum is not the
    manifest's, before putting that chunk.
    """
    manifest = _import_manifest(directory)
    # SCHEMA's order (users first), whatever order the manifest lists them in.
    order = {name: i for i, name in enumerate(SCHEMA)}
    names = sorted(manifest["tables"], key=lambda name: order.get(name, len(order)))
    where = f"{target} (prefix {prefix!r})" if target else f"prefix {prefix!r}"
    missing = _missing(conn, prefix, names)
    if missing:
        raise BackupError(_run_createtables(missing, where))
    for name in names:
        have = {f.decode() for f in conn.table(f"{prefix}_{name}").families()}
        lacking = sorted(set(manifest["tables"][name]["families"]) - have)
        if lacking:
            raise BackupError(
                f"{prefix}_{name} at {where} has no family {', '.join(lacking)}, which the "
                "export holds: was it made by another version of TwitBase?"
            )
    progress_path = directory / IMPORT_PROGRESS
    progress = _load_json(progress_path) if progress_path.exists() else {"targets": {}}
    key = f"{target} {prefix}"
    done: dict[str, int] = progress["targets"].setdefault(key, {})
    for name in names:
        yield from _import_table(
            conn,
            directory,
            f"{prefix}_{name}",
            name,
            manifest["tables"][name]["chunks"],
            done,
            lambda: _save_json(progress_path, progress),
        )
    # Finished: a later import of this directory puts everything again.
    del progress["targets"][key]
    if progress["targets"]:
        _save_json(progress_path, progress)
    else:
        progress_path.unlink(missing_ok=True)


def _import_manifest(directory: Path) -> Manifest:
    """The manifest of the finished export in ``directory``, its files checked present."""
    if not directory.exists():
        raise BackupError(f"{directory} does not exist")
    if not directory.is_dir():
        raise BackupError(f"{directory} is not a directory")
    path = directory / MANIFEST
    if not path.exists():
        raise BackupError(f"{directory} holds no TwitBase export (no {MANIFEST})")
    if not os.access(directory, os.W_OK):
        raise BackupError(
            f"{directory} is not writable: an import records its progress there "
            f"({IMPORT_PROGRESS}); copy the export somewhere writable"
        )
    manifest = _load_manifest(path)
    unfinished = [name for name, entry in manifest["tables"].items() if not entry["done"]]
    if unfinished or not manifest["tables"]:
        raise BackupError(
            f"the export in {directory} is unfinished ({', '.join(unfinished) or 'no table'} "
            f"not done): run `python manage.py exportdata {directory}` again to finish it"
        )
    for entry in manifest["tables"].values():
        for chunk in entry["chunks"]:
            if not (directory / chunk["file"]).is_file():
                raise BackupError(f"{directory / chunk['file']} is missing: the export is damaged")
    return manifest


def _import_table(
    conn: happybase.Connection,
    directory: Path,
    full_name: str,
    name: str,
    chunks: list[dict[str, Any]],
    done: dict[str, int],
    save: Callable[[], None],
) -> Iterator[Progress]:
    first = done.get(name, 0)
    rows, cells, size = _totals(chunks[:first])
    if name in done and first >= len(chunks):
        yield Progress(name, rows, cells, size, 0, 0.0, done=True, earlier=True)
        return
    started = time.monotonic()
    run_rows = 0
    for index in range(first, len(chunks)):
        chunk = chunks[index]
        path = directory / chunk["file"]
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() != chunk["sha256"]:
            raise BackupError(
                f"{path} is damaged (its checksum is not the manifest's); "
                f"{index} of {name}'s {len(chunks)} chunks were imported before it"
            )
        found = list(decode_rows(gzip.decompress(data)))
        for part in _batched(found, WRITE_ROWS):
            put_cells(conn, full_name, part)
        done[name] = index + 1
        save()
        run_rows += len(found)
        rows += len(found)
        cells += chunk["cells"]
        size += len(data)
        yield Progress(name, rows, cells, size, run_rows, time.monotonic() - started, done=False)
    done[name] = len(chunks)
    save()
    yield Progress(name, rows, cells, size, run_rows, time.monotonic() - started, done=True)


def put_cells(conn: happybase.Connection, table: str, rows: list[Row]) -> None:
    """Put every cell of ``rows`` at its own timestamp, in one round trip:
    one mutateRowsTs per timestamp (a Thrift1 put has one for all its cells)."""
    by_ts: dict[int, dict[bytes, dict[bytes, bytes]]] = {}
    for key, cells in rows:
        for column, ts, value in cells:
            by_ts.setdefault(ts, {}).setdefault(key, {})[column] = value
    pipe = Pipeline(conn)
    for ts, at_ts in by_ts.items():
        pipe.put_rows(table, list(at_ts.items()), ts)
    pipe.send()


# -- what the commands print ----------------------------------------------------


def throttled(events: Iterable[Progress], every_s: float = 2.0) -> Iterator[Progress]:
    """Each table's last event, and of the others at most one per ``every_s``
    of that table's time: a table done in a second gets one line."""
    shown: dict[str, float] = {}
    for event in events:
        if event.done or event.seconds - shown.get(event.table, 0.0) >= every_s:
            shown[event.table] = event.seconds
            yield event


def line(event: Progress) -> str:
    """One line of a command's report on ``event``."""
    head = f"{event.table:<15} {event.rows:>11,} rows {event.cells:>12,} cells"
    if event.earlier:
        return f"{head}  done by an earlier run"
    rate = f"{event.rate:,.0f} rows/s" if event.seconds > 0 else "-- rows/s"
    if not event.done:
        return f"{head}  so far ({rate})"
    return f"{head} {event.bytes / 1e6:>9.1f} MB  in {event.seconds:.1f}s ({rate})"
