"""PATCH /api/twits/{id} (an edit of one's own twit within 15 minutes) and
GET /api/twits/{id}/history (its texts, newest first)."""

from __future__ import annotations

import pytest

from feeds import services
from feeds.services import _clock, blocking, twits
from feeds.types import User

from .helpers import Api, error


def test_edit_and_read_the_history(as_alice: Api, as_bob: Api) -> None:
    twit = services.post_twit("alice", "helo world")
    assert as_alice.get(f"/api/twits/{twit.id}").json()["edited_at"] is None
    done = as_alice.request("PATCH", f"/api/twits/{twit.id}", {"text": "  hello world  "})
    assert done.status_code == 200, done.content
    body = done.json()
    assert body["text"] == "hello world" and body["edited_at"].endswith("Z")
    assert body["liked"] is False
    # Everyone sees the new text and the mark, in lists too.
    assert as_bob.get(f"/api/twits/{twit.id}").json()["edited_at"] == body["edited_at"]
    listed = as_bob.get("/api/users/alice/twits").json()["items"][0]
    assert (listed["text"], listed["edited_at"]) == ("hello world", body["edited_at"])
    history = as_bob.get(f"/api/twits/{twit.id}/history").json()
    assert history["twit"] == twit.id
    assert [v["text"] for v in history["items"]] == ["hello world", "helo world"]
    assert history["items"][0]["at"] == body["edited_at"]


def test_refusals_say_why_and_change_nothing(
    as_alice: Api, as_bob: Api, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    twit = services.post_twit("alice", "mine")
    path = f"/api/twits/{twit.id}"
    error(api.request("PATCH", path, {"text": "anon"}), 401)
    assert "only your own" in error(as_bob.request("PATCH", path, {"text": "bob's"}), 403)
    assert "Write something" in error(as_alice.request("PATCH", path, {"text": " "}), 400)
    error(as_alice.request("PATCH", path, {"txt": "typo"}), 400)
    error(as_alice.request("PATCH", f"/api/twits/{'0' * 56}", {"text": "x"}), 404)
    posted = int(twit.created.timestamp() * 1000)
    monkeypatch.setattr(_clock, "now_millis", lambda: posted + twits.EDIT_WINDOW_MS + 1)
    assert "15 minutes" in error(as_alice.request("PATCH", path, {"text": "late"}), 409)
    assert as_bob.get(f"{path}/history").json()["items"][0]["text"] == "mine"
    assert services.get_twit(twit.id).text == "mine"


def test_history_of_a_blocked_or_missing_twit(as_bob: Api, alice: User) -> None:
    error(as_bob.get(f"/api/twits/{'0' * 56}/history"), 404)
    twit = services.post_twit("alice", "not for bob")
    blocking.block("alice", "bob")
    error(as_bob.get(f"/api/twits/{twit.id}/history"), 403)
