"""Idle connections are closed as HBase's Thrift server closes them, and the
app's connection pool copes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import happybase
import pytest
from pytest_django.fixtures import Settings

from devtools.localhbase_process import LocalHBaseProcess
from storage import connection as storage_connection


@pytest.fixture
def short_idle_server(tmp_path: Path) -> Iterator[LocalHBaseProcess]:
    with LocalHBaseProcess(tmp_path / "data", idle_timeout=0.5) as server:
        yield server


def test_the_server_closes_an_idle_connection(short_idle_server: LocalHBaseProcess) -> None:
    conn = happybase.Connection(short_idle_server.host, short_idle_server.port)
    assert conn.tables() == []
    time.sleep(1.0)
    with pytest.raises(Exception):  # noqa: B017 (thriftpy2 raises one of several)
        conn.tables()


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
