"""POST /api/media and images in POST /api/twits: uploaded, attached once,
shown with the twit, served cached for good, refused with a clear error."""

from __future__ import annotations

import io
from typing import Any

from django.http import HttpResponse
from PIL import Image

from feeds import services
from feeds.types import User

from .helpers import Api, error


def png(width: int = 40, height: int = 30, colour: str = "teal") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, "PNG")
    return out.getvalue()


def upload(api: Api, data: bytes, alt: str = "a teal box") -> HttpResponse:
    file = io.BytesIO(data)
    file.name = "box.png"
    headers = {"Authorization": f"Bearer {api.token}"} if api.token else {}
    response: HttpResponse = api.client.post(
        "/api/media", {"file": file, "alt": alt}, headers=headers
    )
    return response


def uploaded(api: Api, **kw: Any) -> dict[str, Any]:
    response = upload(api, png(**kw))
    assert response.status_code == 201, response.content
    body: dict[str, Any] = response.json()
    return body


def test_an_image_twit_shows_its_images_everywhere_and_serves_them(
    as_alice: Api, as_bob: Api, api: Api
) -> None:
    services.follow("bob", "alice")
    first = uploaded(as_alice, width=400, height=200)
    assert (first["alt"], first["width"], first["height"]) == ("a teal box", 400, 200)
    second = uploaded(as_alice, width=20, height=60)
    posted = as_alice.post(
        "/api/twits", {"text": "two boxes", "images": [second["id"], first["id"]]}
    )
    assert posted.status_code == 201, posted.content
    shown = [(i["id"], i["width"], i["height"], i["alt"]) for i in posted.json()["images"]]
    assert shown == [
        (second["id"], 20, 60, "a teal box"),
        (first["id"], 400, 200, "a teal box"),
    ]
    twit_id = posted.json()["id"]
    # The twit's own page, the author's timeline and a follower's stream, all with them.
    assert api.get(f"/api/twits/{twit_id}").json()["images"] == posted.json()["images"]
    timeline = api.get("/api/users/alice/twits").json()["items"]
    assert timeline[0]["images"] == posted.json()["images"]
    stream = as_bob.get("/api/stream").json()["items"]
    assert [t["images"] for t in stream if t["id"] == twit_id] == [posted.json()["images"]]
    # Served as WebP, cached for good, revalidated by ETag.
    served = api.client.get(first["url"])
    assert served.status_code == 200 and served["Content-Type"] == "image/webp"
    assert "immutable" in served["Cache-Control"]
    assert Image.open(io.BytesIO(served.content)).size == (400, 200)
    again = api.client.get(first["url"], headers={"If-None-Match": served["ETag"]})
    assert again.status_code == 304
    # A plain twit has none.
    plain = as_alice.post("/api/twits", {"text": "no pictures"}).json()
    assert plain["images"] == []


def test_deleting_the_twit_deletes_its_images(as_alice: Api, api: Api) -> None:
    image = uploaded(as_alice)
    twit = as_alice.post("/api/twits", {"text": "soon gone", "images": [image["id"]]}).json()
    assert api.client.get(image["url"]).status_code == 200
    assert as_alice.delete(f"/api/twits/{twit['id']}").status_code == 204
    assert api.client.get(image["url"]).status_code == 404


def test_bad_uploads_are_refused_and_store_nothing(as_alice: Api, api: Api, alice: User) -> None:
    assert "not a PNG, JPEG, WebP or GIF" in error(upload(as_alice, b"GIF89a but not"), 400)
    assert "Alt text is at most 1000" in error(upload(as_alice, png(), "x" * 1001), 400)
    # A decompression bomb: a small file whose header claims 100 megapixels.
    bomb = io.BytesIO()
    Image.new("1", (10_000, 10_000)).save(bomb, "PNG")
    assert len(bomb.getvalue()) < 100_000
    assert "megapixels" in error(upload(as_alice, bomb.getvalue()), 400)
    # Over the image limit but under the request's.
    big = b"\x89PNG\r\n\x1a\n" + b"\0" * (2 * 1024 * 1024 + 10)
    assert "at most 2 MB" in error(upload(as_alice, big), 400)
    error(upload(api, png()), 401)
    # Nothing stored: alice's only image row is the one uploaded now.
    from feeds.services import media

    assert media.forget_user("alice") == 0


def test_a_twit_refuses_a_fifth_image_anothers_or_a_used_one(as_alice: Api, as_bob: Api) -> None:
    mine = [uploaded(as_alice)["id"] for _ in range(5)]
    assert "at most 4 images" in error(
        as_alice.post("/api/twits", {"text": "5", "images": mine}), 400
    )
    bobs = uploaded(as_bob)["id"]
    refused = as_alice.post("/api/twits", {"text": "his", "images": [mine[0], bobs]})
    assert "not one you uploaded" in error(refused, 400)
    twice = as_alice.post("/api/twits", {"text": "dup", "images": [mine[0], mine[0]]})
    assert "used once" in error(twice, 400)
    bad = as_alice.post("/api/twits", {"text": "bad", "images": ["nope"]})
    assert "not a media id" in error(bad, 400)
    # None of those refusals used an image up or posted a twit.
    assert as_alice.get("/api/users/alice/twits").json()["items"] == []
    used = as_alice.post("/api/twits", {"text": "ok", "images": mine[:4]})
    assert used.status_code == 201, used.content
    again = as_alice.post("/api/twits", {"text": "again", "images": [mine[0]]})
    assert "already used" in error(again, 400)
    gone = as_alice.post("/api/twits", {"text": "gone", "images": ["0" * 56]})
    assert "not one you uploaded" in error(gone, 400)
