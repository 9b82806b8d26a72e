"""Fixtures of the contract suite beyond the session's servers (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import ServerAddr


@pytest.fixture
def t2(server: ServerAddr) -> Iterator[Any]:
    """A Thrift2 (THBaseService) client of each server in turn."""
    client = server.thrift2()
    try:
        yield client
    finally:
        client.close()
