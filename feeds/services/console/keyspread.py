"""Key spread: how a table's row keys fall over the key space (by first
byte) and over its regions, beside how the same rows would fall keyed the
sequential way; the key-design page's charts.

A page reads the spread the background job kept (see tablestats); a table is
sampled on a page view only if it never was.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import happybase

from feeds.types import from_millis
from storage import keys, ops
from storage.connection import connection

from .. import accounts, tablestats
from .catalog import check_table, open_table

BUCKETS = 256
# Keys a key-spread chart looks at: every key of a table this small, else
# the first SAMPLE_CAP // BUCKETS keys under each first byte.
SAMPLE_CAP = 20_000


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


def _userids_of(md5s: set[bytes]) -> dict[bytes, str]:
    """md5 -> userid for those of ``md5s`` that are users, a thousand at a time."""
    wanted = sorted(md5s)
    names: dict[bytes, str] = {}
    for i in range(0, len(wanted), 1000):
        found = accounts.users_by_hash(wanted[i : i + 1000])
        names.update((key, user.userid) for key, user in found.items())
    return names


def key_spread(table: str) -> KeySpread:
    """How ``table``'s row keys spread over the key space (by first byte), and
    how the same rows would with its sequential alternative's keys
    (keys.sequential_head)."""
    check_table(table)
    started = time.monotonic()
    with connection() as conn:
        hbase_table = open_table(conn, table)
        sample, per = _sample(hbase_table)
        regions = _regions(hbase_table, sample)
    names: dict[bytes, str] = {}
    if table in keys.USERID_FIRST:
        names = _userids_of({k[: keys.MD5_LEN] for k in sample})
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


def kept_key_spreads(tables: list[str]) -> list[KeySpread]:
    """The key spreads of ``tables`` as the background job (console.stats)
    last kept them (one read for all); a table's is sampled now (and kept)
    only if it never was, as on a new deployment's first view."""
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
