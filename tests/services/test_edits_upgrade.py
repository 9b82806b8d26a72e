"""A deployment from before edits: its twits table has no "h" family.
`createtables --apply` adds it (through Thrift2) without touching the twits
already there, and those twits can then be edited with their history kept.
On both servers."""

from __future__ import annotations

import io
import uuid
from collections.abc import Iterator

import pytest
from django.core.management import call_command
from pytest_django.fixtures import Settings

from feeds import services
from feeds.services import twits
from storage.connection import connection, reset_pool, table_name
from storage.schema import SCHEMA
from tests.helpers import ServerAddr, register


@pytest.fixture
def before_edits(server: ServerAddr, settings: Settings) -> Iterator[ServerAddr]:
    settings.TWITBASE_HBASE_HOST = server.host
    settings.TWITBASE_HBASE_PORT = server.port
    settings.TWITBASE_HBASE_THRIFT2_PORT = server.thrift2_port
    settings.TWITBASE_PRESPLIT_REGIONS = 1
    settings.TWITBASE_TABLE_PREFIX = prefix = "ed" + uuid.uuid4().hex[:10]
    reset_pool()
    try:
        with connection() as conn:
            for name, families in SCHEMA.items():
                kept = {f: o for f, o in families.items() if (name, f) != ("twits", "h")}
                conn.create_table(table_name(name), kept)
        yield server
    finally:
        with connection() as conn:
            for name in conn.tables():
                if name.decode().startswith(prefix + "_"):
                    conn.delete_table(name, disable=True)
        reset_pool()


def test_createtables_gives_an_existing_twits_table_its_history(before_edits: ServerAddr) -> None:
    register("alice")
    old = services.post_twit("alice", "posted before edits existed")
    with connection() as conn:
        assert b"h" not in conn.table(table_name("twits")).families()
    out = io.StringIO()
    call_command("createtables", "--apply", stdout=out)
    assert f"added family h to {table_name('twits')}" in out.getvalue()
    with connection() as conn:
        assert conn.table(table_name("twits")).families()[b"h"]["max_versions"] == (
            twits.EDITS_MAX + 1
        )
    twits.edit_twit("alice", old.id, "edited after the upgrade")
    twits.edit_twit("alice", old.id, "and again")
    assert [v.text for v in twits.history(old.id)] == [
        "and again",
        "edited after the upgrade",
        "posted before edits existed",
    ]
