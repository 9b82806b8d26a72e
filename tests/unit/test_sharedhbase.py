"""The one real HBase of an xdist run (tests/sharedhbase.py): what a test
process makes of the controller's files."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.sharedhbase import FAILED, attach, write_ready

DESCRIBED = {
    "host": "127.0.0.1",
    "ports": {"zookeeper": 2181, "master": 16000, "regionserver": 16020, "thrift": 9090},
    "thrift": 9090,
    "thrift2": 9095,
}


def test_a_process_waits_for_the_hbase_and_gets_its_ports(tmp_path: Path) -> None:
    def ready_later() -> None:
        time.sleep(0.3)
        write_ready(tmp_path, DESCRIBED)

    threading.Thread(target=ready_later).start()
    hbase = attach(tmp_path, timeout=10)
    assert (hbase.host, hbase.thrift_port, hbase.thrift2_port) == ("127.0.0.1", 9090, 9095)
    assert hbase.ports["zookeeper"] == 2181  # what devtools.regions asks for
    assert hbase.workdir == (tmp_path / "hbase").resolve()
    hbase.stop()  # owns no JVM: nothing to stop, and no error


def test_a_failed_start_fails_each_process_with_its_reason(tmp_path: Path) -> None:
    (tmp_path / FAILED).write_text("RealHBaseError: master JVM exited with code 1")
    with pytest.raises(RuntimeError, match="master JVM exited with code 1"):
        attach(tmp_path, timeout=10)


def test_an_hbase_never_ready_fails_after_the_timeout(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="not ready after"):
        attach(tmp_path, timeout=0.3)
    assert time.monotonic() - started < 5
