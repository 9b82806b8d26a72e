"""Run the local HBase server as a child process: for devstack, tests and benchmarks.

The server is a process of its own, as a real HBase is: the web process and
every worker connect to it over Thrift. This module starts one (with
mirakuru, in its own process group), waits until it answers, and stops it.
It can be started again after a crash: it then listens on the port it had,
so clients reconnect, and its log is appended to.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

import happybase
import mirakuru
from mirakuru.exceptions import ProcessFinishedWithError


class ServerStartError(RuntimeError):
    pass


PR_SET_PDEATHSIG = 1


def in_own_group_dying_with_parent() -> None:
    """Run in a child before exec: a process group of its own (as mirakuru
    makes it, so a stop reaches the child's own children), and, on Linux,
    SIGTERM when the parent dies however it dies (kill -9 of devstack, a
    closed terminal), so no orphan keeps the data directory or a port."""
    parent = os.getppid()
    os.setsid()
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before the line above
            os.kill(os.getpid(), signal.SIGTERM)


class DiesWithParent(mirakuru.Executor):
    """A mirakuru executor whose child stops when this process dies."""

    @property
    def _popen_kwargs(self) -> dict[str, Any]:
        kwargs = dict(super()._popen_kwargs)
        kwargs["preexec_fn"] = in_own_group_dying_with_parent
        return kwargs


class _ReadyFile(DiesWithParent):
    """Ready once the server has written host:port to its ready file."""

    def __init__(self, command: list[str], ready: Path, **kwargs: Any) -> None:
        super().__init__(command, **kwargs)
        self.ready = ready

    def pre_start_check(self) -> bool:
        return False

    def after_start_check(self) -> bool:
        return self.ready.exists()


class LocalHBaseProcess:
    """``python -m localhbase`` in a child process.

    ``port=0`` lets the server pick a free port; :attr:`port` tells which,
    and a restart reuses it.
    """

    def __init__(
        self,
        data: Path,
        host: str = "127.0.0.1",
        port: int = 0,
        log_path: Path | None = None,
        idle_timeout: float | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.data = Path(data)
        self.idle_timeout = idle_timeout
        self.host = host
        self.requested_port = port
        self.port = port
        self.log_path = log_path or self.data.parent / (self.data.name + ".log")
        self.env = dict(env or {})
        self.executor: _ReadyFile | None = None
        self.returncode: int | None = None

    @property
    def proc(self) -> subprocess.Popen[Any] | None:
        return self.executor.process if self.executor is not None else None

    @property
    def pid(self) -> int | None:
        proc = self.proc
        return proc.pid if proc is not None else None

    def running(self) -> bool:
        return self.executor is not None and self.executor.running()

    def died(self) -> bool:
        """True once a started server has ended (then :attr:`returncode` says how)."""
        proc = self.proc
        if proc is None or proc.poll() is None:
            return False
        self.returncode = proc.returncode
        return True

    def start(self, timeout: float = 30.0) -> LocalHBaseProcess:
        self.data.parent.mkdir(parents=True, exist_ok=True)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        fd, ready_name = tempfile.mkstemp(prefix="localhbase-", suffix=".ready")
        os.close(fd)
        ready = Path(ready_name)
        ready.unlink()
        project_root = Path(__file__).resolve().parents[1]
        self.returncode = None
        command = [
            sys.executable,
            "-m",
            "localhbase",
            "--data",
            str(self.data),
            "--host",
            self.host,
            "--port",
            # Once it has had a port, it keeps it: clients reconnect after a restart.
            str(self.port or self.requested_port),
            "--ready-file",
            str(ready),
            *(["--idle-timeout", str(self.idle_timeout)] if self.idle_timeout else []),
        ]
        with open(self.log_path, "ab") as log:
            self.executor = _ReadyFile(
                command,
                ready,
                cwd=str(project_root),
                timeout=timeout,
                sleep=0.02,
                envvars={**self.env, "PYTHONPATH": str(project_root)},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            try:
                self.executor.start()
            except mirakuru.ProcessExitedWithError as exc:
                raise ServerStartError(
                    f"local HBase server exited with {exc.exit_code}:\n{self._log_tail()}"
                ) from None
            except mirakuru.TimeoutExpired:
                raise ServerStartError(f"local HBase server not ready in {timeout}s") from None
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
        assert self.executor is not None
        proc = self.executor.process
        self.executor.kill(sig=signal.SIGKILL)
        if proc is not None:
            self.returncode = proc.returncode

    def stop(self, timeout: float = 10.0) -> None:
        if self.executor is None:
            return
        if not self.executor.running():
            self.kill()
            return
        # mirakuru has one timeout for start and stop: the grace period here.
        self.executor._timeout = timeout
        try:
            self.executor.stop()
        except ProcessFinishedWithError as exc:
            self.returncode = exc.exit_code

    def __enter__(self) -> LocalHBaseProcess:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
