"""POST /api/password/reset with an ``email`` in place of the ``userid``
(issue 36, "forgot your userid?"): 202 whether or not the address has an
account; the link goes to the address for each account of it."""

from __future__ import annotations

from django.core import mail

from feeds.types import User

from .helpers import Api, error


def test_a_reset_asked_by_email_address(api: Api, alice: User) -> None:
    for email in ("nobody@example.com", "ALICE@example.com"):
        response = api.post("/api/password/reset", {"email": email})
        assert response.status_code == 202 and response.content == b""
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["alice@example.com"] and "@alice" in str(mail.outbox[0].body)


def test_a_reset_needs_a_userid_or_an_email_address(api: Api, alice: User) -> None:
    neither = api.post("/api/password/reset", {})
    error(neither, 400)
    assert neither.json()["field"] == "userid"
    not_one = api.post("/api/password/reset", {"email": "alice"})
    error(not_one, 400)
    assert not_one.json()["field"] == "email"
    error(api.post("/api/password/reset", {"email": 7}), 400)
    both = api.post("/api/password/reset", {"userid": "alice", "email": "alice@example.com"})
    error(both, 400)
    too_long = api.post("/api/password/reset", {"email": "a" * 250 + "@example.com"})
    error(too_long, 400)
    assert mail.outbox == []
