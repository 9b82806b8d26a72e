"""GET /api/conversations, GET/POST /api/conversations/{userid} and
GET /api/messages/unread."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from feeds.services import blocking
from feeds.types import User
from tests.helpers import register

from .helpers import Api, error


def send(api: Api, userid: str, text: str, key: str | None = None) -> object:
    headers = {"Authorization": f"Bearer {api.token}"}
    if key is not None:
        headers["Idempotency-Key"] = key
    return api.request("POST", f"/api/conversations/{userid}", {"text": text}, headers=headers)


def test_send_read_and_count_unread(as_alice: Api, as_bob: Api) -> None:
    first = send(as_alice, "bob", "hello bob")
    assert first.status_code == 201
    assert first["Location"] == "/api/conversations/bob"
    body = first.json()
    assert (body["userid"], body["text"]) == ("alice", "hello bob")
    send(as_alice, "bob", "are you there?")
    assert as_bob.get("/api/messages/unread").json() == {"unread": 2}
    inbox = as_bob.get("/api/conversations").json()
    assert inbox["next_cursor"] is None
    [row] = inbox["items"]
    assert (row["userid"], row["name"], row["last_from"], row["text"], row["unread"]) == (
        "alice",
        "Alice",
        "alice",
        "are you there?",
        2,
    )
    page = as_bob.get("/api/conversations/alice", limit="1").json()
    assert [m["text"] for m in page["items"]] == ["are you there?"]
    rest = as_bob.get("/api/conversations/alice", cursor=page["next_cursor"]).json()
    assert [m["text"] for m in rest["items"]] == ["hello bob"] and rest["next_cursor"] is None
    assert as_bob.get("/api/messages/unread").json() == {"unread": 0}
    assert as_alice.get("/api/messages/unread").json() == {"unread": 0}


def test_a_user_called_unread_is_messaged_and_read_like_any_other(api: Api, as_alice: Api) -> None:
    """No literal path shadows a userid: the unread count has its own."""
    register("unread")
    sent = send(as_alice, "unread", "hello, unread")
    assert sent.status_code == 201, sent.content
    as_unread = api.login("unread")
    assert as_unread.get("/api/messages/unread").json() == {"unread": 1}
    page = as_unread.get("/api/conversations/alice").json()
    assert [m["text"] for m in page["items"]] == ["hello, unread"]
    mine = as_alice.get("/api/conversations/unread").json()
    assert [m["text"] for m in mine["items"]] == ["hello, unread"]


def test_refusals_are_json_and_send_nothing(api: Api, as_alice: Api, as_bob: Api) -> None:
    error(api.get("/api/conversations"), 401)
    error(api.request("POST", "/api/conversations/bob", {"text": "x"}), 401)
    assert error(send(as_alice, "nobody", "hi"), 404)
    assert "at most 280" in error(send(as_alice, "bob", "x" * 281), 400)
    assert error(send(as_alice, "alice", "me"), 400)
    blocking.block("bob", "alice")
    assert "@bob has blocked you" in error(send(as_alice, "bob", "hi"), 403)
    assert "You have blocked @alice" in error(send(as_bob, "alice", "hi"), 403)
    assert as_bob.get("/api/conversations").json()["items"] == []
    assert error(as_alice.get("/api/conversations/alice"), 404)  # oneself: no conversation
    response = as_alice.get("/api/conversations/bob", cursor="garbage")
    assert "invalid cursor" in error(response, 400) and response.json()["field"] == "cursor"


def test_an_idempotency_key_sends_one_message_however_often_sent(
    as_alice: Api, as_bob: Api, bob: User
) -> None:
    def once(_: int) -> object:
        return send(as_alice, "bob", "only once", key="k-1")

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(once, range(4)))
    assert {a.status_code for a in answers} <= {201, 409}
    ids = {a.json()["id"] for a in answers if a.status_code == 201}
    assert len(ids) == 1
    again = send(as_alice, "bob", "only once", key="k-1")
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert [m["text"] for m in as_bob.get("/api/conversations/alice").json()["items"]] == [
        "only once"
    ]
    assert "another message" in error(send(as_alice, "bob", "other text", key="k-1"), 400)
