"""Web UI tests: pages through Django's test client, and one browser test.

They run on the local HBase server only (``local_twitbase``): the storage
behaviour under the pages is held to real HBase by the service and contract
suites. alice, bob and charlie are registered through the services.
"""

from __future__ import annotations

import re
import time

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from feeds import services
from feeds.types import User
from tests.helpers import PASSWORD, ServerAddr


def post_in_order(userid: str, texts: list[str]) -> None:
    """Post ``texts`` oldest first, each in a later millisecond than the one
    before: twits of one millisecond have no defined order in a stream."""
    for text in texts:
        services.post_twit(userid, text)
        time.sleep(0.002)


def away_from_minute_end() -> None:
    """Wait out the last two seconds of a minute, so that a test's few posts
    fall in one window of the per-minute rate limit."""
    if time.time() % 60 > 58:
        time.sleep(60 - time.time() % 60 + 0.05)


def log_in(client: Client, userid: str, password: str = PASSWORD) -> None:
    response = client.post("/login", {"userid": userid, "password": password})
    assert response.status_code == 302, response.content.decode()


def csrf_token(html: str) -> str:
    """The token of the first form on a page, as a browser would submit it."""
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert found, "no CSRF token on the page"
    return found.group(1)


@pytest.fixture
def web(local_twitbase: ServerAddr, settings: Settings) -> ServerAddr:
    """Fresh tables on the local server, and a rate limit no test reaches by accident."""
    settings.TWITBASE_POSTS_PER_MINUTE = 1000
    return local_twitbase


@pytest.fixture
def tables(web: ServerAddr) -> ServerAddr:
    return web


@pytest.fixture
def alice_client(alice: User) -> Client:
    client = Client()
    log_in(client, "alice")
    return client


@pytest.fixture
def bob_client(bob: User) -> Client:
    client = Client()
    log_in(client, "bob")
    return client
