"""Avatars and account deletion through the JSON API: PUT/DELETE
/api/users/me/avatar (the image as the raw body) and DELETE /api/users/me."""

from __future__ import annotations

from django.test import Client

from feeds import services
from feeds.api import openapi
from feeds.types import User
from tests.helpers import PASSWORD
from tests.images import image, png_claiming

from .helpers import Api, error


def test_put_avatar_takes_the_raw_image_and_returns_the_profile(api: Api, as_alice: Api) -> None:
    response = as_alice.request("PUT", "/api/users/me/avatar", raw=image("GIF"))
    assert response.status_code == 200, response.content
    url = response.json()["avatar_url"]
    assert url.startswith("/u/alice/avatar?v=")
    assert api.get("/api/users/alice").json()["avatar_url"] == url
    served = Client().get(url)
    assert served.status_code == 200 and served["Content-Type"] == "image/webp"


def test_a_bad_image_is_400_naming_avatar_and_keeps_the_old_one(as_alice: Api) -> None:
    before = as_alice.request("PUT", "/api/users/me/avatar", raw=image()).json()["avatar_url"]
    for raw in (b"", b"{}", png_claiming(10_000, 10_000)):
        response = as_alice.request("PUT", "/api/users/me/avatar", raw=raw)
        error(response, 400)
        assert response.json()["field"] == "avatar"
    assert as_alice.get("/api/users/alice").json()["avatar_url"] == before


def test_avatar_operations_are_your_own(api: Api, as_alice: Api, bob: User) -> None:
    error(api.request("PUT", "/api/users/me/avatar", raw=image()), 401)
    error(as_alice.request("PUT", "/api/users/bob/avatar", raw=image()), 403)
    error(as_alice.request("DELETE", "/api/users/bob/avatar"), 403)
    as_alice.request("PUT", "/api/users/alice/avatar", raw=image())
    removed = as_alice.request("DELETE", "/api/users/me/avatar")
    assert removed.status_code == 200 and removed.json()["avatar_url"] == "/u/alice/avatar"


def test_delete_me_needs_the_password_then_ends_everything(
    api: Api, as_alice: Api, bob: User
) -> None:
    services.follow("bob", "alice")
    error(as_alice.request("DELETE", "/api/users/bob", {"password": PASSWORD}), 403)
    wrong = as_alice.request("DELETE", "/api/users/me", {"password": "guess-guess"})
    assert error(wrong, 400) == "That is not your password."
    assert wrong.json()["field"] == "password"
    error(as_alice.request("DELETE", "/api/users/me", {}), 400)
    gone = as_alice.request("DELETE", "/api/users/me", {"password": PASSWORD})
    assert gone.status_code == 202, gone.content
    error(as_alice.get("/api/stream"), 401)  # the token is gone
    error(api.get("/api/users/alice"), 404)
    assert api.get("/api/users/bob").json()["following"] == 0


def test_the_document_describes_the_raw_image_body() -> None:
    put = openapi.PATHS["/api/users/{userid}/avatar"]["put"]
    assert set(put["requestBody"]["content"]) == {
        "image/png",
        "image/jpeg",
        "image/webp",
        "image/gif",
    }
    assert openapi.PATHS["/api/users/{userid}"]["delete"]["requestBody"]["required"]
