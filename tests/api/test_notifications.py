"""The notifications API: GET /api/notifications (newest first, paged, each
item typed) and GET /api/notifications/unread (one count, cleared by reading
the first page)."""

from __future__ import annotations

from feeds import services
from feeds.types import User

from .helpers import Api, error


def test_notifications_are_listed_typed_and_paged(as_alice: Api, as_bob: Api) -> None:
    twit = as_alice.post("/api/twits", {"text": "hello"}).json()
    as_bob.put(f"/api/twits/{twit['id']}/like")
    as_bob.post("/api/twits", {"text": "yes", "reply_to": twit["id"]})
    as_bob.post("/api/twits", {"text": "hi @alice"})
    as_bob.put("/api/follows/alice")
    assert as_alice.get("/api/notifications/unread").json() == {"unread": 4}

    first = as_alice.get("/api/notifications", limit="3")
    assert first.status_code == 200, error(first)
    page = first.json()
    assert [n["type"] for n in page["items"]] == ["follow", "mention", "reply"]
    assert page["items"][0]["actors"] == [{"userid": "bob", "name": "Bob"}]
    assert page["items"][0]["twit_id"] is None
    assert page["items"][1]["text"] == "hi @alice"
    rest = as_alice.get("/api/notifications", limit="3", cursor=page["next_cursor"]).json()
    assert [(n["type"], n["count"], n["twit_id"]) for n in rest["items"]] == [
        ("like", 1, twit["id"])
    ]
    assert rest["next_cursor"] is None
    # The first page was read: nothing unread now.
    assert as_alice.get("/api/notifications/unread").json() == {"unread": 0}
    assert as_bob.get("/api/notifications").json() == {"items": [], "next_cursor": None}


def test_notifications_need_a_token_and_a_good_cursor(api: Api, as_alice: Api) -> None:
    assert api.get("/api/notifications").status_code == 401
    assert api.get("/api/notifications/unread").status_code == 401
    response = as_alice.get("/api/notifications", cursor="nonsense")
    assert response.status_code == 400, error(response)


def test_deleting_the_twit_takes_its_notification_away(as_alice: Api, as_bob: Api) -> None:
    twit = as_bob.post("/api/twits", {"text": "@alice look"}).json()
    assert [n["twit_id"] for n in as_alice.get("/api/notifications").json()["items"]] == [
        twit["id"]
    ]
    assert as_bob.delete(f"/api/twits/{twit['id']}").status_code == 204
    assert as_alice.get("/api/notifications").json()["items"] == []


def test_notifications_of_one_type(as_alice: Api, bob: User) -> None:
    services.post_twit("bob", "hi @alice")
    services.follow("bob", "alice")
    got = as_alice.get("/api/notifications", type="follow").json()
    assert [n["type"] for n in got["items"]] == ["follow"]
    assert as_alice.get("/api/notifications/unread").json() == {"unread": 2}
    assert "type" in error(as_alice.get("/api/notifications", type="nonsense"), 400)
