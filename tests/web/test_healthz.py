"""/healthz: 200 when storage and the broker answer; otherwise 503 naming
what is down. Posting goes on while only the broker is down."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from devtools.processes import RedisProcess, free_port
from feeds import services
from feeds.types import User
from tests.outage import storage_down
from twitbase.celery import app as celery_app
from twitbase.celery import use_broker


@pytest.fixture
def broker(redis_broker: RedisProcess) -> Iterator[str]:
    """Tasks go to a real broker (not run in the caller); yields its URL."""
    eager, url = celery_app.conf.task_always_eager, celery_app.conf.broker_url
    celery_app.conf.task_always_eager = False
    use_broker(redis_broker.url)
    try:
        yield redis_broker.url
    finally:
        celery_app.conf.task_always_eager = eager
        use_broker(url)


def test_all_well_is_200(web: object, broker: str) -> None:
    response = Client().get("/healthz")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ok"
    assert body["down"] == []
    assert body["storage"]["ok"] and body["storage"]["tables"] >= 10
    assert body["broker"] == {"ok": True, "detail": "ok"}


def test_storage_down_is_503_naming_storage(web: object, broker: str, settings: Settings) -> None:
    with storage_down(settings):
        response = Client().get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["down"] == ["storage"]
    assert "TTransportException" in body["storage"]["detail"]
    assert body["broker"]["ok"]


def test_broker_down_is_503_naming_the_broker_and_posting_still_works(
    alice: User, broker: str
) -> None:
    use_broker(f"redis://127.0.0.1:{free_port()}/0")
    response = Client().get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["down"] == ["broker"]
    assert body["storage"]["ok"]
    assert "111" in body["broker"]["detail"] or "refused" in body["broker"]["detail"].lower()

    token = services.issue_token("alice", "password-123")
    assert token is not None
    posted = Client().post(
        "/api/twits",
        {"text": "the broker is down"},
        content_type="application/json",
        headers={"Authorization": f"Bearer {token[0]}"},
    )
    assert posted.status_code == 201
    assert services.timeline("alice").items[0].text == "the broker is down"
