"""Password reset and two-factor sign-in through the JSON API (issue 36):
POST /api/password/reset and /api/password/reset/confirm, the /api/2fa
operations, and POST /api/login's code."""

from __future__ import annotations

import re

import pyotp
from django.core import mail

from feeds import services
from feeds.types import User
from tests.helpers import PASSWORD

from .helpers import Api, error

NEW_PASSWORD = "a-brand-new-secret-9"


def emailed_token() -> str:
    found = re.search(r"/password/reset/([A-Za-z0-9_-]+)", str(mail.outbox[-1].body))
    assert found is not None
    return found.group(1)


def test_a_reset_asked_through_the_api_is_confirmed_through_it(api: Api, as_alice: Api) -> None:
    asked = api.post("/api/password/reset", {"userid": "alice"})
    assert asked.status_code == 202, asked.content
    assert mail.outbox[-1].to == ["alice@example.com"]
    token = emailed_token()
    weak = api.post("/api/password/reset/confirm", {"token": token, "new_password": "short"})
    assert weak.status_code == 400 and weak.json()["field"] == "new_password"
    done = api.post("/api/password/reset/confirm", {"token": token, "new_password": NEW_PASSWORD})
    assert done.status_code == 204, done.content
    error(as_alice.get("/api/stream"), 401)  # every token ended
    api.login("alice", NEW_PASSWORD)
    again = api.post("/api/password/reset/confirm", {"token": token, "new_password": PASSWORD})
    assert error(again, 400).startswith("This reset link is invalid")
    assert again.json()["field"] == "token"


def test_a_reset_of_an_unknown_account_answers_the_same(api: Api, alice: User) -> None:
    for userid in ("nobody", "alice"):
        response = api.post("/api/password/reset", {"userid": userid})
        assert response.status_code == 202 and response.content == b""
    assert len(mail.outbox) == 1
    error(api.post("/api/password/reset", {"userid": 7}), 400)
    error(
        api.post("/api/password/reset/confirm", {"token": "x", "new_password": NEW_PASSWORD}), 400
    )


def test_two_factor_enrolment_and_log_in_with_a_code(api: Api, as_alice: Api) -> None:
    assert as_alice.get("/api/2fa").json() == {"enabled": False, "recovery_codes_left": 0}
    begun = as_alice.post("/api/2fa", {})
    assert begun.status_code == 200, begun.content
    secret, uri = begun.json()["secret"], begun.json()["uri"]
    assert uri.startswith("otpauth://totp/TwitBase:alice?secret=" + secret)
    wrong = as_alice.post("/api/2fa/confirm", {"code": "12345"})
    assert error(wrong, 400) and wrong.json()["field"] == "code"
    confirmed = as_alice.post("/api/2fa/confirm", {"code": pyotp.TOTP(secret).now()})
    assert confirmed.status_code == 200
    codes = confirmed.json()["recovery_codes"]
    assert len(codes) == 10
    error(as_alice.post("/api/2fa", {}), 409)

    needs = api.post("/api/login", {"userid": "alice", "password": PASSWORD})
    assert error(needs, 401) and needs.json()["field"] == "code"
    bad = api.post("/api/login", {"userid": "alice", "password": PASSWORD, "code": "000000x"})
    error(bad, 401)
    good = api.post("/api/login", {"userid": "alice", "password": PASSWORD, "code": codes[0]})
    assert good.status_code == 200, good.content
    assert as_alice.get("/api/2fa").json() == {"enabled": True, "recovery_codes_left": 9}

    fresh = as_alice.post("/api/2fa/recovery-codes", {"code": codes[1]})
    assert fresh.status_code == 200 and set(fresh.json()["recovery_codes"]).isdisjoint(codes)

    refused = as_alice.request("DELETE", "/api/2fa", {"code": "guess-guess"})
    assert error(refused, 400) and refused.json()["field"] == "code"
    off = as_alice.request("DELETE", "/api/2fa", {"code": PASSWORD})
    assert off.status_code == 204
    api.login("alice")


def test_two_factor_operations_need_a_token(api: Api, alice: User) -> None:
    error(api.get("/api/2fa"), 401)
    error(api.post("/api/2fa", {}), 401)
    error(api.post("/api/2fa/confirm", {"code": "123456"}), 401)
    error(api.request("DELETE", "/api/2fa", {"code": PASSWORD}), 401)
    assert services.get_user("alice").auth_generation == 0


def test_the_operations_are_in_the_openapi_document() -> None:
    from feeds.api import openapi

    assert set(openapi.PATHS["/api/password/reset"]) == {"post"}
    assert set(openapi.PATHS["/api/password/reset/confirm"]) == {"post"}
    assert set(openapi.PATHS["/api/2fa"]) == {"get", "post", "delete"}
    assert set(openapi.PATHS["/api/2fa/confirm"]) == {"post"}
    assert set(openapi.PATHS["/api/2fa/recovery-codes"]) == {"post"}
    login = openapi.SCHEMA["components"]["schemas"]["Login"]["properties"]
    assert "code" in login
