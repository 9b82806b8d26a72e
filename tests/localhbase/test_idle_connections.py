"""Idle connections are closed as HBase's Thrift server closes them (the app's
pool coping: tests/reliability/test_idle_pool.py)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import happybase
import pytest

from devtools.localhbase_process import LocalHBaseProcess


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
