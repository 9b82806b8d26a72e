"""Helpers for tests of what users see while a part of the stack is down."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from pytest_django.fixtures import Settings

from devtools.processes import free_port
from storage.connection import reset_pool


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
