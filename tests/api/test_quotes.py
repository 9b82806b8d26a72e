"""Quotes over the API: POST /api/twits with ``quote_of``, the ``quoted``
card and ``quotes`` count on twits, GET /api/twits/{id}/quotes."""

from __future__ import annotations

from feeds import services
from feeds.services import blocking
from feeds.types import User

from .helpers import Api, error


def test_quote_a_twit_then_list_its_quotes_with_cards(as_bob: Api, as_alice: Api) -> None:
    quoted = services.post_twit("alice", "quotable")
    posted = as_bob.post("/api/twits", {"text": "well said", "quote_of": quoted.id})
    assert posted.status_code == 201, posted.content
    body = posted.json()
    assert body["quote_of"] == quoted.id and body["text"] == "well said"
    page = as_alice.get(f"/api/twits/{quoted.id}/quotes").json()
    assert [t["id"] for t in page["items"]] == [body["id"]]
    assert page["next_cursor"] is None
    assert page["items"][0]["quoted"] == {
        "id": quoted.id,
        "state": "shown",
        "userid": "alice",
        "name": services.get_user("alice").name,
        "text": "quotable",
    }
    assert as_alice.get(f"/api/twits/{quoted.id}").json()["quotes"] == 1
    # The card comes with the quote wherever it is listed: its author's timeline.
    mine = as_alice.get("/api/users/bob/twits").json()["items"]
    assert mine[0]["quoted"]["state"] == "shown"
    services.delete_twit("alice", quoted.id)
    mine = as_alice.get("/api/users/bob/twits").json()["items"]
    assert mine[0]["quoted"] == {
        "id": quoted.id,
        "state": "deleted",
        "userid": "",
        "name": "",
        "text": "",
    }


def test_a_quote_of_a_missing_or_blocked_twit_is_a_clear_error(as_bob: Api, alice: User) -> None:
    gone = services.post_twit("alice", "gone soon")
    services.delete_twit("alice", gone.id)
    message = error(as_bob.post("/api/twits", {"text": "x", "quote_of": gone.id}), 404)
    assert "twit you quote does not exist" in message
    error(as_bob.post("/api/twits", {"text": "x", "quote_of": "zz"}), 404)
    error(as_bob.post("/api/twits", {"text": "x", "quote_of": 7}), 400)
    kept = services.post_twit("alice", "not for bob")
    blocking.block("alice", "bob")
    message = error(as_bob.post("/api/twits", {"text": "x", "quote_of": kept.id}), 403)
    assert "quote them" in message
    assert services.get_user("bob").twits == 0
    error(as_bob.get(f"/api/twits/{kept.id}/quotes"), 403)
    error(as_bob.get(f"/api/twits/{'0' * 56}/quotes"), 404)
