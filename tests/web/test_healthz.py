"""/healthz: 200 when storage and the broker answer; otherwise 503 naming
what is down. Posting goes on while only the broker is down."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from devtools.processes import RedisProcess, free_port
from feeds import services
from feeds.types import User
from tests.helpers import register
from tests.outage import storage_down
from tests.web.helpers import logged_in
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


# An address on the internet (TEST-NET-3), as a client's peer address.
STRANGER = "203.0.113.9"


def _parts(client: Client, **headers: str) -> tuple[int, dict[str, Any]]:
    response = client.get("/healthz", headers=headers)
    return response.status_code, response.json()


def test_the_public_sees_ok_or_down_per_part_and_no_details(
    web: object, broker: str, settings: Settings
) -> None:
    status, body = _parts(Client(REMOTE_ADDR=STRANGER))
    assert status == 200
    assert body == {"status": "ok", "down": [], "storage": {"ok": True}, "broker": {"ok": True}}
    with storage_down(settings) as dead_port:
        status, body = _parts(Client(REMOTE_ADDR=STRANGER))
        # Through a proxy on this host, the peer is loopback for everyone.
        proxied = [
            _parts(Client(), **{header: STRANGER})
            for header in ("X-Forwarded-For", "Forwarded", "X-Real-IP")
        ]
        _, local = _parts(Client())
    assert status == 503
    assert body == {
        "status": "down",
        "down": ["storage"],
        "storage": {"ok": False},
        "broker": {"ok": True},
    }
    assert proxied == [(503, body)] * 3
    assert str(dead_port) in str(local["storage"]["detail"])


@pytest.fixture
def sam(alice: User) -> User:
    register("sam")
    return services.set_staff("sam")


def test_staff_and_this_host_see_the_details(web: object, broker: str, sam: User) -> None:
    staff = logged_in("sam")
    staff.defaults["REMOTE_ADDR"] = STRANGER
    for client in (staff, Client(REMOTE_ADDR="::1"), Client(REMOTE_ADDR="127.0.0.1")):
        status, body = _parts(client)
        assert status == 200
        assert body["storage"]["tables"] >= 10
        assert body["broker"]["detail"]
    alice = logged_in("alice")
    alice.defaults["REMOTE_ADDR"] = STRANGER
    assert "detail" not in _parts(alice)[1]["storage"]
