"""Real HBase: its Thrift server killed with -9 and started again on the same
port (HBase itself runs on). As with the local server
(tests/reliability/test_local_server_outage.py): 503s with Retry-After while it
is down, and afterwards not one failed request, though every pooled
connection predates the crash."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_django.fixtures import Settings

from tests.helpers import ServerAddr, register, tables_on
from tests.outage import (
    POOL_SIZE,
    asked_while_down,
    fill_the_pool,
    no_request_fails_after_restart,
    token,
)

pytestmark = pytest.mark.hbase


@pytest.fixture(scope="module")
def own_hbase(real_hbase: ServerAddr, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """A real HBase of this module's own: the session's must not lose its
    Thrift server. (``real_hbase`` only decides whether to skip.)"""
    from devtools.realhbase import RealHBase

    hbase = RealHBase(
        Path(tmp_path_factory.mktemp("thriftrestart")), thrift2=False, region_servers=1
    )
    hbase.start()
    try:
        yield hbase
    finally:
        hbase.stop()


def test_after_the_thrift_server_is_killed_and_restarted_no_request_fails(
    own_hbase: object, settings: Settings
) -> None:
    from devtools.realhbase import RealHBase

    assert isinstance(own_hbase, RealHBase)
    settings.TWITBASE_HBASE_POOL_SIZE = POOL_SIZE
    addr = ServerAddr("hbase", own_hbase.host, own_hbase.thrift_port)
    with tables_on(addr, settings):
        register("alice")
        register("bob")
        headers = {"Authorization": f"Bearer {token('alice')}"}
        fill_the_pool()
        own_hbase.kill_thrift()
        asked_while_down(headers)

        own_hbase.start_thrift()
        no_request_fails_after_restart(headers, "/api/users/bob/twits")
