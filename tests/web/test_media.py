"""Images in twits on the web: the home composer's image slots, the
images in the stream, the profile and the twit's page, and refusals shown
on the slot they concern."""

from __future__ import annotations

import io
import re

from django.test import Client
from PIL import Image

from feeds import services
from feeds.services import media
from feeds.types import User
from tests.console.helpers import text_of
from tests.waiting import eventually


def _png(width: int, height: int, colour: str = "orange") -> io.BytesIO:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, "PNG")
    out.seek(0)
    out.name = "pic.png"
    return out


def _imgs(html: str) -> list[str]:
    return re.findall(r"<img src=\"/media/[^>]*>", html)


def test_a_twit_posted_with_images_shows_them_on_every_page(
    alice_client: Client, bob_client: Client, alice: User, bob: User
) -> None:
    services.follow("bob", "alice")
    posted = alice_client.post(
        "/",
        {
            "text": "sunset over the bay",
            "image1": _png(800, 600),
            "alt1": "An orange sky over water",
            "image2": _png(100, 200, "navy"),
            "alt2": "",
        },
    )
    assert posted.status_code == 302, text_of(posted)
    (twit,) = services.timeline("alice").items
    assert [(i.width, i.height, i.alt) for i in twit.images] == [
        (800, 600, "An orange sky over water"),
        (100, 200, ""),
    ]
    for page in ("/", "/u/alice", f"/u/alice/t/{twit.id}"):
        found = _imgs(alice_client.get(page).content.decode())
        assert len(found) == 2, page
        first = found[0]
        assert f'src="/media/{twit.images[0].id}"' in first
        assert 'alt="An orange sky over water"' in first
        assert 'width="800" height="600"' in first and 'loading="lazy"' in first
    # The follower's stream too, through the fan-out's stream row and the hydrate step.
    eventually(
        lambda: len(_imgs(bob_client.get("/").content.decode())) == 2,
        timeout=30,
        what="the fan-out",
    )


def test_a_refused_image_is_named_on_its_slot_and_posts_nothing(
    alice_client: Client, alice: User
) -> None:
    refused = alice_client.post(
        "/", {"text": "this is not a picture", "image2": io.BytesIO(b"just text")}
    )
    assert refused.status_code == 400
    html = refused.content.decode()
    assert 'id="id_image2_error"' in html and "not a PNG, JPEG, WebP or GIF" in html
    assert "this is not a picture" in html  # the text is kept
    assert services.timeline("alice").items == ()
    too_long = alice_client.post("/", {"text": "alt", "image1": _png(10, 10), "alt1": "x" * 1001})
    assert too_long.status_code == 400
    assert 'id="id_alt1_error"' in too_long.content.decode()
    assert media.forget_user("alice") == 0  # nothing stored for either
