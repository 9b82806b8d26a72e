"""Follow, unfollow and the follower lists through the JSON API."""

from __future__ import annotations

from feeds import services
from feeds.types import User

from .helpers import Api, error


def test_follow_and_unfollow_are_idempotent(as_alice: Api, bob: User) -> None:
    first = as_alice.put("/api/follows/bob")
    assert first.status_code == 200
    assert first.json() == {"userid": "bob", "following": True, "changed": True}
    assert as_alice.put("/api/follows/bob").json()["changed"] is False
    assert services.is_following("alice", "bob")
    gone = as_alice.delete("/api/follows/bob")
    assert gone.json() == {"userid": "bob", "following": False, "changed": True}
    assert as_alice.delete("/api/follows/bob").json()["changed"] is False
    assert not services.is_following("alice", "bob")


def test_following_brings_their_twits_into_the_stream(as_alice: Api, bob: User) -> None:
    services.post_twit("bob", "earlier")
    as_alice.put("/api/follows/bob")
    assert [t["text"] for t in as_alice.get("/api/stream").json()["items"]] == ["earlier"]
    as_alice.delete("/api/follows/bob")
    assert as_alice.get("/api/stream").json()["items"] == []


def test_following_yourself_is_400(as_alice: Api) -> None:
    error(as_alice.put("/api/follows/ALICE"), 400)


def test_following_nobody_is_404_or_400(as_alice: Api) -> None:
    error(as_alice.put("/api/follows/nobody"), 404)
    error(as_alice.delete("/api/follows/nobody"), 404)
    error(as_alice.put("/api/follows/no%20body"), 400)


def test_followers_and_following_list_userids_and_names(
    api: Api, alice: User, bob: User, charlie: User
) -> None:
    services.follow("bob", "alice")
    services.follow("charlie", "alice")
    services.follow("alice", "bob")
    followers = api.get("/api/users/alice/followers").json()
    assert sorted(u["userid"] for u in followers["items"]) == ["bob", "charlie"]
    assert {"userid": "bob", "name": "Bob"} in followers["items"]
    assert followers["next_cursor"] is None
    following = api.get("/api/users/alice/following").json()
    assert following == {"items": [{"userid": "bob", "name": "Bob"}], "next_cursor": None}


def test_follower_lists_page_with_cursors(api: Api, alice: User, bob: User, charlie: User) -> None:
    services.follow("bob", "alice")
    services.follow("charlie", "alice")
    first = api.get("/api/users/alice/followers", limit="1").json()
    assert len(first["items"]) == 1 and first["next_cursor"]
    second = api.get("/api/users/alice/followers", limit="1", cursor=first["next_cursor"]).json()
    assert len(second["items"]) == 1 and second["next_cursor"] is None
    assert first["items"] != second["items"]


def test_lists_of_unknown_users_are_404(api: Api, alice: User) -> None:
    for path in ("followers", "following", "twits"):
        error(api.get(f"/api/users/nobody/{path}"), 404)
