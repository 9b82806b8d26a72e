"""Run every part of TwitBase on one machine as child processes, keep them
running, and stop them together.

Each part is a real process, as in production: the local HBase server owns
the data directory; Redis is the Celery broker (with append-only persistence
in the data directory, so queued tasks survive its restart); a Celery worker
(with beat, for the pending fan-out sweep) and the web server connect to both
like any other client would. Parts start in order, each waiting until the
previous one answers. Every child gets TWITBASE_DATA_DIR (the --data
directory) in its environment.

Ports: HBase's usual 9090, Redis' 6379 and the web's 8000 when they are
free, others (said in one line each) when not. Once everything is up, the
ports go to ``ports.json`` in the data directory (twitbase/portsfile.py),
removed on stop, so that ``manage.py`` commands in another terminal find the
stack with nothing exported. With ``hbase=(host, port)`` no local HBase
server is started: the stack runs against that Thrift server.

Supervision: a part that dies is started again, on the same port, after a
delay that doubles (up to MAX_BACKOFF_S) while it keeps dying soon after each
start; one line says which part died and why, and one when it is back. The
other parts keep running meanwhile: clients reconnect. Logs are appended to,
so the evidence of a crash survives the restart. Ctrl-C (or SIGTERM, or
SIGHUP from a closed terminal) stops everything in reverse order; if
devstack itself is killed, each part is sent SIGTERM by the kernel
(devtools/processes.py), so none is left running.

Starting a process and waiting until it is ready is mirakuru's job (see
devtools/processes.py). The loop that watches and restarts is written here
by hand, in a few lines: mirakuru does not supervise, and the supervisors
that do (supervisord, circus) are daemons of their own driven by config
files; they cannot start parts in order, each after the previous answers,
hand on the ports chosen at start, or stop in reverse order on Ctrl-C
without a second layer of scripting around them.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import happybase

from devtools.localhbase_process import LocalHBaseProcess
from devtools.processes import (
    CeleryWorkerProcess,
    RedisProcess,
    WebServerProcess,
    describe_exit,
    free_port,
)
from twitbase import portsfile

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# A part that stayed up this long is healthy again: its next restart waits
# only the first delay.
STABLE_S = 30.0
MAX_BACKOFF_S = 30.0
POLL_S = 0.2


class Supervised(Protocol):
    returncode: int | None

    def start(self, timeout: float = ...) -> object: ...
    def stop(self) -> None: ...
    def kill(self) -> None: ...
    def died(self) -> bool: ...


@dataclass
class Part:
    name: str
    where: str
    process: Supervised
    delay: float = 0.0  # the wait before the pending (or the last) restart
    restarts: int = 0
    up_since: float = field(default_factory=time.monotonic)
    down_since: float | None = None
    due: float | None = None  # when the next restart is tried; None while up


# The ports each part listens on when nobody says otherwise and they are
# free: HBase's usual Thrift port, Redis' and runserver's.
DEFAULT_PORTS = {"HBase Thrift": 9090, "HBase Thrift2": 9091, "Redis": 6379, "web": 8000}


def port_is_free(host: str, port: int) -> bool:
    """Whether a server could listen on ``host:port`` now (SO_REUSEADDR, as
    the servers set it, so a port in TIME_WAIT after a restart counts as free)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def parse_hostport(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:9090`` for IPv6) as a pair; ValueError says what is wrong."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"{text!r} is not HOST:PORT (e.g. 127.0.0.1:9090)")
    return host, int(port)


def check_thrift(host: str, port: int) -> None:
    """Raise RuntimeError (one line) unless an HBase Thrift server answers at host:port."""
    try:
        conn = happybase.Connection(host, port, timeout=10_000)
        try:
            conn.tables()
        finally:
            conn.close()
    except Exception as exc:
        # thriftpy2's exceptions print as their repr; their message is the readable part.
        why = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        raise RuntimeError(
            f"no HBase Thrift server answers at {host}:{port} (--hbase): {why}"
        ) from None


@dataclass
class DevStack:
    """``port``, ``hbase_port``, ``redis_port``: None takes the default port
    if free (else a free one, saying so), 0 a free one, a number that port.
    ``hbase``: an existing Thrift server (host, port) to use instead of
    starting the local HBase server."""

    data: Path
    host: str = "127.0.0.1"
    port: int | None = None
    hbase_port: int | None = None
    redis_port: int | None = None
    hbase: tuple[str, int] | None = None
    backoff: float = 1.0  # seconds before the first restart of a part that died
    parts: list[Part] = field(default_factory=list)
    ports_file: Path | None = None
    external: list[tuple[str, str]] = field(default_factory=list)
    up: bool = False  # every part started
    stopping: bool = False  # a signal asked the stack to stop
    chosen: dict[int, str] = field(default_factory=dict)  # port -> the part given it

    def _say(self, text: str) -> None:
        print(text, flush=True)

    def _add(self, name: str, where: str, process: Supervised) -> None:
        self.parts.append(Part(name, where, process))

    def _port(self, what: str, host: str, wanted: int | None) -> int:
        """The port ``what`` listens on: see the class docstring. No two
        parts get one port, since nothing listens on a port until its part
        starts: two asks for a free port were once given the same one (the
        web server and the local HBase server), and the web server died."""
        if wanted:
            if wanted in self.chosen:
                raise RuntimeError(
                    f"the {what} port {wanted} you asked for is also the {self.chosen[wanted]} port"
                )
            if not port_is_free(host, wanted):
                raise RuntimeError(f"the {what} port {host}:{wanted} you asked for is taken")
            port = wanted
        elif wanted == 0:
            port = self._free_port(host)
        elif DEFAULT_PORTS[what] not in self.chosen and port_is_free(host, DEFAULT_PORTS[what]):
            port = DEFAULT_PORTS[what]
        else:
            port = self._free_port(host)
            self._say(
                f"devstack: the {what} port {DEFAULT_PORTS[what]} is taken; using {port} instead"
            )
        self.chosen[port] = what
        return port

    def _free_port(self, host: str) -> int:
        """A free port no other part of this stack was given."""
        while (port := free_port(host)) in self.chosen:
            pass
        return port

    def _local_hbase_ports(self) -> tuple[int, int]:
        """The local HBase server's Thrift and Thrift2 ports. Thrift2 rides
        along: a free port when Thrift's was asked free, since two devstacks
        side by side on ``--hbase-port 0`` both found 9091 free and one died."""
        thrift = self._port("HBase Thrift", "127.0.0.1", self.hbase_port)
        thrift2 = self._port("HBase Thrift2", "127.0.0.1", 0 if self.hbase_port == 0 else None)
        return thrift, thrift2

    def start(self) -> None:
        self.data.mkdir(parents=True, exist_ok=True)
        running = portsfile.read(self.data)
        if running is not None:
            raise RuntimeError(
                f"a devstack (pid {running.pid}) is already running on {self.data}: "
                f"web {running.web_url}"
            )
        logs = self.data / "logs"
        logs.mkdir(exist_ok=True)
        common = {"TWITBASE_DATA_DIR": str(self.data)}
        # All ports are settled first, so the "taken" lines come together.
        web_port = self._port("web", self.host, self.port)
        redis_port = self._port("Redis", "127.0.0.1", self.redis_port)
        if self.hbase is None:
            hbase_port, thrift2_port = self._local_hbase_ports()
            self._say(f"devstack: starting the local HBase server (data in {self.data / 'hbase'})")
            local = LocalHBaseProcess(
                self.data / "hbase",
                port=hbase_port,
                log_path=logs / "localhbase.log",
                env=common,
                thrift2_port=thrift2_port,
            ).start()
            self._add(
                "local HBase server",
                f"thrift://{local.host}:{local.port}, Thrift2 on port {local.thrift2_port}  "
                f"log {logs / 'localhbase.log'}",
                local,
            )
            hbase_host, hbase_port = local.host, local.port
            common["TWITBASE_HBASE_THRIFT2_PORT"] = str(local.thrift2_port)
        else:
            hbase_host, hbase_port = self.hbase
            self._say(f"devstack: using the HBase Thrift server at {hbase_host}:{hbase_port}")
            check_thrift(hbase_host, hbase_port)
            self.external.append(
                ("HBase (yours)", f"thrift://{hbase_host}:{hbase_port}  not started here")
            )
        self._say("devstack: starting Redis (the Celery broker, append-only file in the data)")
        redis = RedisProcess(self.data / "redis", port=redis_port, env=common).start()
        self._add("Redis broker", f"{redis.url}  log {redis.log}", redis)
        env = {
            **common,
            "TWITBASE_HBASE_HOST": hbase_host,
            "TWITBASE_HBASE_PORT": str(hbase_port),
            "CELERY_BROKER_URL": redis.url,
            "PYTHONUNBUFFERED": "1",
        }
        created = subprocess.run(
            [sys.executable, "manage.py", "createtables", "--apply"],
            cwd=PROJECT_ROOT,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            check=False,
        )
        if created.returncode != 0:
            raise RuntimeError(f"createtables failed:\n{created.stdout}{created.stderr}")
        self._say("devstack: " + created.stdout.strip().splitlines()[-1])

        self._say("devstack: starting a Celery worker (2 processes, with beat)")
        worker = CeleryWorkerProcess(
            env, logs / "worker.log", concurrency=2, name="devstack", beat=True
        ).start()
        self._add("Celery worker", f"2 processes + beat  log {logs / 'worker.log'}", worker)

        self._say(f"devstack: starting the web server on http://{self.host}:{web_port}/")
        web = WebServerProcess(env, logs / "web.log", self.host, web_port).start()
        self._add("web server", f"{web.url}/  log {logs / 'web.log'}", web)
        self.ports_file = portsfile.write(
            self.data,
            portsfile.StackPorts(
                pid=os.getpid(),
                hbase_host=hbase_host,
                hbase_port=hbase_port,
                broker_url=redis.url,
                web_url=web.url,
                hbase_thrift2_port=int(
                    env.get("TWITBASE_HBASE_THRIFT2_PORT")
                    or os.environ.get("TWITBASE_HBASE_THRIFT2_PORT", "0")
                ),
            ),
        )
        self.up = True

    def describe(self) -> str:
        shown = self.external + [(p.name, p.where) for p in self.parts]
        width = max(len(name) for name, _ in shown)
        lines = ["", "TwitBase devstack is up:"]
        lines += [f"  {name:<{width}}  {where}" for name, where in shown]
        lines += [
            f"manage.py commands in another terminal find these ports in {self.ports_file}.",
            "A part that dies is restarted; logs are appended to.",
            "Press Ctrl-C to stop everything.",
            "",
        ]
        return "\n".join(lines)

    def stop(self) -> None:
        self.stopping = True  # a signal now must not cut the stopping short
        portsfile.remove(self.data, os.getpid())
        for part in reversed(self.parts):
            self._say(f"devstack: stopping the {part.name}")
            part.process.stop()
        self.parts.clear()

    def supervise(self, now: float) -> None:
        """One look at every part: notice deaths, restart those whose delay is up."""
        for part in self.parts:
            if part.due is None:
                if not part.process.died():
                    continue
                why = describe_exit(part.process.returncode)
                # Its group may outlive it (the worker's pool): clear it first.
                part.process.kill()
                stable = now - part.up_since >= STABLE_S
                part.delay = self.backoff if stable or not part.delay else part.delay * 2
                part.delay = min(part.delay, MAX_BACKOFF_S)
                part.down_since = now
                part.due = now + part.delay
                self._say(f"devstack: the {part.name} died ({why}); restarting in {part.delay:g}s")
            elif now >= part.due:
                try:
                    part.process.start()
                except Exception as exc:
                    reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                    part.process.kill()
                    part.delay = min(part.delay * 2, MAX_BACKOFF_S)
                    part.due = time.monotonic() + part.delay
                    self._say(
                        f"devstack: the {part.name} did not start ({reason}); "
                        f"retrying in {part.delay:g}s"
                    )
                    continue
                part.restarts += 1
                part.up_since = time.monotonic()
                down = part.up_since - (part.down_since or now)
                part.due = part.down_since = None
                self._say(
                    f"devstack: the {part.name} is back (restart {part.restarts}, down {down:.1f}s)"
                )

    def catch_signals(self) -> None:
        """From now on Ctrl-C, SIGTERM and SIGHUP (a closed terminal) stop the
        stack as Ctrl-C does. Called before ``start``. A signal that arrives
        while the parts start raises KeyboardInterrupt: the caller stops the
        parts already up, and a second signal does not cut that short. One
        that arrives after ``start`` returned, even before ``wait`` began,
        makes ``wait`` return at once."""

        def on_signal(signum: int, frame: object) -> None:
            first = not self.stopping
            self.stopping = True
            if first and not self.up:
                raise KeyboardInterrupt(signal.Signals(signum).name)

        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, on_signal)

    def wait(self) -> None:
        """Supervise the parts until a signal caught by ``catch_signals`` arrives."""
        while not self.stopping:
            self.supervise(time.monotonic())
            time.sleep(POLL_S)
