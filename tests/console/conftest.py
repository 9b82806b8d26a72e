"""Staff console tests: pages through Django's test client, and one browser test.

They run on the local HBase server only (``local_twitbase``), with fan-out in
the caller (Celery's eager mode). sam is staff; alice, bob and charlie are
not. Users are registered through the services.
"""

from __future__ import annotations

import pytest
from django.test import Client

from feeds import services
from feeds.types import User
from tests.helpers import ServerAddr, register
from tests.web.helpers import logged_in


@pytest.fixture
def tables(web: ServerAddr) -> ServerAddr:
    return web


@pytest.fixture
def sam(tables: ServerAddr) -> User:
    register("sam")
    return services.set_staff("sam")


@pytest.fixture
def staff_client(sam: User) -> Client:
    return logged_in("sam")


@pytest.fixture
def alice_client(alice: User) -> Client:
    return logged_in("alice")
