"""The hashtag and search API: GET /api/tags/{tag} (newest first, paged, any
case) and GET /api/search/users?q= (profiles, paged); bad input is a JSON 400
naming the parameter."""

from __future__ import annotations

import pytest

from feeds.types import User

from .helpers import Api, error


def test_a_tags_twits_newest_first_in_pages(as_alice: Api, api: Api) -> None:
    for text in ("one #HBase", "two #hbase", "three #hbase #other", "no tag"):
        assert as_alice.post("/api/twits", {"text": text}).status_code == 201
    page = api.get("/api/tags/HBASE", limit="2").json()
    assert [t["text"] for t in page["items"]] == ["three #hbase #other", "two #hbase"]
    rest = api.get("/api/tags/hbase", limit="2", cursor=page["next_cursor"]).json()
    assert [t["text"] for t in rest["items"]] == ["one #HBase"]
    assert rest["next_cursor"] is None
    assert api.get("/api/tags/nothing").json() == {"items": [], "next_cursor": None}


def test_a_deleted_twit_leaves_its_tag(as_alice: Api, api: Api) -> None:
    twit = as_alice.post("/api/twits", {"text": "gone #soon"}).json()
    assert as_alice.delete(f"/api/twits/{twit['id']}").status_code == 204
    assert api.get("/api/tags/soon").json()["items"] == []


@pytest.mark.parametrize("bad", ["not%20a%20tag", "123", "a-b", "x" * 301])
def test_a_bad_tag_is_a_400_naming_tag(api: Api, alice: User, bad: str) -> None:
    response = api.get(f"/api/tags/{bad}")
    assert error(response, 400)
    assert response.json()["field"] == "tag"


def test_search_finds_profiles_by_userid_or_name(as_alice: Api, api: Api, bob: User) -> None:
    as_alice.request("PATCH", "/api/users/me", {"name": "Wonderland Alice"})
    page = api.get("/api/search/users", q="WONDER").json()
    assert [u["userid"] for u in page["items"]] == ["alice"]
    assert page["items"][0]["name"] == "Wonderland Alice"
    assert {"twits", "followers", "following", "bio", "created"} <= page["items"][0].keys()
    assert [u["userid"] for u in api.get("/api/search/users", q="@bo").json()["items"]] == ["bob"]
    first = api.get("/api/search/users", q="a", limit="1").json()
    assert len(first["items"]) == 1


@pytest.mark.parametrize("query", [{}, {"q": ""}, {"q": "x" * 51}, {"q": "a\x01"}])
def test_a_bad_query_is_a_400_naming_q(api: Api, alice: User, query: dict[str, str]) -> None:
    response = api.get("/api/search/users", **query)
    assert error(response, 400)
    assert response.json()["field"] == "q"


def test_a_tag_in_any_script_and_spelling(as_alice: Api, api: Api) -> None:
    as_alice.post("/api/twits", {"text": "お茶 #日本 and #Straße"})
    assert len(api.get("/api/tags/%E6%97%A5%E6%9C%AC").json()["items"]) == 1
    assert len(api.get("/api/tags/STRASSE").json()["items"]) == 1
