"""GET /api/search/twits: twits by their words, paged by cursor."""

from __future__ import annotations

from feeds import services
from feeds.types import User

from .helpers import Api, error


def test_twits_are_found_by_all_their_words(api: Api, alice: User, bob: User) -> None:
    services.post_twit("alice", "Tall narrow tables")
    services.post_twit("bob", "wide tables, #tall ones")
    services.post_twit("bob", "nothing here")
    got = api.get("/api/search/twits", q="TABLES tall", limit="1")
    assert got.status_code == 200
    first = got.json()
    assert [t["text"] for t in first["items"]] == ["wide tables, #tall ones"]
    rest = api.get("/api/search/twits", q="tables tall", cursor=first["next_cursor"]).json()
    assert [t["text"] for t in rest["items"]] == ["Tall narrow tables"]
    assert rest["next_cursor"] is None


def test_a_signed_in_reader_gets_flags_and_bad_queries_say_why(as_bob: Api, alice: User) -> None:
    twit = services.post_twit("alice", "liked words")
    services.like("bob", twit.id)
    [found] = as_bob.get("/api/search/twits", q="words").json()["items"]
    assert (found["id"], found["liked"], found["likes"]) == (twit.id, True, 1)
    assert "at least 2" in error(as_bob.get("/api/search/twits", q="a"), 400)
    error(as_bob.get("/api/search/twits"), 400)
