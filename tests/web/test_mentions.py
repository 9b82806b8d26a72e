"""A mention links to a profile only where there is one to show (issue
37): @nosuchuser, and a suspended account, read as text on every page that
lists twits, rather than as links to a 404."""

from __future__ import annotations

import re

from django.test import Client

from feeds import services
from feeds.types import User
from tests.helpers import register

TEXT = "Ask @alice, @Carol or @nosuchuser about #keys"


def _mentions(html: str) -> tuple[list[str], bool]:
    """The mention links on a page, and whether the other two read as text."""
    links = re.findall(r'<a class="twit-mention" href="/u/(\w+)">', html)
    return links, "@Carol" in html and "@nosuchuser" in html


def test_only_mentions_of_shown_profiles_are_links(
    alice: User, bob: User, charlie: User, alice_client: Client
) -> None:
    register("carol")
    services.set_disabled("carol")
    services.follow("alice", "bob")
    twit = services.post_twit("bob", TEXT)
    reply = services.post_twit("charlie", "Agreed, @bob and @nosuchuser.", reply_to=twit.id)
    pages = {
        "home": alice_client.get("/"),
        "profile": alice_client.get("/u/bob"),
        "tag": alice_client.get("/tags/keys"),
        "thread": alice_client.get(f"/u/bob/t/{twit.id}"),
        "notifications": alice_client.get("/notifications"),
    }
    for name, response in pages.items():
        links, as_text = _mentions(response.content.decode())
        assert links == ["alice"] or (name == "thread" and links == ["alice", "bob"]), name
        assert as_text or name == "notifications", name
    # The reply's own thread shows both twits, each judged alone.
    html = alice_client.get(f"/u/charlie/t/{reply.id}").content.decode()
    assert _mentions(html)[0] == ["alice", "bob"]
    # alice's notification of the mention quotes it with the same links.
    html = pages["notifications"].content.decode()
    assert 'class="notification-text">Ask <a class="twit-mention" href="/u/alice">' in html
    assert "@Carol or @nosuchuser" in html
