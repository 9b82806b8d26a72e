"""Pre-split tables: created through HBase's Thrift2 API with split keys.

A new HBase table is one region on one RegionServer; it splits only once
that region grows to ``hbase.hregion.max.filesize`` (10 GB by default), so
until then every write of the table lands on one server. TwitBase's keys
mostly start with md5(userid) (or another hash), which spreads rows evenly
over the key space: the table can be split on even hash boundaries at
creation, and writes spread over all its regions, and so over all
RegionServers, from the first row (Lars George's "pre-splitting" in the
schema-design slides, ``../shared/seeds/``).

Which tables: those whose key starts with a hash (``storage.keys.LAYOUTS``:
md5 of a userid or tag, sha256 of a token) get ``hash_splits``;
``tagCounts``, whose key starts with a salt byte, gets one region per salt;
the rest (time-first audit rows, text-keyed metrics and userSearch) keep
one region, since even splits of a non-uniform key would leave most regions
empty.

happybase speaks Thrift1, whose createTable has no split keys, so these
tables are created through Thrift2 (THBaseService.createTable), which both
the local server and HBase's own thrift2 server serve on a second port
(``TWITBASE_HBASE_THRIFT2_PORT``). Everything else still goes through
happybase. The client is thriftpy2 built from the project's one copy of
HBase's IDL (``hbasethrift/idl/hbase2.thrift``).

The same client adds and alters column families for ``createtables``
(storage/upgrade.py): Thrift1 has no call that alters a table either.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from thriftpy2.rpc import make_client

from .keys import LAYOUTS, TREND_SALTS


def _t2() -> Any:
    """The Thrift2 IDL as a module (hbasethrift.thrift2), loaded at the first
    admin call rather than when storage is imported: thriftpy2 parses the
    IDL, about 0.09 CPU s, and most processes (the web's, the workers', the
    commands' and the tests' hammers) never make one."""
    from hbasethrift.thrift2 import T2

    return T2


HASHED_KINDS = ("md5", "sha256")
# Tables keyed by a hash that LAYOUTS does not describe part by part.
HASHED_TABLES: tuple[str, ...] = ("hashtags", "avatars")
# listMembers starts with md5(list key), as even as a user's md5 (lists.py).
HASHED_TABLES += ("listMembers",)
SALTED_TABLES = {"tagCounts": TREND_SALTS}


def hash_splits(regions: int) -> list[bytes]:
    """``regions - 1`` split keys cutting a uniform hash's key space into
    ``regions`` equal ranges: 16 gives 0x10, 0x20, ... 0xf0. Keys are two
    bytes where one cannot cut evenly (e.g. 0x5555 for 3 regions), with
    trailing zero bytes dropped."""
    if not 1 <= regions <= 65536:
        raise ValueError(f"regions must be from 1 to 65536, got {regions}")
    return [((i << 16) // regions).to_bytes(2, "big").rstrip(b"\0") for i in range(1, regions)]


def split_keys(table: str, regions: int) -> list[bytes]:
    """The split keys ``table`` is created with, for ``regions`` per hashed table."""
    if table in SALTED_TABLES:
        return [bytes([salt]) for salt in range(1, SALTED_TABLES[table])] if regions > 1 else []
    layout = LAYOUTS.get(table)
    hashed = table in HASHED_TABLES or (layout is not None and layout[0][1] in HASHED_KINDS)
    return hash_splits(regions) if hashed else []


@contextmanager
def thrift2_client() -> Iterator[Any]:
    """A Thrift2 client of the configured server (binary protocol, buffered transport)."""
    client = make_client(
        _t2().THBaseService,
        settings.TWITBASE_HBASE_HOST,
        settings.TWITBASE_HBASE_THRIFT2_PORT,
        timeout=max(settings.TWITBASE_HBASE_TIMEOUT_MS, 60_000),  # DDL is slow on HBase
    )
    try:
        yield client
    finally:
        client.close()


def _family(name: str, options: Mapping[str, int], mob: int | None = None) -> Any:
    """A family as happybase's options say, with HBase's own defaults for the
    rest (a row bloom filter and the block cache on, as a table made in the
    HBase shell gets); with ``mob``, a MOB family of that threshold (see
    :func:`mob_attributes`)."""
    ttl = options.get("time_to_live")
    return _t2().TColumnFamilyDescriptor(
        name=name.encode(),
        maxVersions=options.get("max_versions", 1),
        timeToLive=ttl if ttl is not None else None,
        attributes=mob_attributes(mob) if mob is not None else None,
    )


def mob_attributes(threshold: int) -> dict[bytes, bytes]:
    """The family attributes that turn on HBase 2's MOB (medium object)
    storage for cells of at least ``threshold`` bytes.

    HBase 2.6's Thrift2 TColumnFamilyDescriptor has no MOB fields: its
    ThriftUtilities.columnFamilyDescriptorFromThrift copies the
    ``attributes`` map into the family with ColumnFamilyDescriptorBuilder's
    ``setValue``, and ``IS_MOB``/``MOB_THRESHOLD`` are the keys the
    builder's own ``setMobEnabled``/``setMobThreshold`` write, with the
    values as their ``String.valueOf`` (``true``, a decimal number). The
    descriptor read back (columnFamilyDescriptorFromHBase) reports them in
    the same map.
    """
    if threshold < 0:
        raise ValueError(f"mob_threshold must be at least 0, got {threshold}")
    return {b"IS_MOB": b"true", b"MOB_THRESHOLD": str(threshold).encode()}


def is_mob(descriptor: Any) -> int | None:
    """The MOB threshold of a TColumnFamilyDescriptor as HBase reports it,
    None if the family is not a MOB family."""
    attributes = descriptor.attributes or {}
    if attributes.get(b"IS_MOB", b"").lower() != b"true":
        return None
    return int(attributes.get(b"MOB_THRESHOLD", b"102400"))


def table_descriptors(client: Any, full_names: list[str]) -> list[Any]:
    """The TTableDescriptor of each of ``full_names`` (tables that exist)."""
    if not full_names:
        return []
    return list(
        client.getTableDescriptors([_t2().TTableName(qualifier=n.encode()) for n in full_names])
    )


def add_family(
    client: Any, full_name: str, family: str, max_versions: int, time_to_live: int
) -> None:
    """Add ``family`` to the existing table ``full_name``, keeping
    ``max_versions`` for ``time_to_live`` seconds (HBase's FOREVER for none)."""
    options = {"max_versions": max_versions, "time_to_live": time_to_live}
    client.addColumnFamily(_t2().TTableName(qualifier=full_name.encode()), _family(family, options))


def modify_family(
    client: Any, full_name: str, family: str, max_versions: int, time_to_live: int
) -> None:
    """Set the versions kept and the TTL (seconds; HBase's FOREVER for none) of
    ``full_name``'s ``family``, and nothing else of it.

    HBase builds the new family from the descriptor sent, with its defaults
    for whatever that omits: a descriptor of the name, versions and TTL alone
    would also reset the family's compression, bloom filter and block cache
    (seen on HBase 2.6). So the family's current descriptor is read back and
    sent with only these two fields changed.
    """
    table = _t2().TTableName(qualifier=full_name.encode())
    (current,) = [
        cd for cd in client.getTableDescriptor(table).columns if cd.name == family.encode()
    ]
    current.maxVersions = max_versions
    current.timeToLive = time_to_live
    client.modifyColumnFamily(table, current)


def create_presplit(
    client: Any,
    full_name: str,
    families: Mapping[str, Mapping[str, int]],
    splits: list[bytes],
    mob: Mapping[str, int] | None = None,
) -> None:
    """Create ``full_name`` with ``families`` (SCHEMA's shape), split at
    ``splits``; the families in ``mob`` (MOB_FAMILIES' shape) as MOB families."""
    desc = _t2().TTableDescriptor(
        tableName=_t2().TTableName(qualifier=full_name.encode()),
        columns=[
            _family(name, options, (mob or {}).get(name)) for name, options in families.items()
        ],
    )
    client.createTable(desc, splits)


def regions_of(client: Any, full_name: str) -> list[tuple[bytes, bytes, str]]:
    """(start key, end key, server) of each region of ``full_name``, in key order."""
    return [
        (
            loc.regionInfo.startKey,
            loc.regionInfo.endKey,
            f"{loc.serverName.hostName}:{loc.serverName.port}",
        )
        for loc in client.getAllRegionLocations(full_name.encode())
    ]
