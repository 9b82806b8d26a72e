"""Run the local HBase server as a child process: for devstack, tests and benchmarks.

The server is a process of its own, as a real HBase is: the web process and
every worker connect to it over Thrift. This module starts one, waits until it
answers, and stops it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

import happybase


class ServerStartError(RuntimeError):
    pass


class LocalHBaseProcess:
    """``python -m storage.localhbase`` in a child process.

    ``port=0`` lets the server pick a free port; :attr:`port` tells which.
    """

    def __init__(
        self,
        data: Path,
        host: str = "127.0.0.1",
        port: int = 0,
        log_path: Path | None = None,
        idle_timeout: float | None = None,
    ) -> None:
        self.data = Path(data)
        self.idle_timeout = idle_timeout
        self.host = host
        self.requested_port = port
        self.port = port
        self.log_path = log_path or self.data.parent / (self.data.name + ".log")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 30.0) -> LocalHBaseProcess:
        self.data.parent.mkdir(parents=True, exist_ok=True)
        fd, ready_name = tempfile.mkstemp(prefix="localhbase-", suffix=".ready")
        os.close(fd)
        ready = Path(ready_name)
        ready.unlink()
        project_root = Path(__file__).resolve().parents[2]
        env = {**os.environ, "PYTHONPATH": str(project_root)}
        log = open(self.log_path, "ab")  # noqa: SIM115 (the child owns it)
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "storage.localhbase",
                "--data",
                str(self.data),
                "--host",
                self.host,
                "--port",
                str(self.requested_port),
                "--ready-file",
                str(ready),
                *(["--idle-timeout", str(self.idle_timeout)] if self.idle_timeout else []),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=project_root,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while not ready.exists():
            if self.proc.poll() is not None:
                raise ServerStartError(
                    f"local HBase server exited with {self.proc.returncode}:\n{self._log_tail()}"
                )
            if time.monotonic() > deadline:
                self.stop()
                raise ServerStartError(f"local HBase server not ready in {timeout}s")
            time.sleep(0.02)
        self.port = int(ready.read_text().strip().rsplit(":", 1)[1])
        ready.unlink()
        conn = happybase.Connection(self.host, self.port)
        conn.tables()
        conn.close()
        return self

    def _log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def kill(self) -> None:
        """SIGKILL, as a crash would: nothing is flushed or closed."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self) -> LocalHBaseProcess:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
