"""The lists API: /api/lists, /api/lists/{list_id}, its twits and members."""

from __future__ import annotations

from feeds import services
from feeds.services import blocking
from feeds.types import User

from .helpers import Api, error


def test_make_fill_read_and_delete_a_list(
    as_alice: Api, api: Api, bob: User, charlie: User
) -> None:
    made = as_alice.post("/api/lists", {"name": "Friends", "description": "close ones"})
    assert made.status_code == 201
    body = made.json()
    assert made["Location"] == f"/api/lists/{body['id']}"
    assert (body["owner"], body["name"], body["members"]) == ("alice", "Friends", 0)
    lid = body["id"]
    added = as_alice.put(f"/api/lists/{lid}/members/bob").json()
    assert added == {"list": lid, "userid": "bob", "member": True, "changed": True}
    assert as_alice.put(f"/api/lists/{lid}/members/bob").json()["changed"] is False
    as_alice.put(f"/api/lists/{lid}/members/charlie")
    services.post_twit("bob", "from bob")
    services.post_twit("alice", "not on the list")
    services.post_twit("charlie", "from charlie")
    page = api.get(f"/api/lists/{lid}/twits", limit="1").json()
    assert [t["text"] for t in page["items"]] == ["from charlie"]
    rest = api.get(f"/api/lists/{lid}/twits", cursor=page["next_cursor"]).json()
    assert [t["text"] for t in rest["items"]] == ["from bob"] and rest["next_cursor"] is None
    members = api.get(f"/api/lists/{lid}/members").json()["items"]
    assert sorted(m["userid"] for m in members) == ["bob", "charlie"]
    assert api.get(f"/api/lists/{lid}").json()["members"] == 2
    assert [x["id"] for x in as_alice.get("/api/lists").json()["items"]] == [lid]
    gone = as_alice.delete(f"/api/lists/{lid}/members/bob").json()
    assert gone == {"list": lid, "userid": "bob", "member": False, "changed": True}
    assert as_alice.delete(f"/api/lists/{lid}").status_code == 204
    error(api.get(f"/api/lists/{lid}"), 404)


def test_lists_refuse_bad_input_strangers_and_blocked_readers(
    as_alice: Api, as_bob: Api, api: Api
) -> None:
    error(as_alice.post("/api/lists", {"name": ""}), 400)
    error(as_alice.post("/api/lists", {"name": "x" * 51}), 400)
    error(api.post("/api/lists", {"name": "no token"}), 401)
    error(api.get("/api/lists"), 401)
    error(api.get(f"/api/lists/{'0' * 56}"), 404)
    error(api.get("/api/lists/junk"), 404)
    lid = as_alice.post("/api/lists", {"name": "Mine"}).json()["id"]
    error(as_bob.put(f"/api/lists/{lid}/members/bob"), 404)  # not bob's list
    error(as_bob.delete(f"/api/lists/{lid}"), 404)
    error(as_alice.put(f"/api/lists/{lid}/members/nobody"), 404)
    blocking.block("alice", "bob")
    assert "blocked you" in error(as_bob.get(f"/api/lists/{lid}/twits"), 403)
    error(as_alice.put(f"/api/lists/{lid}/members/bob"), 403)
