"""Notifications on the web: the bell in the top bar with the unread count,
the page (newest first, grouped likes, paged), opening it clearing the count,
and what was unread showing as new."""

from __future__ import annotations

import re
import time

import pytest
from django.test import Client

from feeds import services
from feeds.services import messages
from feeds.types import User
from storage import ops
from tests.api.test_round_trips import Calls, calls  # noqa: F401 (a fixture)
from tests.helpers import register
from tests.web.helpers import logged_in


def _badge(html: str) -> str | None:
    found = re.search(r'<span class="nav-count">([^<]*)<', html)
    return None if found is None else found.group(1)


def _items(html: str) -> list[tuple[str, str]]:
    """Each notification's classes and first line, as text."""
    items = re.findall(r'<li class="(notification [^"]*)">(.*?)</li>', html, re.S)
    found = []
    for classes, item in items:
        first = re.search(r"<p>(.*?)<span class=\"dot\"", item, re.S)
        assert first is not None
        found.append((classes, " ".join(re.sub(r"<[^>]+>", " ", first.group(1)).split())))
    return found


def _lines(html: str) -> list[str]:
    return [line for _, line in _items(html)]


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


def test_the_top_bar_says_99_plus_past_99_and_the_menu_marks_unread_messages(
    alice: User, alice_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The counts as the bar, the phone's tab bar and the account menu show
    them, whatever they are (the counts themselves are the tests above)."""
    shown: list[tuple[int, int]] = [(150, 120)]
    monkeypatch.setattr("feeds.viewhelpers._badges", lambda request: shown[0])
    html = alice_client.get("/").content.decode()
    assert re.findall(r'class="(nav-count|tab-count)">([^<]*)<', html) == [
        ("nav-count", "99+"),
        ("tab-count", "99+"),
    ]
    assert re.findall(r'nav-count-inline">([^<]*)<', html) == ["99+"]
    assert "(120 unread)" in html and 'class="nav-menu-dot"' in html
    shown[0] = (99, 0)
    html = alice_client.get("/").content.decode()
    assert re.findall(r'class="(?:nav-count|tab-count)">([^<]*)<', html) == ["99", "99"]
    assert "nav-count-inline" not in html and "nav-menu-dot" not in html and "unread)" not in html


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


def _new(client: Client) -> list[str]:
    """The notifications the page shows as new, by their first line."""
    html = client.get("/notifications").content.decode()
    return [line for classes, line in _items(html) if "notification-new" in classes.split()]


def test_what_was_unread_shows_as_new_once(alice: User, bob: User, charlie: User) -> None:
    for userid in ("dana", "erin", "frank"):
        register(userid)
    client = logged_in("alice")
    twit = services.post_twit("alice", "Row keys first.")
    services.follow("bob", "alice")
    time.sleep(0.002)
    services.post_twit("charlie", "@alice which key?")
    assert _new(client) == ["Charlie mentioned you", "Bob followed you"]
    assert _new(client) == []  # read now
    time.sleep(0.002)
    services.follow("dana", "alice")
    assert _new(client) == ["Dana followed you"]
    # Two likes count 2 unread but make one entry: the older follow beside it
    # was seen already, so it is not new again.
    time.sleep(0.002)
    services.like("erin", twit.id)
    services.like("frank", twit.id)
    assert _new(client) == ["Frank and Erin liked your twit"]


def test_the_tabs_show_one_type_and_only_all_clears_the_unread_count(
    alice_client: Client, bob: User
) -> None:
    twit = services.post_twit("alice", "like me")
    services.post_twit("bob", "hi @alice")
    services.like("bob", twit.id)
    services.follow("bob", "alice")
    mentions = alice_client.get("/notifications", {"tab": "mention"}).content.decode()
    assert "mentioned you" in mentions and "liked your twit" not in mentions
    assert 'aria-current="page">Mentions</a>' in mentions
    assert services.unread_count("alice") == 3  # a tab clears nothing
    likes = alice_client.get("/notifications", {"tab": "like"}).content.decode()
    assert "liked your twit" in likes and "followed you" not in likes
    assert (
        "None of these yet."
        in alice_client.get("/notifications", {"tab": "reply"}).content.decode()
    )
    every = alice_client.get("/notifications", {"tab": "nonsense"}).content.decode()
    assert "mentioned you" in every and "followed you" in every
    assert services.unread_count("alice") == 0


def test_the_top_bar_reads_its_two_counts_once_in_one_round_trip(
    alice: User,
    bob: User,
    alice_client: Client,
    calls: Calls,  # noqa: F811 (the fixture)
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    twit = services.post_twit("alice", "my twit")
    services.like("bob", twit.id)
    messages.send("bob", "alice", "hi")
    messages.send("bob", "alice", "there")
    requests: list[list[str]] = []  # the tables of each pipelined request
    send = ops.Pipeline.send

    def sending(pipe: ops.Pipeline) -> list[object]:
        requests.append([t.rsplit("_", 1)[-1] for t in pipe.tables])
        return send(pipe)

    monkeypatch.setattr(ops.Pipeline, "send", sending)
    calls.made.clear()
    html = alice_client.get("/").content.decode()
    # The bell in the header and in the tab bar; messages in the header and its menu.
    assert re.findall(r'<span class="(?:nav|tab)-count">(\d+)<', html) == ["1", "1"]
    assert re.findall(r"nav-count-inline\">(\d+)<", html) == ["2"]
    assert "(2 unread)" in html
    # Each count once, both in one request: the users row's unread cell
    # and the inbox's total; no other read of either.
    assert [r for r in requests if "inboxState" in r] == [["users", "inboxState"]]
    assert calls.reads_of("inboxState") == 1
    single = [t.rsplit("_", 1)[-1] for api, t in calls.made if api == "getRowWithColumns"]
    # The session's user: read once, with the session's row.
    assert requests.count(["tokens", "users"]) == 1
    assert "users" not in single
