"""The pages answer a limited action with 429, Retry-After and the limit's
message: a sign-up form keeps its input; a follow button's page and the avatar
form say why."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from pytest_django.fixtures import Settings

from feeds import services
from feeds.types import User
from tests.helpers import PASSWORD, ServerAddr, hold_rate_clock
from tests.images import image


def sign_up(userid: str, address: str) -> Client:
    client = Client(REMOTE_ADDR=address)
    fields = {"userid": userid, "name": userid.title(), "email": f"{userid}@example.com"}
    client.post("/signup", {**fields, "password": PASSWORD})
    return client


def test_sign_ups_over_the_limit_get_429_with_the_message_and_the_form_kept(
    web: ServerAddr, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.TWITBASE_SIGNUPS_PER_MINUTE = 2
    hold_rate_clock(monkeypatch)
    for userid in ("dora", "erin"):
        assert services.find_user(userid) is None
        sign_up(userid, "203.0.113.20")
        assert services.find_user(userid) is not None
    response = Client(REMOTE_ADDR="203.0.113.20").post(
        "/signup",
        {"userid": "frank", "name": "Frank", "email": "frank@example.com", "password": PASSWORD},
    )
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 60
    html = response.content.decode()
    assert "You can sign up 2 accounts a minute from your address. Try again in" in html
    assert 'value="frank"' in html
    assert services.find_user("frank") is None
    sign_up("gina", "198.51.100.20")
    assert services.find_user("gina") is not None


def test_follow_flapping_gets_429_with_the_message(
    alice: User, bob_client: Client, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.TWITBASE_FOLLOWS_PER_MINUTE = 2
    hold_rate_clock(monkeypatch)
    assert bob_client.post("/u/alice/follow").status_code == 302
    assert bob_client.post("/u/alice/unfollow").status_code == 302
    response = bob_client.post("/u/alice/follow")
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 60
    assert "You can follow or unfollow 2 times a minute. Try again in" in response.content.decode()
    assert not services.is_following("bob", "alice")


def test_avatar_uploads_over_the_limit_get_429_with_the_message(
    alice_client: Client, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.TWITBASE_AVATAR_UPLOADS_PER_MINUTE = 2
    hold_rate_clock(monkeypatch)

    def upload() -> Any:
        picture = SimpleUploadedFile("me.png", image("PNG"))
        return alice_client.post("/account/avatar", {"avatar": picture})

    assert upload().status_code == 302
    assert upload().status_code == 302
    version = services.get_user("alice").avatar
    response = upload()
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 60
    assert "You can upload 2 avatars a minute. Try again in" in response.content.decode()
    assert services.get_user("alice").avatar == version


def test_images_over_the_limit_get_429_and_the_composer_keeps_the_text(
    alice_client: Client, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.TWITBASE_IMAGE_UPLOADS_PER_MINUTE = 2

    def post(text: str, images: int) -> Any:
        slots = {
            f"image{n}": SimpleUploadedFile(f"{n}.png", image("PNG")) for n in range(1, images + 1)
        }
        return alice_client.post("/", {"text": text, **slots})

    hold_rate_clock(monkeypatch)
    assert post("two pictures", 2).status_code == 302
    response = post("one more picture", 1)
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 60
    html = response.content.decode()
    assert "You can upload 2 images a minute. Try again in" in html
    assert "one more picture</textarea>" in html
    assert [t.text for t in services.timeline("alice").items] == ["two pictures"]
