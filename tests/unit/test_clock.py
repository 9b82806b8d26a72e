"""feeds.services._clock: strictly later within a process, and usable in a
child forked while another thread held its lock."""

from __future__ import annotations

import os
import signal
import threading
import time

from feeds.services._clock import MonotonicMillis


def test_a_standing_clock_still_gives_later_millis() -> None:
    clock = MonotonicMillis(lambda: 1_790_000_000.0)
    got = [clock() for _ in range(5)]
    assert got == list(range(1_790_000_000_000, 1_790_000_000_005))


def test_a_clock_that_steps_back_does_not_take_the_keys_back() -> None:
    times = iter([10.0, 9.0, 11.0])
    clock = MonotonicMillis(lambda: next(times))
    assert [clock(), clock(), clock()] == [10_000, 10_001, 11_000]


def test_a_child_forked_while_the_lock_is_held_can_still_read_the_clock() -> None:
    clock = MonotonicMillis(lambda: 5.0)
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with clock._lock:
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(10)
    pid = os.fork()
    if pid == 0:  # the child: the lock's holder is not here
        os._exit(0 if clock() == 5_000 else 1)
    release.set()
    holder.join()
    deadline = time.monotonic() + 10
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    if done[0] == 0:  # still waiting on the lock it inherited
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise AssertionError("the forked child hung on the clock's lock")
    assert os.waitstatus_to_exitcode(done[1]) == 0
