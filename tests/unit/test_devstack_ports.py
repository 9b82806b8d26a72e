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
