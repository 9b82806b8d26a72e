"""API tests: Django's test client on fresh tables on the local HBase server.

The storage behaviour under the API is held by the service and contract
suites on both servers; here one server is enough. So alice, bob and
charlie are redefined on ``local_twitbase`` (the root conftest's run on
both servers).
"""

from __future__ import annotations

import pytest
from django.test import Client

from feeds.types import User
from tests.api.helpers import Api
from tests.helpers import ServerAddr


@pytest.fixture
def tables(local_twitbase: ServerAddr) -> ServerAddr:
    """The API runs on the local server only: storage is the contract suite's."""
    return local_twitbase


@pytest.fixture
def api(local_twitbase: ServerAddr) -> Api:
    """An anonymous API client."""
    return Api(Client())


@pytest.fixture
def as_alice(api: Api, alice: User) -> Api:
    return api.login("alice")


@pytest.fixture
def as_bob(api: Api, bob: User) -> Api:
    return api.login("bob")
