"""What ``localhbase/__init__.py`` offers a program that runs a server: in
this process (:class:`localhbase.LocalHBase`), or as a child process
(:func:`localhbase.command` and :func:`localhbase.read_ready`)."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import happybase
import pytest
from thriftpy2.rpc import make_client

import localhbase
from hbasethrift.thrift2 import T2


def test_a_server_in_this_process_serves_both_apis_until_its_block_ends(tmp_path: Path) -> None:
    with localhbase.LocalHBase(tmp_path / "data") as hbase:
        conn = happybase.Connection(hbase.host, hbase.port)
        conn.create_table("t", {"f": {}})
        conn.table("t").put(b"r", {b"f:q": b"v"})
        conn.close()
        assert hbase.thrift2_port is not None
        t2 = make_client(T2.THBaseService, hbase.host, hbase.thrift2_port, timeout=10_000)
        try:
            assert [t.qualifier for t in t2.getTableNamesByNamespace("default")] == [b"t"]
        finally:
            t2.close()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((hbase.host, hbase.port), timeout=5)
    # The block's end closed the store: the directory opens again.
    store = localhbase.Store(tmp_path / "data")
    try:
        assert store.table_names() == [b"t"]
    finally:
        store.close()


def test_the_command_writes_where_it_listens_to_its_ready_file(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    command = localhbase.command(tmp_path / "data", thrift2_port=0, ready_file=ready)
    server = subprocess.Popen(command)
    try:
        deadline = time.monotonic() + 30
        while not ready.exists():
            assert server.poll() is None and time.monotonic() < deadline, "not ready"
            time.sleep(0.05)
        address = localhbase.read_ready(ready)
        assert address.host == "127.0.0.1"
        assert address.port > 0 and address.thrift2_port
        conn = happybase.Connection(address.host, address.port)
        assert conn.tables() == []
        conn.close()
    finally:
        server.terminate()
        server.wait(10)
    assert server.returncode == 0


def test_a_ready_file_names_no_thrift2_port_where_none_is_served(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    localhbase.launch.write_ready(ready, localhbase.Address("::1", 9090, None))
    assert localhbase.read_ready(ready) == ("::1", 9090, None)
