"""TwitBase's tables created pre-split (storage/admin.py), on both servers:
hash-keyed tables on even hash boundaries, the salted one per salt, the rest
one region; each row in the region its key says, through both Thrift APIs."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from pytest_django.fixtures import Settings

from storage import keys
from storage.admin import hash_splits, regions_of, split_keys, thrift2_client
from storage.connection import connection, reset_pool, table_name
from storage.schema import SCHEMA, create_tables, drop_tables
from tests.helpers import ServerAddr

# Regions per hashed table here: enough to show the boundaries, and a
# quarter of the 16 a deployment might use. With 16, the 24 tables were 312
# regions on the 3-RegionServer HBase: 21 s to create and 10 s to drop on a
# slow day (2026-11-26).
REGIONS = 4


def test_hash_splits_cut_the_key_space_evenly() -> None:
    assert hash_splits(1) == []
    assert hash_splits(2) == [b"\x80"]
    assert hash_splits(16) == [bytes([i * 16]) for i in range(1, 16)]
    assert hash_splits(3) == [b"\x55\x55", b"\xaa\xaa"]
    assert hash_splits(256) == [bytes([i]) for i in range(1, 256)]
    assert len(hash_splits(1000)) == 999 and sorted(hash_splits(1000)) == hash_splits(1000)
    with pytest.raises(ValueError, match="regions must be"):
        hash_splits(0)


def test_which_tables_are_split() -> None:
    for table in ("users", "twits", "streams", "follows", "tokens", "hashtags", "avatars"):
        assert split_keys(table, 16) == hash_splits(16), table
    for table in ("userLists", "listMembers"):
        assert split_keys(table, 16) == hash_splits(16), table
    assert split_keys("tagCounts", 16) == [b"\x01", b"\x02", b"\x03"]
    for table in ("audit", "metrics", "userSearch"):
        assert split_keys(table, 16) == [], table
    assert all(split_keys(t, 1) == [] for t in SCHEMA)


@pytest.fixture
def presplit(server: ServerAddr, settings: Settings) -> Iterator[ServerAddr]:
    settings.TWITBASE_HBASE_HOST = server.host
    settings.TWITBASE_HBASE_PORT = server.port
    settings.TWITBASE_HBASE_THRIFT2_PORT = server.thrift2_port
    settings.TWITBASE_PRESPLIT_REGIONS = REGIONS
    settings.TWITBASE_TABLE_PREFIX = "ps" + uuid.uuid4().hex[:10]
    reset_pool()
    try:
        yield server
    finally:
        with connection() as conn:
            drop_tables(conn)
        reset_pool()


def test_createtables_splits_hashed_tables_on_both_apis(presplit: ServerAddr) -> None:
    with connection() as conn:
        assert len(create_tables(conn)) == len(SCHEMA)
        assert create_tables(conn) == []  # idempotent
        with thrift2_client() as t2:
            for table in SCHEMA:
                regions = regions_of(t2, table_name(table))
                starts = [start for start, _, _ in regions]
                assert starts == [b"", *split_keys(table, REGIONS)], table
                thrift1 = conn.client.getTableRegions(table_name(table).encode())
                assert [r.startKey for r in thrift1] == starts, table
            # A user's row is in the region its md5 says: the last boundary
            # at or below it, of 0x40, 0x80 and 0xc0.
            assert hash_splits(REGIONS) == [b"\x40", b"\x80", b"\xc0"]
            # dave 0x16, alice 0x63, bob 0x9f, oscar 0xf1: one in each region.
            for userid in ("dave", "alice", "bob", "oscar"):
                row = keys.user_key(userid)
                loc = t2.getRegionLocation(table_name("users").encode(), row, False)
                assert loc.regionInfo.startKey == (
                    bytes([row[0] & 0xC0]) if row[0] >= 0x40 else b""
                )
        # Families are as SCHEMA says, whichever API made the table.
        families = conn.table(table_name("tokens")).families()
        assert families[b"k"]["max_versions"] == 1
        assert families[b"k"]["time_to_live"] == 30 * 24 * 3600
