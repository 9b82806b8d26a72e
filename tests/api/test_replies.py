"""Replies through the JSON API: POST /api/twits with reply_to, and
GET /api/twits/{id}/replies."""

from __future__ import annotations

import pytest

from feeds import services
from feeds.types import User

from .helpers import Api, error


def test_a_reply_names_its_parent_and_is_listed_oldest_first(as_alice: Api, as_bob: Api) -> None:
    parent = as_alice.post("/api/twits", {"text": "question"}).json()
    assert (parent["reply_to"], parent["reply_userid"], parent["replies"]) == (None, None, 0)
    posted = []
    for i in range(3):
        response = as_bob.post("/api/twits", {"text": f"answer {i}", "reply_to": parent["id"]})
        assert response.status_code == 201
        posted.append(response.json())
    assert posted[0]["reply_to"] == parent["id"]
    assert posted[0]["reply_userid"] == "alice"
    assert as_bob.get(f"/api/twits/{parent['id']}").json()["replies"] == 3

    first = as_bob.get(f"/api/twits/{parent['id']}/replies", limit="2").json()
    assert [t["text"] for t in first["items"]] == ["answer 0", "answer 1"]
    rest = as_bob.get(
        f"/api/twits/{parent['id']}/replies", limit="2", cursor=first["next_cursor"]
    ).json()
    assert [t["text"] for t in rest["items"]] == ["answer 2"]
    assert rest["next_cursor"] is None
    assert first["items"][0] == posted[0]


@pytest.mark.parametrize("reply_to", ["0" * 56, "nope", "", "deleted"])
def test_a_reply_to_no_twit_is_400_naming_reply_to(
    as_alice: Api, as_bob: Api, reply_to: str
) -> None:
    if reply_to == "deleted":
        gone = as_alice.post("/api/twits", {"text": "soon gone"}).json()["id"]
        assert as_alice.delete(f"/api/twits/{gone}").status_code == 204
        reply_to = gone
    response = as_bob.post("/api/twits", {"text": "hello?", "reply_to": reply_to})
    error(response, 400)
    assert response.json()["field"] == "reply_to"
    assert services.get_user("bob").twits == 0


@pytest.mark.parametrize("reply_to", [42, ["x"], {"id": "x"}])
def test_a_reply_to_that_is_no_string_is_refused(as_bob: Api, reply_to: object) -> None:
    error(as_bob.post("/api/twits", {"text": "hello?", "reply_to": reply_to}), 400)
    assert services.get_user("bob").twits == 0


def test_replies_of_a_missing_twit_are_404(api: Api, alice: User) -> None:
    error(api.get(f"/api/twits/{'0' * 56}/replies"), 404)
    error(api.get("/api/twits/nope/replies"), 404)


def test_deleting_the_parent_leaves_the_reply_readable(as_alice: Api, as_bob: Api) -> None:
    parent = as_alice.post("/api/twits", {"text": "parent"}).json()
    reply = as_bob.post("/api/twits", {"text": "child", "reply_to": parent["id"]}).json()
    assert as_alice.delete(f"/api/twits/{parent['id']}").status_code == 204
    got = as_bob.get(f"/api/twits/{reply['id']}").json()
    assert got["reply_to"] == parent["id"]
    error(as_bob.get(f"/api/twits/{parent['id']}"), 404)
    error(as_bob.get(f"/api/twits/{parent['id']}/replies"), 404)
