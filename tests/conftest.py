"""Servers for the test session: the local HBase server, and real HBase.

Each server starts once per session, on a free loopback port, and stops at the
end. Tests never share tables: each gets its own table prefix.

Real HBase needs Java and Maven. Without them it is skipped with the reason,
unless CI=true or TWITBASE_REQUIRE_HBASE=1, where a real HBase that does not
start fails the run instead.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import happybase
import pytest

from storage.localhbase.process import LocalHBaseProcess

REQUIRE_REAL_HBASE = (
    os.environ.get("CI", "").lower() == "true" or os.environ.get("TWITBASE_REQUIRE_HBASE") == "1"
)


@dataclass(frozen=True)
class ServerAddr:
    kind: str  # "local" or "hbase"
    host: str
    port: int

    def connect(self, **kwargs: object) -> happybase.Connection:
        return happybase.Connection(self.host, self.port, **kwargs)


@pytest.fixture(scope="session")
def local_hbase(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerAddr]:
    base = tmp_path_factory.mktemp("localhbase")
    with LocalHBaseProcess(base / "data") as proc:
        yield ServerAddr("local", proc.host, proc.port)


@pytest.fixture(scope="session")
def real_hbase(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerAddr]:
    missing = [tool for tool in ("java", "mvn") if shutil.which(tool) is None]
    if missing or os.environ.get("TWITBASE_SKIP_HBASE") == "1":
        reason = (
            f"real HBase skipped: {', '.join(missing)} not installed"
            if missing
            else "real HBase skipped: TWITBASE_SKIP_HBASE=1"
        )
        if REQUIRE_REAL_HBASE:
            pytest.fail(reason + " (CI requires real HBase)")
        pytest.skip(reason)
    from storage.realhbase import RealHBase, fetch

    fetch()
    hbase = RealHBase(tmp_path_factory.mktemp("realhbase"))
    hbase.start()
    try:
        yield ServerAddr("hbase", "127.0.0.1", hbase.thrift_port)
    finally:
        hbase.stop()


@pytest.fixture(params=["local", "hbase"])
def server(request: pytest.FixtureRequest) -> ServerAddr:
    """Each contract test runs once per server, asserting the same results."""
    name = "local_hbase" if request.param == "local" else "real_hbase"
    addr: ServerAddr = request.getfixturevalue(name)
    return addr


@pytest.fixture
def conn(server: ServerAddr) -> Iterator[happybase.Connection]:
    """A connection whose tables are this test's alone (a unique table prefix)."""
    prefix = "t" + uuid.uuid4().hex[:10]
    connection = server.connect(table_prefix=prefix)
    try:
        yield connection
    finally:
        for name in connection.tables():
            connection.delete_table(name, disable=True)
        connection.close()
