"""Revocable tokens, throttled log-ins, password changes and suspended
accounts through the JSON API (issue 9)."""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from feeds import services
from feeds.services import accounts
from feeds.types import User
from storage import keys, rows
from storage.connection import connection, table_name
from tests.helpers import PASSWORD, hold_rate_clock, socket_turns

from .helpers import Api, error

NEW_PASSWORD = "a-brand-new-secret-9"


def web_session(userid: str, password: str = PASSWORD) -> Client:
    client = Client()
    response = client.post("/login", {"userid": userid, "password": password})
    assert response.status_code == 302
    return client


def web_logged_in(client: Client) -> bool:
    return "Log out" in client.get("/").content.decode()


def test_log_out_everywhere_revokes_every_token_and_session(api: Api, alice: User) -> None:
    phone, laptop = api.login("alice"), api.login("alice")
    browser = web_session("alice")
    assert phone.post("/api/logout/everywhere").status_code == 204
    for client in (phone, laptop):
        response = client.get("/api/stream")
        error(response, 401)
        assert response["WWW-Authenticate"] == 'Bearer error="invalid_token"'
    assert not web_logged_in(browser)
    # A new log-in works.
    assert api.login("alice").get("/api/stream").status_code == 200


def test_a_token_is_read_with_its_users_row_in_one_round_trip(api: Api, alice: User) -> None:
    """A token begins with its user's id, so the token's row and the user's
    are read at once: one round trip where the token's row named the user
    to read next."""
    token = api.login("alice").token
    assert token.startswith("alice.")
    user, turns = socket_turns(lambda: services.token_user(token))
    assert turns == ["write", "read"]
    assert user == services.get_user("alice")
    assert api.login("alice").get("/api/stream").status_code == 200


def _stored_token(token: str, userid: str) -> None:
    """A tokens row for ``token``, as :func:`services.issue_token` writes one."""
    user = services.get_user(userid)
    with connection() as conn:
        conn.table(table_name("tokens")).put(
            keys.token_key(token),
            rows.encode_token(userid, int(time.time() * 1000), user.auth_generation, rows.KIND_API),
        )


def test_the_tokens_row_decides_whom_it_signs_in_not_its_name(
    api: Api, alice: User, bob: User
) -> None:
    token = api.login("alice").token
    _, _, secret = token.partition(".")
    # The name is hashed with the rest: another name, or none, is no token.
    for forged in (f"bob.{secret}", secret, f"Alice.{secret}", f"alice.{secret}x"):
        assert services.token_user(forged) is None, forged
    # A token issued before tokens were named: its row names the user, read next.
    unnamed = secrets.token_urlsafe(32)
    _stored_token(unnamed, "alice")
    user, turns = socket_turns(lambda: services.token_user(unnamed))
    assert user == services.get_user("alice")
    assert turns == ["write", "read", "write", "read"]
    # A name that is not the row's user signs in the row's user.
    misnamed = f"bob.{secrets.token_urlsafe(32)}"
    _stored_token(misnamed, "alice")
    assert services.token_user(misnamed) == services.get_user("alice")
    posted = Api(Client(), misnamed).post("/api/twits", {"text": "whose is this"})
    assert posted.status_code == 201 and posted.json()["userid"] == "alice"


def test_log_out_everywhere_needs_a_valid_token(api: Api, alice: User) -> None:
    error(api.post("/api/logout/everywhere"), 401)
    phone = api.login("alice")
    phone.post("/api/logout")
    error(phone.post("/api/logout/everywhere"), 401)


def test_changing_the_password_keeps_this_token_and_revokes_the_others(
    api: Api, alice: User
) -> None:
    here, there = api.login("alice"), api.login("alice")
    browser = web_session("alice")
    response = here.post(
        "/api/password", {"current_password": PASSWORD, "new_password": NEW_PASSWORD}
    )
    assert response.status_code == 204, response.content
    assert here.get("/api/stream").status_code == 200
    error(there.get("/api/stream"), 401)
    assert not web_logged_in(browser)
    error(api.post("/api/login", {"userid": "alice", "password": PASSWORD}), 401)
    assert api.login("alice", NEW_PASSWORD).get("/api/stream").status_code == 200


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        (
            {"current_password": "wrong-password", "new_password": NEW_PASSWORD},
            "current_password",
            "That is not your current password.",
        ),
        (
            {"current_password": PASSWORD, "new_password": "12345678"},
            "new_password",
            "This password is too common. This password is entirely numeric.",
        ),
        (
            {"current_password": PASSWORD, "new_password": "short"},
            "new_password",
            "A password is at least 8 characters.",
        ),
        ({"current_password": PASSWORD}, "new_password", "new_password is required"),
    ],
)
def test_a_bad_password_change_changes_nothing(
    as_alice: Api, body: dict[str, Any], field: str, message: str
) -> None:
    other = Api(Client()).login("alice")
    response = as_alice.post("/api/password", body)
    assert error(response, 400).startswith(message)
    assert response.json()["field"] == field
    assert services.authenticate("alice", PASSWORD) is not None
    assert other.get("/api/stream").status_code == 200


def test_a_password_change_needs_a_token(api: Api, alice: User) -> None:
    body = {"current_password": PASSWORD, "new_password": NEW_PASSWORD}
    error(api.post("/api/password", body), 401)


def test_disabling_revokes_tokens_for_good(api: Api, alice: User) -> None:
    as_alice = api.login("alice")
    services.set_disabled("alice")
    error(as_alice.get("/api/stream"), 401)
    services.set_disabled("alice", False)
    error(as_alice.get("/api/stream"), 401)
    assert api.login("alice").get("/api/stream").status_code == 200


def login_from(api: Api, address: str, userid: str, password: str) -> Any:
    return api.client.post(
        "/api/login",
        json.dumps({"userid": userid, "password": password}),
        content_type="application/json",
        REMOTE_ADDR=address,
    )


def test_failed_log_ins_are_throttled_with_retry_after(
    api: Api, alice: User, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.TWITBASE_LOGIN_FAILS_PER_ACCOUNT = 4
    settings.TWITBASE_LOGIN_FAILS_PER_ADDRESS = 1000
    hold_rate_clock(monkeypatch)  # every attempt in one window
    for i in range(4):
        error(login_from(api, f"198.51.100.{i}", "alice", "wrong-password"), 401)
    checked: list[str] = []
    monkeypatch.setattr(accounts, "check_password", lambda *a: checked.append("x") or True)
    response = login_from(api, "198.51.100.200", "alice", PASSWORD)
    assert "Too many failed log-ins for this account" in error(response, 429)
    assert 0 < int(response["Retry-After"]) <= settings.TWITBASE_LOGIN_WINDOW_S
    assert checked == []


def test_the_per_address_limit_spans_accounts(
    api: Api, alice: User, bob: User, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.TWITBASE_LOGIN_FAILS_PER_ADDRESS = 3
    hold_rate_clock(monkeypatch)  # every attempt in one window
    for userid in ("alice", "bob", "no_such_user"):
        error(login_from(api, "203.0.113.5", userid, "wrong-password"), 401)
    response = login_from(api, "203.0.113.5", "bob", PASSWORD)
    assert "from your address" in error(response, 429)
    assert login_from(api, "203.0.113.6", "bob", PASSWORD).status_code == 200


def test_a_suspended_account_is_hidden_and_cannot_be_followed(
    api: Api, as_bob: Api, alice: User
) -> None:
    twit = services.post_twit("alice", "hello")
    paths = [
        "/api/users/alice",
        "/api/users/alice/twits",
        "/api/users/alice/followers",
        "/api/users/alice/following",
        f"/api/twits/{twit.id}",
    ]
    for path in paths:
        assert api.get(path).status_code == 200, path
    services.set_disabled("alice")
    for path in paths:
        assert error(api.get(path), 404) == "This account is suspended.", path
    response = as_bob.put("/api/follows/alice")
    assert "it cannot be followed" in error(response, 404)
    assert not services.is_following("bob", "alice")


def test_sign_up_refuses_a_numeric_common_password(api: Api) -> None:
    body = {"userid": "dora", "name": "Dora", "email": "d@example.com", "password": "12345678"}
    response = api.post("/api/users", body)
    message = error(response, 400)
    assert response.json()["field"] == "password"
    assert "too common" in message and "entirely numeric" in message
    assert services.find_user("dora") is None
