"""The row browser shows the avatars table: the key as md5(user), the image
cell as its size with only its header as raw bytes, and the version as a time."""

from __future__ import annotations

import io

from django.test import Client
from PIL import Image

from feeds import services
from feeds.types import User

from .test_panels import rows_page


def test_the_row_browser_shows_an_avatar_row(staff_client: Client, alice: User) -> None:
    noisy = io.BytesIO()
    Image.effect_noise((300, 300), 120).convert("RGB").save(noisy, "PNG")
    services.set_avatar("alice", noisy.getvalue())
    stored = services.get_avatar("alice")
    assert stored is not None and len(stored.image) > 20_000
    status, page = rows_page(staff_client, table="avatars", by="userid", prefix="alice")
    assert status == 200
    assert "WebP image," in page and " bytes" in page
    assert "a:version" in page and "UTC" in page
    assert len(page) < len(stored.image)  # the image's bytes are not all printed
