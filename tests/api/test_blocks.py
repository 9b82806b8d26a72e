"""Block and mute over the API: the endpoints, what a blocked client is
refused, and the OpenAPI document that describes them."""

from __future__ import annotations

from pytest_django.fixtures import Settings

from feeds import services
from feeds.api import openapi
from feeds.types import User

from .helpers import Api, error


def test_block_and_unblock_are_idempotent_and_listed(as_alice: Api, bob: User) -> None:
    first = as_alice.put("/api/users/bob/block")
    assert first.status_code == 200
    assert first.json() == {"userid": "bob", "blocking": True, "changed": True}
    assert as_alice.put("/api/users/bob/block").json()["changed"] is False
    listed = as_alice.get("/api/blocks").json()
    assert [u["userid"] for u in listed["items"]] == ["bob"]
    assert listed["items"][0]["name"] == "Bob"
    gone = as_alice.delete("/api/users/bob/block").json()
    assert gone == {"userid": "bob", "blocking": False, "changed": True}
    assert as_alice.get("/api/blocks").json()["items"] == []


def test_a_blocked_client_is_refused_the_blockers_pages_and_follow(
    api: Api, as_alice: Api, as_bob: Api
) -> None:
    twit = services.post_twit("alice", "hello")
    as_alice.put("/api/users/bob/block")
    for path in (
        "/api/users/alice",
        "/api/users/alice/twits",
        "/api/users/alice/followers",
        "/api/users/alice/likes",
        f"/api/twits/{twit.id}",
        f"/api/twits/{twit.id}/replies",
    ):
        assert "@alice has blocked you" in error(as_bob.get(path), 403), path
        assert api.get(path).status_code == 200, path  # nobody signed in: public
    assert "blocked you" in error(as_bob.put("/api/follows/alice"), 403)
    assert "blocked you" in error(as_bob.put(f"/api/twits/{twit.id}/like"), 403)
    assert "blocked you" in error(as_bob.put(f"/api/twits/{twit.id}/repost"), 403)
    reply = as_bob.post("/api/twits", {"text": "hi", "reply_to": twit.id})
    assert "reply to them" in error(reply, 403)


def test_mute_hides_from_the_stream_and_is_listed(as_alice: Api, bob: User) -> None:
    as_alice.put("/api/follows/bob")
    services.post_twit("bob", "from bob")
    assert len(as_alice.get("/api/stream").json()["items"]) == 1
    assert as_alice.put("/api/users/bob/mute").json() == {
        "userid": "bob",
        "muting": True,
        "changed": True,
    }
    assert as_alice.get("/api/stream").json()["items"] == []
    assert [u["userid"] for u in as_alice.get("/api/mutes").json()["items"]] == ["bob"]
    assert as_alice.delete("/api/users/bob/mute").json()["muting"] is False
    assert len(as_alice.get("/api/stream").json()["items"]) == 1


def test_muted_words_go_by_url(as_alice: Api, bob: User) -> None:
    as_alice.put("/api/follows/bob")
    services.post_twit("bob", "a #tea party")
    services.post_twit("bob", "coffee")
    muted = as_alice.put("/api/mutes/words/%23Tea")
    assert muted.status_code == 200, muted.content
    assert muted.json() == {"word": "#Tea", "muting": True}
    assert as_alice.put("/api/mutes/words/football%20score").json()["word"] == "football score"
    assert as_alice.get("/api/mutes/words").json() == {"words": ["#Tea", "football score"]}
    assert [t["text"] for t in as_alice.get("/api/stream").json()["items"]] == ["coffee"]
    assert as_alice.delete("/api/mutes/words/%23tea").json() == {"word": "#tea", "muting": False}
    assert as_alice.get("/api/mutes/words").json() == {"words": ["football score"]}


def test_bad_requests_say_why(as_alice: Api, api: Api) -> None:
    assert "yourself" in error(as_alice.put("/api/users/alice/block"), 400)
    error(as_alice.put("/api/users/nobody/mute"), 404)
    error(as_alice.put("/api/users/bad-name!/block"), 400)
    error(as_alice.put(f"/api/mutes/words/{'x' * 51}"), 400)
    error(as_alice.put("/api/mutes/words/%23"), 400)
    error(api.put("/api/users/alice/block"), 401)
    error(api.get("/api/blocks"), 401)


def test_blocks_are_rate_limited(as_alice: Api, bob: User, settings: Settings) -> None:
    settings.TWITBASE_BLOCKS_PER_MINUTE = 2
    as_alice.put("/api/users/bob/block")
    as_alice.delete("/api/users/bob/block")
    refused = as_alice.put("/api/users/bob/mute")
    assert "2 times a minute" in error(refused, 429)
    assert int(refused["Retry-After"]) > 0


def test_the_document_describes_every_block_and_mute_operation() -> None:
    paths = openapi.PATHS
    ops = {
        (method.upper(), path): op
        for path, item in paths.items()
        for method, op in item.items()
        if "block" in path or "mute" in path
    }
    assert {(m, p) for m, p in ops} == {
        ("PUT", "/api/users/{userid}/block"),
        ("DELETE", "/api/users/{userid}/block"),
        ("PUT", "/api/users/{userid}/mute"),
        ("DELETE", "/api/users/{userid}/mute"),
        ("GET", "/api/blocks"),
        ("GET", "/api/mutes"),
        ("GET", "/api/mutes/words"),
        ("PUT", "/api/mutes/words/{word}"),
        ("DELETE", "/api/mutes/words/{word}"),
    }
    for op in ops.values():
        assert {str(code) for code in op["responses"]} >= {"200", "401"}
        assert op["security"]
