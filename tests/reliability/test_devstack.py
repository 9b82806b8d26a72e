"""``manage.py devstack`` keeps every part running: kill -9 one, it comes back.

devstack runs as a subprocess on free ports with its own data directory. Each
part is killed in turn (the worker, Redis, the local HBase server); the test
checks that devstack said which part died and why, restarted it (on the same
port), left the other parts alone, that the web kept answering, and that a
twit posted while Redis was down reaches a follower after Redis is back.
Ctrl-C then stops everything, in reverse order.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
import redis

from devtools.processes import free_port
from tests.reliability.api import call, eventually, sign_up, stream_ids

ROOT = Path(__file__).resolve().parents[2]
BACKOFF_S = 8  # long enough to post a twit while Redis is down, even on a busy CI
PART_MARKS = {
    "hbase": "localhbase",
    "redis": "redis-server",
    "worker": "celery",
    "web": "runserver",
}


class DevstackRun:
    def __init__(self, data: Path, port: int) -> None:
        env = {
            **os.environ,
            "DJANGO_DEBUG": "1",
            "TWITBASE_POSTS_PER_MINUTE": "1000",
            "TWITBASE_SWEEP_AFTER_S": "2",
            "TWITBASE_SWEEP_EVERY_S": "2",
        }
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "devstack",
                "--port",
                str(port),
                # Free ports, not the usual 9090 and 6379 (other runs may want them).
                "--hbase-port",
                "0",
                "--redis-port",
                "0",
                "--data",
                str(data),
                "--backoff",
                str(BACKOFF_S),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self.url = f"http://127.0.0.1:{port}"
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def read_to_the_end(self, timeout: float = 30.0) -> list[str]:
        """Every line devstack wrote, once its output has ended (it exited)."""
        self._reader.join(timeout)
        assert not self._reader.is_alive(), "devstack's output did not end"
        return self.lines

    def wait_for_line(self, text: str, after: int = 0, timeout: float = 120.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines[after:]:
                if text in line:
                    return line
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"devstack never said {text!r}:\n" + "\n".join(self.lines[-30:]))

    def parts(self) -> dict[str, psutil.Process]:
        found = {}
        for child in psutil.Process(self.proc.pid).children():
            cmdline = " ".join(child.cmdline())
            for part, mark in PART_MARKS.items():
                if mark in cmdline:
                    found[part] = child
        return found

    def close(self) -> None:
        if self.proc.poll() is None:
            for child in psutil.Process(self.proc.pid).children(recursive=True):
                child.kill()
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


@pytest.fixture
def devstack(tmp_path: Path) -> Iterator[DevstackRun]:
    run = DevstackRun(tmp_path / "data", free_port())
    try:
        run.wait_for_line("TwitBase devstack is up", timeout=180)
        yield run
    finally:
        run.close()


def kill_and_wait(run: DevstackRun, part: str, name: str) -> tuple[float, int]:
    """kill -9 one part (its main process only); wait until devstack has it
    back. Returns (seconds down, index of the line saying it died)."""
    before = run.parts()
    mark = len(run.lines)
    victim = before[part]
    killed_at = time.monotonic()
    victim.send_signal(signal.SIGKILL)
    died = run.wait_for_line(f"the {name} died", after=mark, timeout=30)
    assert "killed by SIGKILL" in died
    index = run.lines.index(died)
    run.wait_for_line(f"the {name} is back", after=index, timeout=120)
    down = time.monotonic() - killed_at
    after = run.parts()
    assert after[part].pid != victim.pid
    for other in PART_MARKS:
        if other != part:
            assert after[other].pid == before[other].pid, f"{other} was restarted too"
    return down, index


def test_devstack_restarts_a_killed_part_and_loses_no_twit(
    devstack: DevstackRun, tmp_path: Path
) -> None:
    url = devstack.url
    data = tmp_path / "data"
    # (redis-server writes its process title over its environment: not readable.)
    for part in ("hbase", "worker", "web"):
        environ = devstack.parts()[part].environ()
        assert environ.get("TWITBASE_DATA_DIR") == str(data), part
    alice = sign_up(url, "alice")
    bob = sign_up(url, "bob")
    assert call(url, "PUT", "/api/follows/alice", token=bob).status == 200
    posted: list[str] = []

    def post(text: str) -> str:
        answer = call(url, "POST", "/api/twits", {"text": text}, token=alice)
        assert answer.status == 201, answer
        posted.append(answer.body["id"])
        return str(answer.body["id"])

    def reaches_bob(twit_id: str, what: str) -> float:
        return eventually(lambda: twit_id in stream_ids(url, bob), 90, what)

    post("before any fault")

    # The worker: killed, restarted; fan-out goes on.
    kill_and_wait(devstack, "worker", "Celery worker")
    reaches_bob(post("after the worker came back"), "fan-out after a worker restart")

    # Redis: killed; a twit posted while it is down is acknowledged, and the
    # sweep fans it out once Redis is back.
    (where,) = [line for line in devstack.lines if "Redis broker  " in line]
    redis_port = int(re.search(r"redis://127.0.0.1:(\d+)/", where)[1])  # type: ignore[index]
    broker = redis.Redis(port=redis_port, socket_timeout=2)
    assert broker.config_get("appendonly") == {"appendonly": "yes"}
    before = devstack.parts()
    mark = len(devstack.lines)
    before["redis"].send_signal(signal.SIGKILL)
    devstack.wait_for_line("the Redis broker died (killed by SIGKILL)", after=mark, timeout=30)
    while_down = post("while Redis was down")
    with pytest.raises(redis.ConnectionError):
        broker.ping()  # it was posted while Redis was down, not after
    devstack.wait_for_line("the Redis broker is back", after=mark, timeout=120)
    assert devstack.parts()["redis"].pid != before["redis"].pid
    assert broker.ping()  # on the same port
    swept_s = reaches_bob(while_down, "a twit posted while Redis was down, swept after")

    # The local HBase server: killed; the web keeps answering meanwhile.
    before = devstack.parts()
    mark = len(devstack.lines)
    before["hbase"].send_signal(signal.SIGKILL)
    devstack.wait_for_line("the local HBase server died", after=mark, timeout=30)
    assert call(url, "GET", "/healthz").status == 503  # serving, and saying HBase is down
    devstack.wait_for_line("the local HBase server is back", after=mark, timeout=120)
    eventually(lambda: call(url, "GET", "/healthz").status == 200, 30, "healthz after HBase")
    after_hbase = ""

    def post_after_hbase() -> bool:
        nonlocal after_hbase
        answer = call(url, "POST", "/api/twits", {"text": "after HBase"}, token=alice)
        if answer.status != 201:
            return False  # a pooled connection from before the crash (another fix)
        after_hbase = answer.body["id"]
        posted.append(after_hbase)
        return True

    eventually(post_after_hbase, 30, "posting after the HBase restart")
    reaches_bob(after_hbase, "fan-out after an HBase restart")
    assert stream_ids(url, bob) == set(posted)
    for part in ("hbase", "worker", "web"):
        assert devstack.parts()[part].environ().get("TWITBASE_DATA_DIR") == str(data)

    # Logs were appended to, never truncated: both runs of each are there.
    logs = data / "logs"
    assert (logs / "worker.log").read_text().count(" ready.") >= 2
    assert (logs / "localhbase.log").read_text().count("localhbase ready on") >= 2
    assert (data / "redis" / "redis.log").read_text().count("Ready to accept connections") >= 2

    back = [line.split(": ", 1)[1] for line in devstack.lines if " is back " in line]
    print(
        f"\nreliability devstack: {'; '.join(back)}; the twit posted while Redis was down "
        f"reached bob {swept_s:.1f}s after Redis was back"
    )

    # Ctrl-C stops everything, in reverse order.
    children = list(devstack.parts().values())
    mark = len(devstack.lines)
    devstack.proc.send_signal(signal.SIGINT)
    assert devstack.proc.wait(90) == 0
    stopping = [line for line in devstack.read_to_the_end()[mark:] if "stopping the" in line]
    assert stopping == [
        "devstack: stopping the web server",
        "devstack: stopping the Celery worker",
        "devstack: stopping the Redis broker",
        "devstack: stopping the local HBase server",
    ]
    assert not [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]


def test_no_part_outlives_a_killed_devstack(devstack: DevstackRun) -> None:
    """kill -9 of devstack itself: the kernel stops every part (none is left
    holding the data directory or a port for the next devstack)."""
    parts = list(devstack.parts().values())
    assert len(parts) == 4
    devstack.proc.send_signal(signal.SIGKILL)
    devstack.proc.wait()
    _, alive = psutil.wait_procs(parts, timeout=45)
    names = [p.name() for p in alive]
    for orphan in alive:  # clean up after a failure
        orphan.kill()
    assert not alive, names


def test_a_closed_terminal_stops_devstack_cleanly(devstack: DevstackRun) -> None:
    parts = list(devstack.parts().values())
    devstack.proc.send_signal(signal.SIGHUP)
    assert devstack.proc.wait(90) == 0
    assert not [p for p in parts if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


def test_a_signal_while_the_parts_start_stops_those_up_and_says_so(tmp_path: Path) -> None:
    """SIGTERM once Redis is starting: the local HBase server, up already, is
    stopped, nothing is left running, and devstack says why it stopped."""
    run = DevstackRun(tmp_path / "data", free_port())
    try:
        run.wait_for_line("devstack: starting Redis", timeout=120)
        started = list(psutil.Process(run.proc.pid).children(recursive=True))
        run.proc.send_signal(signal.SIGTERM)
        assert run.proc.wait(60) == 1
        assert "devstack: stopping the local HBase server" in run.read_to_the_end()
        assert "CommandError: stopped by SIGTERM before every part was up" in run.lines
        _, alive = psutil.wait_procs(started, timeout=30)
        assert not [p for p in alive if p.status() != psutil.STATUS_ZOMBIE]
    finally:
        run.close()
