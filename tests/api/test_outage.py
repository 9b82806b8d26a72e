"""While HBase cannot be reached, every API operation answers 503 JSON with
Retry-After (not 500), and nothing else changes."""

from __future__ import annotations

import socket

import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.api import openapi
from feeds.types import User
from storage.connection import StorageUnavailable, reset_pool
from tests.outage import storage_down

from .helpers import Api, error

BODIES = {
    "/api/login": {"userid": "alice", "password": "password-123"},
    "/api/users": {
        "userid": "dave",
        "name": "Dave",
        "email": "dave@example.com",
        "password": "a long passphrase 93",
    },
    "/api/twits": {"text": "posted during an outage"},
    "/api/password/reset": {"userid": "bob"},
    "/api/password/reset/confirm": {
        "token": "a-link-token",
        "new_password": "a long passphrase 94",
    },
}


QUERIES = {"/api/search/users": "?q=al", "/api/search/twits": "?q=al"}


def _operations() -> list[tuple[str, str]]:
    """Every documented operation but the schema, which needs no storage."""
    return [
        (method.upper(), path)
        for path, methods in openapi.PATHS.items()
        for method in methods
        if path != "/api/schema"
    ]


@pytest.mark.parametrize(("method", "path"), _operations())
def test_every_operation_answers_503_with_retry_after_while_storage_is_down(
    as_alice: Api, bob: User, settings: Settings, method: str, path: str
) -> None:
    twit = services.post_twit("alice", "before the outage")
    concrete = path.replace("{userid}", "bob").replace("{twit_id}", twit.id)
    # Hashtags and search: a valid tag, and the query search needs.
    concrete = concrete.replace("{tag}", "hbase") + QUERIES.get(path, "")
    with storage_down(settings):
        response = as_alice.request(method, concrete, BODIES.get(path))
    assert "storage" in error(response, 503)
    assert int(response["Retry-After"]) > 0
    # Nothing changed while storage was down.
    assert services.get_twit(twit.id).text == "before the outage"
    assert services.get_user("alice").following == 0


def test_an_anonymous_read_is_503_too_and_not_retried(
    api: Api, alice: User, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    with storage_down(settings):
        response = api.get("/api/users/alice/twits")
        with pytest.raises(StorageUnavailable) as raised:
            services.get_user("alice")
    error(response, 503)
    assert response["Retry-After"]
    # Nothing listens: a second try at once would be refused as well.
    assert raised.value.refused and not raised.value.retryable
    assert "retrying" not in caplog.text


def test_the_api_answers_again_once_storage_is_back(as_alice: Api, settings: Settings) -> None:
    with storage_down(settings):
        error(as_alice.get("/api/stream"), 503)
    assert as_alice.get("/api/stream").status_code == 200


def test_a_server_that_never_answers_is_a_503_after_the_timeout(
    api: Api, alice: User, settings: Settings
) -> None:
    # A socket that listens but never accepts: connecting succeeds (the
    # kernel queues it), then no answer comes, as from a hung Thrift server.
    with socket.create_server(("127.0.0.1", 0)) as hung:
        port = settings.TWITBASE_HBASE_PORT
        settings.TWITBASE_HBASE_PORT = hung.getsockname()[1]
        settings.TWITBASE_HBASE_TIMEOUT_MS = 300
        reset_pool()
        try:
            error(api.get("/api/users/alice"), 503)
            # Timed out: a read is not run again, which would only double the wait.
            with pytest.raises(StorageUnavailable) as raised:
                services.get_user("alice")
            assert raised.value.timed_out and not raised.value.retryable
        finally:
            reset_pool()
            settings.TWITBASE_HBASE_PORT = port
