"""POST /api/login's device token: an API client that has logged in before
gets in while strangers' guesses have the account locked for them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from feeds.api import openapi
from feeds.types import User
from tests.helpers import PASSWORD, hold_rate_clock

from .helpers import Api, error


def login(password: str, address: str, device: str | None = None) -> Any:
    body = {"userid": "alice", "password": password}
    if device is not None:
        body["device"] = device
    return Client().post(
        "/api/login", json.dumps(body), content_type="application/json", REMOTE_ADDR=address
    )


def test_a_client_with_its_device_token_gets_in_past_a_lockout(
    api: Api, alice: User, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.TWITBASE_LOGIN_FAILS_PER_ACCOUNT = 4
    settings.TWITBASE_LOGIN_FAILS_PER_DEVICE = 2
    hold_rate_clock(monkeypatch)  # every attempt in one window
    first = login(PASSWORD, "192.0.2.1")
    assert first.status_code == 200
    device = first.json()["device"]
    for i in range(11):
        login(f"guess-{i}", f"198.51.100.{i + 1}")
    assert "for this account" in error(login(PASSWORD, "203.0.113.1"), 429)
    again = login(PASSWORD, "203.0.113.2", device)
    assert again.status_code == 200 and again.json()["device"] != device
    # The device's own count: two wrong, then it waits too.
    for _ in range(2):
        error(login("wrong-again", "203.0.113.2", device), 401)
    assert "from this device" in error(login(PASSWORD, "203.0.113.2", device), 429)


def test_the_device_token_is_in_the_openapi_document() -> None:
    schemas = openapi.SCHEMA["components"]["schemas"]
    assert "device" in schemas["Login"]["properties"]
    assert "device" not in schemas["Login"].get("required", [])
    assert "device" in schemas["Token"]["required"]
