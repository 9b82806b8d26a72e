"""Fixtures of the contract suite beyond the session's servers (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.contract.javaclient import compile_clients
from tests.helpers import ServerAddr


@pytest.fixture(scope="session")
def java_classpath(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The class path of the Java clients in ``java/``, compiled once."""
    return compile_clients(tmp_path_factory.mktemp("javaclients"))


@pytest.fixture
def t2(server: ServerAddr) -> Iterator[Any]:
    """A Thrift2 (THBaseService) client of each server in turn."""
    client = server.thrift2()
    try:
        yield client
    finally:
        client.close()
