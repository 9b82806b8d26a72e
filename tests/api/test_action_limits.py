"""The API answers a limited action with 429, Retry-After and the limit's
message, and documents it on each operation the limit guards."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from feeds.api import openapi
from feeds.services import ratelimit
from feeds.types import User
from tests.helpers import PASSWORD, ServerAddr, hold_rate_clock

from .helpers import Api, error


def sign_up(userid: str, address: str) -> Any:
    body = {"userid": userid, "name": userid.title(), "email": f"{userid}@example.com"}
    return Client().post(
        "/api/users",
        json.dumps({**body, "password": PASSWORD}),
        content_type="application/json",
        REMOTE_ADDR=address,
    )


def test_sign_ups_from_one_address_get_429_and_another_address_does_not(
    local_twitbase: ServerAddr, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.TWITBASE_SIGNUPS_PER_MINUTE = 2
    hold_rate_clock(monkeypatch)
    assert sign_up("dora", "203.0.113.30").status_code == 201
    assert sign_up("erin", "203.0.113.30").status_code == 201
    refused = sign_up("frank", "203.0.113.30")
    assert "You can sign up 2 accounts a minute from your address" in error(refused, 429)
    assert 0 < int(refused["Retry-After"]) <= 60
    assert sign_up("frank", "198.51.100.30").status_code == 201


def test_follow_flapping_gets_429(
    as_alice: Api, bob: User, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.TWITBASE_FOLLOWS_PER_MINUTE = 3
    hold_rate_clock(monkeypatch)
    for method in (as_alice.put, as_alice.delete, as_alice.put):
        assert method("/api/follows/bob").status_code == 200
    refused = as_alice.delete("/api/follows/bob")
    assert "You can follow or unfollow 3 times a minute" in error(refused, 429)
    assert 0 < int(refused["Retry-After"]) <= 60
    assert as_alice.get("/api/users/bob").json()["followers"] == 1


def test_the_limited_operations_document_429_with_the_limit() -> None:
    guarded = {
        ("/api/users", "post"): ratelimit.SIGNUPS,
        ("/api/follows/{userid}", "put"): ratelimit.FOLLOWS,
        ("/api/follows/{userid}", "delete"): ratelimit.FOLLOWS,
        ("/api/twits/{twit_id}/like", "put"): ratelimit.REACTIONS,
        ("/api/twits/{twit_id}/like", "delete"): ratelimit.REACTIONS,
        ("/api/twits/{twit_id}/repost", "put"): ratelimit.REACTIONS,
        ("/api/twits/{twit_id}/repost", "delete"): ratelimit.REACTIONS,
        ("/api/users/{userid}/avatar", "put"): ratelimit.AVATAR_UPLOADS,
        ("/api/media", "post"): ratelimit.IMAGE_UPLOADS,
        ("/api/lists", "post"): ratelimit.LIST_CHANGES,
        ("/api/lists/{list_id}", "delete"): ratelimit.LIST_CHANGES,
        ("/api/lists/{list_id}/members/{userid}", "put"): ratelimit.LIST_CHANGES,
        ("/api/lists/{list_id}/members/{userid}", "delete"): ratelimit.LIST_CHANGES,
    }
    paths = openapi.SCHEMA["paths"]
    for (path, method), limit in guarded.items():
        answer = paths[path][method]["responses"][429]
        assert answer["description"].startswith(limit.message.format(count=limit.count))
        assert "Retry-After" in answer["headers"]
