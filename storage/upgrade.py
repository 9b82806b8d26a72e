"""Bring a deployment's tables to :data:`storage.schema.SCHEMA` without losing
data: a pure planner, then a small executor (``manage.py createtables``).

:func:`plan` compares the schema with the tables a server has and lists the
changes: a table to create, a family to add, a family whose TTL or versions
kept differ. It never plans a drop: a table or family the schema does not
know is left as it is (:func:`left_alone` names them). The executor makes one
change at a time: tables through the usual create path (pre-split where
``storage.admin`` says), families through HBase's Thrift2 admin calls, since
Thrift1 (happybase) cannot alter a table.

Lowering a family's TTL or versions is still a change to data: HBase hides
the cells past the new limits at once and removes them at the next major
compaction. The plan says so before anything is applied.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import happybase

from .admin import add_family, modify_family, split_keys, table_descriptors
from .schema import create_tables

# HBase's HConstants.FOREVER: the TTL of a family whose cells never expire.
# Both servers report it for "no TTL", through Thrift1 and Thrift2 alike.
FOREVER = 2**31 - 1

Schema = Mapping[str, Mapping[str, Mapping[str, int]]]


@dataclass(frozen=True)
class Family:
    """What TwitBase sets of a column family: versions kept, and seconds a
    cell lives (:data:`FOREVER`: it never expires)."""

    max_versions: int
    time_to_live: int = FOREVER

    @classmethod
    def wanted(cls, options: Mapping[str, int]) -> Family:
        """The family SCHEMA's ``options`` describe (one version unless said:
        storage.admin creates families so)."""
        return cls.found(options.get("max_versions", 1), options.get("time_to_live"))

    @classmethod
    def found(cls, max_versions: int, time_to_live: int | None) -> Family:
        """A family as a server reports it; a TTL of none, zero or less, or
        FOREVER and above all mean the same: no expiry."""
        ttl = time_to_live if time_to_live is not None else FOREVER
        return cls(max_versions, FOREVER if ttl <= 0 or ttl >= FOREVER else ttl)


# Every table of a server (full names) -> its families by name, as found.
Existing = Mapping[str, Mapping[str, Family]]


def _ttl(seconds: int) -> str:
    return "forever" if seconds == FOREVER else str(seconds)


@dataclass(frozen=True)
class CreateTable:
    name: str  # SCHEMA's name
    table: str  # the full name, with the prefix
    regions: int  # as created: 1, or the pre-split regions of a hashed table

    def describe(self, done: bool = False) -> str:
        plural = "" if self.regions == 1 else "s"
        verb = "created" if done else "create"
        return f"{verb} table {self.table} ({self.regions} region{plural})"


@dataclass(frozen=True)
class AddFamily:
    table: str
    family: str
    new: Family

    def describe(self, done: bool = False) -> str:
        return f"{'added' if done else 'add'} family {self.family} to {self.table}"


@dataclass(frozen=True)
class ChangeFamily:
    table: str
    family: str
    old: Family
    new: Family

    def describe(self, done: bool = False) -> str:
        parts = []
        if self.old.time_to_live != self.new.time_to_live:
            parts.append(f"TTL {_ttl(self.old.time_to_live)} -> {_ttl(self.new.time_to_live)}")
        if self.old.max_versions != self.new.max_versions:
            parts.append(f"max versions {self.old.max_versions} -> {self.new.max_versions}")
        verb = "changed" if done else "change"
        return f"{verb} {self.table}:{self.family} {', '.join(parts)}"

    @property
    def drops_cells(self) -> bool:
        """Whether cells kept until now may go: a shorter TTL or fewer versions."""
        return (
            self.new.time_to_live < self.old.time_to_live
            or self.new.max_versions < self.old.max_versions
        )


Change = CreateTable | AddFamily | ChangeFamily


def _full(prefix: str, name: str) -> str:
    return f"{prefix}_{name}"  # as storage.connection.table_name, without the settings


def plan(schema: Schema, existing: Existing, *, prefix: str, regions: int = 1) -> list[Change]:
    """The changes that bring the tables of ``prefix`` in ``existing`` to
    ``schema``, in schema order: a missing table is created (``regions``
    per hash-keyed table, as storage.admin.split_keys says), a missing
    family added, a family whose TTL or versions differ changed. Never a
    drop; an empty list when everything matches."""
    changes: list[Change] = []
    for name, families in schema.items():
        table = _full(prefix, name)
        found = existing.get(table)
        if found is None:
            changes.append(CreateTable(name, table, len(split_keys(name, regions)) + 1))
            continue
        for family, options in families.items():
            want = Family.wanted(options)
            have = found.get(family)
            if have is None:
                changes.append(AddFamily(table, family, want))
            elif have != want:
                changes.append(ChangeFamily(table, family, have, want))
    return changes


def left_alone(schema: Schema, existing: Existing, *, prefix: str) -> list[str]:
    """The tables of ``prefix`` (``prefix_table``) and the families of its
    schema tables (``prefix_table:family``) that ``schema`` does not know,
    sorted: the plan never touches them."""
    ours = {_full(prefix, name): name for name in schema}
    unknown = []
    for table in sorted(existing):
        if table not in ours:
            if table.startswith(prefix + "_"):
                unknown.append(table)
            continue
        known = schema[ours[table]]
        unknown += [
            f"{table}:{family}" for family in sorted(existing[table]) if family not in known
        ]
    return unknown


def needs_thrift2(changes: list[Change]) -> list[Change]:
    """The changes only Thrift2 can make (Thrift1 has no call that alters a table)."""
    return [c for c in changes if not isinstance(c, CreateTable)]


# -- reading a server, and the executor -------------------------------------------------


def read_existing(conn: happybase.Connection, client: Any | None, prefix: str) -> Existing:
    """The tables of ``prefix`` on the server and their families: through
    Thrift2 (one call) when ``client`` is one, else Thrift1's column
    descriptors, which report the same versions and TTL."""
    names = [t.decode() for t in conn.tables() if t.decode().startswith(prefix + "_")]
    if client is not None:
        return {
            desc.tableName.qualifier.decode(): {
                cd.name.decode(): Family.found(cd.maxVersions, cd.timeToLive)
                for cd in desc.columns or []
            }
            for desc in table_descriptors(client, names)
        }
    return {
        name: {
            family.decode(): Family.found(d["max_versions"], d["time_to_live"])
            for family, d in conn.table(name).families().items()
        }
        for name in names
    }


def execute(conn: happybase.Connection, client: Any | None, change: Change) -> None:
    """Make one planned change; family changes need ``client`` (Thrift2)."""
    if isinstance(change, CreateTable):
        create_tables(conn, [change.name])
        return
    if client is None:
        raise ValueError(f"cannot {change.describe()}: it needs HBase's Thrift2 API")
    if isinstance(change, AddFamily):
        add_family(
            client, change.table, change.family, change.new.max_versions, change.new.time_to_live
        )
    else:
        modify_family(
            client, change.table, change.family, change.new.max_versions, change.new.time_to_live
        )
