"""HTTP at the edges: HEAD wherever GET works, 413 for an oversized body,
and what a too-long URL gets, through Django's test client and through the
development server that devstack runs."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings as django_settings
from django.test import Client
from pytest_django.fixtures import Settings

from devtools.processes import WebServerProcess
from feeds import services
from feeds.types import User
from tests.console.helpers import PAGES as CONSOLE_PAGES
from tests.helpers import PASSWORD, ServerAddr
from tests.web.helpers import csrf_token

TEN_MB = 10 * 1024 * 1024


@pytest.fixture
def twit_id(alice: User, bob: User) -> str:
    services.follow("alice", "bob")
    return services.post_twit("bob", "hello").id


def get_urls(twit_id: str) -> list[str]:
    return [
        "/",
        "/healthz",
        "/u/bob",
        "/u/bob/followers",
        "/u/bob/following",
        f"/u/bob/t/{twit_id}",
        *CONSOLE_PAGES,
        "/api/users/bob",
        "/api/users/bob/twits",
        "/api/users/bob/followers",
        "/api/users/bob/following",
        f"/api/twits/{twit_id}",
        "/api/stream",
        "/api/schema",
    ]


def test_head_works_wherever_get_does(
    alice_client: Client, twit_id: str, settings: Settings
) -> None:
    services.set_staff("alice")
    token = services.issue_token("alice", "password-123")
    assert token is not None
    headers = {"Authorization": f"Bearer {token[0]}"}
    anonymous = Client()
    visits = [(alice_client, url) for url in get_urls(twit_id)]
    visits += [(anonymous, url) for url in ("/", "/login", "/signup", "/u/bob", "/api/users/bob")]
    for client, url in visits:
        got = client.get(url, headers=headers)
        head = client.head(url, headers=headers)
        assert got.status_code == 200, url
        assert head.status_code == 200, (url, head.content[:200])
        assert head.content == b"", url
        assert head["Content-Type"] == got["Content-Type"], url


# -- 413 -----------------------------------------------------------------------------


def big_form() -> str:
    return "text=" + "x" * TEN_MB


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("url", ["/", "/login", "/signup", "/u/bob/follow", "/console/users"])
def test_a_10_mb_form_post_is_a_styled_413_page(
    alice_client: Client, bob: User, settings: Settings, debug: bool, url: str
) -> None:
    settings.DEBUG = debug
    response = alice_client.post(url, big_form(), content_type="application/x-www-form-urlencoded")
    assert response.status_code == 413
    html = response.content.decode()
    assert "That was too much to send" in html
    assert 'class="card error-page"' in html
    # The header's navigation, as far as it goes before the session is read.
    assert '<nav class="nav" aria-label="Main">' in html
    assert 'id="nav-q"' in html
    assert "Traceback" not in html
    assert services.timeline("alice").items == ()


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "application/json"])
def test_a_10_mb_post_to_the_api_is_a_json_413(
    alice: User, settings: Settings, content_type: str
) -> None:
    settings.DEBUG = True
    token = services.issue_token("alice", "password-123")
    assert token is not None
    response = Client().post(
        "/api/twits",
        big_form(),
        content_type=content_type,
        headers={"Authorization": f"Bearer {token[0]}"},
    )
    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert str(django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE) in response.json()["error"]
    assert services.timeline("alice").items == ()


def test_a_body_within_the_limit_is_still_read(alice_client: Client) -> None:
    response = alice_client.post("/", {"text": "small"})
    assert response.status_code == 302


# -- long cursors ----------------------------------------------------------------------


@pytest.mark.parametrize("length", [257, 100_000])
def test_a_cursor_over_the_limit_is_a_json_400_naming_it(alice: User, length: int) -> None:
    response = Client().get("/api/users/alice/twits", {"cursor": "A" * length})
    assert response.status_code == 400
    body = response.json()
    assert body["field"] == "cursor"
    assert "at most 256 characters" in body["error"]


def test_a_cursor_over_the_limit_is_a_400_page(alice: User) -> None:
    response = Client().get("/u/alice", {"cursor": "A" * 100_000})
    assert response.status_code == 400
    assert "longer than 256 characters" in response.content.decode()


@pytest.fixture
def runserver(local_twitbase: ServerAddr, tmp_path: Path) -> Iterator[str]:
    """``manage.py runserver``, as devstack runs it, on this test's tables."""
    env = {
        "TWITBASE_HBASE_HOST": django_settings.TWITBASE_HBASE_HOST,
        "TWITBASE_HBASE_PORT": str(django_settings.TWITBASE_HBASE_PORT),
        "TWITBASE_TABLE_PREFIX": django_settings.TWITBASE_TABLE_PREFIX,
        "DJANGO_DEBUG": "1",
        "CELERY_TASK_ALWAYS_EAGER": "1",
    }
    with WebServerProcess(env, tmp_path / "runserver.log") as web:
        yield web.url


def fetch(
    base: str, method: str, target: str, body: bytes | None = None
) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.putrequest(method, target, skip_accept_encoding=True)
        if body is not None:
            conn.putheader("Content-Type", "application/x-www-form-urlencoded")
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def test_the_dev_server_answers_a_100_kb_api_url_with_json(runserver: str, alice: User) -> None:
    status, headers, body = fetch(
        runserver, "GET", "/api/users/alice/twits?cursor=" + "A" * 100_000
    )
    assert status == 414
    assert headers["Content-Type"] == "application/json"
    assert "too long" in json.loads(body)["error"]


def test_the_dev_server_takes_a_long_cursor_within_its_limit_to_the_app(
    runserver: str, alice: User
) -> None:
    status, _, body = fetch(runserver, "GET", "/api/users/alice/twits?cursor=" + "A" * 60_000)
    assert status == 400
    assert json.loads(body)["field"] == "cursor"


def test_the_dev_server_sends_no_body_for_head(runserver: str, alice: User) -> None:
    for target in ("/u/alice", "/api/users/alice"):
        status, _, body = fetch(runserver, "HEAD", target)
        assert status == 200, target
        assert body == b"", target


def test_the_dev_server_answers_a_10_mb_form_with_the_413_page(runserver: str) -> None:
    for target in ("/login", "/api/twits"):
        status, headers, body = fetch(runserver, "POST", target, big_form().encode())
        assert status == 413, target
        if target.startswith("/api/"):
            assert headers["Content-Type"] == "application/json"
            assert json.loads(body)["error"]
        else:
            assert "That was too much to send" in body.decode()


def test_an_expired_form_keeps_the_header_of_whoever_is_logged_in(alice: User) -> None:
    client = Client(enforce_csrf_checks=True)
    token = csrf_token(client.get("/login").content.decode())
    client.post("/login", {"userid": "alice", "password": PASSWORD, "csrfmiddlewaretoken": token})
    response = client.post("/", {"text": "no token"})
    assert response.status_code == 403
    html = response.content.decode()
    assert "This form has expired" in html
    assert 'href="/u/alice"' in html and "Log out" in html  # alice's own header
    assert services.timeline("alice").items == ()
