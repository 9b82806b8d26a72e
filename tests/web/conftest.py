"""Web UI tests: pages through Django's test client, and one browser test.

They run on the local HBase server only (``local_twitbase``): the storage
behaviour under the pages is held to real HBase by the service and contract
suites. alice, bob and charlie are registered through the services.
"""

from __future__ import annotations

import pytest
from django.test import Client

from feeds.types import User
from tests.helpers import ServerAddr
from tests.web.helpers import logged_in


@pytest.fixture
def tables(web: ServerAddr) -> ServerAddr:
    return web


@pytest.fixture
def alice_client(alice: User) -> Client:
    return logged_in("alice")


@pytest.fixture
def bob_client(bob: User) -> Client:
    return logged_in("bob")
