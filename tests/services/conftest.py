"""Services against a real server: each test gets its own set of tables."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from pytest_django.fixtures import Settings as SettingsWrapper

from feeds import services
from feeds.types import User
from storage.connection import connection, reset_pool
from storage.schema import create_tables, drop_tables
from tests.conftest import ServerAddr


@pytest.fixture
def twitbase(server: ServerAddr, settings: SettingsWrapper) -> Iterator[ServerAddr]:
    """Settings pointed at ``server`` with fresh, empty TwitBase tables."""
    settings.TWITBASE_HBASE_HOST = server.host
    settings.TWITBASE_HBASE_PORT = server.port
    settings.TWITBASE_TABLE_PREFIX = "tb" + uuid.uuid4().hex[:10]
    # A fast hasher: the tests are about storage, not key stretching.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    reset_pool()
    with connection() as conn:
        create_tables(conn)
    yield server
    with connection() as conn:
        drop_tables(conn)
    reset_pool()


def _user(userid: str) -> User:
    return services.register(userid, userid.title(), f"{userid}@example.com", "password-123")


@pytest.fixture
def alice(twitbase: ServerAddr) -> User:
    return _user("alice")


@pytest.fixture
def bob(twitbase: ServerAddr) -> User:
    return _user("bob")


@pytest.fixture
def charlie(twitbase: ServerAddr) -> User:
    return _user("charlie")
