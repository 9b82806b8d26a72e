"""The likes API: PUT/DELETE /api/twits/{id}/like (idempotent, the twit back)
and GET /api/users/{userid}/likes (newest like first, paged)."""

from __future__ import annotations

from .helpers import Api, error


def test_like_and_unlike_are_idempotent_and_list_the_likes(as_alice: Api, as_bob: Api) -> None:
    first = as_alice.post("/api/twits", {"text": "one"}).json()
    second = as_alice.post("/api/twits", {"text": "two"}).json()
    assert first["likes"] == 0
    for _ in range(2):
        response = as_bob.put(f"/api/twits/{first['id']}/like")
        assert response.status_code == 200
        assert response.json()["likes"] == 1
    as_bob.put(f"/api/twits/{second['id']}/like")

    page = as_alice.get("/api/users/bob/likes", limit="1").json()
    assert [t["text"] for t in page["items"]] == ["two"]
    rest = as_alice.get("/api/users/bob/likes", limit="1", cursor=page["next_cursor"]).json()
    assert [t["text"] for t in rest["items"]] == ["one"]
    assert rest["next_cursor"] is None

    for _ in range(2):
        response = as_bob.delete(f"/api/twits/{first['id']}/like")
        assert response.status_code == 200
        assert response.json()["likes"] == 0
    assert [t["text"] for t in as_alice.get("/api/users/bob/likes").json()["items"]] == ["two"]


def test_liking_no_twit_is_404(as_bob: Api) -> None:
    response = as_bob.put(f"/api/twits/{'0' * 56}/like")
    assert response.status_code == 404, error(response)
