"""POST /api/twits with an Idempotency-Key: a retry, or two at once, post
one twit; another key, or another user, posts another."""

from __future__ import annotations

import threading
import time

import pytest
from django.http import HttpResponse
from django.test import Client
from pytest_django.fixtures import Settings

from feeds import services
from feeds.api import openapi
from feeds.services import idempotency
from feeds.types import User
from storage import keys, rows
from storage.connection import connection, table_name

from .helpers import Api, error


def _post(api: Api, key: str, text: str = "posted once", **body: str) -> HttpResponse:
    return api.request(
        "POST",
        "/api/twits",
        {"text": text, **body},
        headers={"Authorization": f"Bearer {api.token}", "Idempotency-Key": key},
    )


def _texts(userid: str) -> list[str]:
    return [t.text for t in services.timeline(userid).items]


def test_a_retry_with_the_same_key_answers_with_the_first_twit(as_alice: Api) -> None:
    first = _post(as_alice, "k-1")
    again = _post(as_alice, "k-1")
    assert first.status_code == again.status_code == 201
    assert again.json()["id"] == first.json()["id"]
    assert again["Location"] == first["Location"]
    assert "Idempotent-Replayed" not in first and again["Idempotent-Replayed"] == "true"
    assert _texts("alice") == ["posted once"]
    # Another key is another twit; no key at all, as before, always a new one.
    assert _post(as_alice, "k-2").json()["id"] != first.json()["id"]
    as_alice.post("/api/twits", {"text": "posted once"})
    assert _texts("alice") == ["posted once"] * 3


def test_two_requests_at_once_with_one_key_make_one_twit(as_alice: Api) -> None:
    start = threading.Barrier(6)
    answers: list[HttpResponse] = []

    def send() -> None:
        start.wait()
        answers.append(_post(Api(Client(), as_alice.token), "same-key", "only one of me"))

    threads = [threading.Thread(target=send) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [a.status_code for a in answers] == [201] * 6
    assert len({a.json()["id"] for a in answers}) == 1
    assert sum("Idempotent-Replayed" not in a for a in answers) == 1
    assert _texts("alice") == ["only one of me"]
    assert services.get_user("alice").twits == 1


def test_the_key_is_per_user(as_alice: Api, as_bob: Api) -> None:
    mine = _post(as_alice, "shared-key").json()
    theirs = _post(as_bob, "shared-key").json()
    assert (mine["userid"], theirs["userid"]) == ("alice", "bob")
    assert mine["id"] != theirs["id"]


def test_a_key_sent_with_another_twit_or_malformed_is_refused(as_alice: Api) -> None:
    _post(as_alice, "k")
    response = _post(as_alice, "k", "something else")
    assert "another twit" in error(response, 400)
    assert response.json()["field"] == "Idempotency-Key"
    for bad in ("", "x" * 256, "caf\u00e9"):
        response = _post(as_alice, bad)
        assert response.status_code == 400, bad
    assert _texts("alice") == ["posted once"]


def test_a_refused_post_gives_its_key_back(as_alice: Api, settings: Settings) -> None:
    settings.TWITBASE_POSTS_PER_MINUTE = 1
    assert as_alice.post("/api/twits", {"text": "the minute's one"}).status_code == 201
    assert _post(as_alice, "later").status_code == 429
    settings.TWITBASE_POSTS_PER_MINUTE = 100
    assert _post(as_alice, "later").status_code == 201
    assert _texts("alice") == ["posted once", "the minute's one"]


def _claim(userid: str, key: str, text: str, age_s: float) -> bytes:
    """The claim a request that died ``age_s`` ago left: its twit's key."""
    twit_key = keys.twit_key(userid, int((time.time() - age_s) * 1000), keys.new_suffix())
    cell = rows.encode_idempotency_claim(twit_key, idempotency._fingerprint(text, None))
    with connection() as conn:
        conn.table(table_name("idempotency")).put(
            keys.idempotency_key(userid, key), {rows.IDEMPOTENCY_CLAIM: cell}
        )
    return twit_key


# The twit is written at its claim's time, before the test began.
@pytest.mark.fresh_tables
def test_a_retry_finishes_the_twit_of_a_request_that_died(as_alice: Api) -> None:
    # Died before writing its twit: the retry posts it, at the claimed key.
    twit_key = _claim("alice", "died", "posted once", idempotency.TAKEOVER_S + 1)
    response = _post(as_alice, "died")
    assert response.status_code == 201
    assert response.json()["id"] == keys.twit_id(twit_key)
    assert _post(as_alice, "died").json()["id"] == keys.twit_id(twit_key)
    assert _texts("alice") == ["posted once"]
    assert services.get_user("alice").twits == 1


def test_a_retry_while_the_first_is_posting_waits_then_says_so(
    as_alice: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(idempotency, "WAIT_S", 0.2)
    _claim("alice", "busy", "posted once", 0)
    response = _post(as_alice, "busy")
    assert "being posted" in error(response, 409)
    assert _texts("alice") == []


def test_the_key_of_a_deleted_twit_posts_nothing(as_alice: Api) -> None:
    twit = _post(as_alice, "gone").json()
    assert as_alice.delete(f"/api/twits/{twit['id']}").status_code == 204
    assert "deleted" in error(_post(as_alice, "gone"), 404)
    assert _texts("alice") == []


def test_the_header_is_in_the_openapi_document(alice: User) -> None:
    parameters = openapi.PATHS["/api/twits"]["post"]["parameters"]
    (header,) = [p for p in parameters if p["in"] == "header"]
    assert header["name"] == "Idempotency-Key" and not header.get("required")
    assert header["schema"]["maxLength"] == idempotency.MAX_LEN
    assert 409 in openapi.PATHS["/api/twits"]["post"]["responses"]
