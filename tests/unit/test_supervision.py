"""devstack's supervision loop, on fake processes and a fake clock: which part
is restarted when, and what it says."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from devtools import devstack
from devtools.devstack import MAX_BACKOFF_S, STABLE_S, DevStack, Part


class FakeProcess:
    def __init__(self) -> None:
        self.alive = True
        self.returncode: int | None = None
        self.starts = 0
        self.kills = 0
        self.fail_next_start = False

    def start(self, timeout: float = 60.0) -> FakeProcess:
        self.starts += 1
        if self.fail_next_start:
            self.fail_next_start = False
            raise RuntimeError("port in use\nmore detail")
        self.alive, self.returncode = True, None
        return self

    def stop(self) -> None:
        self.alive = False

    def kill(self) -> None:
        self.kills += 1
        self.alive = False

    def died(self) -> bool:
        return self.returncode is not None

    def crash(self, returncode: int = -9) -> None:
        self.alive, self.returncode = False, returncode


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> tuple[DevStack, FakeProcess, FakeProcess, list[str]]:
    said: list[str] = []
    ds = DevStack(data=Path("/nonexistent"), backoff=1.0)
    monkeypatch.setattr(ds, "_say", said.append)
    redis, web = FakeProcess(), FakeProcess()
    ds.parts = [Part("Redis broker", "", redis, up_since=0.0), Part("web server", "", web)]
    return ds, redis, web, said


def test_a_dead_part_is_restarted_after_the_backoff_and_others_are_left_alone(
    stack: tuple[DevStack, FakeProcess, FakeProcess, list[str]],
) -> None:
    ds, redis, web, said = stack
    redis.crash(-9)
    ds.supervise(100.0)
    assert said == ["devstack: the Redis broker died (killed by SIGKILL); restarting in 1s"]
    assert redis.kills == 1  # its process group is cleared before the restart
    ds.supervise(100.5)
    assert redis.starts == 0  # not before the delay
    ds.supervise(101.0)
    assert redis.starts == 1
    assert said[-1].startswith("devstack: the Redis broker is back (restart 1, down ")
    assert web.starts == 0 and web.kills == 0


def test_the_delay_doubles_while_a_part_keeps_dying_and_resets_once_stable(
    stack: tuple[DevStack, FakeProcess, FakeProcess, list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ds, redis, _, said = stack
    clock = [100.0]
    monkeypatch.setattr("devtools.devstack.time.monotonic", lambda: clock[0])
    delays = []
    for _ in range(7):
        redis.crash(1)
        ds.supervise(clock[0])
        delays.append(ds.parts[0].delay)
        clock[0] += ds.parts[0].delay
        ds.supervise(clock[0])  # back up; dies again at once
    assert delays == [1, 2, 4, 8, 16, MAX_BACKOFF_S, MAX_BACKOFF_S]
    assert "exited with status 1" in said[0]

    clock[0] += STABLE_S  # up long enough: healthy again
    redis.crash(-15)
    ds.supervise(clock[0])
    assert ds.parts[0].delay == 1
    assert said[-1] == "devstack: the Redis broker died (killed by SIGTERM); restarting in 1s"


def test_a_failed_restart_is_retried_later_with_a_longer_delay(
    stack: tuple[DevStack, FakeProcess, FakeProcess, list[str]],
) -> None:
    ds, redis, _, said = stack
    redis.crash(-9)
    ds.supervise(100.0)
    redis.fail_next_start = True
    ds.supervise(101.0)
    assert said[-1] == "devstack: the Redis broker did not start (port in use); retrying in 2s"
    assert ds.parts[0].due is not None
    ds.supervise(ds.parts[0].due)
    assert redis.alive and said[-1].startswith("devstack: the Redis broker is back (restart 1")


@pytest.fixture
def own_signals() -> Iterator[None]:
    """The test installs devstack's handlers in this process: put pytest's back."""
    kept = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    yield
    for signum, handler in kept.items():
        signal.signal(signum, handler)


def test_a_signal_between_start_and_wait_still_stops_the_stack(
    stack: tuple[DevStack, FakeProcess, FakeProcess, list[str]], own_signals: None
) -> None:
    """The closed-terminal race: "devstack is up" is printed, SIGHUP arrives,
    and only then does the supervising loop begin. It must return at once,
    not run on (nor die of SIGHUP's default action, as it did in a CI run)."""
    ds, _, _, _ = stack
    ds.catch_signals()
    ds.up = True  # start() returned
    os.kill(os.getpid(), signal.SIGHUP)
    looks = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ds, "supervise", looks.append)
        ds.wait()
    assert looks == []


def test_a_signal_while_parts_start_interrupts_the_start_and_not_the_stop(
    stack: tuple[DevStack, FakeProcess, FakeProcess, list[str]],
    own_signals: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ds, redis, web, said = stack
    monkeypatch.setattr("devtools.devstack.portsfile.remove", lambda data, pid: None)
    ds.catch_signals()
    with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
        os.kill(os.getpid(), signal.SIGTERM)  # while start() waits on a part
        time.sleep(5)
    stopped = []

    def signalled_stop(process: FakeProcess) -> Callable[[], None]:
        def stop() -> None:
            os.kill(os.getpid(), signal.SIGHUP)  # a second signal, while stopping
            stopped.append(process)
            FakeProcess.stop(process)

        return stop

    monkeypatch.setattr(redis, "stop", signalled_stop(redis))
    monkeypatch.setattr(web, "stop", signalled_stop(web))
    ds.stop()
    assert stopped == [web, redis]
    assert not redis.alive and not web.alive
    assert said == ["devstack: stopping the web server", "devstack: stopping the Redis broker"]


def test_a_free_hbase_port_asked_for_brings_a_free_thrift2_port(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two devstacks started side by side with ``--hbase-port 0`` both took
    9091 for Thrift2 when it was free, and the second local server died.
    Here 9091 looks free whatever else runs on this machine meanwhile."""
    monkeypatch.setattr(devstack, "port_is_free", lambda host, port: True)
    thrift, thrift2 = DevStack(data=Path("/nonexistent"), hbase_port=0)._local_hbase_ports()
    assert 9091 not in (thrift, thrift2) and thrift != thrift2
