"""Redis, Celery worker and web server processes, for devstack and the test suite.

Each is a real process, as in production, started and stopped by mirakuru
(an executor library made for this: it starts a command in its own process
group, waits until a readiness check passes or the command fails, and stops
the whole group, SIGKILL after a grace period). This module adds what is
ours: the commands, where each writes its log (appended, never truncated, so
a crash's evidence survives the restart), and what "ready" means for each.

Every process can be started again after it died or was stopped; Redis and
the web server come back on the same port, so clients reconnect. On Linux
each is also told to stop when the process that started it dies, however it
dies, so no orphan holds a port or the data directory.

Redis comes from Debian's redis-server package; on a machine without it,
:func:`redis_server_binary` installs it with apt-get when it can (root), so the
project's own set-up provides everything it needs.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import mirakuru
import psutil
from mirakuru import base as mirakuru_base
from mirakuru.exceptions import ProcessFinishedWithError

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def kill_our_leftovers() -> None:
    """At exit, SIGKILL what this process's executors started and left
    running: the processes whose ``mirakuru_uuid`` starts with its pid.

    mirakuru's own exit hook, which this replaces, kills every process whose
    ``mirakuru_uuid`` *contains* the exiting process's pid (its
    ``processes_with_env`` matches a substring), and a uuid is
    ``"<pid>:<uuid4>"``. So any short-lived Python process that imports
    mirakuru (a ``manage.py`` command, devstack) and whose pid happens to
    appear in another executor's uuid, its digits or its pid part, killed that
    other process as it exited. It took the test session's own local HBase
    server twice, with no trace in its log (tests/unit/test_processes.py
    makes it happen on purpose)."""
    mine = f"{os.getpid()}:"
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error, OSError):
            if proc.environ().get(mirakuru_base.ENV_UUID, "").startswith(mine):
                os.kill(proc.pid, signal.SIGKILL)


atexit.unregister(mirakuru_base.cleanup_subprocesses)
atexit.register(kill_our_leftovers)


class ProcessError(RuntimeError):
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


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def redis_server_binary() -> str:
    """The redis-server executable (Debian's redis-server package).

    Installing it is the job of the project's set-up (`make run`, `make
    test`), never of code that runs the app.
    """
    found = shutil.which("redis-server") or (
        "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None
    )
    if found:
        return found
    raise ProcessError(
        "redis-server is not installed: `make run` installs it (Debian's redis-server "
        "package), or set CELERY_BROKER_URL to a running Redis"
    )


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def describe_exit(returncode: int | None) -> str:
    """``killed by SIGKILL``, ``exited with status 1``: why a process ended."""
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exited with status {returncode}"


class _Executor(DiesWithParent):
    """mirakuru's executor, ready when the owner's check says so."""

    def __init__(self, owner: ChildProcess, **kwargs: Any) -> None:
        super().__init__(owner.command(), **kwargs)
        self.owner = owner

    def pre_start_check(self) -> bool:
        return False  # our ports are our own: nothing else answers on them

    def after_start_check(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:  # exited with 0 before it was ready
            raise mirakuru.ProcessExitedWithError(self, self.process.returncode)
        return self.owner.ready()


class ChildProcess:
    """A supervised child: start (and wait until ready), stop, kill, start again.

    Output goes to :attr:`log`, appended across restarts. Subclasses give the
    command, the environment and the readiness check.
    """

    what = "process"
    start_error: type[ProcessError] = ProcessError
    stop_timeout = 15.0
    poll_interval = 0.05  # seconds between readiness checks

    def __init__(self, log: Path, env: dict[str, str] | None = None) -> None:
        self.log = Path(log)
        self.env = dict(env or {})
        self.executor: _Executor | None = None
        self.returncode: int | None = None  # of the last run, once it ended

    def command(self) -> list[str]:
        raise NotImplementedError

    def ready(self) -> bool:
        raise NotImplementedError

    def before_start(self) -> None:
        """Called before each start (first or restart)."""

    @property
    def proc(self) -> subprocess.Popen[Any] | None:
        return self.executor.process if self.executor is not None else None

    @property
    def pid(self) -> int | None:
        proc = self.proc
        return proc.pid if proc is not None else None

    def running(self) -> bool:
        return self.executor is not None and self.executor.running()

    def start(self, timeout: float = 60.0) -> Self:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.before_start()
        self.returncode = None
        with self.log.open("ab") as out:
            self.executor = _Executor(
                self,
                cwd=str(PROJECT_ROOT),
                timeout=timeout,
                sleep=self.poll_interval,
                envvars={**self.env, "PYTHONUNBUFFERED": "1"},
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
            try:
                self.executor.start()
            except mirakuru.TimeoutExpired:
                raise self.start_error(
                    f"{self.what} not ready after {timeout}s:\n{_tail(self.log)}"
                ) from None
            except mirakuru.ProcessExitedWithError as exc:
                raise self.start_error(
                    f"{self.what} exited with {exc.exit_code}:\n{_tail(self.log)}"
                ) from None
        return self

    def died(self) -> bool:
        """True once a started process has ended (then :attr:`returncode` says how)."""
        proc = self.proc
        if proc is None or proc.poll() is None:
            return False
        self.returncode = proc.returncode
        return True

    def kill(self) -> None:
        """SIGKILL the whole process group (and strays), as a crash would."""
        if self.executor is not None:
            proc = self.executor.process
            self.executor.kill(sig=signal.SIGKILL)
            if proc is not None:
                self.returncode = proc.returncode

    def stop(self, timeout: float | None = None) -> None:
        """SIGTERM, then SIGKILL after ``timeout`` (default :attr:`stop_timeout`);
        no-op when not running."""
        if self.executor is None:
            return
        if not self.executor.running():
            self.kill()  # dead already: only leftovers of its group to clean
            return
        # mirakuru has one timeout for start and stop: the grace period here.
        self.executor._timeout = self.stop_timeout if timeout is None else timeout
        try:
            self.executor.stop()
        except ProcessFinishedWithError as exc:
            self.returncode = exc.exit_code

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


class RedisProcess(ChildProcess):
    """A private redis-server on loopback, with append-only persistence in ``workdir``.

    ``appendfsync everysec``: Redis write()s each command to the append-only
    file before it replies (unless a disk too slow to finish the previous
    fsync makes it hold writes back, at most 2 s), so a kill -9 of Redis
    alone loses nothing it acknowledged (the kernel holds the data); a crash
    of the machine can lose the last second or two. ``always`` would fsync every publish
    and ack of every task, for a guarantee against power loss that a
    development stack does not need (and pending fan-outs are swept again).
    """

    what = "redis-server"

    def __init__(
        self,
        workdir: Path,
        port: int = 0,
        persist: bool = True,
        env: dict[str, str] | None = None,
    ) -> None:
        self.workdir = Path(workdir)
        super().__init__(self.workdir / "redis.log", env)
        self.port = port or free_port()
        self.persist = persist

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def before_start(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)

    def command(self) -> list[str]:
        persistence = ["--appendonly", "yes", "--appendfsync", "everysec"]
        return [
            redis_server_binary(),
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            *(persistence if self.persist else ["--appendonly", "no"]),
            "--dir",
            str(self.workdir),
            "--logfile",
            str(self.log),
        ]

    def ready(self) -> bool:
        import redis

        try:
            # Also false while Redis is still loading its append-only file.
            return bool(redis.Redis(port=self.port, socket_timeout=1).ping())
        except redis.RedisError:
            return False


class CeleryWorkerProcess(ChildProcess):
    """``celery -A twitbase worker`` with its own environment (HBase, prefix, broker)."""

    what = "celery worker"
    stop_timeout = 30.0
    poll_interval = 0.2  # each check is a ping over the broker

    def __init__(
        self,
        env: dict[str, str],
        log: Path,
        concurrency: int = 2,
        name: str = "w1",
        beat: bool = False,
    ) -> None:
        super().__init__(log, env)
        self.concurrency = concurrency
        self.name = name
        self.beat = beat
        self.hostname = f"{name}@{socket.gethostname()}"

    def command(self) -> list[str]:
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
            self.hostname,
            "--without-gossip",
            "--without-mingle",
        ]
        if self.beat:
            cmd += ["--beat", "--schedule", str(self.log.with_suffix(".beat"))]
        return cmd

    def ready(self) -> bool:
        """Whether the worker answers a ping over its broker: ready to take
        tasks, whatever its log shows. (Its " ready." line is INFO, which
        Django's LOGGING drops under TWITBASE_LOG_LEVEL=WARNING, as the
        benchmarks run it.)"""
        from celery import Celery
        from django.conf import settings
        from kombu.exceptions import OperationalError

        broker = self.env.get("CELERY_BROKER_URL") or settings.CELERY_BROKER_URL
        app = Celery("ping", broker=broker, set_as_current=False)
        try:
            with app.connection_for_write() as conn:
                replies = app.control.ping(
                    destination=[self.hostname], timeout=0.5, connection=conn
                )
        except (OSError, OperationalError):
            return False  # the broker is not up yet, or not at all
        finally:
            app.close()
        return bool(replies)


class WebServerProcess(ChildProcess):
    """``manage.py runserver`` (no reloader) with its own environment; ready
    once /healthz answers (200, or 503 while HBase is down: it is serving)."""

    what = "web server"

    def __init__(
        self, env: dict[str, str], log: Path, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        super().__init__(log, env)
        self.host = host
        self.port = port or free_port(host)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def command(self) -> list[str]:
        return [sys.executable, "manage.py", "runserver", f"{self.host}:{self.port}", "--noreload"]

    def ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=5):
                return True
        except urllib.error.HTTPError as exc:
            return exc.code == 503
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False


class GunicornProcess(WebServerProcess):
    """The web server as deployed (docker-compose.yml's ``web``): gunicorn
    with the project's settings module and ``workers`` processes."""

    what = "gunicorn"

    def __init__(
        self,
        env: dict[str, str],
        log: Path,
        host: str = "127.0.0.1",
        port: int = 0,
        workers: int = 2,
    ) -> None:
        super().__init__(env, log, host, port)
        self.workers = workers

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "gunicorn",
            "-c",
            "python:twitbase.gunicorn_conf",
            "twitbase.wsgi",
            "--bind",
            f"{self.host}:{self.port}",
            "--workers",
            str(self.workers),
        ]
