"""Helpers for tests of what users see while a part of the stack is down,
and once it is back."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING

from django.conf import settings
from django.test import Client
from pytest_django.fixtures import Settings

from devtools.processes import free_port
from feeds import services
from storage.connection import connection, reset_pool
from tests.helpers import PASSWORD

if TYPE_CHECKING:
    # What the test client answers: an HttpResponse with the request attached.
    from django.test.client import _MonkeyPatchedWSGIResponse as Response

# The connection pool of the tests that kill a Thrift server: small, so that
# a handful of threads holds every pooled connection at once.
POOL_SIZE = 4


@contextmanager
def storage_down(test_settings: Settings) -> Iterator[int]:
    """Point the app at a port where no Thrift server listens (HBase "down"),
    with no pooled connection left over; afterwards, back to the real one."""
    port = settings.TWITBASE_HBASE_PORT
    reset_pool()
    test_settings.TWITBASE_HBASE_PORT = free_port()
    try:
        yield test_settings.TWITBASE_HBASE_PORT
    finally:
        reset_pool()
        test_settings.TWITBASE_HBASE_PORT = port


def fill_the_pool() -> None:
    """Open every pooled connection at once, so that all of them are in the
    pool (and open) when the server dies."""
    barrier = threading.Barrier(POOL_SIZE)

    def hold() -> None:
        with connection() as conn:
            conn.tables()
            barrier.wait(timeout=10)

    with ThreadPoolExecutor(POOL_SIZE) as ex:
        for f in [ex.submit(hold) for _ in range(POOL_SIZE)]:
            f.result()


def token(userid: str) -> str:
    issued = services.issue_token(userid, PASSWORD)
    assert issued is not None
    return issued[0]


def concurrently(calls: list[Callable[[], Response]]) -> list[Response]:
    with ThreadPoolExecutor(POOL_SIZE * 2) as ex:
        return list(ex.map(lambda call: call(), calls))


def asked_while_down(headers: dict[str, str]) -> Response:
    """With the Thrift server down, an API read answers 503 with a Retry-After;
    returns the answer to a page read, for the caller's checks."""
    during = Client().get("/api/users/alice", headers=headers)
    assert during.status_code == 503
    assert int(during["Retry-After"]) > 0
    page = Client().get("/u/alice")
    assert page.status_code == 503
    return page


def no_request_fails_after_restart(headers: dict[str, str], *api_reads: str) -> None:
    """The first requests after a restart, several times the pool size, at
    once: in each round a GET of every path of ``api_reads``, a twit posted
    by alice and bob's page. Every one succeeds and every twit is counted."""
    calls: list[Callable[[], Response]] = []
    for i in range(POOL_SIZE * 3):
        calls += [functools.partial(Client().get, path, headers=headers) for path in api_reads]
        calls += [
            functools.partial(
                Client().post,
                "/api/twits",
                {"text": f"after the restart {i}"},
                content_type="application/json",
                headers=headers,
            ),
            functools.partial(Client().get, "/u/bob"),
        ]
    responses = concurrently(calls)
    round_statuses = [200] * len(api_reads) + [201, 200]
    assert [r.status_code for r in responses] == round_statuses * POOL_SIZE * 3
    assert services.get_user("alice").twits == POOL_SIZE * 3
