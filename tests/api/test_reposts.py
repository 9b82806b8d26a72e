"""The reposts API: PUT/DELETE /api/twits/{id}/repost (idempotent, the twit
back), ``reposted_by`` on stream items, and the reader's ``liked`` and
``reposted`` on every twit read when a bearer token is sent."""

from __future__ import annotations

from typing import Any

from feeds.types import User

from .helpers import Api, error
from .test_round_trips import Calls, calls  # noqa: F401 (a fixture)


def _stream(api: Api) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = api.get("/api/stream").json()["items"]
    return items


def test_repost_and_unrepost_are_idempotent_and_reach_the_stream(
    api: Api, as_alice: Api, as_bob: Api, charlie: User
) -> None:
    as_charlie = api.login("charlie")
    assert as_charlie.put("/api/follows/bob").status_code == 200
    twit = as_alice.post("/api/twits", {"text": "share me"}).json()
    assert (twit["reposts"], twit["reposted"], twit["liked"]) == (0, False, False)
    for _ in range(2):
        response = as_bob.put(f"/api/twits/{twit['id']}/repost")
        assert response.status_code == 200, error(response, 200)
        assert (response.json()["reposts"], response.json()["reposted"]) == (1, True)
    items = _stream(as_charlie)
    assert [(t["id"], t["reposted_by"], t["reposts"]) for t in items] == [(twit["id"], "bob", 1)]
    assert items[0]["reposted"] is False
    for _ in range(2):
        response = as_bob.delete(f"/api/twits/{twit['id']}/repost")
        assert response.status_code == 200
        assert (response.json()["reposts"], response.json()["reposted"]) == (0, False)
    assert _stream(as_charlie) == []


def test_reposting_your_own_twit_is_403_and_no_twit_is_404(as_alice: Api) -> None:
    twit = as_alice.post("/api/twits", {"text": "mine"}).json()
    response = as_alice.put(f"/api/twits/{twit['id']}/repost")
    assert response.status_code == 403, error(response, 403)
    assert "own" in response.json()["error"]
    assert as_alice.delete(f"/api/twits/{twit['id']}/repost").json()["reposts"] == 0
    response = as_alice.put(f"/api/twits/{'0' * 56}/repost")
    assert response.status_code == 404, error(response, 404)


def test_twit_reads_carry_the_readers_flags_when_signed_in(
    api: Api, as_alice: Api, as_bob: Api
) -> None:
    anon = api
    twit = as_alice.post("/api/twits", {"text": "flag me"}).json()
    as_bob.put(f"/api/twits/{twit['id']}/like")
    as_bob.put(f"/api/twits/{twit['id']}/repost")
    reads = [
        f"/api/twits/{twit['id']}",
        "/api/users/alice/twits",
        "/api/users/bob/likes",
    ]
    for path in reads:
        body = as_bob.get(path).json()
        got = body["items"][0] if "items" in body else body
        assert (got["liked"], got["reposted"], got["likes"], got["reposts"]) == (
            True,
            True,
            1,
            1,
        ), path
        body = anon.get(path).json()
        got = body["items"][0] if "items" in body else body
        assert (got["liked"], got["reposted"]) == (None, None), path
    reply = as_bob.post("/api/twits", {"text": "a reply", "reply_to": twit["id"]}).json()
    as_alice.put(f"/api/twits/{reply['id']}/like")
    replies = as_alice.get(f"/api/twits/{twit['id']}/replies").json()["items"]
    assert [(r["liked"], r["reposted"]) for r in replies] == [(True, False)]


def test_a_page_reads_each_flag_once(
    as_alice: Api,
    as_bob: Api,
    calls: Calls,  # noqa: F811 (the fixture imported above)
) -> None:
    """The reader's liked/reposted cost one multi-get each per page, however
    many twits it holds."""
    for i in range(5):
        as_alice.post("/api/twits", {"text": f"twit {i}"})
    assert as_bob.put("/api/follows/alice").status_code == 200
    for path in ("/api/stream", "/api/users/alice/twits"):
        calls.made.clear()
        assert len(as_bob.get(path).json()["items"]) >= 5
        assert (calls.reads_of("likers"), calls.reads_of("reposters")) == (1, 1), path
