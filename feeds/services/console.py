"""The staff console: tables, rows, key spread, fan-out, moderation, audit.

Everything here reads or changes storage for the console's views, which call
nothing else. Every action a staff member takes through these functions is
written to the audit table (who, what, when) once it has succeeded; the row
browser's queries are recorded the same way, as reads of user data.

A page view costs in proportion to what it shows, never to the size of a
table: row counts and key spreads are measured by a background job
(:func:`refresh_stats`, run by Celery beat and on a staff member's request)
and kept in one row (see tablestats), which the tables and key-design pages
read; the row browser reads one page; the list of pending fan-outs reads
their index, as the sweep does (see pending).
"""

from __future__ import annotations

import bisect
import json
import os
import re
import time
from collections.abc import Callable, Iterable
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import happybase
from django.conf import settings

from feeds import jobs
from feeds.errors import Conflict, InvalidInput, NotFound
from feeds.types import Page, Twit, User, from_millis
from storage import keys, ops, rows
from storage.connection import connection, table_name
from storage.schema import SCHEMA

from . import _clock, accounts, fanout, metrics, pending, tablestats
from . import twits as twits_service
from ._paging import check_limit, scan_page

BUCKETS = 256
# A row count (in the background) stops at COUNT_CAP rows and then reads "at
# least". Keys are not spread evenly over rows (a user with 15,000 followers
# is 15,000 followedBy rows in one place), so a count from a sample of the key
# space would be far off: we count.
COUNT_CAP = 10_000_000
# Keys a key-spread chart looks at: every key of a table this small, else
# the first SAMPLE_CAP // BUCKETS keys under each first byte.
SAMPLE_CAP = 20_000
# HBase's "forever" for a family's time to live (Integer.MAX_VALUE seconds).
TTL_FOREVER = 2**31 - 1


# -- audit ---------------------------------------------------------------------


@dataclass(frozen=True)
class AuditEntry:
    when: datetime
    actor: str
    action: str
    target: str
    detail: str


def record(actor: str, action: str, target: str, detail: str = "") -> AuditEntry:
    """Append one entry to the audit log. Never changes an entry: each call
    writes a new row, later in the log than any this process wrote before it
    (see _clock); a random suffix keeps entries of other processes apart."""
    millis = _clock.now_millis()
    entry = rows.AuditRow(actor, action, target, detail[: rows.DETAIL_MAX])
    with connection() as conn:
        conn.table(table_name("audit")).put(
            keys.audit_key(millis, os.urandom(keys.SUFFIX_LEN)), rows.encode_audit(entry)
        )
    return AuditEntry(from_millis(millis), entry.actor, entry.action, entry.target, entry.detail)


def _entry(key: bytes, row: dict[bytes, bytes]) -> AuditEntry | None:
    stored = rows.decode_audit(row)
    if stored is None:
        return None
    return AuditEntry(
        when=from_millis(keys.millis_from_rts(key[: keys.RTS_LEN])),
        actor=stored.actor,
        action=stored.action,
        target=stored.target,
        detail=stored.detail,
    )


def audit_log(cursor: str | None = None, limit: int = 50) -> Page[AuditEntry]:
    """The audit log, newest first, a page at a time."""
    with connection() as conn:
        return scan_page(
            conn.table(table_name("audit")), b"", keys.AUDIT_KEY_LEN, cursor, limit, _entry
        )


# -- tables ------------------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    name: str
    descriptors: tuple[tuple[str, str], ...]
    as_declared: bool  # versions and TTL as storage/schema.py declares them


@dataclass(frozen=True)
class TableInfo:
    name: str
    full_name: str
    layout: str
    exists: bool
    families: tuple[Family, ...] = ()
    regions: int = 0
    count: tablestats.RowCount | None = None  # as last counted; None: not yet


def known_tables() -> tuple[str, ...]:
    return tuple(SCHEMA)


def check_table(name: str) -> str:
    """``name`` if it is one of TwitBase's tables, else NotFound naming them all."""
    if name not in SCHEMA:
        raise NotFound(f"No table {name!r}. The tables are: {', '.join(SCHEMA)}.")
    return name


def _duration(seconds: int) -> str:
    if seconds >= TTL_FOREVER:
        return "forever"
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds} s"


def _shown(value: object) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def _family(table: str, name: str, d: dict[str, object]) -> Family:
    declared = SCHEMA.get(table, {}).get(name)
    ttl = int(str(d.get("time_to_live", TTL_FOREVER)))
    versions = int(str(d.get("max_versions", 0)))
    as_declared = declared is not None and (
        versions == declared.get("max_versions", 3)
        and (ttl if ttl < TTL_FOREVER else None) == declared.get("time_to_live")
    )
    shown = (
        ("versions", str(versions)),
        ("TTL", _duration(ttl)),
        ("compression", _shown(d.get("compression", ""))),
        ("bloom filter", _shown(d.get("bloom_filter_type", ""))),
        ("in memory", "yes" if d.get("in_memory") else "no"),
        ("block cache", "yes" if d.get("block_cache_enabled") else "no"),
    )
    return Family(name, shown, as_declared)


def count_rows(table: happybase.Table) -> tuple[int, bool]:
    """The rows of ``table`` by a key-only scan (KeyOnlyFilter AND
    FirstKeyOnlyFilter: one empty cell per row crosses the wire), and whether
    the count stopped at COUNT_CAP."""
    n = 0
    with closing(table.scan(filter=ops.KEYS_ONLY, limit=COUNT_CAP + 1, batch_size=5_000)) as found:
        for _ in found:
            if n == COUNT_CAP:
                return n, True
            n += 1
    return n, False


def tables() -> tuple[TableInfo, ...]:
    """Every TwitBase table: families with their descriptors, regions, and its
    rows as last counted in the background (:func:`refresh_stats`). Costs a
    few calls per table, whatever the tables hold."""
    counted = tablestats.counts()
    out = []
    with connection() as conn:
        existing = {t.decode() for t in conn.tables()}
        for name in SCHEMA:
            full = table_name(name)
            if full not in existing:
                out.append(TableInfo(name, full, keys.layout_text(name), exists=False))
                continue
            t = conn.table(full)
            families = tuple(
                _family(name, fam.decode() if isinstance(fam, bytes) else str(fam), d)
                for fam, d in sorted(t.families().items())
            )
            out.append(
                TableInfo(
                    name,
                    full,
                    keys.layout_text(name),
                    exists=True,
                    families=families,
                    regions=len(t.regions()),
                    count=counted.get(name),
                )
            )
    return tuple(out)


# The periodic job counts a table again only once its last count is older
# than this many times the count took, as well as TWITBASE_TABLE_STATS_EVERY_S:
# counting never takes more than a twentieth of the server's time, however
# large the tables grow (on a 100,000-user demo, counting follows takes 38 s).
RECOUNT_AFTER_TIMES = 20


def refresh_stats(
    table: str = "", say: Callable[[str], None] | None = None, due_only: bool = False
) -> int:
    """Count the rows of ``table`` ("": of every table) and sample its key
    spread, and keep both for the console's pages (see tablestats). The
    background job behind the tables and key-design pages: it scans whole
    tables so that no page view has to. ``due_only`` (the periodic job) skips
    a table counted recently (RECOUNT_AFTER_TIMES). Returns the tables measured."""
    names = [check_table(table)] if table else list(SCHEMA)
    with connection() as conn:
        existing = {t.decode() for t in conn.tables()}
    last = tablestats.counts() if due_only else {}
    now = time.time()
    done = 0
    for name in names:
        if table_name(name) not in existing:
            continue
        counted_before = last.get(name)
        if counted_before is not None:
            age_s = now - counted_before.at.timestamp()
            wait_s = max(
                settings.TWITBASE_TABLE_STATS_EVERY_S,
                RECOUNT_AFTER_TIMES * counted_before.took_ms / 1000,
            )
            if age_s < wait_s:
                continue
        started = time.monotonic()
        with connection() as conn:
            counted, capped = count_rows(conn.table(table_name(name)))
        took_ms = int((time.monotonic() - started) * 1000)
        spread = key_spread(name)
        tablestats.save(name, counted, capped, took_ms, spread.to_json())
        done += 1
        if say is not None:
            say(
                f"{name}: {counted:,}{'+' if capped else ''} rows in {took_ms:,} ms; "
                f"key spread from {spread.keys:,} keys in {spread.ms:,} ms"
            )
    return done


# -- bytes as people read them ------------------------------------------------------


def string_binary(data: bytes) -> str:
    """``data`` as HBase's Bytes.toStringBinary shows it: printable ASCII as
    is, every other byte (and the backslash) as \\xHH."""
    return "".join(chr(b) if 0x20 <= b <= 0x7E and b != 0x5C else f"\\x{b:02X}" for b in data)


def _when(millis: int) -> str:
    return from_millis(millis).strftime("%Y-%m-%d %H:%M:%S.") + f"{millis % 1000:03d} UTC"


def _text(data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "0x" + data.hex()
    return text if text.isprintable() or "\n" in text else string_binary(data)


# -- the row browser ---------------------------------------------------------------


@dataclass(frozen=True)
class KeyPartView:
    name: str
    kind: str
    hex: str
    decoded: str


@dataclass(frozen=True)
class CellView:
    column: str
    timestamp: int
    when: str
    vlen: int
    raw: str  # the value as toStringBinary (an account's password hash left out)
    decoded: str
    dump: str  # the cell as `hbase hfile -p` prints one
    # A counter or a duration: the number, which the page groups by thousands
    # (humanize's intcomma), and its unit; ``decoded`` is then its plain digits.
    number: int | None = None
    unit: str = ""


@dataclass(frozen=True)
class RowView:
    key_hex: str
    key_binary: str
    parts: tuple[KeyPartView, ...]
    cells: tuple[CellView, ...]


@dataclass(frozen=True)
class RowsPage:
    table: str
    layout: str
    prefix_hex: str
    prefix_from: str  # how the prefix was given: "md5('alice')", "hex", "text"
    rows: tuple[RowView, ...]
    next_cursor: str | None


BY_CHOICES = ("userid", "hex", "text")
PREFIX_MAX = 64


def row_prefix(table: str, by: str, value: str) -> tuple[bytes, str]:
    """The row prefix a console user asked for, and how it was made.

    ``by`` is "userid" (hashed here: the table must be keyed by user, and the
    user must exist), "hex", or "text" (UTF-8). An empty prefix, given any
    way, is the whole table from its first row.
    """
    check_table(table)
    value = value.strip()
    if by not in BY_CHOICES:
        raise InvalidInput("by", f"Give the prefix as one of: {', '.join(BY_CHOICES)}.")
    if not value:
        # Nothing typed is the whole table in every mode: the browser then
        # starts at the table's first row instead of asking for a userid.
        return b"", by
    if by == "userid":
        if not keys.keyed_by_user(table):
            raise InvalidInput("by", f"Rows of {table} are not keyed by user: give a hex prefix.")
        userid = accounts.check_userid(value, "prefix")
        if accounts.find_user(userid) is None:
            raise NotFound(
                f"No user {userid!r}. To scan by its hash anyway, "
                f"use the hex prefix {keys.user_hash(userid).hex()}."
            )
        return keys.user_hash(userid), f"md5({userid.lower()!r})"
    if by == "hex":
        digits = "".join(value.split()).removeprefix("0x")
        try:
            prefix = bytes.fromhex(digits)
        except ValueError:
            raise InvalidInput(
                "prefix",
                f"{value!r} is not hex: give pairs of the digits 0-9 and a-f, like 6c61673a.",
            ) from None
        how = "hex"
    elif by == "text":
        prefix, how = value.encode("utf-8"), "text"
    else:
        raise InvalidInput("by", f"Give the prefix as one of: {', '.join(BY_CHOICES)}.")
    if len(prefix) > PREFIX_MAX:
        raise InvalidInput("prefix", f"A prefix is at most {PREFIX_MAX} bytes.")
    return prefix, how


def browse_rows(
    actor: str, table: str, by: str, value: str, cursor: str | None = None, limit: int = 20
) -> RowsPage:
    """One page of ``table``'s rows under a prefix, in key order, each cell raw
    and decoded. The query is recorded in the audit log (rows hold user data)."""
    check_limit(limit)
    prefix, how = row_prefix(table, by, value)
    start = prefix
    if cursor:
        try:
            start = keys.after(keys.decode_cursor(cursor, prefix, None))
        except keys.BadKey as exc:
            raise InvalidInput("cursor", f"invalid cursor: {exc}") from None
    with connection() as conn:
        if table_name(table).encode() not in conn.tables():
            raise NotFound(
                f"Table {table} does not exist in HBase: run manage.py createtables --apply."
            )
        found = list(
            conn.table(table_name(table)).scan(
                row_start=start,
                row_stop=keys.prefix_stop(prefix),
                include_timestamp=True,
                limit=limit + 1,
                batch_size=limit + 1,
            )
        )
        page = found[:limit]
        names = _userids_for(conn, table, page)
    next_cursor = keys.encode_cursor(page[-1][0]) if len(found) > limit else None
    record(actor, "rows.browse", f"{table} {how} {prefix.hex()}", f"{len(page)} rows")
    return RowsPage(
        table=table,
        layout=keys.layout_text(table),
        prefix_hex=prefix.hex(),
        prefix_from=how,
        rows=tuple(_row_view(table, key, cells, names) for key, cells in page),
        next_cursor=next_cursor,
    )


def _split(table: str, key: bytes) -> tuple[keys.KeyPart, ...]:
    if table == "metrics" and key.startswith(metrics.LAG_PREFIX):
        rest = key[len(metrics.LAG_PREFIX) :]
        if len(rest) == keys.RTS_LEN + keys.SUFFIX_LEN:
            return (
                keys.KeyPart("kind", "text", metrics.LAG_PREFIX),
                keys.KeyPart("time", "rts", rest[: keys.RTS_LEN]),
                keys.KeyPart("suffix", "suffix", rest[keys.RTS_LEN :]),
            )
    return keys.split_key(table, key)


def _userids_for(
    conn: happybase.Connection,
    table: str,
    page: Iterable[tuple[bytes, dict[bytes, tuple[bytes, int]]]],
) -> dict[bytes, str]:
    """md5 -> userid for the users a page of rows mentions, where known: the
    userids its cells carry, then the users rows of the md5s still unknown
    (users are keyed by md5(userid), so one multi-get finds them)."""
    names: dict[bytes, str] = {}
    wanted: set[bytes] = set()
    for key, cells in page:
        for column, (value, _) in cells.items():
            userid = None
            if column in rows.USERID_CELLS:
                userid = value.decode(errors="replace")
            elif column == rows.ACCOUNT:
                userid = rows.account_userid(value)
            if userid:
                names[keys.user_hash(userid)] = userid
        wanted.update(p.raw for p in _split(table, key) if p.kind == "md5")
    missing = sorted(wanted - names.keys())
    if missing:
        for _, row in conn.table(table_name("users")).rows(missing, columns=[rows.ACCOUNT]):
            userid = rows.account_userid(row.get(rows.ACCOUNT, b""))
            if userid:
                names[keys.user_hash(userid)] = userid
    return names


def _part_view(part: keys.KeyPart, names: dict[bytes, str]) -> KeyPartView:
    raw = part.raw
    if part.kind == "md5":
        decoded = f"@{names[raw]}" if raw in names else "md5 of an unknown userid"
    elif part.kind == "rts":
        decoded = _when(keys.millis_from_rts(raw))
    elif part.kind == "ms":
        decoded = _when(int.from_bytes(raw, "big"))
    elif part.kind == "minute":
        decoded = "minute from " + _when(int.from_bytes(raw, "big") * 60_000)
    elif part.kind == "suffix":
        decoded = "random"
    elif part.kind == "sha256":
        decoded = "sha256 of an API token or web session id"
    elif part.kind == "md5tag":
        decoded = "md5 of a hashtag (the row's h:tag names it)"
    elif part.kind == "md5key":
        decoded = "md5 of a client's Idempotency-Key"
    else:
        decoded = _text(raw)
    return KeyPartView(part.name, part.kind, raw.hex(), decoded)


def _number_of(column: bytes, value: bytes) -> tuple[int, str] | None:
    """A counter cell's count, or a duration cell's milliseconds, with its unit."""
    if column in rows.COUNTER_CELLS and len(value) == 8:
        return rows.decode_count(value), ""
    if column in rows.DURATION_MS_CELLS and value.isdigit():
        return int(value), "ms"
    return None


def _decode_value(column: bytes, value: bytes) -> tuple[str, bytes]:
    """A cell's value as a person reads it, and the bytes to show as raw (an
    account's password hash is never shown, decoded or raw)."""
    if column == rows.ACCOUNT:
        account = rows.account_fields(value)
        if account is None:
            return _text(value), value
        if "password" in account:
            account["password"] = "(hidden)"
        shown = json.dumps(account, separators=(",", ":")).encode()
        created = account.get("created")
        parts = [f"{k} {account[k]}" for k in ("userid", "name", "email") if k in account]
        if isinstance(created, int):
            parts.append(f"created {_when(created)}")
        return " · ".join(parts) + " · password hash hidden", shown
    if column == rows.AVATAR_IMAGE:
        # An image: its size, and only its first bytes as raw (the header).
        return f"WebP image, {len(value):,} bytes", value[:32]
    if column in rows.FLAG_CELLS:
        return ("yes" if rows.decode_flag(value) else "no"), value
    if column in rows.COUNTED_CELLS and len(value) >= 8:
        counted = rows.decode_counted(value)
        kept = f"count {counted.count} · last {len(counted.done) // rows.OP_LEN} operation ids kept"
        if counted.pending:
            kept += f" · {len(counted.pending) // rows.OP_LEN} pending their mark"
        return kept, value
    number = _number_of(column, value)
    if number is not None:
        return f"{number[0]} {number[1]}".rstrip(), value
    if column in rows.MILLIS_CELLS and value.isdigit():
        return _when(int(value)), value
    if column in rows.OP_CELLS:
        return f"operation id {value.hex()}", value
    return _text(value), value


def _row_view(
    table: str, key: bytes, cells: dict[bytes, tuple[bytes, int]], names: dict[bytes, str]
) -> RowView:
    shown_key = string_binary(key)
    views = []
    for column, (value, ts) in cells.items():
        decoded, raw = _decode_value(column, value)
        number = _number_of(column, value)
        raw_text = string_binary(raw)
        col = string_binary(column)
        views.append(
            CellView(
                column=col,
                timestamp=ts,
                when=_when(ts),
                vlen=len(value),
                raw=raw_text,
                decoded=decoded,
                dump=f"K: {shown_key}/{col}/{ts}/Put/vlen={len(value)} V: {raw_text}",
                number=None if number is None else number[0],
                unit="" if number is None else number[1],
            )
        )
    return RowView(
        key_hex=key.hex(),
        key_binary=shown_key,
        parts=tuple(_part_view(p, names) for p in _split(table, key)),
        cells=tuple(views),
    )


# -- key spread ----------------------------------------------------------------------


@dataclass(frozen=True)
class Histogram:
    """Keys counted by their first byte: 256 buckets."""

    counts: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.counts)

    @property
    def used(self) -> int:
        return sum(1 for c in self.counts if c)

    @property
    def busiest(self) -> int:
        return max(self.counts, default=0)

    @property
    def busiest_bucket(self) -> int:
        return self.counts.index(self.busiest) if self.total else 0

    @property
    def busiest_share(self) -> float:
        return self.busiest / self.total if self.total else 0.0

    @property
    def busiest_percent(self) -> float:
        return 100 * self.busiest_share


@dataclass(frozen=True)
class Region:
    """One region of a table: its key range (b"" is open), where HBase serves
    it, and how many of the keys read fall in it."""

    start: bytes
    end: bytes
    server: str
    keys: int

    @property
    def start_hex(self) -> str:
        return self.start.hex() or "(start)"

    @property
    def end_hex(self) -> str:
        return self.end.hex() or "(end)"

    @property
    def position(self) -> float:
        """Where the region starts on a first-byte axis (0 to 256)."""
        return int.from_bytes(self.start[:3].ljust(3, b"\0"), "big") / 65536


def _regions(table: happybase.Table, sample: list[bytes]) -> tuple[Region, ...]:
    """``table``'s regions (Thrift1 getTableRegions, one call), each with the
    sampled keys in its range: no scan beyond the sample already read."""
    ordered = sorted(sample)
    out = []
    for r in sorted(table.regions(), key=lambda r: r["start_key"]):
        start, end = r["start_key"], r["end_key"]
        lo = bisect.bisect_left(ordered, start)
        hi = bisect.bisect_left(ordered, end) if end else len(ordered)
        server = r["server_name"].decode("utf-8", "replace") + f":{r['port']}"
        out.append(Region(start, end, server, hi - lo))
    return tuple(out)


@dataclass(frozen=True)
class KeySpread:
    """A table's keys by first byte. ``per_bucket`` None: every key was read.
    Else at most ``per_bucket`` keys were read under each first byte, so a
    bucket at that count holds at least that many (a full bucket): the chart
    then shows where keys are, not how many."""

    table: str
    layout: str
    keys: int  # keys read
    per_bucket: int | None
    actual: Histogram
    alternative_layout: str | None
    alternative: Histogram | None  # the keys read, keyed the sequential way
    alternative_unknown: int  # keys read whose alternative is unknown (no user row)
    ms: int
    regions: tuple[Region, ...] = ()
    at: datetime | None = None  # when it was kept (see tablestats); None: measured now

    @property
    def servers(self) -> int:
        return len({r.server for r in self.regions})

    def to_json(self) -> dict[str, object]:
        """As tablestats keeps it (``at`` is added there)."""
        return {
            "table": self.table,
            "layout": self.layout,
            "keys": self.keys,
            "per_bucket": self.per_bucket,
            "actual": list(self.actual.counts),
            "alternative_layout": self.alternative_layout,
            "alternative": None if self.alternative is None else list(self.alternative.counts),
            "alternative_unknown": self.alternative_unknown,
            "ms": self.ms,
            "regions": [[r.start.hex(), r.end.hex(), r.server, r.keys] for r in self.regions],
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> KeySpread:
        alternative = d["alternative"]
        return cls(
            table=d["table"],
            layout=d["layout"],
            keys=d["keys"],
            per_bucket=d["per_bucket"],
            actual=Histogram(tuple(d["actual"])),
            alternative_layout=d["alternative_layout"],
            alternative=None if alternative is None else Histogram(tuple(alternative)),
            alternative_unknown=d["alternative_unknown"],
            ms=d["ms"],
            regions=tuple(
                Region(bytes.fromhex(start), bytes.fromhex(end), server, n)
                for start, end, server, n in d["regions"]
            ),
            at=from_millis(d["at"]) if "at" in d else None,
        )

    @property
    def full_buckets(self) -> int:
        return sum(1 for c in self.actual.counts if self.per_bucket and c >= self.per_bucket)


def _sample(table: happybase.Table) -> tuple[list[bytes], int | None]:
    """Every key if there are at most SAMPLE_CAP, else the first SAMPLE_CAP //
    BUCKETS under each first byte (so that a large table is sampled
    everywhere, not only at its start). Key-only scans."""
    found = [
        k for k, _ in table.scan(filter=ops.KEYS_ONLY, limit=SAMPLE_CAP + 1, batch_size=10_000)
    ]
    if len(found) <= SAMPLE_CAP:
        return found, None
    per = max(1, SAMPLE_CAP // BUCKETS)
    sample: list[bytes] = []
    for first in range(BUCKETS):
        start = bytes([first])
        sample.extend(
            k
            for k, _ in table.scan(
                row_prefix=start,
                filter=ops.KEYS_ONLY,
                limit=per,
                batch_size=per,
            )
        )
    return sample, per


def _histogram(heads: Iterable[bytes]) -> Histogram:
    counts = [0] * BUCKETS
    for head in heads:
        counts[head[0]] += 1
    return Histogram(tuple(counts))


def _userids_of(conn: happybase.Connection, md5s: set[bytes]) -> dict[bytes, str]:
    names: dict[bytes, str] = {}
    users = conn.table(table_name("users"))
    wanted = sorted(md5s)
    for i in range(0, len(wanted), 1000):
        for _, row in users.rows(wanted[i : i + 1000], columns=[rows.ACCOUNT]):
            userid = rows.account_userid(row.get(rows.ACCOUNT, b""))
            if userid:
                names[keys.user_hash(userid)] = userid
    return names


def key_spread(table: str) -> KeySpread:
    """How ``table``'s row keys spread over the key space (by first byte), and
    how the same rows would with its sequential alternative's keys
    (keys.sequential_head)."""
    check_table(table)
    started = time.monotonic()
    with connection() as conn:
        if table_name(table).encode() not in conn.tables():
            raise NotFound(
                f"Table {table} does not exist in HBase: run manage.py createtables --apply."
            )
        hbase_table = conn.table(table_name(table))
        sample, per = _sample(hbase_table)
        regions = _regions(hbase_table, sample)
        names: dict[bytes, str] = {}
        if table in keys.USERID_FIRST:
            names = _userids_of(conn, {k[: keys.MD5_LEN] for k in sample})
    alt_layout = keys.SEQUENTIAL_LAYOUTS.get(table)
    alternative = None
    unknown = 0
    if alt_layout is not None:
        heads = []
        for key in sample:
            head = keys.sequential_head(table, key, names.get(key[: keys.MD5_LEN]))
            if head:
                heads.append(head)
            else:
                unknown += 1
        alternative = _histogram(heads)
    return KeySpread(
        table=table,
        layout=keys.layout_text(table),
        keys=len(sample),
        per_bucket=per,
        actual=_histogram(sample),
        alternative_layout=alt_layout,
        alternative=alternative,
        alternative_unknown=unknown,
        ms=int((time.monotonic() - started) * 1000),
        regions=regions,
    )


def request_stats(actor: str, table: str) -> str:
    """Queue :func:`refresh_stats` for ``table`` ("": every table) on a staff
    member's request; returns the table."""
    if table:
        check_table(table)
    jobs.dispatch(jobs.RefreshTableStats(table))
    record(actor, "tables.count", table or "every table")
    return table


def kept_key_spreads(tables: list[str]) -> list[KeySpread]:
    """The key spreads of ``tables`` as :func:`refresh_stats` last kept them
    (one read for all); a table's is sampled now (and kept) only if it never
    was, as on a new deployment's first view."""
    for table in tables:
        check_table(table)
    kept = tablestats.spreads(tables)
    out = []
    for table in tables:
        if table in kept:
            out.append(KeySpread.from_json(kept[table]))
            continue
        spread = key_spread(table)
        tablestats.save_spread(table, spread.to_json())
        out.append(spread)
    return out


# -- fan-out -------------------------------------------------------------------------


@dataclass(frozen=True)
class PendingFanout:
    twit_id: str
    userid: str
    text: str
    created: datetime
    age_s: float  # since the twit was posted: the fan-out's lag so far
    chunks_done: int
    chunks_total: int | None  # None until the last chunk is known
    stuck: bool  # its lease has expired: the sweep would queue it again


@dataclass(frozen=True)
class PendingList:
    items: tuple[PendingFanout, ...]
    more: bool


def pending_fanouts(limit: int = 50) -> PendingList:
    """Twits whose fan-out is unfinished, in key order: the first ``limit``
    entries of the pending index (read up to ``limit`` + 1), then their rows.

    ``stuck`` is the sweep's own test: the fan-out's lease has expired.
    """
    check_limit(limit)
    now = pending.now_ms()
    with connection() as conn:
        listed = pending.index_keys(conn, limit + 1)
        found = dict(conn.table(table_name("twits")).rows(listed[:limit], columns=[rows.TWIT]))
    items = []
    for key in listed[:limit]:
        row = found.get(key, {})
        mark = row.get(pending.MARK)
        if not pending.is_open(mark):
            continue  # finished meanwhile (or deleted): the sweep drops the entry
        assert mark is not None
        created = int(row.get(rows.CREATED, b"0") or 0)
        done, total = fanout.chunk_counts(row)
        items.append(
            PendingFanout(
                twit_id=keys.twit_id(key),
                userid=row.get(rows.AUTHOR, b"?").decode(errors="replace"),
                text=row.get(rows.TEXT, b"").decode(errors="replace"),
                created=from_millis(created),
                age_s=max(0.0, (now - created) / 1000),
                chunks_done=done,
                chunks_total=total,
                stuck=pending.decode(mark).expired(settings.TWITBASE_SWEEP_AFTER_S, now),
            )
        )
    return PendingList(tuple(items), len(listed) > limit)


# A worker writes a heartbeat after its tasks (at most every 5 s), and beat
# runs the sweep every minute: a worker silent for longer is idle or gone.
WORKER_QUIET_S = 120


@dataclass(frozen=True)
class Worker:
    name: str
    last_seen: datetime
    age_s: float
    tasks: int
    quiet: bool  # no heartbeat for WORKER_QUIET_S


@dataclass(frozen=True)
class FanoutOverview:
    stats: metrics.FanoutStats
    workers: tuple[Worker, ...]


def fanout_overview() -> FanoutOverview:
    """The fan-out figures (metrics.fanout_stats) and each worker's last heartbeat."""
    stats = metrics.fanout_stats()
    now = time.time() * 1000
    workers = tuple(
        Worker(
            name=name,
            last_seen=from_millis(seen),
            age_s=max(0.0, (now - seen) / 1000),
            tasks=tasks,
            quiet=(now - seen) / 1000 > WORKER_QUIET_S,
        )
        for name, seen, tasks in sorted(stats.workers, key=lambda w: -w[1])
    )
    return FanoutOverview(stats, workers)


_TWIT_ID = re.compile(f"[0-9a-f]{{{2 * keys.TWIT_KEY_LEN}}}")


def twit_id_from(text: str) -> str:
    """The twit id in ``text``: an id, or a permalink that ends with one."""
    found = _TWIT_ID.findall(text.strip().lower())
    if not found:
        raise InvalidInput(
            "twit_id", "Give a twit's id (56 hex digits) or its permalink, /u/USER/t/ID."
        )
    return str(found[-1])


def requeue_fanout(actor: str, twit_id: str) -> Twit:
    """Queue the fan-out of a twit again (it is idempotent); Conflict if it is
    not pending: a finished fan-out has nothing left to do."""
    twit = twits_service.get_twit(twit_id_from(twit_id))
    if not fanout.requeue(twit.id):
        raise Conflict("The fan-out of this twit is finished: there is nothing to queue.")
    record(actor, "fanout.requeue", twit.id, f"by @{twit.userid}")
    return twit


def sweep_fanouts(actor: str) -> list[str]:
    """Queue again every pending fan-out whose lease expired (after
    TWITBASE_SWEEP_AFTER_S), as the minutely sweep does. Returns the twit ids queued."""
    queued = fanout.sweep_pending(settings.TWITBASE_SWEEP_AFTER_S)
    n = len(queued)
    record(actor, "fanout.sweep", f"{n} twit{'s' if n != 1 else ''}", " ".join(queued))
    return queued


# -- moderation ------------------------------------------------------------------------


def find_user(userid: str) -> User:
    """The user ``userid`` (in any case): InvalidInput if it cannot be a userid,
    NotFound if there is none. Exact only: users are keyed by md5(userid)."""
    return accounts.get_user(accounts.check_userid(userid.strip().lstrip("@"), "q"))


def check_disable(actor: str, userid: str) -> User:
    """The user ``actor`` may disable, found (NotFound if none): what the
    console's confirmation page shows before anything changes."""
    if actor.lower() == userid.lower():
        raise InvalidInput(None, "You cannot disable your own account.")
    return accounts.get_user(userid)


def set_disabled(actor: str, userid: str, disabled: bool) -> User:
    """Disable (or enable) an account. Disabling ends its sessions and API
    tokens for good (enabling does not revive them); it cannot log in or be
    followed, and its profile and twits show as suspended. Staff cannot
    disable themselves: the console would lock them out at once."""
    if disabled:
        check_disable(actor, userid)
    user = accounts.set_disabled(userid, disabled)
    record(actor, "user.disable" if disabled else "user.enable", user.userid)
    return user


def find_twit(twit_id: str) -> Twit:
    """The twit given by id or permalink, to confirm its deletion; nothing changes."""
    return twits_service.get_twit(twit_id_from(twit_id))


def delete_twit(actor: str, twit_id: str) -> Twit:
    """Delete anyone's twit (given by id or permalink): from the twits table,
    and from every stream."""
    twit = find_twit(twit_id)
    twits_service.delete_twit(twit.userid, twit.id)
    record(actor, "twit.delete", twit.id, f"by @{twit.userid}: {twit.text[:80]}")
    return twit
