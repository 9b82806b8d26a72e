"""Redis and Celery worker processes, for devstack and the test suite.

Both are real processes, as in production. Redis comes from Debian's
redis-server package; on a machine without it, :func:`redis_server_binary`
installs it with apt-get when it can (root), so the project's own set-up
provides everything it needs.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class ProcessError(RuntimeError):
    pass


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def redis_server_binary() -> str:
    """The redis-server executable; installed from Debian's packages if missing."""
    found = shutil.which("redis-server") or (
        "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None
    )
    if found:
        return found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise ProcessError(
            "redis-server is not installed; install Debian's redis-server package "
            "(apt-get install redis-server) or set CELERY_BROKER_URL to a running Redis"
        )
    print("==> installing redis-server (Debian package)", file=sys.stderr, flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (
        ["apt-get", "update", "-q"],
        ["apt-get", "install", "-y", "-q", "--no-install-recommends", "redis-server"],
    ):
        if subprocess.run(cmd, env=env, check=False).returncode != 0:
            raise ProcessError(f"{' '.join(cmd)} failed")
    return "/usr/bin/redis-server"


def _stop(proc: subprocess.Popen[bytes] | None, timeout: float = 15.0) -> None:
    if proc is None or proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


class RedisProcess:
    """A private redis-server on loopback, persisting nothing (a broker for one run)."""

    def __init__(self, workdir: Path, port: int = 0) -> None:
        self.workdir = Path(workdir)
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = self.workdir / "redis.log"

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 20.0) -> RedisProcess:
        self.workdir.mkdir(parents=True, exist_ok=True)
        binary = redis_server_binary()
        self.proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
                "--logfile",
                str(self.log),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        import redis

        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise ProcessError(f"redis-server exited:\n{_tail(self.log)}")
            try:
                if redis.Redis(port=self.port, socket_timeout=1).ping():
                    return self
            except redis.RedisError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise ProcessError(f"redis-server not answering after {timeout}s")
            time.sleep(0.05)

    def stop(self) -> None:
        _stop(self.proc)

    def __enter__(self) -> RedisProcess:
        return self.start()

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


class CeleryWorkerProcess:
    """``celery -A twitbase worker`` with its own environment (HBase, prefix, broker)."""

    def __init__(
        self,
        env: dict[str, str],
        log: Path,
        concurrency: int = 2,
        name: str = "w1",
        beat: bool = False,
    ) -> None:
        self.env = env
        self.log = Path(log)
        self.concurrency = concurrency
        self.name = name
        self.beat = beat
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60.0) -> CeleryWorkerProcess:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.log.write_text("")
        out = open(self.log, "ab")  # noqa: SIM115 (the child owns it)
        cmd = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "twitbase",
            "worker",
            "--loglevel",
            "INFO",
            "--concurrency",
            str(self.concurrency),
            "--hostname",
            f"{self.name}@%h",
            "--without-gossip",
            "--without-mingle",
        ]
        if self.beat:
            cmd += ["--beat", "--schedule", str(self.log.with_suffix(".beat"))]
        self.proc = subprocess.Popen(
            cmd,
            cwd=PROJECT_ROOT,
            env={**os.environ, **self.env, "PYTHONUNBUFFERED": "1"},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        out.close()
        deadline = time.monotonic() + timeout
        while " ready." not in self.log.read_text(errors="replace"):
            if self.proc.poll() is not None:
                raise ProcessError(f"celery worker exited:\n{_tail(self.log)}")
            if time.monotonic() > deadline:
                self.stop()
                raise ProcessError(f"celery worker not ready after {timeout}s:\n{_tail(self.log)}")
            time.sleep(0.1)
        return self

    def kill(self) -> None:
        """SIGKILL the whole worker (main process and its pool), as a crash would."""
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        _stop(self.proc, timeout=30.0)

    def __enter__(self) -> CeleryWorkerProcess:
        return self.start()

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


class WebServerProcess:
    """``manage.py runserver`` (no reloader) with its own environment; ready
    once /healthz says storage answers (200, or 503 for the broker alone)."""

    def __init__(
        self, env: dict[str, str], log: Path, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        self.env = env
        self.log = Path(log)
        self.host = host
        self.port = port or free_port(host)
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 60.0) -> WebServerProcess:
        import urllib.error
        import urllib.request

        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "manage.py",
                    "runserver",
                    f"{self.host}:{self.port}",
                    "--noreload",
                ],
                cwd=PROJECT_ROOT,
                env={**os.environ, **self.env, "PYTHONUNBUFFERED": "1"},
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ProcessError(f"the web server exited:\n{_tail(self.log)}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=5) as resp:
                    if resp.status == 200:
                        return self
            except urllib.error.HTTPError as exc:
                # 503 with only the broker down: the site serves (posting
                # falls back), so the web server is up.
                if exc.code == 503 and json.loads(exc.read()).get("down") == ["broker"]:
                    return self
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.2)
        self.stop()
        raise ProcessError(f"{self.url}/healthz did not answer in {timeout}s:\n{_tail(self.log)}")

    def stop(self) -> None:
        _stop(self.proc)

    def __enter__(self) -> WebServerProcess:
        return self.start()

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
