"""Tables, families and their descriptors: the same on both servers."""

from __future__ import annotations

import time

import happybase
import pytest
from Hbase_thrift import AlreadyExists, IOError  # type: ignore[import-not-found]


def test_create_list_and_describe_tables(conn: happybase.Connection) -> None:
    conn.create_table("users", {"info": dict(max_versions=1), "stats": dict(time_to_live=3600)})
    conn.create_table("twits", {"t": dict()})

    assert sorted(conn.tables()) == [b"twits", b"users"]
    families = conn.table("users").families()
    assert set(families) == {b"info", b"stats"}
    assert families[b"info"]["max_versions"] == 1
    assert families[b"info"]["time_to_live"] == 2**31 - 1  # HBase's FOREVER
    assert families[b"stats"]["max_versions"] == 3  # Thrift1's default
    assert families[b"stats"]["time_to_live"] == 3600


def test_creating_an_existing_table_is_already_exists(conn: happybase.Connection) -> None:
    conn.create_table("users", {"info": dict()})
    with pytest.raises(AlreadyExists):
        conn.create_table("users", {"info": dict()})


def test_disable_enable_and_delete(conn: happybase.Connection) -> None:
    conn.create_table("users", {"info": dict()})
    table = conn.table("users")
    table.put(b"alice", {b"info:name": b"Alice"})

    assert conn.is_table_enabled("users")
    conn.disable_table("users")
    assert not conn.is_table_enabled("users")
    with pytest.raises(IOError):
        table.row(b"alice")
    conn.enable_table("users")
    assert table.row(b"alice") == {b"info:name": b"Alice"}

    conn.delete_table("users", disable=True)
    assert conn.tables() == []


def test_deleting_an_enabled_table_is_refused(conn: happybase.Connection) -> None:
    conn.create_table("users", {"info": dict()})
    with pytest.raises(IOError) as err:
        conn.delete_table("users")
    assert b"TableNotDisabledException" in err.value.message
    assert conn.tables() == [b"users"]


def test_a_deleted_and_recreated_table_starts_empty(conn: happybase.Connection) -> None:
    conn.create_table("users", {"info": dict()})
    conn.table("users").put(b"alice", {b"info:name": b"Alice"})
    conn.delete_table("users", disable=True)
    conn.create_table("users", {"info": dict()})
    assert list(conn.table("users").scan()) == []


def test_a_new_table_has_one_region_covering_all_keys(conn: happybase.Connection) -> None:
    conn.create_table("users", {"info": dict()})
    regions = conn.table("users").regions()
    assert len(regions) == 1
    assert regions[0]["start_key"] == b""
    assert regions[0]["end_key"] == b""


def test_compaction_keeps_every_visible_cell(conn: happybase.Connection) -> None:
    conn.create_table("t", {"cf": dict(max_versions=2)})
    table = conn.table("t")
    for ts in (1, 2, 3):
        table.put(b"r", {b"cf:a": b"v%d" % ts}, timestamp=ts)
    table.put(b"gone", {b"cf:a": b"x"})
    table.delete(b"gone")

    conn.compact_table("t")
    conn.compact_table("t", major=True)
    time.sleep(0.5)  # HBase compacts in the background; reads are correct throughout

    assert table.cells(b"r", b"cf:a", versions=5, include_timestamp=True) == [
        (b"v3", 3),
        (b"v2", 2),
    ]
    assert table.row(b"gone") == {}
