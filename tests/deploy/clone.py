"""A fresh checkout of this working tree, and a devstack run in it, as a
user of the README has them: commands run in bash after `. .venv/bin/activate`,
with no TWITBASE_*, CELERY_* or DJANGO_* variable exported.

The checkout is a copy of the files git knows (tracked, or new and not
ignored) in a temporary directory, so its `var/data` (devstack's default
data directory, where the ports file goes) is its own; `.venv` links to the
virtualenv running the tests.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

from devtools.devstack import port_is_free
from twitbase import portsfile

ROOT = Path(__file__).resolve().parents[2]


def make_clone(dest: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for rel in filter(None, listed.split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    (dest / ".venv").symlink_to(Path(sys.prefix))
    return dest


def bare_env() -> dict[str, str]:
    """This environment without anything that points the app somewhere."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TWITBASE_", "CELERY_", "DJANGO_"))
        and k not in ("VIRTUAL_ENV", "PYTHONPATH")
    }


def sh(
    clone: Path, line: str, stdin: str | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run one README line in ``clone`` as a user would, after activating the venv."""
    return subprocess.run(
        ["bash", "-c", ". .venv/bin/activate && " + line],
        cwd=clone,
        env=bare_env(),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def hold_port(port: int, wait_s: float = 70) -> socket.socket | None:
    """Bind ``port`` on loopback without listening: nobody else can serve on
    it, and connecting to it is refused. None if it is taken already.

    A port whose only users are connections in TIME_WAIT (a server stopped
    a moment ago, as after `make run`) is free to a server, which sets
    SO_REUSEADDR, but not to this plain bind: it waits for them to go (a
    minute at most on Linux) rather than call the port taken.
    """
    deadline = time.monotonic() + wait_s
    while True:
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
            return s
        except OSError:
            s.close()
        if not port_is_free("127.0.0.1", port) or time.monotonic() > deadline:
            return None
        time.sleep(1)


class Devstack:
    """``python manage.py devstack ARGS`` in ``clone``, until stopped with Ctrl-C (SIGINT)."""

    def __init__(self, clone: Path, args: str = "") -> None:
        self.clone = clone
        self.log = clone / "devstack.out"
        with self.log.open("w") as out:
            self.proc = subprocess.Popen(
                ["bash", "-c", f". .venv/bin/activate && exec python manage.py devstack {args}"],
                cwd=clone,
                env=bare_env(),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    @property
    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_up(self, timeout: float = 240) -> portsfile.StackPorts:
        deadline = time.monotonic() + timeout
        while "TwitBase devstack is up" not in self.output:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"devstack did not come up:\n{self.output}")
            time.sleep(0.5)
        ports = portsfile.read(self.clone / "var" / "data")
        assert ports is not None, f"no ports file in var/data:\n{self.output}"
        return ports

    def web_address(self) -> str:
        found = re.search(r"web server\s+http://(\S+?)/", self.output)
        assert found, self.output
        return found.group(1)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(90)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        return self.proc.returncode

    def __enter__(self) -> Devstack:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
