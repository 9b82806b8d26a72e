"""`createtables` upgrades a deployment made with an older schema, on both
servers: it prints its plan and changes nothing, then with --apply creates
the missing table, adds the missing family and changes a TTL and a max
versions, keeping the data and whatever the schema does not know."""

from __future__ import annotations

import io
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from pytest_django.fixtures import Settings

from storage.connection import connection, reset_pool, table_name
from storage.schema import SCHEMA
from storage.upgrade import Family
from tests.helpers import ServerAddr

DAY = 24 * 3600
REGIONS = 4  # for the one table created pre-split here (test_presplit.py says why few)


def older_schema() -> dict[str, dict[str, dict[str, object]]]:
    """SCHEMA as an older release had it: no pendingFanouts table, users
    without its "c" family (and with one since retired), tokens kept a day
    and audit three versions; and a table since retired."""
    old: dict[str, dict[str, dict[str, object]]] = {
        name: {family: dict(options) for family, options in families.items()}
        for name, families in SCHEMA.items()
        if name != "pendingFanouts"
    }
    del old["users"]["c"]
    old["users"]["old"] = {"max_versions": 2}
    # A bloom filter of its own: the TTL change must leave it as it is.
    old["tokens"]["k"] = {"max_versions": 1, "time_to_live": DAY, "bloom_filter_type": "ROWCOL"}
    old["audit"]["a"] = {"max_versions": 3}
    old["legacy"] = {"x": {"max_versions": 1}}
    return old


@contextmanager
def older_deployment(server: ServerAddr, settings: Settings) -> Iterator[ServerAddr]:
    """Settings pointed at ``server`` (Thrift2 too) and a prefix of this test's
    own, whose tables are made with :func:`older_schema` and one row each in
    users and tokens; dropped after."""
    settings.TWITBASE_HBASE_HOST = server.host
    settings.TWITBASE_HBASE_PORT = server.port
    settings.TWITBASE_HBASE_THRIFT2_PORT = server.thrift2_port
    settings.TWITBASE_PRESPLIT_REGIONS = REGIONS
    settings.TWITBASE_TABLE_PREFIX = prefix = "up" + uuid.uuid4().hex[:10]
    reset_pool()
    try:
        with connection() as conn:
            for name, families in older_schema().items():
                conn.create_table(table_name(name), families)
            conn.table(table_name("users")).put(b"row-alice", {b"info:name": b"Alice"})
            conn.table(table_name("tokens")).put(b"row-token", {b"k:userid": b"alice"})
        yield server
    finally:
        with connection() as conn:
            for name in conn.tables():
                if name.decode().startswith(prefix + "_"):
                    conn.delete_table(name, disable=True)
        reset_pool()


@pytest.fixture
def deployment(server: ServerAddr, settings: Settings) -> Iterator[ServerAddr]:
    """An older deployment on each server in turn."""
    with older_deployment(server, settings) as addr:
        yield addr


@pytest.fixture
def local_deployment(local_hbase: ServerAddr, settings: Settings) -> Iterator[ServerAddr]:
    """An older deployment on the local server only."""
    with older_deployment(local_hbase, settings) as addr:
        yield addr


def snapshot() -> dict[str, dict[bytes, dict[str, object]]]:
    """Every table of the prefix with its families as Thrift1 reports them."""
    prefix = table_name("")
    with connection() as conn:
        return {
            name.decode(): conn.table(name).families()
            for name in conn.tables()
            if name.decode().startswith(prefix)
        }


def createtables(*args: str) -> str:
    out = io.StringIO()
    call_command("createtables", *args, stdout=out)
    return out.getvalue()


def test_createtables_plans_then_applies_an_upgrade_and_keeps_the_data(
    deployment: ServerAddr,
) -> None:
    before = snapshot()
    where = f"(prefix {table_name('')[:-1]!r}, {deployment.host}:{deployment.port})"

    planned = createtables()
    assert planned.splitlines() == [
        f"{table_name('legacy')}: not in the schema; left alone",
        f"{table_name('users')}:old: not in the schema; left alone",
        f"would add family c to {table_name('users')}",
        f"would create table {table_name('pendingFanouts')} ({REGIONS} regions)",
        f"would change {table_name('tokens')}:k TTL 86400 -> 2592000",
        f"would change {table_name('audit')}:a max versions 3 -> 1",
        "note: a shorter TTL or fewer versions hides older cells at once "
        "and removes them at the next major compaction",
        f"4 change(s) to make; run with --apply to make them {where}",
    ]
    assert snapshot() == before  # a dry run changes nothing

    applied = createtables("--apply")
    assert applied.splitlines()[2:] == [
        f"added family c to {table_name('users')}",
        f"created table {table_name('pendingFanouts')} ({REGIONS} regions)",
        f"changed {table_name('tokens')}:k TTL 86400 -> 2592000",
        f"changed {table_name('audit')}:a max versions 3 -> 1",
        f"4 change(s) made; the tables match the schema {where}",
    ]

    after = snapshot()
    for name, families in SCHEMA.items():
        found = after[table_name(name)]
        for family, options in families.items():
            have = found[family.encode()]
            assert Family.found(int(str(have["max_versions"])), int(str(have["time_to_live"]))) == (
                Family.wanted(options)
            ), (name, family)
    # Only the TTL changed: the family's bloom filter is as it was made.
    assert after[table_name("tokens")][b"k"]["bloom_filter_type"] == b"ROWCOL"
    # What the schema does not know is still there, untouched.
    assert after[table_name("legacy")] == before[table_name("legacy")]
    assert after[table_name("users")][b"old"] == before[table_name("users")][b"old"]
    with connection() as conn:
        regions = conn.client.getTableRegions(table_name("pendingFanouts").encode())
        assert len(regions) == REGIONS
        assert conn.table(table_name("users")).row(b"row-alice") == {b"info:name": b"Alice"}
        assert conn.table(table_name("tokens")).row(b"row-token") == {b"k:userid": b"alice"}

    again = createtables("--apply")
    assert again.splitlines()[2:] == [f"the tables match the schema: {len(SCHEMA)} tables {where}"]
    assert snapshot() == after


def test_family_changes_without_thrift2_are_refused_and_nothing_changes(
    local_deployment: ServerAddr, settings: Settings
) -> None:
    settings.TWITBASE_HBASE_THRIFT2_PORT = 0
    before = snapshot()
    # Planned through Thrift1, which reports versions and TTL as well.
    planned = createtables()
    assert f"would change {table_name('tokens')}:k TTL 86400 -> 2592000\n" in planned
    assert f"would create table {table_name('pendingFanouts')} (1 region)\n" in planned
    assert (
        "3 family change(s) need HBase's Thrift2 API (Thrift1 cannot alter a table): "
        "set TWITBASE_HBASE_THRIFT2_PORT before --apply\n"
    ) in planned
    with pytest.raises(CommandError, match=r"3 family change\(s\) need .*nothing was changed"):
        createtables("--apply")
    assert snapshot() == before


def test_reset_without_apply_only_says_what_it_would_drop(local_deployment: ServerAddr) -> None:
    before = snapshot()
    planned = createtables("--reset")
    assert f"would drop {table_name('users')}\n" in planned
    assert f"would drop {table_name('legacy')}" not in planned  # not the schema's: kept
    assert f"would create table {table_name('users')} ({REGIONS} regions)\n" in planned
    assert snapshot() == before
    with connection() as conn:
        assert conn.table(table_name("users")).row(b"row-alice") == {b"info:name": b"Alice"}
