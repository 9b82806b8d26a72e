"""Bookmarks on the web: the twit page's button and the Bookmarks page."""

from __future__ import annotations

from django.test import Client

from feeds import services
from feeds.types import User
from tests.console.helpers import text_of


def test_bookmark_from_the_twit_page_list_and_remove(
    bob_client: Client, alice: User, client: Client
) -> None:
    twit = services.post_twit("alice", "keep this one")
    url = f"/u/alice/t/{twit.id}"
    assert "Bookmark" in text_of(bob_client.get(url))
    done = bob_client.post(f"{url}/bookmark", {"next": url})
    assert done.status_code == 302 and done["Location"] == url
    assert "Remove bookmark" in text_of(bob_client.get(url))
    assert "keep this one" in text_of(bob_client.get("/bookmarks"))
    bob_client.post(f"{url}/bookmark", {"next": url})
    assert "No bookmarks yet" in text_of(bob_client.get("/bookmarks"))
    assert client.get("/bookmarks").status_code == 302  # to log in
    assert bob_client.get(f"{url}/bookmark").status_code == 405
