"""devstack's ports: the usual one when free, another (said in one line) when
taken, exactly the one asked for or an error; and --hbase HOST:PORT."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from devtools import devstack
from devtools.devstack import DevStack, parse_hostport
from devtools.processes import free_port


@pytest.fixture
def taken() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def _stack(said: list[str]) -> DevStack:
    ds = DevStack(data=Path("/nonexistent"))
    ds._say = said.append  # type: ignore[method-assign]
    return ds


def test_a_free_default_port_is_used_silently(monkeypatch: pytest.MonkeyPatch) -> None:
    port = free_port()
    monkeypatch.setitem(devstack.DEFAULT_PORTS, "web", port)
    said: list[str] = []
    assert _stack(said)._port("web", "127.0.0.1", None) == port
    assert said == []


def test_a_taken_default_port_is_replaced_in_one_line(
    taken: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(devstack.DEFAULT_PORTS, "Redis", taken)
    said: list[str] = []
    port = _stack(said)._port("Redis", "127.0.0.1", None)
    assert port != taken
    assert said == [f"devstack: the Redis port {taken} is taken; using {port} instead"]


def test_a_port_asked_for_is_that_port_or_an_error(taken: int) -> None:
    said: list[str] = []
    free = free_port()
    assert _stack(said)._port("web", "127.0.0.1", free) == free
    assert _stack(said)._port("web", "127.0.0.1", 0) > 0
    with pytest.raises(RuntimeError, match=f"the web port 127.0.0.1:{taken} you asked for"):
        _stack(said)._port("web", "127.0.0.1", taken)
    assert said == []


def test_hbase_hostport_is_checked() -> None:
    assert parse_hostport("127.0.0.1:9090") == ("127.0.0.1", 9090)
    assert parse_hostport("hbase.example.com:19090") == ("hbase.example.com", 19090)
    assert parse_hostport("[::1]:9090") == ("::1", 9090)
    for bad in ("127.0.0.1", "127.0.0.1:", ":9090", "host:port", "host:70000"):
        with pytest.raises(ValueError, match="is not HOST:PORT"):
            parse_hostport(bad)


def test_devstack_refuses_an_hbase_that_does_not_answer(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))  # bound, not listening: connections are refused
        port = s.getsockname()[1]
        with pytest.raises(
            RuntimeError, match=f"no HBase Thrift server answers at 127.0.0.1:{port}"
        ):
            devstack.check_thrift("127.0.0.1", port)


def test_no_two_parts_are_given_one_port(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing listens on a free port until its part starts, so the kernel may
    hand the same one out twice: it once gave the web server the local HBase
    server's port, and the web server died. Here it always does, at first."""
    offered = iter([free_port()] * 3 + [free_port() for _ in range(50)])
    monkeypatch.setattr(devstack, "free_port", lambda host: next(offered))
    monkeypatch.setattr(devstack, "port_is_free", lambda host, port: True)
    ds = DevStack(data=Path("/nonexistent"), port=0, redis_port=0, hbase_port=0)
    ports = [ds._port("web", ds.host, 0), ds._port("Redis", "127.0.0.1", 0)]
    ports += ds._local_hbase_ports()
    assert len(set(ports)) == 4, ports


def test_a_default_port_given_to_another_part_is_not_taken_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(devstack, "port_is_free", lambda host, port: True)
    said: list[str] = []
    ds = _stack(said)
    assert ds._port("web", "127.0.0.1", 9090) == 9090
    thrift = ds._port("HBase Thrift", "127.0.0.1", None)
    assert thrift != 9090
    assert said == [f"devstack: the HBase Thrift port 9090 is taken; using {thrift} instead"]
    with pytest.raises(RuntimeError, match="Redis port 9090 you asked for is also the web port"):
        ds._port("Redis", "127.0.0.1", 9090)
