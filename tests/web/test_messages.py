"""Direct messages on the web: the inbox, a conversation and its send box,
the profile's Message button, the top bar's unread count and the polls
the live banners make."""

from __future__ import annotations

from django.test import Client

from feeds.services import blocking, messages
from feeds.types import User
from tests.console.helpers import text_of


def test_send_from_the_page_read_it_and_the_counts_follow(
    alice_client: Client, bob_client: Client, alice: User, bob: User, client: Client
) -> None:
    assert "Message" in text_of(alice_client.get("/u/bob"))
    sent = alice_client.post("/messages/bob", {"text": "Hi Bob!\nLunch?"})
    assert sent.status_code == 302 and sent["Location"] == "/messages/bob"
    home = bob_client.get("/").content.decode()
    assert 'class="nav-count nav-count-inline">1<' in home  # the unread count in the top bar
    inbox = text_of(bob_client.get("/messages"))
    assert "Alice" in inbox and "Hi Bob!" in inbox
    page = bob_client.get("/messages/alice").content.decode()
    assert "Hi Bob!<br>Lunch?" in page
    assert messages.unread_total("bob") == 0  # opening it read it
    assert "nav-count-inline" not in bob_client.get("/").content.decode()
    assert "You: Hi Bob!" in text_of(alice_client.get("/messages"))
    assert client.get("/messages").status_code == 302  # to log in
    assert client.get("/messages/alice").status_code == 302


def test_a_refused_message_keeps_the_text_and_says_why(
    alice_client: Client, alice: User, bob: User
) -> None:
    too_long = alice_client.post("/messages/bob", {"text": "x" * 281})
    assert too_long.status_code == 400 and "at most 280" in text_of(too_long)
    assert "x" * 281 in too_long.content.decode()
    blocking.block("bob", "alice")
    blocked = alice_client.post("/messages/bob", {"text": "hello?"})
    assert blocked.status_code == 403 and "@bob has blocked you" in text_of(blocked)
    assert messages.unread_total("bob") == 0
    assert alice_client.get("/messages/nobody").status_code == 404


def test_the_live_polls_count_what_came_since(
    alice_client: Client, bob_client: Client, alice: User, bob: User
) -> None:
    first = messages.send("alice", "bob", "one")
    assert bob_client.get("/messages/-/unread", {"since": "0"}).json()["count"] == 1
    assert bob_client.get("/messages/-/unread", {"since": "1"}).json()["count"] == 0
    assert bob_client.get("/messages/alice/new", {"since": first.id}).json()["count"] == 0
    messages.send("alice", "bob", "two")
    messages.send("bob", "alice", "three")
    assert bob_client.get("/messages/alice/new", {"since": first.id}).json() == {
        "count": 2,
        "more": False,
        "cap": messages.NEW_CAP,
    }
    bad = bob_client.get("/messages/alice/new", {"since": "garbage"})
    assert bad.status_code == 400 and bad.json()["field"] == "since"
