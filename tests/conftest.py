"""Servers for the test session: the local HBase server, and real HBase.

Each server starts once per session, on a free loopback port, and stops at the
end; in an xdist run real HBase starts once for all the processes, by the
controller (tests/sharedhbase.py). Tests never share tables: each gets its
own table prefix.

Real HBase needs Java and Maven. Without them it is skipped with the reason,
unless CI=true or TWITBASE_REQUIRE_HBASE=1, where a real HBase that does not
start fails the run instead.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import happybase
import pytest
from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver

from devtools.localhbase_process import LocalHBaseProcess
from devtools.processes import RedisProcess
from feeds.types import User
from tests.browser import chromium, live_server
from tests.helpers import REQUIRE_REAL_HBASE, ServerAddr, register, tables_on
from tests.tablepool import close_pools

if TYPE_CHECKING:
    from devtools.realhbase import RealHBase
    from tests.sharedhbase import SharedHBase


@pytest.fixture(scope="session")
def local_hbase(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerAddr]:
    base = tmp_path_factory.mktemp("localhbase")
    with LocalHBaseProcess(base / "data") as proc:
        try:
            yield ServerAddr("local", proc.host, proc.port, proc.thrift2_port)
        finally:
            close_pools(proc.host, proc.port)


@pytest.fixture(scope="session")
def redis_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisProcess]:
    """A real redis-server for the session: the Celery broker of worker tests."""
    with RedisProcess(tmp_path_factory.mktemp("redis")) as redis:
        yield redis


def _no_real_hbase() -> str | None:
    """Why real HBase cannot run here, or None."""
    missing = [tool for tool in ("java", "mvn") if shutil.which(tool) is None]
    if missing:
        return f"real HBase skipped: {', '.join(missing)} not installed"
    if os.environ.get("TWITBASE_SKIP_HBASE") == "1":
        return "real HBase skipped: TWITBASE_SKIP_HBASE=1"
    return None


_SHARED: pytest.StashKey[SharedHBase] = pytest.StashKey()


# Tests marked `servers` start or need a server or a tree of processes; the
# fast tier (`make test-fast`) runs the rest, in well under a minute. Every
# test of these directories is one; elsewhere (unit/, deploy/) a test is one
# if it asks for a fixture that starts a server, or its module says so with
# `pytestmark = pytest.mark.servers`.
SERVER_DIRS = frozenset(
    {"api", "console", "contract", "localhbase", "reliability", "scaleout", "services", "web",
     "worker"}
)  # fmt: skip
SERVER_FIXTURES = frozenset(
    {"server", "local_hbase", "redis_broker", "real_hbase_cluster", "browser", "deployed"}
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    tests_dir = Path(__file__).resolve().parent
    for item in items:
        where = item.path.resolve().relative_to(tests_dir).parts
        if where[0] in SERVER_DIRS or SERVER_FIXTURES.intersection(
            getattr(item, "fixturenames", ())
        ):
            item.add_marker(pytest.mark.servers)


def pytest_configure(config: pytest.Config) -> None:
    """The xdist controller starts the run's one real HBase (tests/sharedhbase.py)."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    if _no_real_hbase() is not None:
        return
    from tests.sharedhbase import SharedHBase

    shared = SharedHBase(Path(tempfile.mkdtemp(prefix="twitbase-hbase-")))
    shared.start()
    config.stash[_SHARED] = shared


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Each xdist process is told where the shared HBase says it is ready."""
    from tests.sharedhbase import KEY

    shared = node.config.stash.get(_SHARED, None)
    if shared is not None:
        node.workerinput[KEY] = str(shared.workdir)


def pytest_unconfigure(config: pytest.Config) -> None:
    shared = config.stash.get(_SHARED, None)
    if shared is not None:
        shared.finish()
        shutil.rmtree(shared.workdir, ignore_errors=True)


@pytest.fixture(scope="session")
def real_hbase_cluster(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RealHBase]:
    """The session's real HBase: standalone, 3 RegionServers, Thrift1 and
    Thrift2; in an xdist run, the one the controller started for all."""
    reason = _no_real_hbase()
    if reason is not None:
        if REQUIRE_REAL_HBASE:
            pytest.fail(reason + " (CI requires real HBase)")
        pytest.skip(reason)
    from tests.sharedhbase import KEY, attach

    shared = getattr(request.config, "workerinput", {}).get(KEY)
    if shared is not None:
        try:
            hbase = attach(Path(shared))
        except RuntimeError as exc:
            pytest.fail(str(exc))
        try:
            yield hbase
        finally:
            close_pools("127.0.0.1", hbase.thrift_port)
        return
    from devtools.realhbase import RealHBase, fetch

    fetch()
    hbase = RealHBase(tmp_path_factory.mktemp("realhbase"))
    hbase.start()
    try:
        yield hbase
    finally:
        close_pools("127.0.0.1", hbase.thrift_port)
        hbase.stop()


@pytest.fixture(scope="session")
def real_hbase(real_hbase_cluster: RealHBase) -> ServerAddr:
    hbase = real_hbase_cluster
    return ServerAddr("hbase", "127.0.0.1", hbase.thrift_port, hbase.thrift2_port)


@pytest.fixture(params=["local", "hbase"])
def server(request: pytest.FixtureRequest) -> ServerAddr:
    """Each contract test runs once per server, asserting the same results."""
    name = "local_hbase" if request.param == "local" else "real_hbase"
    addr: ServerAddr = request.getfixturevalue(name)
    return addr


@contextmanager
def _own_tables(server: ServerAddr) -> Iterator[happybase.Connection]:
    """A connection whose tables are the test's alone (a unique table
    prefix), dropped after it."""
    prefix = "t" + uuid.uuid4().hex[:10]
    connection = server.connect(table_prefix=prefix)
    try:
        yield connection
    finally:
        for name in connection.tables():
            connection.delete_table(name, disable=True)
        connection.close()


@pytest.fixture
def conn(server: ServerAddr) -> Iterator[happybase.Connection]:
    """A connection whose tables are this test's alone, on each server in turn."""
    with _own_tables(server) as connection:
        yield connection


@pytest.fixture
def local_conn(local_hbase: ServerAddr) -> Iterator[happybase.Connection]:
    """:func:`conn` on the local server only."""
    with _own_tables(local_hbase) as connection:
        yield connection


@pytest.fixture
def twitbase(
    server: ServerAddr, settings: Settings, request: pytest.FixtureRequest
) -> Iterator[ServerAddr]:
    """Settings pointed at ``server`` (each server in turn) with fresh tables."""
    fresh = request.node.get_closest_marker("fresh_tables") is not None
    with tables_on(server, settings, fresh) as addr:
        yield addr


@pytest.fixture
def local_twitbase(
    local_hbase: ServerAddr, settings: Settings, request: pytest.FixtureRequest
) -> Iterator[ServerAddr]:
    """Fresh tables on the local server only: for web, API and worker tests,
    whose storage behaviour the service and contract suites already hold."""
    fresh = request.node.get_closest_marker("fresh_tables") is not None
    with tables_on(local_hbase, settings, fresh) as addr:
        yield addr


@pytest.fixture
def web(local_twitbase: ServerAddr, settings: Settings) -> ServerAddr:
    """Fresh tables on the local server, and a rate limit no test reaches by
    accident: for the pages of the web UI and of the staff console. The
    trending box is read for each page, as the test has just written it (its
    caching is tests/services/test_tags.py's)."""
    settings.TWITBASE_POSTS_PER_MINUTE = 1000
    settings.TWITBASE_TRENDING_CACHE_S = 0
    return local_twitbase


@pytest.fixture
def live_url(
    local_twitbase: ServerAddr, redis_broker: RedisProcess, settings: Settings, tmp_path: Path
) -> Iterator[str]:
    """The base URL of ``manage.py runserver`` serving this test's tables, with a
    real Celery worker (and the session's Redis) doing the fan-out."""
    # Browser tests post a page's worth of twits in a few seconds, here too.
    settings.TWITBASE_POSTS_PER_MINUTE = 1000
    with live_server(redis_broker, tmp_path) as url:
        yield url


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[WebDriver]:
    """Headless Chromium (skipped where it is not installed, except in CI)."""
    with chromium(tmp_path) as driver:
        yield driver


@pytest.fixture
def tables(twitbase: ServerAddr) -> ServerAddr:
    """The tables the named users below are registered in: each server in
    turn here; suites that run on the local server only override this."""
    return twitbase


@pytest.fixture
def alice(tables: ServerAddr) -> User:
    return register("alice")


@pytest.fixture
def bob(tables: ServerAddr) -> User:
    return register("bob")


@pytest.fixture
def charlie(tables: ServerAddr) -> User:
    return register("charlie")
