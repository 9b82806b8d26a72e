"""Bad requests of every kind get a JSON error with a 4xx status, never a 500."""

from __future__ import annotations

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from feeds import services
from feeds.services import accounts
from feeds.types import User

from .helpers import Api, error


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"{",
        b"not json",
        b"[]",
        b'["text"]',
        b'"text"',
        b"42",
        b"null",
        b"\xff\xfe{",
        b"[" * 100_000 + b"]" * 100_000,
        b'{"text": NaN}',
        b'{"text": 1' + b"0" * 5000 + b"}",
    ],
)
def test_a_body_that_is_not_a_json_object_is_400(as_alice: Api, raw: bytes) -> None:
    response = as_alice.request("POST", "/api/twits", raw=raw)
    assert error(response, 400)


def test_content_type_is_not_checked(as_alice: Api) -> None:
    response = as_alice.client.post(
        "/api/twits",
        '{"text": "from curl"}',
        content_type="application/x-www-form-urlencoded",
        headers={"Authorization": f"Bearer {as_alice.token}"},
    )
    assert response.status_code == 201


def test_a_huge_body_is_413(as_alice: Api, settings: Settings) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    error(as_alice.post("/api/twits", {"text": "x" * 2000}), 413)


@pytest.mark.parametrize(
    "limit", ["0", "101", "1000000", "-1", "abc", "", "1.5", "1e2", " 5", "\u0665", "9" * 5000]
)
def test_bad_limits_are_400(api: Api, alice: User, limit: str) -> None:
    response = api.get("/api/users/alice/twits", limit=limit)
    error(response, 400)
    assert response.json()["field"] == "limit"


@pytest.mark.parametrize(
    "cursor", ["garbage", "!!!!", "AAAA", "é", "\x00", "A" * 10_000, "YWxpY2U", "=" * 8]
)
def test_garbage_cursors_are_400(api: Api, alice: User, cursor: str) -> None:
    for path in ("/api/users/alice/twits", "/api/users/alice/followers"):
        response = api.get(path, cursor=cursor)
        error(response, 400)
        assert response.json()["field"] == "cursor"


def test_a_cursor_from_another_list_is_400(api: Api, alice: User, bob: User) -> None:
    for _ in range(2):
        services.post_twit("bob", "hi")
    cursor = api.get("/api/users/bob/twits", limit="1").json()["next_cursor"]
    assert cursor
    error(api.get("/api/users/alice/twits", cursor=cursor), 400)
    error(api.get("/api/users/bob/followers", cursor=cursor), 400)


def test_too_many_query_parameters_is_400(api: Api, alice: User) -> None:
    response = api.client.get("/api/users/alice/twits?" + "&".join(f"p{i}=1" for i in range(2000)))
    error(response, 400)


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("GET", "/api/login", "POST"),
        ("GET", "/api/twits", "POST"),
        ("PUT", "/api/twits/" + "0" * 56, "DELETE, GET, HEAD, PATCH"),
        ("POST", "/api/users/alice", "DELETE, GET, HEAD, PATCH"),
        ("GET", "/api/follows/alice", "DELETE, PUT"),
        ("POST", "/api/stream", "GET, HEAD"),
        ("DELETE", "/api/schema", "GET, HEAD"),
        ("OPTIONS", "/api/users", "POST"),
        ("HEAD", "/api/follows/alice", "DELETE, PUT"),
    ],
)
def test_wrong_methods_are_405_with_allow(api: Api, method: str, path: str, allow: str) -> None:
    response = api.request(method, path)
    assert response.status_code == 405
    assert response["Allow"] == allow
    if method != "HEAD":
        error(response, 405)


@pytest.mark.parametrize(
    "path",
    [
        "/api/",
        "/api/nope",
        "/api/users/",
        "/api/users/alice/bookmarks",
        "/api/twits/a/b",
        "/api/login/",
    ],
)
def test_unknown_api_urls_are_json_404(api: Api, path: str) -> None:
    for method in ("GET", "POST", "DELETE"):
        assert "No API endpoint" in error(api.request(method, path), 404)


def test_the_api_needs_no_csrf_token(alice: User) -> None:
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        "/api/login",
        {"userid": "alice", "password": "password-123"},
        content_type="application/json",
    )
    assert response.status_code == 200


def test_an_unexpected_failure_is_a_json_500(
    api: Api, alice: User, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(userid: str) -> User:
        raise RuntimeError("HBase is on fire")

    # accounts.public_user: what the profile endpoint reaches (through
    # blocks.visible_user since issue 36; services.public_user since issue 9).
    monkeypatch.setattr(accounts, "public_user", broken)
    assert error(api.get("/api/users/alice"), 500) == "Internal server error."
    assert "HBase is on fire" in caplog.text
