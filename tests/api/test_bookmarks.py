"""PUT/DELETE /api/twits/{id}/bookmark and GET /api/bookmarks."""

from __future__ import annotations

from feeds import services
from feeds.services import blocking
from feeds.types import User

from .helpers import Api, error


def test_bookmark_list_and_remove(as_bob: Api, as_alice: Api) -> None:
    twit = services.post_twit("alice", "worth keeping")
    done = as_bob.put(f"/api/twits/{twit.id}/bookmark")
    assert done.status_code == 200 and done.json() == {"twit": twit.id, "bookmarked": True}
    assert [t["text"] for t in as_bob.get("/api/bookmarks").json()["items"]] == ["worth keeping"]
    assert as_alice.get("/api/bookmarks").json()["items"] == []  # private
    gone = as_bob.delete(f"/api/twits/{twit.id}/bookmark").json()
    assert gone == {"twit": twit.id, "bookmarked": False}
    assert as_bob.get("/api/bookmarks").json() == {"items": [], "next_cursor": None}


def test_bookmarks_need_a_token_and_a_twit(api: Api, as_bob: Api, alice: User) -> None:
    error(api.get("/api/bookmarks"), 401)
    error(as_bob.put(f"/api/twits/{'0' * 56}/bookmark"), 404)
    twit = services.post_twit("alice", "blocked")
    services.follow("bob", "alice")

    blocking.block("alice", "bob")
    assert "blocked you" in error(as_bob.put(f"/api/twits/{twit.id}/bookmark"), 403)
