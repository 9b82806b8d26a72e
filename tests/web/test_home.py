"""The home page: the post box, the stream, paging, the empty state, limits."""

from __future__ import annotations

import html as htmllib
import re

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from feeds import services
from feeds.types import User
from tests.helpers import ServerAddr, hold_rate_clock

from .helpers import post_in_order


def twit_texts(html: str) -> list[str]:
    """The texts of the twits on a page, in page order, unescaped."""
    return [
        htmllib.unescape(t)
        for t in re.findall(r'<p class="twit-text">(.*?)</p>', html, flags=re.DOTALL)
    ]


def older_link(html: str) -> str | None:
    found = re.search(r'rel="next" href="([^"]+)"', html)
    return htmllib.unescape(found.group(1)) if found else None


def test_posted_twit_shows_on_home(alice_client: Client) -> None:
    response = alice_client.post("/", {"text": "Hello, HBase"})
    assert response.status_code == 302
    assert response["Location"] == "/"
    html = alice_client.get("/").content.decode()
    assert "Your twit is posted." in html
    assert twit_texts(html) == ["Hello, HBase"]


def test_twit_text_is_escaped_and_keeps_its_line_breaks(alice_client: Client) -> None:
    alice_client.post("/", {"text": "<script>alert(1)</script>\nline two & more"})
    for url in ("/", "/u/alice"):
        html = alice_client.get(url).content.decode()
        assert "<script>alert(1)</script>" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;<br>line two &amp; more" in html
    twit = services.timeline("alice").items[0]
    html = alice_client.get(f"/u/alice/t/{twit.id}").content.decode()
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_names_are_escaped_too(web: ServerAddr) -> None:
    services.register("mallory", "<b>Mal</b>", "m@example.com", "password-123")
    services.post_twit("mallory", "hi")
    html = Client().get("/u/mallory").content.decode()
    assert "<b>Mal</b>" not in html
    assert "&lt;b&gt;Mal&lt;/b&gt;" in html


def test_too_long_twit_shows_the_error_under_the_box_with_text_kept(
    alice_client: Client,
) -> None:
    text = "x" * 281
    response = alice_client.post("/", {"text": text})
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="id_text_error">A twit is at most 280 characters; this is 281.' in html
    assert f">\n{text}</textarea>" in html
    assert services.timeline("alice").items == ()


def test_empty_twit_is_an_error(alice_client: Client) -> None:
    response = alice_client.post("/", {"text": "   "})
    assert response.status_code == 400
    assert "Write something to post." in response.content.decode()


def test_posting_over_the_rate_limit_is_429_with_a_clear_message(
    alice_client: Client, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.TWITBASE_POSTS_PER_MINUTE = 2
    hold_rate_clock(monkeypatch)
    assert alice_client.post("/", {"text": "one"}).status_code == 302
    assert alice_client.post("/", {"text": "two"}).status_code == 302
    response = alice_client.post("/", {"text": "three"})
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 60
    html = response.content.decode()
    assert "You can post 2 twits a minute. Try again in" in html
    assert ">\nthree</textarea>" in html
    assert [t.text for t in services.timeline("alice").items] == ["two", "one"]


def test_home_stream_pages_back_with_older_links(alice: User, bob_client: Client) -> None:
    services.follow("bob", "alice")
    post_in_order("alice", [f"twit {i:02d}" for i in range(23)])
    html = bob_client.get("/").content.decode()
    first = twit_texts(html)
    assert first == [f"twit {i:02d}" for i in range(22, 2, -1)]
    older = older_link(html)
    assert older is not None and older.startswith("/?cursor=")
    html = bob_client.get(older).content.decode()
    assert twit_texts(html) == ["twit 02", "twit 01", "twit 00"]
    assert older_link(html) is None
    assert 'href="/">&larr; Newest</a>' in html


def test_bad_cursor_is_a_400_page(alice_client: Client) -> None:
    response = alice_client.get("/?cursor=not-a-cursor")
    assert response.status_code == 400
    assert "invalid cursor" in response.content.decode()


def test_new_user_is_told_whom_to_follow(alice_client: Client, bob: User, charlie: User) -> None:
    html = alice_client.get("/").content.decode()
    assert "Your home stream is empty for now." in html
    assert 'action="/u/bob/follow"' in html
    assert 'action="/u/charlie/follow"' in html
    assert 'action="/u/alice/follow"' not in html
    response = alice_client.post("/u/bob/follow", {"next": "/"})
    assert response["Location"] == "/"
    html = alice_client.get("/").content.decode()
    # bob has not posted, so the stream is still empty; he is no longer suggested.
    assert "Your home stream is empty for now." in html
    assert 'action="/u/bob/follow"' not in html
    assert 'action="/u/charlie/follow"' in html


def test_lone_first_user_is_told_to_invite_someone(alice_client: Client) -> None:
    assert "No one else is here yet." in alice_client.get("/").content.decode()


def test_user_who_follows_no_one_sees_suggestions_above_their_twits(
    alice_client: Client, bob: User
) -> None:
    alice_client.post("/", {"text": "talking to myself"})
    html = alice_client.get("/").content.decode()
    assert "Who to follow" in html
    assert twit_texts(html) == ["talking to myself"]


def test_followees_twits_come_and_go_with_the_follow(alice: User, bob_client: Client) -> None:
    services.post_twit("alice", "from alice")
    bob_client.post("/u/alice/follow")
    assert twit_texts(bob_client.get("/").content.decode()) == ["from alice"]
    bob_client.post("/u/alice/unfollow")
    assert twit_texts(bob_client.get("/").content.decode()) == []


def test_mentions_and_links_in_a_twit_are_links_on_every_page(
    alice_client: Client, bob: User
) -> None:
    alice_client.post("/", {"text": '<b>hi</b> @bob see https://example.com/?a=1&b="x" #tea'})
    twit = services.timeline("alice").items[0]
    for url in ("/", "/u/alice", f"/u/alice/t/{twit.id}"):
        html = alice_client.get(url).content.decode()
        assert "<b>hi</b>" not in html
        assert '<a class="twit-mention" href="/u/bob">@bob</a>' in html
        assert (
            '<a class="twit-link" href="https://example.com/?a=1&amp;b=" rel="nofollow noopener">'
            in html
        )
        assert '<a class="twit-hashtag" href="/tags/tea">#tea</a>' in html
