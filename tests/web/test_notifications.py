"""Notifications on the web: the bell in the top bar with the unread count,
the page (newest first, grouped likes, paged), and opening it clearing the count."""

from __future__ import annotations

import re

from django.test import Client

from feeds import services
from feeds.types import User
from tests.helpers import register


def _badge(html: str) -> str | None:
    found = re.search(r'<span class="nav-count">([^<]*)<', html)
    return None if found is None else found.group(1)


def _lines(html: str) -> list[str]:
    items = re.findall(r'<li class="notification notification-[a-z]+">(.*?)</li>', html, re.S)
    texts = []
    for item in items:
        first = re.search(r"<p>(.*?)<span class=\"dot\"", item, re.S)
        assert first is not None
        texts.append(" ".join(re.sub(r"<[^>]+>", " ", first.group(1)).split()))
    return texts


def test_the_bell_counts_unread_and_the_page_clears_it(
    alice: User, bob: User, charlie: User, alice_client: Client
) -> None:
    assert _badge(alice_client.get("/").content.decode()) is None
    twit = services.post_twit("alice", "my twit")
    services.like("bob", twit.id)
    services.like("charlie", twit.id)
    services.post_twit("bob", "hey @alice", reply_to=None)
    services.follow("charlie", "alice")
    assert _badge(alice_client.get("/").content.decode()) == "4"

    response = alice_client.get("/notifications")
    assert response.status_code == 200
    html = response.content.decode()
    assert _lines(html) == [
        "Charlie followed you",
        "Bob mentioned you",
        "Charlie and Bob liked your twit",
    ]
    assert f"/u/alice/t/{twit.id}" in html  # the liked twit, linked
    assert re.search(r'<p class="notification-text">hey <a class="twit-mention"', html)
    # Opened: the count is cleared, on this page and the next.
    assert _badge(html) is None
    assert _badge(alice_client.get("/").content.decode()) is None
    assert services.unread_count("alice") == 0


def test_a_big_like_group_reads_as_one_line_and_the_page_pages(
    alice: User, alice_client: Client
) -> None:
    twit = services.post_twit("alice", "popular")
    for i in range(5):
        register(f"fan{i}")
        services.like(f"fan{i}", twit.id)
    for i in range(22):
        services.post_twit("fan0", f"@alice number {i}")
    html = alice_client.get("/notifications").content.decode()
    assert len(_lines(html)) == 20
    cursor = services.notifications("alice").next_cursor
    assert cursor is not None and f"cursor={cursor}" in html
    rest = alice_client.get("/notifications", {"cursor": cursor}).content.decode()
    assert _lines(rest) == [
        "Fan0 mentioned you",
        "Fan0 mentioned you",
        "Fan4 and 4 others liked your twit",
    ]


def test_visitors_are_sent_to_log_in(alice: User) -> None:
    response = Client().get("/notifications")
    assert response.status_code == 302
    assert response["Location"].startswith("/login")
    assert "nav-notify" not in Client().get("/").content.decode()
    assert Client().post("/notifications").status_code == 405
