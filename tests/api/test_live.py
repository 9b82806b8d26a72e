"""GET /api/stream/new: how many twits arrived above the newest one a client
shows, for an "N new twits" banner."""

from __future__ import annotations

from .helpers import Api, error


def test_counts_new_twits_above_since_and_refuses_a_bad_since(as_alice: Api, as_bob: Api) -> None:
    assert as_alice.put("/api/follows/bob").status_code == 200
    assert as_alice.get("/api/stream/new").json() == {"count": 0, "more": False}
    shown = as_bob.post("/api/twits", {"text": "on the page"}).json()
    as_bob.post("/api/twits", {"text": "new"})
    as_bob.post("/api/twits", {"text": "newer"})
    as_alice.post("/api/twits", {"text": "my own is not news to me"})
    response = as_alice.get("/api/stream/new", since=shown["id"])
    assert response.status_code == 200, error(response)
    assert response.json() == {"count": 2, "more": False}
    assert as_alice.get("/api/stream/new", since="").json() == {"count": 3, "more": False}
    bad = as_alice.get("/api/stream/new", since="not-an-id")
    assert bad.status_code == 400
    assert bad.json()["field"] == "since"


def test_counting_needs_a_token(api: Api) -> None:
    assert api.get("/api/stream/new").status_code == 401
