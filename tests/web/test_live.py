"""Live updates on the home page, without a browser: the banner's slot names
the newest twit shown and the poll interval, and GET /stream/new answers the
signed-in user's count as JSON (the browser half is test_live_browser.py)."""

from __future__ import annotations

import re

from django.test import Client
from pytest_django.fixtures import Settings

from feeds import services
from feeds.types import User


def _slot(html: str) -> dict[str, str]:
    found = re.search(r'<div class="live-new"[^>]*>', html)
    assert found, "no banner slot on the page"
    return dict(re.findall(r'data-([a-z-]+)="([^"]*)"', found.group()))


def test_the_home_page_names_its_newest_twit_and_the_count_follows_new_twits(
    alice_client: Client, bob: User, settings: Settings
) -> None:
    settings.TWITBASE_LIVE_POLL_MS = 1234
    services.follow("alice", "bob")
    shown = services.post_twit("bob", "on the page")
    page = alice_client.get("/")
    slot = _slot(page.content.decode())
    assert slot == {"live-url": "/stream/new", "since": shown.id, "poll-ms": "1234"}
    # The link is hidden until the script has something to say.
    assert re.search(r'<a class="live-new-link" href="/" hidden>', page.content.decode())

    answer = alice_client.get("/stream/new", {"since": shown.id})
    assert answer.json() == {"count": 0, "more": False, "cap": services.NEW_CAP}
    assert answer["Cache-Control"] == "no-store"
    services.post_twit("bob", "arrived while the page was open")
    assert alice_client.get("/stream/new", {"since": shown.id}).json()["count"] == 1


def test_an_empty_home_page_counts_from_the_top_and_older_pages_have_no_banner(
    alice_client: Client, bob: User, settings: Settings
) -> None:
    settings.TWITBASE_POSTS_PER_MINUTE = 100
    assert _slot(alice_client.get("/").content.decode())["since"] == ""
    assert alice_client.get("/stream/new", {"since": ""}).json()["count"] == 0
    services.follow("alice", "bob")
    for i in range(21):
        services.post_twit("bob", f"twit {i}")
    page = alice_client.get("/").content.decode()
    older = re.search(r'rel="next" href="/\?cursor=([^"]+)"', page)
    assert older
    assert (
        'class="live-new"' not in alice_client.get("/", {"cursor": older.group(1)}).content.decode()
    )


def test_the_count_needs_a_session_and_a_twit_id(alice_client: Client) -> None:
    anonymous = Client().get("/stream/new")
    assert anonymous.status_code == 401
    assert "error" in anonymous.json()
    bad = alice_client.get("/stream/new", {"since": "../../etc"})
    assert bad.status_code == 400
    assert bad.json()["field"] == "since"
    assert alice_client.post("/stream/new").status_code == 405
