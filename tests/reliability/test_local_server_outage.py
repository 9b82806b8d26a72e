"""A real local HBase server killed with -9 and restarted on the same port and
data directory: 503s with Retry-After during the outage, and after the restart
not one failed request, though every pooled connection predates the crash."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from pytest_django.fixtures import Settings

from devtools.localhbase_process import LocalHBaseProcess
from feeds import services
from storage import connection as storage_connection
from storage.connection import StorageUnavailable, connection
from tests.helpers import ServerAddr, register, tables_on
from tests.outage import (
    POOL_SIZE,
    asked_while_down,
    fill_the_pool,
    no_request_fails_after_restart,
    token,
)


class Crashable:
    """A local HBase server that a test kills with -9 and starts again on the
    same port and data directory, as a supervisor would."""

    def __init__(self, data: Path) -> None:
        self.server = LocalHBaseProcess(data).start()

    def kill(self) -> None:
        self.server.kill()

    def restart(self) -> None:
        old = self.server
        self.server = LocalHBaseProcess(old.data, old.host, old.port, old.log_path).start()


@pytest.fixture
def crashable(tmp_path: Path, settings: Settings) -> Iterator[Crashable]:
    """A local HBase server of this test's own (the session's must not be
    killed), with the tables, alice and bob, and a small connection pool."""
    settings.TWITBASE_HBASE_POOL_SIZE = POOL_SIZE
    crashable = Crashable(tmp_path / "data")
    try:
        addr = ServerAddr("local", crashable.server.host, crashable.server.port)
        with tables_on(addr, settings):
            register("alice")
            register("bob")
            yield crashable
    finally:
        crashable.server.stop()


@pytest.mark.parametrize("retry_reads", [True, False])
@pytest.mark.parametrize("asked_during_outage", [True, False])
def test_after_a_kill_9_and_restart_no_request_fails(
    crashable: Crashable,
    asked_during_outage: bool,
    retry_reads: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not retry_reads:
        # The check before use alone must do: no read is run twice.
        monkeypatch.setattr(StorageUnavailable, "retryable", property(lambda self: False))
    headers = {"Authorization": f"Bearer {token('alice')}"}
    fill_the_pool()
    crashable.kill()

    if asked_during_outage:
        assert asked_while_down(headers)["Retry-After"]
    # Otherwise every pooled connection still holds its socket from before
    # the crash when the requests below arrive.

    crashable.restart()
    no_request_fails_after_restart(headers, "/api/users/bob/twits", "/api/stream")


def on_every_pooled_connection(work: Callable[[], object]) -> list[object]:
    """``work`` in POOL_SIZE threads that hold their connections at once, so
    that each runs on a different pooled connection. Returns what each
    returned, or the exception it raised."""
    barrier = threading.Barrier(POOL_SIZE)

    def run() -> object:
        try:
            with connection():  # the thread's connection, which ``work`` reuses
                barrier.wait(timeout=10)
                return work()
        except Exception as exc:
            return exc

    with ThreadPoolExecutor(POOL_SIZE) as ex:
        return list(ex.map(lambda _: run(), range(POOL_SIZE)))


def test_a_read_on_a_connection_broken_unseen_is_retried_once_and_a_write_is_not(
    crashable: Crashable, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As if the sockets were half-open (the server's host vanished without
    # closing them): the check before use cannot tell, and the call fails.
    monkeypatch.setattr(storage_connection, "dropped", lambda conn: False)
    fill_the_pool()
    crashable.kill()
    crashable.restart()
    # Each read service meets a connection from before the crash, fails, and
    # runs again on the fresh one that replaced it.
    assert (
        on_every_pooled_connection(lambda: services.get_user("alice").userid)
        == ["alice"] * POOL_SIZE
    )

    bobs = token("bob")
    crashable.kill()
    crashable.restart()
    # A write (here the first call of the service) is not run again: the
    # caller gets the 503's exception and decides.
    outcomes = on_every_pooled_connection(lambda: services.revoke_token(bobs))
    assert all(isinstance(o, StorageUnavailable) for o in outcomes), outcomes
    assert services.token_user(bobs) is not None  # nothing reached the server
    services.revoke_token(bobs)  # the pool holds fresh connections now
    assert services.token_user(bobs) is None
