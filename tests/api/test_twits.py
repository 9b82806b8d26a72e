"""Twits, timelines and the home stream through the JSON API."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.types import User
from tests.helpers import hold_rate_clock

from .helpers import Api, error

TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def test_post_returns_the_twit_with_its_id(as_alice: Api) -> None:
    before = datetime.now(UTC)
    response = as_alice.post("/api/twits", {"text": "  hello\nworld  "})
    assert response.status_code == 201
    twit = response.json()
    assert response["Location"] == f"/api/twits/{twit['id']}"
    assert (twit["userid"], twit["name"], twit["text"]) == ("alice", "Alice", "hello\nworld")
    assert TIMESTAMP.fullmatch(twit["created"])
    created = datetime.fromisoformat(twit["created"])
    assert abs((created - before).total_seconds()) < 5
    assert as_alice.get(f"/api/twits/{twit['id']}").json() == twit


@pytest.mark.parametrize(
    "body",
    [
        {"text": ""},
        {"text": "   "},
        {"text": "x" * 281},
        {"text": "bell\x07"},
        {"text": 42},
        {"text": None},
        {"text": ["hello"]},
        {},
    ],
)
def test_bad_twits_are_400_naming_the_text(as_alice: Api, body: dict) -> None:
    response = as_alice.post("/api/twits", body)
    error(response, 400)
    assert response.json()["field"] == "text"
    assert services.get_user("alice").twits == 0


def test_a_280_character_twit_is_fine(as_alice: Api) -> None:
    assert as_alice.post("/api/twits", {"text": "é" * 280}).status_code == 201


@pytest.mark.parametrize("twit_id", ["nope", "0" * 56, "0" * 55, "zz" * 28, "%00"])
def test_unknown_twits_are_404(api: Api, alice: User, twit_id: str) -> None:
    error(api.get(f"/api/twits/{twit_id}"), 404)


def test_delete_removes_ones_own_twit_everywhere(as_alice: Api, as_bob: Api) -> None:
    services.follow("bob", "alice")
    twit = as_alice.post("/api/twits", {"text": "oops"}).json()
    assert [t["id"] for t in as_bob.get("/api/stream").json()["items"]] == [twit["id"]]
    assert as_alice.delete(f"/api/twits/{twit['id']}").status_code == 204
    error(as_alice.get(f"/api/twits/{twit['id']}"), 404)
    assert as_bob.get("/api/stream").json()["items"] == []
    assert as_alice.get("/api/users/alice").json()["twits"] == 0
    error(as_alice.delete(f"/api/twits/{twit['id']}"), 404)


def test_deleting_someone_elses_twit_is_403(as_alice: Api, as_bob: Api) -> None:
    twit = as_alice.post("/api/twits", {"text": "mine"}).json()
    error(as_bob.delete(f"/api/twits/{twit['id']}"), 403)
    assert as_bob.get(f"/api/twits/{twit['id']}").status_code == 200


def test_timeline_pages_newest_first_with_cursors(api: Api, alice: User) -> None:
    for i in range(5):
        services.post_twit("alice", f"twit {i}")
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        query = {"limit": "2", **({"cursor": cursor} if cursor else {})}
        page = api.get("/api/users/alice/twits", **query).json()
        seen += [t["text"] for t in page["items"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == [f"twit {i}" for i in reversed(range(5))]
    assert pages == 3


def test_lists_default_to_20_and_allow_100(api: Api, alice: User, settings: Settings) -> None:
    settings.TWITBASE_POSTS_PER_MINUTE = 1000
    for i in range(21):
        services.post_twit("alice", f"twit {i}")
    first = api.get("/api/users/alice/twits").json()
    assert len(first["items"]) == 20 and first["next_cursor"]
    everything = api.get("/api/users/alice/twits", limit="100").json()
    assert len(everything["items"]) == 21 and everything["next_cursor"] is None


def test_home_stream_has_own_and_followed_twits(as_alice: Api, bob: User, charlie: User) -> None:
    services.follow("alice", "bob")
    services.post_twit("bob", "from bob")
    services.post_twit("charlie", "from charlie")
    as_alice.post("/api/twits", {"text": "from alice"})
    page = as_alice.get("/api/stream").json()
    assert [(t["userid"], t["text"]) for t in page["items"]] == [
        ("alice", "from alice"),
        ("bob", "from bob"),
    ]
    assert page["next_cursor"] is None


def test_posting_too_fast_is_429_with_retry_after(
    as_alice: Api, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.TWITBASE_POSTS_PER_MINUTE = 2
    hold_rate_clock(monkeypatch)  # the window is a calendar minute: do not straddle two
    for i in range(2):
        assert as_alice.post("/api/twits", {"text": f"twit {i}"}).status_code == 201
    response = as_alice.post("/api/twits", {"text": "one too many"})
    assert "Try again" in error(response, 429)
    assert 1 <= int(response["Retry-After"]) <= 60
    assert as_alice.get("/api/users/alice").json()["twits"] == 2
