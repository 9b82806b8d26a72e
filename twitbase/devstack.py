"""Run every part of TwitBase on one machine as child processes, and stop them together.

Each part is a real process, as in production: the local HBase server owns
the data directory; Redis is the Celery broker; a Celery worker (with beat,
for the pending fan-out sweep) and the web server connect to both like any
other client would. Parts start in order, each waiting until the previous one
answers; Ctrl-C (or SIGTERM) stops them in reverse order.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from storage.localhbase.process import LocalHBaseProcess
from twitbase.processes import CeleryWorkerProcess, RedisProcess, WebServerProcess

PROJECT_ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Part:
    name: str
    where: str
    stop: Callable[[], None]
    alive: Callable[[], bool]


@dataclass
class DevStack:
    data: Path
    host: str = "127.0.0.1"
    port: int = 8000
    hbase_port: int = 0
    parts: list[Part] = field(default_factory=list)

    def _say(self, text: str) -> None:
        print(text, flush=True)

    def start(self) -> None:
        self.data.mkdir(parents=True, exist_ok=True)
        logs = self.data / "logs"
        logs.mkdir(exist_ok=True)

        self._say(f"devstack: starting the local HBase server (data in {self.data / 'hbase'})")
        hbase = LocalHBaseProcess(
            self.data / "hbase", port=self.hbase_port, log_path=logs / "localhbase.log"
        ).start()
        self.parts.append(
            Part(
                "local HBase server",
                f"thrift://{hbase.host}:{hbase.port}  log {logs / 'localhbase.log'}",
                hbase.stop,
                lambda: hbase.proc is not None and hbase.proc.poll() is None,
            )
        )
        self._say("devstack: starting Redis (the Celery broker)")
        redis = RedisProcess(self.data / "redis").start()
        self.parts.append(
            Part(
                "Redis broker",
                f"{redis.url}  log {redis.log}",
                redis.stop,
                lambda: redis.proc is not None and redis.proc.poll() is None,
            )
        )
        env = {
            **os.environ,
            "TWITBASE_HBASE_HOST": hbase.host,
            "TWITBASE_HBASE_PORT": str(hbase.port),
            "CELERY_BROKER_URL": redis.url,
            "PYTHONUNBUFFERED": "1",
        }
        created = subprocess.run(
            [sys.executable, "manage.py", "createtables"],
            cwd=PROJECT_ROOT,
            env=env,
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
        self.parts.append(
            Part(
                "Celery worker",
                f"2 processes + beat  log {logs / 'worker.log'}",
                worker.stop,
                lambda: worker.proc is not None and worker.proc.poll() is None,
            )
        )

        self._say(f"devstack: starting the web server on http://{self.host}:{self.port}/")
        web = WebServerProcess(env, logs / "web.log", self.host, self.port).start()
        self.parts.append(
            Part(
                "web server",
                f"{web.url}/  log {logs / 'web.log'}",
                web.stop,
                lambda: web.proc is not None and web.proc.poll() is None,
            )
        )

    def describe(self) -> str:
        width = max(len(p.name) for p in self.parts)
        lines = ["", "TwitBase devstack is up:"]
        lines += [f"  {p.name:<{width}}  {p.where}" for p in self.parts]
        lines += ["Press Ctrl-C to stop everything.", ""]
        return "\n".join(lines)

    def stop(self) -> None:
        for part in reversed(self.parts):
            self._say(f"devstack: stopping the {part.name}")
            part.stop()
        self.parts.clear()

    def wait(self) -> None:
        """Block until a signal arrives or a part dies (then say which)."""
        stopping = False

        def on_signal(signum: int, frame: object) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)
        while not stopping:
            for part in self.parts:
                if not part.alive():
                    self._say(f"devstack: the {part.name} exited unexpectedly; stopping")
                    return
            time.sleep(0.2)
