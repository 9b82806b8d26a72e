"""Stream-Framework, the peer issue 39 measures the home page against, run
beside the bench in the same run: ``benchschema --home 50 --stream-framework``.

Stream-Framework 1.4.0 (its last release) needs redis-py 2.10: with the
project's redis-py it fails at import (``BasePipeline``) and at its first
write (the old ``zadd`` signature). So it gets an environment of its own,
made once under ``var/bench/`` with uv (the installer ``make`` uses), and
its reads run in a child process of that environment
(bench/streamframework_peer.py) against a private redis-server. The child
times each read itself and sends the figures back; the bench asks for them
in turn with its own reads, so the machine's load weighs on both alike.

No library runs a command in another interpreter and trades timings with
it, hence this module; the redis-server is devtools' ``RedisProcess``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

from django.conf import settings

from devtools.processes import RedisProcess

VERSION = "1.4.0"
# Its last redis-py: 3.0 changed zadd's signature, which 1.4.0 calls the old way.
REDIS_PY = "2.10.6"
PEER = Path(__file__).with_name("streamframework_peer.py")


def environment() -> Path:
    """The Python of the environment Stream-Framework runs in, made the
    first time (about 10 s: two packages and their dependencies from PyPI)."""
    home = Path(settings.BASE_DIR) / "var" / "bench" / f"stream-framework-{VERSION}"
    python = home / "bin" / "python"
    done = home / ".installed"
    if done.exists():
        return python
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        raise RuntimeError("uv is not installed: `make install` installs it into .venv")
    print(f"==> making {home} for Stream-Framework {VERSION}", file=sys.stderr, flush=True)
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(home)], check=True)
    subprocess.run(
        [
            uv, "pip", "install", "-q", "--python", str(python),
            f"stream-framework=={VERSION}", f"redis=={REDIS_PY}",
        ],
        check=True,
    )  # fmt: skip
    done.touch()
    return python


class StreamFramework:
    """A reader's feed in Stream-Framework, for the bench's reads: a
    redis-server and the child that reads it, stopped on exit."""

    def __init__(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="sf-")
        self._redis = RedisProcess(Path(self._tmp.name), persist=False)
        self._child: subprocess.Popen[str] | None = None

    def __enter__(self) -> Self:
        python = environment()
        self._redis.start()
        try:
            self._child = subprocess.Popen(
                [str(python), str(PEER), str(self._redis.port)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
        except BaseException:
            # No __exit__ follows a failed __enter__: stop what it started.
            self._stop()
            raise
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if self._child is not None:
                assert self._child.stdin is not None
                self._child.stdin.close()
                try:
                    self._child.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self._child.kill()
                    self._child.wait()
        finally:
            self._stop()

    def _stop(self) -> None:
        self._redis.stop()
        self._tmp.cleanup()

    def _ask(self, asked: dict[str, Any]) -> dict[str, Any]:
        assert self._child is not None
        stdin: IO[str] | None = self._child.stdin
        stdout: IO[str] | None = self._child.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps(asked) + "\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            raise RuntimeError(f"Stream-Framework's process ended (exit {self._child.wait()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def load(self, activities: Iterable[tuple[int, int, int, str]]) -> int:
        """Put (actor, object, epoch seconds, text) in the reader's feed, as
        its fan-out would: the activities stored once, their ids in the feed."""
        loaded: int = self._ask({"load": list(activities)})["loaded"]
        return loaded

    def read(self, limit: int) -> TimedRead:
        """A read of the feed's newest ``limit``, for the bench to time."""
        return TimedRead(self, limit)


class TimedRead:
    """``feed[:limit]`` in Stream-Framework's process, which times it:
    each call returns the items read and leaves the child's figures in
    ``last_ms`` and ``last_cpu_ms``."""

    def __init__(self, peer: StreamFramework, limit: int) -> None:
        self.peer, self.limit = peer, limit
        self.last_ms = self.last_cpu_ms = 0.0

    def __call__(self) -> int:
        answer = self.peer._ask({"read": self.limit})
        self.last_ms, self.last_cpu_ms = answer["ms"], answer["cpu_ms"]
        items: int = answer["items"]
        return items
