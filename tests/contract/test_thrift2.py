"""HBase's Thrift2 API (THBaseService) on its own port: the same answers from
the local server and from HBase 2.6.1's own thrift2 server."""

from __future__ import annotations

import uuid
from typing import Any

from hbasethrift.thrift2 import T2
from tests.helpers import ServerAddr


def test_thrift_server_type_is_two(t2: Any) -> None:
    assert t2.getThriftServerType() == T2.TThriftServerType.TWO


def test_cluster_id_matches_the_thrift1_servers(server: ServerAddr, t2: Any) -> None:
    """Both ports front one cluster: one id."""
    from thriftpy2.rpc import make_client

    from localhbase.server import T

    t1 = make_client(T.Hbase, server.host, server.port, timeout=60_000)
    try:
        assert t2.getClusterId() == t1.getClusterId()
    finally:
        t1.close()
    assert str(uuid.UUID(t2.getClusterId())) == t2.getClusterId()
