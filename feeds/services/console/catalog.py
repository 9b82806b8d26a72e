"""The table catalogue: TwitBase's tables, which of them HBase has, and each
one's families and regions, as the tables page shows them."""

from __future__ import annotations

from dataclasses import dataclass

import happybase

from feeds.errors import NotFound
from storage import keys
from storage.connection import connection, table_name
from storage.schema import SCHEMA

from .. import tablestats

# HBase's "forever" for a family's time to live (Integer.MAX_VALUE seconds).
TTL_FOREVER = 2**31 - 1


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


def existing(conn: happybase.Connection) -> set[str]:
    """The full names of the tables HBase has (one call)."""
    return {t.decode() for t in conn.tables()}


def open_table(conn: happybase.Connection, table: str) -> happybase.Table:
    """TwitBase's table ``table`` on ``conn``: NotFound if HBase has none."""
    if table_name(table) not in existing(conn):
        raise NotFound(
            f"Table {table} does not exist in HBase: run manage.py createtables --apply."
        )
    return conn.table(table_name(table))


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


def tables() -> tuple[TableInfo, ...]:
    """Every TwitBase table: families with their descriptors, regions, and its
    rows as last counted in the background (console.stats.refresh_stats).
    Costs a few calls per table, whatever the tables hold."""
    counted = tablestats.counts()
    out = []
    with connection() as conn:
        present = existing(conn)
        for name in SCHEMA:
            full = table_name(name)
            if full not in present:
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
