"""The reset form takes an email address for who forgot their userid
(issue 36): the same page answers, and the link arrives over SMTP at that
address, naming the userid."""

from __future__ import annotations

from django.test import Client

from feeds import services
from feeds.types import User
from tests.helpers import PASSWORD
from tests.smtp import Inbox, body

from .test_recovery_pages import emailed_link, smtp

__all__ = ["smtp"]  # the fixture, used here by name

NEW_PASSWORD = "a-brand-new-secret-9"


def test_the_form_takes_an_email_address_and_the_link_names_the_userid(
    alice: User, smtp: Inbox
) -> None:
    form = Client().get("/password/reset").content.decode()
    assert "Userid or email address" in form and "Forgot your userid?" in form
    known = Client().post("/password/reset", {"userid": "Alice@Example.com"})
    unknown = Client().post("/password/reset", {"userid": "nobody@example.com"})
    assert known.status_code == unknown.status_code == 200
    assert known.content == unknown.content
    message = smtp.wait_for(1)[0]
    assert message["X-Rcpt-To"] == "alice@example.com"
    assert "@alice" in body(message)
    link = emailed_link(smtp)
    done = Client().post(link, {"new_password": NEW_PASSWORD})
    assert done.status_code == 302
    assert services.authenticate("alice", NEW_PASSWORD) is not None
    assert services.authenticate("alice", PASSWORD) is None
    assert len(smtp.messages) == 1


def test_an_address_that_cannot_be_one_is_shown_on_the_field(alice: User, smtp: Inbox) -> None:
    response = Client().post("/password/reset", {"userid": "alice@"})
    assert response.status_code == 400
    assert "Enter your userid, or the email address of your account." in response.content.decode()
    assert smtp.messages == []
