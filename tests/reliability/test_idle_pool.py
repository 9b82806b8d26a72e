"""The app's connection pool copes with a server that closes idle
connections, as HBase's Thrift server does (the server side:
tests/localhbase/test_idle_connections.py)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_django.fixtures import Settings

from devtools.localhbase_process import LocalHBaseProcess
from storage import connection as storage_connection


@pytest.fixture
def short_idle_server(tmp_path: Path) -> Iterator[LocalHBaseProcess]:
    with LocalHBaseProcess(tmp_path / "data", idle_timeout=0.5) as server:
        yield server


def test_pooled_connections_reopen_after_a_quiet_spell(
    short_idle_server: LocalHBaseProcess, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.TWITBASE_HBASE_HOST = short_idle_server.host
    settings.TWITBASE_HBASE_PORT = short_idle_server.port
    monkeypatch.setattr(storage_connection, "REOPEN_IDLE_SECONDS", 0.25)
    storage_connection.reset_pool()
    try:
        with storage_connection.connection() as conn:
            conn.create_table("t", {"cf": {}})
        time.sleep(1.0)
        with storage_connection.connection() as conn:
            assert conn.tables() == [b"t"]
    finally:
        storage_connection.reset_pool()
