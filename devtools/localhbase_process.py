"""Run the local HBase server as a child process: for devstack, tests and benchmarks.

The server is a process of its own, as a real HBase is: the web process and
every worker connect to it over Thrift. This module starts one (with
mirakuru, in its own process group), waits until it answers, and stops it.
It can be started again after a crash: it then listens on the port it had,
so clients reconnect, and its log is appended to.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Self

import happybase

import localhbase
from devtools.processes import PROJECT_ROOT, ChildProcess, ProcessError


class ServerStartError(ProcessError):
    pass


class LocalHBaseProcess(ChildProcess):
    """``python -m localhbase`` in a child process.

    ``port=0`` lets the server pick a free port; :attr:`port` tells which,
    and a restart reuses it. The same goes for HBase's Thrift2 API, always
    served, on :attr:`thrift2_port`. It is ready once it has written
    host:port to its ready file.
    """

    what = "local HBase server"
    start_error = ServerStartError
    stop_timeout = 10.0
    poll_interval = 0.02

    def __init__(
        self,
        data: Path,
        host: str = "127.0.0.1",
        port: int = 0,
        log_path: Path | None = None,
        idle_timeout: float | None = None,
        env: dict[str, str] | None = None,
        thrift2_port: int = 0,
    ) -> None:
        self.data = Path(data)
        self.log_path = log_path or self.data.parent / (self.data.name + ".log")
        super().__init__(self.log_path, {**(env or {}), "PYTHONPATH": str(PROJECT_ROOT)})
        self.idle_timeout = idle_timeout
        self.host = host
        self.requested_port = port
        self.port = port
        self.requested_thrift2_port = thrift2_port
        self.thrift2_port = thrift2_port
        self._ready_file = Path()

    def before_start(self) -> None:
        self.data.parent.mkdir(parents=True, exist_ok=True)
        fd, ready_name = tempfile.mkstemp(prefix="localhbase-", suffix=".ready")
        os.close(fd)
        self._ready_file = Path(ready_name)
        self._ready_file.unlink()

    def command(self) -> list[str]:
        # Once it has had a port, it keeps it: clients reconnect after a restart.
        return localhbase.command(
            self.data,
            host=self.host,
            port=self.port or self.requested_port,
            thrift2_port=self.thrift2_port or self.requested_thrift2_port,
            ready_file=self._ready_file,
            idle_timeout=self.idle_timeout or None,
        )

    def ready(self) -> bool:
        return self._ready_file.exists()

    def start(self, timeout: float = 30.0) -> Self:
        super().start(timeout)
        address = localhbase.read_ready(self._ready_file)
        self.port = address.port
        assert address.thrift2_port is not None  # always asked for
        self.thrift2_port = address.thrift2_port
        self._ready_file.unlink()
        conn = happybase.Connection(self.host, self.port)
        conn.tables()
        conn.close()
        return self
