"""devstack's supervision loop, on fake processes and a fake clock: which part
is restarted when, and what it says."""

from __future__ import annotations

from pathlib import Path

import pytest

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
