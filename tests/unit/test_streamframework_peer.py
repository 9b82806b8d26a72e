"""The Stream-Framework peer of the home page bench (bench/streamframework.py)
cleans up after itself: the Redis server it starts is stopped however its
peer process fares."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import pytest

from bench import streamframework
from bench.streamframework import StreamFramework

pytestmark = pytest.mark.servers  # a real redis-server


def test_a_peer_that_cannot_start_leaves_no_redis_server_behind(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Its environment's interpreter gone: the peer process cannot start,
    # after the Redis server has.
    monkeypatch.setattr(streamframework, "environment", lambda: tmp_path / "no-python")
    peer = StreamFramework()
    redis, pids = peer._redis, []
    start = redis.start

    def started(*args: Any, **kwargs: Any) -> Any:
        answer = start(*args, **kwargs)
        pids.append(redis.pid)
        return answer

    monkeypatch.setattr(redis, "start", started)
    with pytest.raises(FileNotFoundError), peer:
        pass
    assert pids and pids[0] is not None  # the server was started,
    with pytest.raises(ProcessLookupError):  # and is gone,
        os.kill(pids[0], 0)
    with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.1", redis.port)):
        pass
    assert not Path(peer._tmp.name).exists()  # with its directory
