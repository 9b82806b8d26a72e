"""``manage.py localhbase`` (devtools' command) serves what ``python -m
localhbase`` serves: both Thrift APIs, on the ports it is given."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import happybase
import pytest

from devtools.processes import PROJECT_ROOT, free_port
from tests.helpers import ServerAddr

pytestmark = pytest.mark.servers


def test_manage_py_localhbase_serves_thrift2_on_the_port_it_is_given(tmp_path: Path) -> None:
    port, thrift2_port, ready = free_port(), free_port(), tmp_path / "ready"
    server = subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "localhbase",
            "--data",
            str(tmp_path / "data"),
            "--port",
            str(port),
            "--thrift2-port",
            str(thrift2_port),
            "--ready-file",
            str(ready),
        ],
        cwd=PROJECT_ROOT,
    )
    try:
        deadline = time.monotonic() + 30
        while not ready.exists():
            assert server.poll() is None and time.monotonic() < deadline, "not ready"
            time.sleep(0.05)
        assert ready.read_text().strip() == f"127.0.0.1:{port} thrift2={thrift2_port}"
        conn = happybase.Connection("127.0.0.1", port)
        conn.create_table("t", {"f": {}})
        conn.close()
        t2 = ServerAddr("local", "127.0.0.1", port, thrift2_port).thrift2()
        try:
            assert [t.qualifier for t in t2.getTableNamesByNamespace("default")] == [b"t"]
        finally:
            t2.close()
    finally:
        server.terminate()
        server.wait(10)
