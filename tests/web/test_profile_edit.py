"""Editing one's profile on the web (issue 37): the account page's form
changes the display name and the bio through the service the API uses, and
the profile shows both; a refused change keeps what was typed with the
reason on its field; an avatar larger than any request the site reads comes
back to the form with the limit the service enforces on its field, not the
413 page; "Follows you" on a profile and in people lists."""

from __future__ import annotations

import re

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from feeds import services
from feeds.services import accounts, avatars
from feeds.types import User


def _field_error(html: str, field: str) -> str:
    found = re.search(rf'<p class="field-error" id="id_{field}_error">([^<]*)</p>', html)
    assert found, f"no error on {field}"
    return found.group(1)


def test_the_form_changes_the_name_and_bio_the_profile_shows(
    alice_client: Client, bob_client: Client
) -> None:
    page = alice_client.get("/account").content.decode()
    assert 'action="/account/profile"' in page
    assert 'name="name" value="Alice"' in page
    response = alice_client.post(
        "/account/profile", {"name": "Alice Liddell", "bio": "Down the rabbit hole.\nAnd back."}
    )
    assert response.status_code == 302
    assert response["Location"] == "/u/alice"
    user = services.get_user("alice")
    assert (user.name, user.bio) == ("Alice Liddell", "Down the rabbit hole.\nAnd back.")
    html = bob_client.get("/u/alice").content.decode()
    assert '<p class="profile-bio">Down the rabbit hole.<br>And back.</p>' in html
    assert "<h1>Alice Liddell</h1>" in html
    assert "Your profile is saved." in alice_client.get("/u/alice").content.decode()
    # The form shows what is stored now.
    assert "Down the rabbit hole." in alice_client.get("/account").content.decode()


def test_a_refused_change_keeps_the_text_with_the_reason_on_its_field(
    alice_client: Client,
) -> None:
    long_bio = "b" * (accounts.BIO_MAX + 1)
    response = alice_client.post("/account/profile", {"name": "Alice", "bio": long_bio})
    assert response.status_code == 400
    html = response.content.decode()
    assert str(accounts.BIO_MAX) in _field_error(html, "bio")
    assert long_bio in html
    response = alice_client.post("/account/profile", {"name": "  ", "bio": "kept"})
    assert response.status_code == 400
    assert _field_error(response.content.decode(), "name")
    # A control character passes the form and is refused by the service, on its field.
    response = alice_client.post("/account/profile", {"name": "Al\x07ice", "bio": ""})
    assert response.status_code == 400
    assert "control" in _field_error(response.content.decode(), "name")
    assert services.get_user("alice").name == "Alice"
    assert services.get_user("alice").bio == ""


def test_an_avatar_over_the_request_limit_is_an_error_on_the_field(
    alice_client: Client,
) -> None:
    data = b"x" * (3 * 1024 * 1024)  # more than any request body read (2.5 MB)
    response = alice_client.post("/account/avatar", {"avatar": SimpleUploadedFile("big.png", data)})
    assert response.status_code == 302
    assert response["Location"].startswith("/account?avatar_too_large=")
    assert response["Location"].endswith("#avatar")
    html = alice_client.get(response["Location"]).content.decode()
    error = _field_error(html, "avatar")
    limit = f"at most {avatars.MAX_BYTES // (1024 * 1024)} MB"
    assert limit in error and "3.0 MB" in error
    # The form states the limit the service enforces, and the service says it too.
    assert f"PNG, JPEG, WebP or GIF, {limit};" in alice_client.get("/account").content.decode()
    just_over = b"x" * (avatars.MAX_BYTES + 1)
    response = alice_client.post(
        "/account/avatar", {"avatar": SimpleUploadedFile("over.png", just_over)}
    )
    assert response.status_code == 400
    assert limit in _field_error(response.content.decode(), "avatar")
    assert services.get_user("alice").avatar == 0


def test_follows_you_shows_on_the_profile_and_in_lists(
    alice_client: Client, bob: User, charlie: User
) -> None:
    services.follow("bob", "alice")
    services.follow("alice", "charlie")
    services.follow("bob", "charlie")
    assert "Follows you" in alice_client.get("/u/bob").content.decode()
    assert "Follows you" not in alice_client.get("/u/charlie").content.decode()
    followers = alice_client.get("/u/charlie/followers").content.decode()
    marks = re.findall(r'id="u-(\w+)".*?</li>', followers, re.S)
    assert marks == ["alice", "bob"] or marks == ["bob", "alice"]
    bob_row = re.search(r'id="u-bob".*?</li>', followers, re.S)
    alice_row = re.search(r'id="u-alice".*?</li>', followers, re.S)
    assert bob_row and "Follows you" in bob_row.group(0)
    assert alice_row and "Follows you" not in alice_row.group(0)
