"""Real HBase: its Thrift server killed with -9 and started again on the same
port (HBase itself runs on). As with the local server
(tests/localhbase/test_outage_recovery.py): 503s with Retry-After while it
is down, and afterwards not one failed request, though every pooled
connection predates the crash."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.http import HttpResponse
from django.test import Client
from pytest_django.fixtures import Settings

from feeds import services
from tests.helpers import ServerAddr, register, tables_on
from tests.localhbase.test_outage_recovery import POOL_SIZE, concurrently, fill_the_pool, token

pytestmark = pytest.mark.hbase


@pytest.fixture(scope="module")
def own_hbase(real_hbase: ServerAddr, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """A real HBase of this module's own: the session's must not lose its
    Thrift server. (``real_hbase`` only decides whether to skip.)"""
    from devtools.realhbase import RealHBase

    hbase = RealHBase(Path(tmp_path_factory.mktemp("thriftrestart")))
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
        during = Client().get("/api/users/alice", headers=headers)
        assert during.status_code == 503
        assert int(during["Retry-After"]) > 0
        assert Client().get("/u/alice").status_code == 503

        own_hbase.start_thrift()
        calls: list[Callable[[], HttpResponse]] = []
        for i in range(POOL_SIZE * 3):
            calls += [
                lambda: Client().get("/api/users/bob/twits", headers=headers),
                lambda i=i: Client().post(  # type: ignore[misc]
                    "/api/twits",
                    {"text": f"after the restart {i}"},
                    content_type="application/json",
                    headers=headers,
                ),
                lambda: Client().get("/u/bob"),
            ]
        responses = concurrently(calls)
        assert [r.status_code for r in responses] == [200, 201, 200] * POOL_SIZE * 3
        assert services.get_user("alice").twits == POOL_SIZE * 3
