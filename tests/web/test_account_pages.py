"""The account page's avatar and deletion, the avatar URL, follow buttons in
people lists, and who to follow on the home page."""

from __future__ import annotations

import re

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from feeds import services
from feeds.types import User
from tests.helpers import PASSWORD
from tests.images import image, png_claiming
from tests.web.helpers import logged_in


def _upload(client: Client, data: bytes, name: str = "me.png") -> object:
    return client.post("/account/avatar", {"avatar": SimpleUploadedFile(name, data)})


def test_uploading_an_avatar_shows_it_everywhere_with_a_versioned_url(
    alice_client: Client, bob: User
) -> None:
    response = _upload(alice_client, image("JPEG", (500, 300)))
    assert response.status_code == 302  # type: ignore[attr-defined]
    version = services.get_user("alice").avatar
    assert version > 0
    services.post_twit("alice", "with a face")
    services.follow("bob", "alice")
    page = alice_client.get("/account").content.decode()
    assert f'src="/u/alice/avatar?v={version}"' in page
    assert "Your avatar is changed." in page
    assert f'src="/u/alice/avatar?v={version}"' in alice_client.get("/u/alice").content.decode()
    # Lists and twits name the URL without a version (revalidated by ETag).
    assert 'src="/u/alice/avatar"' in alice_client.get("/u/bob/following").content.decode()


def test_a_bad_upload_says_why_and_keeps_the_avatar(alice_client: Client) -> None:
    _upload(alice_client, image())
    before = services.get_user("alice").avatar
    for data, reason in (
        (b"GIF89a garbage", "not a PNG, JPEG, WebP or GIF"),
        (png_claiming(6000, 6000), "at most 16 megapixels"),
        (b"x" * (2 * 1024 * 1024 + 10), "at most 2 MB"),
    ):
        response = _upload(alice_client, data)
        assert response.status_code == 400  # type: ignore[attr-defined]
        assert reason in response.content.decode()  # type: ignore[attr-defined]
        assert services.get_user("alice").avatar == before
    response = alice_client.post("/account/avatar", {})
    assert "Choose an image file to upload." in response.content.decode()


def test_removing_the_avatar(alice_client: Client) -> None:
    _upload(alice_client, image())
    assert alice_client.post("/account/avatar/remove").status_code == 302
    assert services.get_user("alice").avatar == 0
    assert alice_client.get("/account/avatar/remove").status_code == 405


def test_the_avatar_url_caches_a_version_for_good_and_revalidates_otherwise(
    alice: User, client: Client
) -> None:
    default = client.get("/u/alice/avatar")
    assert default.status_code == 200
    assert default["Content-Type"] == "image/svg+xml"
    assert b">A</text>" in default.content
    services.set_avatar("alice", image())
    version = services.get_user("alice").avatar
    fresh = client.get(f"/u/alice/avatar?v={version}")
    assert fresh["Content-Type"] == "image/webp"
    assert "immutable" in fresh["Cache-Control"]
    plain = client.get("/u/alice/avatar")
    assert plain["Cache-Control"] == "public, no-cache"
    assert plain.content == fresh.content
    again = client.get("/u/alice/avatar", HTTP_IF_NONE_MATCH=plain["ETag"])
    assert again.status_code == 304 and again.content == b""
    assert "immutable" not in client.get("/u/alice/avatar?v=1")["Cache-Control"]
    assert client.get("/u/nobody/avatar").status_code == 404


def test_people_lists_have_follow_buttons_that_know_whom_you_follow(
    alice_client: Client, bob: User, charlie: User
) -> None:
    services.follow("alice", "bob")
    services.follow("bob", "charlie")
    services.follow("bob", "alice")
    page = alice_client.get("/u/bob/following").content.decode()
    # charlie: not followed yet, a Follow button; alice herself: none.
    assert 'action="/u/charlie/follow"' in page
    assert 'action="/u/alice/follow"' not in page and 'action="/u/alice/unfollow"' not in page
    page = alice_client.get("/u/alice/following").content.decode()
    assert 'action="/u/bob/unfollow"' in page
    # Following from the list comes back to the list.
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token
    answer = alice_client.post(
        "/u/charlie/follow", {"next": "/u/bob/following", "csrfmiddlewaretoken": token[1]}
    )
    assert answer["Location"] == "/u/bob/following"
    assert 'action="/u/charlie/unfollow"' in alice_client.get("/u/bob/following").content.decode()


def test_a_visitor_sees_people_lists_without_buttons(
    client: Client, alice: User, bob: User
) -> None:
    services.follow("alice", "bob")
    page = client.get("/u/alice/following").content.decode()
    assert "@bob" in page and "/u/bob/follow" not in page


def test_who_to_follow_stays_on_the_home_page_after_the_first_follow(
    alice_client: Client, bob: User, charlie: User
) -> None:
    services.follow("bob", "charlie")
    services.post_twit("bob", "hello")
    assert 'action="/u/bob/follow"' in alice_client.get("/").content.decode()
    services.follow("alice", "bob")
    page = alice_client.get("/").content.decode()
    assert "Who to follow" in page
    assert 'action="/u/charlie/follow"' in page  # followed by bob, whom she follows


def test_deleting_the_account_takes_the_password_and_logs_out(
    alice_client: Client, bob: User
) -> None:
    services.post_twit("alice", "soon gone")
    confirm = alice_client.get("/account/delete")
    assert confirm.status_code == 200
    assert "1 twit" in confirm.content.decode()
    wrong = alice_client.post("/account/delete", {"password": "nope-nope"})
    assert wrong.status_code == 400
    assert "That is not your password." in wrong.content.decode()
    assert services.find_user("alice") is not None
    done = alice_client.post("/account/delete", {"password": PASSWORD}, follow=True)
    assert "Your account @alice is deleted." in done.content.decode()
    assert services.find_user("alice") is None
    assert alice_client.get("/account")["Location"].startswith("/login")
    assert Client().get("/u/alice").status_code == 404
    # The userid is free again.
    services.register("alice", "Alice Again", "a@example.com", PASSWORD)
    assert logged_in("alice").get("/u/alice").status_code == 200


def test_the_account_page_links_to_deletion(alice_client: Client) -> None:
    page = alice_client.get("/account").content.decode()
    assert 'href="/account/delete"' in page
    assert 'enctype="multipart/form-data"' in page
