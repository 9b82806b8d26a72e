"""Editing your profile through the JSON API: PATCH /api/users/me."""

from __future__ import annotations

from feeds.types import User

from .helpers import Api, error


def test_patch_me_changes_name_and_bio(api: Api, as_alice: Api) -> None:
    response = as_alice.request("PATCH", "/api/users/me", {"name": "Alice L.", "bio": "<b>hi</b>"})
    assert response.status_code == 200, response.content
    assert (response.json()["name"], response.json()["bio"]) == ("Alice L.", "<b>hi</b>")
    public = api.get("/api/users/alice").json()
    assert (public["name"], public["bio"]) == ("Alice L.", "<b>hi</b>")
    # Leaving a field out keeps it.
    kept = as_alice.request("PATCH", "/api/users/alice", {"bio": "two"}).json()
    assert (kept["name"], kept["bio"]) == ("Alice L.", "two")


def test_patch_needs_a_token_and_your_own_profile(api: Api, as_alice: Api, bob: User) -> None:
    error(api.request("PATCH", "/api/users/me", {"bio": "x"}), 401)
    error(as_alice.request("PATCH", "/api/users/bob", {"bio": "x"}), 403)
    assert api.get("/api/users/bob").json()["bio"] == ""


def test_bad_profile_input_is_400_naming_the_field(api: Api, as_alice: Api) -> None:
    assert error(as_alice.request("PATCH", "/api/users/me", {"bio": "b" * 161}), 400)
    response = as_alice.request("PATCH", "/api/users/me", {"name": "ok", "bio": "bad\x07"})
    assert response.status_code == 400 and response.json()["field"] == "bio"
    assert api.get("/api/users/alice").json()["name"] == "Alice"
