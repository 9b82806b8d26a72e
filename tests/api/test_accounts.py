"""Sign-up, profiles, log-in and log-out through the JSON API."""

from __future__ import annotations

import pytest

from feeds import services
from feeds.api import openapi
from feeds.types import User
from tests.helpers import PASSWORD

from .helpers import Api, error


def test_sign_up_returns_the_new_profile(api: Api) -> None:
    response = api.post(
        "/api/users",
        {"userid": "alice", "name": " Alice ", "email": "a@example.com", "password": PASSWORD},
    )
    assert response.status_code == 201
    assert response["Location"] == "/api/users/alice"
    profile = response.json()
    created = profile.pop("created")
    assert profile == {
        "userid": "alice",
        "name": "Alice",
        "twits": 0,
        "followers": 0,
        "following": 0,
        "bio": "",
        "avatar_url": "/u/alice/avatar",
        "pinned": None,
    }
    assert created.endswith("Z") and len(created) == len("2026-11-21T12:00:00.123Z")
    assert "email" not in api.get("/api/users/alice").json()


def test_a_taken_userid_is_a_conflict_whatever_its_case(api: Api, alice: User) -> None:
    response = api.post(
        "/api/users",
        {"userid": "ALICE", "name": "Other", "email": "o@example.com", "password": PASSWORD},
    )
    assert "taken" in error(response, 409)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"userid": "al"}, "userid"),
        ({"userid": "al ice"}, "userid"),
        ({"name": "   "}, "name"),
        ({"email": "not-an-email"}, "email"),
        ({"password": "short"}, "password"),
        ({"password": 12345678}, "password"),
        ({"name": None}, "name"),
    ],
)
def test_sign_up_refuses_bad_fields_naming_them(api: Api, change: dict, field: str) -> None:
    body = {"userid": "alice", "name": "Alice", "email": "a@example.com", "password": PASSWORD}
    response = api.post("/api/users", body | change)
    error(response, 400)
    assert response.json()["field"] == field


def test_sign_up_requires_every_field(api: Api) -> None:
    response = api.post("/api/users", {"userid": "alice", "name": "Alice", "password": PASSWORD})
    assert "email" in error(response, 400)
    assert response.json()["field"] == "email"


def test_profile_shows_counts(api: Api, alice: User, bob: User) -> None:
    services.post_twit("alice", "hello")
    services.follow("bob", "alice")
    profile = api.get("/api/users/alice").json()
    assert (profile["twits"], profile["followers"], profile["following"]) == (1, 1, 0)
    assert api.get("/api/users/Alice").json()["userid"] == "alice"


@pytest.mark.parametrize("userid", ["nobody", "x", "a" * 300, "%00", "al%2Fice"])
def test_unknown_users_are_404(api: Api, alice: User, userid: str) -> None:
    error(api.get(f"/api/users/{userid}"), 404)


def test_login_returns_a_token_that_authenticates(api: Api, alice: User) -> None:
    response = api.post("/api/login", {"userid": "Alice", "password": PASSWORD})
    assert response.status_code == 200
    body = response.json()
    assert body["userid"] == "alice"
    assert services.token_user(body["token"]) == services.get_user("alice")


@pytest.mark.parametrize(
    "credentials",
    [
        {"userid": "alice", "password": "wrong-password"},
        {"userid": "nobody", "password": PASSWORD},
        {"userid": "", "password": ""},
    ],
)
def test_login_with_wrong_credentials_is_401(api: Api, alice: User, credentials: dict) -> None:
    response = api.post("/api/login", credentials)
    assert "Wrong userid or password" in error(response, 401)
    assert response["WWW-Authenticate"] == "Bearer"


@pytest.mark.parametrize(
    "body", [{"userid": "alice"}, {"userid": "alice", "password": 123}, {"password": PASSWORD}]
)
def test_login_needs_both_fields_as_strings(api: Api, alice: User, body: dict) -> None:
    error(api.post("/api/login", body), 400)


def test_a_disabled_user_cannot_log_in_and_loses_the_token(api: Api, alice: User) -> None:
    as_alice = api.login("alice")
    services.set_disabled("alice")
    error(as_alice.get("/api/stream"), 401)
    # On purpose since issue 9: the right password for a suspended account says so.
    response = api.post("/api/login", {"userid": "alice", "password": PASSWORD})
    assert error(response, 403) == "This account is suspended."


def test_logout_revokes_only_that_token(api: Api, alice: User) -> None:
    phone, laptop = api.login("alice"), api.login("alice")
    assert phone.post("/api/logout").status_code == 204
    response = phone.get("/api/stream")
    error(response, 401)
    assert response["WWW-Authenticate"] == 'Bearer error="invalid_token"'
    assert laptop.get("/api/stream").status_code == 200
    error(phone.post("/api/logout"), 401)


@pytest.mark.parametrize(
    "header",
    [
        "",
        "Bearer",
        "Bearer ",
        "Basic YWxpY2U6cGFzc3dvcmQ=",
        "Bearer not-a-token",
        "Bearer two tokens",
        "Bearer " + "x" * 5000,
        "Bearer \u00e9\u00e8",
        "Token abc",
    ],
)
def test_bad_authorization_headers_are_401(as_alice: Api, header: str) -> None:
    response = as_alice.request("GET", "/api/stream", headers={"Authorization": header})
    error(response, 401)
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_exactly_the_operations_documented_as_secured_need_a_token(api: Api, alice: User) -> None:
    twit = services.post_twit("alice", "hello")
    for path, operations in openapi.PATHS.items():
        concrete = path.replace("{userid}", "alice").replace("{twit_id}", twit.id)
        for method, operation in operations.items():
            response = api.request(method.upper(), concrete, {})
            if "security" in operation:
                assert "Log in" in error(response, 401), (method, path)
            else:
                assert response.status_code != 401, (method, path)


def test_the_scheme_is_case_insensitive(as_alice: Api) -> None:
    header = f"bearer {as_alice.token}"
    response = as_alice.request("GET", "/api/stream", headers={"Authorization": header})
    assert response.status_code == 200
