"""A Python process that imports mirakuru (through devtools.processes) kills,
as it exits, only what its own executors left running: not a process whose
``mirakuru_uuid`` merely contains its pid, as mirakuru's own exit hook did."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from devtools.processes import PROJECT_ROOT

# devtools.processes as it is: its exit hook in place of mirakuru's. (With
# mirakuru's own hook put back, the test below fails: the innocent dies. That
# is not run as a test: mirakuru's hook kills *every* process on the machine
# whose uuid contains the exiting pid, and so, now and then, a server that
# another test process of the same run depends on; a run lost its local
# HBase server so, with nothing in its log, on 2026-11-28.)
HOOKS = {"ours": "import devtools.processes"}


def sleeper(mark: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "mirakuru_uuid": mark}
    return subprocess.Popen(["sleep", "60"], env=env)


@pytest.fixture
def sleepers() -> Iterator[list[subprocess.Popen[bytes]]]:
    made: list[subprocess.Popen[bytes]] = []
    yield made
    for proc in made:
        proc.kill()
        proc.wait()


def exit_with_hook(hook: str, sleepers: list[subprocess.Popen[bytes]]) -> tuple[bool, bool]:
    """A Python process that exits, an innocent process whose uuid contains
    its pid, and one its own executor started: (innocent alive, own alive)."""
    code = f"{hook}; import sys; print('hooked', flush=True); sys.stdin.read()"
    python = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=PROJECT_ROOT,
    )
    pid = python.pid
    innocent = sleeper(f"7{pid}7:0000")  # another executor's, pid in its digits
    own = sleeper(f"{pid}:1111")  # as this one's executor marks its child
    sleepers += [innocent, own]
    assert python.stdin is not None and python.stdout is not None
    assert python.stdout.readline() == b"hooked\n"  # its exit hook is in place
    python.stdin.close()
    python.wait(timeout=30)
    # The hook signals as the interpreter exits; the signalled die soon after.
    with contextlib.suppress(subprocess.TimeoutExpired):
        own.wait(timeout=10)
    return innocent.poll() is None, own.poll() is None


def test_our_exit_hook_spares_a_process_whose_uuid_only_contains_our_pid(
    sleepers: list[subprocess.Popen[bytes]],
) -> None:
    assert exit_with_hook(HOOKS["ours"], sleepers) == (True, False)
